"""The action codec: one flat ``Discrete(n)`` index <-> a :class:`rules.Action`, for the
units of one scenario.

The index layout (one block per action kind, what each parameter encodes, the overflow
slots of split stacks) is :mod:`env.action_layout`'s; its names are re-exported here.
The encoding is injective for a given actor, and every legal action of every unit has an
index (``ActionCodec.mask`` raises :class:`EncodingError` otherwise; the fuzz tests check
it on every shipped scenario).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

import rules
from env.action_layout import _FIELD as _FIELD
from env.action_layout import _KING_INDEX as _KING_INDEX
from env.action_layout import ITEM_CATEGORIES as ITEM_CATEGORIES
from env.action_layout import KING as KING
from env.action_layout import LAYOUT as LAYOUT
from env.action_layout import Block as Block
from env.action_layout import BlockLayout as BlockLayout
from env.action_layout import Param as Param
from env.action_layout import Square as Square
from env.action_layout import _item_categories as _item_categories
from rules import Action, ActionKind, Battle, Combatant

K = ActionKind


#: How many (actor, square) index tables a codec keeps (``ActionCodec._known_indices``).
_KNOWN_SQUARES = 512
#: How many actions one such table holds before it starts afresh.
_KNOWN_ACTIONS = 1024


class EncodingError(rules.FrayError):
    """A legal action has no index, or two legal actions share one (a codec bug)."""


class ActionCodec(BlockLayout):
    """Flat index <-> :class:`rules.Action` for the units of one scenario.

    Build it from a freshly started battle (``ActionCodec(battle)``): it reads the
    scenario's map, the units (slots) and their starting inventories and spell lists.
    """

    def __init__(self, battle: Battle) -> None:
        content = battle.content
        grid = battle.grid
        self.width, self.height = grid.width, grid.height
        self.unit_ids: tuple[str, ...] = tuple(u.id for u in battle.scenario.units)
        self.slot_of = {cid: i for i, cid in enumerate(self.unit_ids)}
        self.n_units = len(self.unit_ids)
        units = [battle.combatants[cid] for cid in self.unit_ids]

        # ---- squares: the largest move of any body (S17, H22), every step costs >= 1
        mv = content.ruleset.movement
        step_min = min(min(mv.diagonal_costs), 1)
        max_mov = max(max(content.races[c.race].mov, mv.min_mov, c.mov) for c in units)
        if step_min >= 1:
            full_r = max_mov
            move_r = max_mov // mv.move_divisor
        else:  # a free step would make any square reachable: cover the whole map
            full_r = move_r = max(self.width, self.height)
        self.move_radius = move_r
        self.full_move_radius = full_r
        #: the window radius of each square parameter
        self._square_radius = {"square:move": move_r, "square:full": full_r}

        # ---- items: every uid of the battle, by category, each actor's own first, then
        # overflow slots for items split off a stack later (a thrown javelin of a pair)
        self.item_ids: list[str] = []
        owner: dict[str, str] = {}
        self._cats: dict[str, set[str]] = {}
        splits: dict[str, int] = {}
        for c in units:
            for inst in c.inventory:
                self.item_ids.append(inst.uid)
                owner[inst.uid] = c.id
                self._cats[inst.uid] = _item_categories(content, inst.item)
                w = content.weapons.get(inst.item)
                if w is not None and w.thrown and inst.count > 1:
                    splits[inst.uid] = inst.count - 1
        for inst in battle.ground:  # nothing starts on the ground today; stay general
            self.item_ids.append(inst.uid)
            self._cats[inst.uid] = _item_categories(content, inst.item)
        #: origin uid -> how many items can split off it (H16/H21: one thrown at a time)
        self.split_capacity = splits
        self._item_list: dict[str, dict[str, tuple[str, ...]]] = {}
        self._item_index: dict[str, dict[str, dict[str, int]]] = {}
        self._overflow: dict[str, tuple[tuple[str, int], ...]] = {}
        self._overflow_index: dict[str, dict[tuple[str, int], int]] = {}
        self.item_counts: dict[str, int] = {}
        for cat in ITEM_CATEGORIES:
            members = [u for u in self.item_ids if cat in self._cats[u]]
            overflow = tuple((u, r) for u in members for r in range(splits.get(u, 0)))
            self.item_counts[cat] = len(members) + len(overflow)
            lists, index = {}, {}
            for c in units:
                own = [u for u in members if owner.get(u) == c.id]
                rest = [u for u in members if owner.get(u) != c.id]
                lst = tuple(own + rest)
                lists[c.id] = lst
                index[c.id] = {u: i for i, u in enumerate(lst)}
            self._item_list[cat] = lists
            self._item_index[cat] = index
            self._overflow[cat] = overflow
            self._overflow_index[cat] = {o: len(members) + i for i, o in enumerate(overflow)}

        # ---- spells: index into the actor's own list
        self.spells_of = {c.id: tuple(c.spells) for c in units}
        self.max_spells = max((len(s) for s in self.spells_of.values()), default=0)

        # ---- the blocks, in ActionKind order
        n, N = 0, self.n_units
        self._param_sizes: dict[str, int] = {
            "target": N, "target|none": N + 1, "adjacent": 8, "dodge": 9,
            "square:move": self._window_size(move_r),
            "square:full": self._window_size(full_r),
            "spell": self.max_spells,
            **{f"item:{cat}": self.item_counts[cat] for cat in ITEM_CATEGORIES},
        }
        self.blocks: dict[ActionKind, Block] = {}
        for kind in ActionKind:
            params = tuple(Param(p, self._param_sizes[p]) for p in LAYOUT[kind])
            block = Block(kind, n, params)
            self.blocks[kind] = block
            n += block.size
        self.n = n
        self._starts = np.array([b.offset for b in self.blocks.values()])
        self._kinds = list(self.blocks)
        # ---- index tables for encoding, precomputed once per scenario: the square
        # windows as offset -> index, each actor's spells, one encoder per parameter
        self._windows = {r: self._window_table(r) for r in {move_r, full_r}}
        self._spell_index = {cid: {} for cid in self.spells_of}
        for cid, spells in self.spells_of.items():
            for i, spell in enumerate(spells):
                self._spell_index[cid].setdefault(spell, i)
        encoders = self._encoders()
        #: kinds whose one parameter is a square relative to the actor (moves, shifts,
        #: doors): kind -> (block offset, (dx, dy) -> index), for ``legal_by_index``
        self._by_square: dict[ActionKind, tuple[int, dict[tuple[int, int], int]]] = {}
        for kind, b in self.blocks.items():
            names = [p.name for p in b.params]
            if names in (["square:move"], ["square:full"], ["adjacent"]):
                table = (_KING_INDEX if names == ["adjacent"]
                         else self._windows[self._square_radius[names[0]]])
                self._by_square[kind] = (b.offset, table)
        #: (actor id, square) -> {id(action): (action, index)} (``_known_indices``)
        self._known: OrderedDict[tuple[str, Square], dict[int, tuple[Action, int]]] = (
            OrderedDict())
        self._enc_plan: dict[ActionKind, tuple[int, tuple[tuple[_Encoder, int], ...],
                                               tuple[str, ...]]] = {}
        for kind, b in self.blocks.items():
            carried = {_FIELD[p.name] for p in b.params}
            self._enc_plan[kind] = (
                b.offset, tuple((encoders[p.name], p.size) for p in b.params),
                tuple(f for f in ("target", "square", "item") if f not in carried))

    # ------------------------------------------------------------ one parameter
    def split_items(self, battle: Battle) -> dict[str, tuple[str, int]]:
        """Items split off a stack so far: uid -> (origin uid, rank among the origin's
        splits, oldest first). The engine names a split ``<origin>.<n>`` with a fresh
        ``n`` (rules.effects), so ranks never change once given."""
        found: dict[str, list[tuple[int, str]]] = {}
        known = self._cats
        for inst in _all_items(battle):
            if inst.uid in known:
                continue
            origin, _, n = inst.uid.rpartition(".")
            if origin in self.split_capacity and n.isdigit():
                found.setdefault(origin, []).append((int(n), inst.uid))
        out = {}
        for origin, lst in found.items():
            for rank, (_, uid) in enumerate(sorted(lst)):
                out[uid] = (origin, rank)
        return out

    def _encoders(self) -> dict[str, _Encoder]:
        """Parameter name -> ``encoder(combatant, action, context)``: the parameter's index
        for that actor, or None if the action has none."""
        slot_of, n_units = self.slot_of, self.n_units

        def target(combatant: Combatant, action: Action, ctx: _Context) -> int | None:
            return slot_of.get(action.target) if action.target is not None else None

        def target_or_none(combatant: Combatant, action: Action, ctx: _Context) -> int | None:
            return n_units if action.target is None else slot_of.get(action.target)

        def adjacent(combatant: Combatant, action: Action, ctx: _Context) -> int | None:
            if action.square is None:
                return None
            return _KING_INDEX.get(
                (action.square[0] - combatant.position[0], action.square[1] - combatant.position[1])
            )

        def dodge(combatant: Combatant, action: Action, ctx: _Context) -> int | None:
            if action.square is None:
                return 8
            return _KING_INDEX.get(
                (action.square[0] - combatant.position[0], action.square[1] - combatant.position[1])
            )

        def window(radius: int) -> _Encoder:
            table = self._windows[radius]

            def square(combatant: Combatant, action: Action, ctx: _Context) -> int | None:
                if action.square is None:
                    return None
                return table.get(
                    (
                        action.square[0] - combatant.position[0],
                        action.square[1] - combatant.position[1],
                    )
                )

            return square

        def spell(combatant: Combatant, action: Action, ctx: _Context) -> int | None:
            return self._spell_index.get(combatant.id, {}).get(action.item)

        def item(cat: str) -> _Encoder:
            index, overflow = self._item_index[cat], self._overflow_index[cat]

            def encode(combatant: Combatant, action: Action, ctx: _Context) -> int | None:
                i = index[combatant.id].get(action.item or "")
                if i is None and action.item is not None:
                    split = ctx.splits().get(action.item)
                    if split is not None:
                        i = overflow.get(split)
                return i

            return encode

        return {"target": target, "target|none": target_or_none, "adjacent": adjacent,
                "dodge": dodge, **{p: window(r) for p, r in self._square_radius.items()},
                "spell": spell,
                **{f"item:{cat}": item(cat) for cat in ITEM_CATEGORIES}}

    def _dec_param(
        self, parameter: str, combatant: Combatant, index: int, ctx: _Context
    ) -> dict[str, Any] | None:
        if parameter == "target":
            return {"target": self.unit_ids[index]}
        if parameter == "target|none":
            return {"target": None if index == self.n_units else self.unit_ids[index]}
        if parameter in ("adjacent", "dodge"):
            if index == 8:
                return {"square": None}
            sq = (combatant.position[0] + KING[index][0], combatant.position[1] + KING[index][1])
            ok = 0 <= sq[0] < self.width and 0 <= sq[1] < self.height
            return {"square": sq} if ok else None
        if parameter in ("square:move", "square:full"):
            sq = self._dec_square(self._square_radius[parameter], combatant.position, index)
            return None if sq is None else {"square": sq}
        if parameter == "spell":
            spells = self.spells_of.get(combatant.id, ())
            return {"item": spells[index]} if index < len(spells) else None
        cat = parameter.split(":", 1)[1]
        static = self._item_list[cat][combatant.id]
        if index < len(static):
            return {"item": static[index]}
        want = self._overflow[cat][index - len(static)]
        for uid, split in ctx.splits().items():
            if split == want:
                return {"item": uid}
        return None

    # ------------------------------------------------------------ public
    def encode(self, battle: Battle, actor: str, action: Action) -> int | None:
        """The index of ``action`` for ``actor``, or None if it has none."""
        return self._encode(battle.combatants[actor], action, _Context(self, battle))

    def _encode(self, combatant: Combatant, action: Action, ctx: _Context) -> int | None:
        offset, params, absent = self._enc_plan[action.kind]
        # Parameters the layout does not carry must be absent, or the index would not
        # stand for exactly this action.
        for f in absent:
            if getattr(action, f) is not None:
                return None
        index = 0
        for encoder, size in params:
            i = encoder(combatant, action, ctx)
            if i is None:
                return None
            index = index * size + i
        return offset + index

    def decode(self, battle: Battle, actor: str, index: int) -> Action | None:
        """The action at ``index`` for ``actor``; None where the index names nothing
        (a square off the map, a spell slot the actor does not have)."""
        block = self.block_of(index)
        rest = index - block.offset
        c = battle.combatants[actor]
        ctx = _Context(self, battle)
        fields: dict[str, Any] = {}
        for p in reversed(block.params):
            rest, i = divmod(rest, p.size)
            got = self._dec_param(p.name, c, i, ctx)
            if got is None:
                return None
            fields.update(got)
        return Action(block.kind, **fields)

    def legal_by_index(self, battle: Battle) -> dict[int, Action]:
        """``battle.legal_actions()`` by their indices, in order; raises EncodingError if
        one has no index or two share one. ``decode`` of an index gives an action equal to
        the one listed here; an env applies the listed object itself, which the battle
        recognises as one of its own legal actions without checking it again."""
        d = battle.decision
        if d is None:
            return {}
        out: dict[int, Action] = {}
        c = battle.combatants[d.actor]
        x, y = c.position
        by_square = self._by_square
        known = self._known_indices(c)
        static_items = self._cats
        ctx: _Context | None = None
        for a in battle.legal_actions():
            plan = by_square.get(a.kind)
            square = a.square
            if plan is not None and square is not None and a.target is None \
                    and a.item is None:  # what _encode does for these kinds, inline
                i = plan[1].get((square[0] - x, square[1] - y))
                if i is None:
                    raise _no_index(battle, d.actor, a)
                i += plan[0]
            elif (hit := known.get(id(a))) is not None and hit[0] is a:
                i = hit[1]
            else:
                if ctx is None:
                    ctx = _Context(self, battle)
                i = self._encode(c, a, ctx)
                if i is None:
                    raise _no_index(battle, d.actor, a)
                # a split-off item's slot depends on the battle's splits: not kept
                if a.item is None or a.item in static_items or a.kind is K.CAST_SPELL:
                    known[id(a)] = (a, i)
            if i in out:
                raise EncodingError(f"legal action {a} of {d.actor} shares index {i}")
            out[i] = a
        return out

    def _known_indices(self, combatant: Combatant) -> dict[int, tuple[Action, int]]:
        """The indices found so far for ``combatant`` on its square, by the id of the action
        object (legal actions are shared objects, rules.legal): an index depends only on
        the action, the actor and the actor's square (static item and spell slots aside
        from split-off items, which are not kept). Each entry holds its action, so its id
        is not reused while the entry lives; the least recently used squares go first."""
        key = (combatant.id, combatant.position)
        known = self._known.get(key)
        if known is None:
            if len(self._known) >= _KNOWN_SQUARES:
                del self._known[next(iter(self._known))]
            known = self._known[key] = {}
        else:
            self._known.move_to_end(key)
            if len(known) > _KNOWN_ACTIONS:  # actions built afresh each time pile up
                known.clear()
        return known

    def legal_indices(self, battle: Battle) -> list[int]:
        """Indices of ``battle.legal_actions()`` in order; raises EncodingError if one
        has no index or two share one."""
        return list(self.legal_by_index(battle))

    def mask(self, battle: Battle) -> np.ndarray:
        """int8 mask over the ``n`` indices: 1 exactly for the legal actions."""
        return self.mask_of(self.legal_indices(battle))

    def mask_of(self, indices: Iterable[int]) -> np.ndarray:
        """int8 mask over the ``n`` indices: 1 exactly at ``indices``."""
        m = np.zeros(self.n, dtype=np.int8)
        idx = list(indices)
        if idx:
            m[idx] = 1
        return m


def _no_index(battle: Battle, actor: str, action: Action) -> EncodingError:
    """The error for a legal action without an index (a codec bug)."""
    return EncodingError(f"legal action {action} of {actor} has no index "
                         f"(scenario {battle.scenario.name!r})")


def _all_items(battle: Battle) -> list[Any]:
    out = list(battle.ground)
    for c in battle.combatants.values():
        out += c.inventory
    return out


class _Context:
    """Per-call cache of what the codec reads from the battle's state."""

    __slots__ = ("_splits", "battle", "codec")

    def __init__(self, codec: ActionCodec, battle: Battle) -> None:
        self.codec = codec
        self.battle = battle
        self._splits: dict[str, tuple[str, int]] | None = None

    def splits(self) -> dict[str, tuple[str, int]]:
        if self._splits is None:
            self._splits = self.codec.split_items(self.battle)
        return self._splits


#: An encoder of one parameter: (actor, action, per-call context) -> index or None.
_Encoder = Callable[[Combatant, Action, _Context], "int | None"]
