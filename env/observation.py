"""Battle -> observation arrays, seen by one team (and optionally one of its combatants).

Keys (shapes for a map of ``H`` rows and ``W`` columns and ``N`` units):

- ``planes``: float32 ``(len(PLANES), H, W)`` in [0, 1], one channel per name in
  :data:`PLANES`.
- ``units``: float32 ``(N, len(UNIT_FEATURES))`` in [-1, 1]: one row per combatant slot
  (the scenario's units in file order), features named in :data:`UNIT_FEATURES`.
- ``decision``: int64 ``(2,)`` from ``MultiDiscrete([K + 1, N + 1])``: the decision kind
  (its index in :data:`DECISION_KINDS`, the rows of ``rules.actions.DECISION_SPECS``:
  today K = 4; K = none, the battle is over) and the deciding combatant's slot
  (``N`` = none).
- ``globals``: float32 ``(len(GLOBAL_FEATURES),)`` in [0, 1].

"ally" and "enemy" are relative to the observing team. Unit and global features are
(name, function) pairs (:data:`UNIT_FEATURE_SPECS`, :data:`GLOBAL_FEATURE_SPECS`): a
feature's name, column and value live together, and rules questions (H12's
``Combatant.threatens``, ``reach``, the S2 budget) come from ``rules``, not re-derived.
``tests/env/test_observation_features.py`` checks the env docstring's sizes and names
against them.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

import numpy as np
from gymnasium import spaces

from rules import Battle, Combatant, DecisionKind
from rules import queries as q
from rules.actions import DECISION_SPECS, DESTINATION_KINDS
from rules.budget import can_spend
from rules.threat_zones import threatened_squares

PLANES = (
    "wall", "closed_door", "open_door", "difficult", "lit", "drop", "ally", "enemy",
    "down", "decider", "self", "enemy_threat", "ally_threat", "reachable", "ground_item",
)


class UnitView:
    """What a unit feature is computed from besides the combatant: the observer's view
    (set once per build) and the unit's ready weapons, reach, light and skill-derived
    values (set before each unit's row)."""

    __slots__ = ("allowed_parries", "decider", "derived", "height", "lit", "n_units",
                 "owner", "rank", "reach", "ready", "self_id", "source", "team", "threatens",
                 "width")

    def __init__(self, **values: Any) -> None:
        for name, value in values.items():
            setattr(self, name, value)


def _missile_ready(c: Combatant, unit: UnitView) -> bool:
    """A ready missile weapon that needs no reload, or is nocked or loaded (H16)."""
    return any(weapon.kind == "missile" and (weapon.reload == "none" or inst.nocked
                                            or inst.loaded) for inst, weapon in unit.ready)


def _power_points(c: Combatant, unit: UnitView) -> float:
    """Power points left as a fraction of the maximum (0 without any)."""
    return max(0.0, min(1.0, c.power_points / c.max_power_points)) \
        if c.max_power_points > 0 else 0.0


#: Each ``units`` column: its name and its value (the column is the pair's position).
UNIT_FEATURE_SPECS: tuple[tuple[str, Callable[[Combatant, UnitView], float]], ...] = (
    ("in_action", lambda c, u: c.in_action),
    ("out_of_action", lambda c, u: c.status == "out"),
    ("dead", lambda c, u: c.status == "dead"),
    ("ally", lambda c, u: c.team == u.team),
    ("self", lambda c, u: c.id == u.self_id),
    ("deciding", lambda c, u: c.id == u.decider),
    ("turn_owner", lambda c, u: c.id == u.owner),
    ("source", lambda c, u: c.id == u.source),
    ("hp_fraction", lambda c, u: max(-1.0, min(1.0, c.hp / max(1, c.max_hp)))),
    ("max_hp", lambda c, u: min(1.0, c.max_hp / 30)),
    ("x", lambda c, u: c.position[0] / max(1, u.width - 1)),
    ("y", lambda c, u: c.position[1] / max(1, u.height - 1)),
    ("prone", lambda c, u: c.prone),
    ("threatens", lambda c, u: u.threatens),  # H12: Combatant.threatens
    ("reach", lambda c, u: min(1.0, u.reach / 2)),
    ("missile_ready", _missile_ready),
    ("move_left", lambda c, u: c.id == u.owner and can_spend(c, "move")),
    ("attack_left", lambda c, u: c.id == u.owner and can_spend(c, "attack")),
    ("full_left", lambda c, u: c.id == u.owner and can_spend(c, "full")),
    ("moved_this_round", lambda c, u: c.moved_this_round),
    ("shifted_this_round", lambda c, u: c.shifted_this_round),
    ("free_attack_used", lambda c, u: c.free_attack_used),
    ("parries_left", lambda c, u: max(0.0, min(1.0, (u.allowed_parries + c.extra_parries
                                                   - c.parries_used) / 2))),
    ("bleeding", lambda c, u: c.bleeding),
    ("grappled", lambda c, u: c.grappled_by is not None),
    ("mounted", lambda c, u: c.riding is not None or c.ridden_by is not None),
    ("casting", lambda c, u: c.casting is not None),
    ("power_points", _power_points),
    ("mov", lambda c, u: u.derived[0]),
    ("encumbered", lambda c, u: u.derived[1]),
    ("fatigue", lambda c, u: c.fatigue_level / 2),
    ("dodge", lambda c, u: u.derived[2]),
    ("weapon_skill", lambda c, u: u.derived[3]),
    ("armour_points", lambda c, u: u.derived[4]),
    ("initiative_rank", lambda c, u: u.rank.get(c.id, 0) / max(1, u.n_units - 1)),
    ("components_ready", lambda c, u: c.components_ready),
    ("in_dark", lambda c, u: 1.0 - u.lit),
)
UNIT_FEATURES = tuple(name for name, _ in UNIT_FEATURE_SPECS)
_UNIT_VALUES = tuple(value for _, value in UNIT_FEATURE_SPECS)


class GlobalView:
    """What a global feature is computed from."""

    __slots__ = ("allies", "ally_total", "battle", "decision", "enemies", "enemy_total",
                 "max_rounds", "owner", "team")

    def __init__(self, **values: Any) -> None:
        for name, value in values.items():
            setattr(self, name, value)


#: Each ``globals`` entry: its name and its value.
GLOBAL_FEATURE_SPECS: tuple[tuple[str, Callable[[GlobalView], float]], ...] = (
    ("round_fraction", lambda g: min(1.0, g.battle.round / g.max_rounds)),
    ("own_turn", lambda g: float(g.owner is not None and g.decision is not None
                                 and g.battle.combatants[g.owner].team == g.team)),
    ("allies_in_action", lambda g: g.allies / max(1, g.ally_total)),
    ("enemies_in_action", lambda g: g.enemies / max(1, g.enemy_total)),
    ("over", lambda g: float(g.battle.is_over)),
)
GLOBAL_FEATURES = tuple(name for name, _ in GLOBAL_FEATURE_SPECS)
#: The decision kinds by their index in ``decision`` (``DECISION_SPECS``'s row order).
DECISION_KINDS: tuple[DecisionKind, ...] = tuple(DECISION_SPECS)
_KIND_INDEX = {k: i for i, k in enumerate(DECISION_KINDS)}
_P = {name: i for i, name in enumerate(PLANES)}
(_OPEN_DOOR, _CLOSED_DOOR, _LIT, _ALLY, _ENEMY, _DOWN, _DECIDER, _SELF, _ENEMY_THREAT,
 _ALLY_THREAT, _REACHABLE, _GROUND_ITEM) = (
    _P[name] for name in ("open_door", "closed_door", "lit", "ally", "enemy", "down",
                          "decider", "self", "enemy_threat", "ally_threat", "reachable",
                          "ground_item"))


#: What a unit row reads from each carried item (``_unit_key``).
_GEAR = attrgetter("uid", "item", "state", "count", "nocked", "loaded")
#: Bounds of the builder's tables (each starts afresh when full).
_ROWS_KEPT = 4096
_ZONES_KEPT = 4096
_DOOR_STATES_KEPT = 64


def _unit_key(c: Combatant, current_round: int, team: str, self_id: str | None,
              decider: str | None, source: str | None, owner: str | None, rank: int,
              lit: float) -> tuple:
    """Everything a ``units`` row reads (every feature of ``UNIT_FEATURE_SPECS``, the
    observer's view of the unit, and what ``_derived`` keys on): equal keys, equal rows."""
    cid = c.id
    buffs = c.buffs
    return (
        cid, c.status, c.team, c.team == team, cid == self_id, cid == decider,
        cid == source, cid == owner, c.hp, c.max_hp, c.position, c.prone,
        c.moved_this_round, c.shifted_this_round, c.free_attack_used, c.extra_parries,
        c.parries_used, c.bleeding, c.grappled_by, c.riding, c.ridden_by,
        c.casting is not None, c.power_points, c.max_power_points, c.fatigue_level,
        c.components_ready, c.armour, tuple(map(_GEAR, c.inventory)), tuple(buffs),
        current_round if buffs else 0, tuple(c.actions_used) if cid == owner else None,
        rank, lit,
    )


class ObservationBuilder:
    """Builds observations for one scenario (fixed map size and unit slots)."""

    def __init__(self, battle: Battle) -> None:
        g = battle.grid
        self.width, self.height = g.width, g.height
        self.unit_ids = tuple(u.id for u in battle.scenario.units)
        self.slot_of = {cid: i for i, cid in enumerate(self.unit_ids)}
        self.n_units = len(self.unit_ids)
        self.max_rounds = battle.scenario.max_rounds
        static = np.zeros((len(PLANES), self.height, self.width), dtype=np.float32)
        for x, y in g.walls:
            static[_P["wall"], y, x] = 1
        for x, y in g.difficult:
            static[_P["difficult"], y, x] = 1
        for (x, y), depth in g.drops:
            static[_P["drop"], y, x] = min(1.0, depth / 100)
        self._static = static
        self._dark = tuple(sorted(g.dark))
        self._lit_default = np.ones((self.height, self.width), dtype=np.float32)
        for x, y in self._dark:
            self._lit_default[y, x] = 0
        self._parries_per_round = battle.content.ruleset.defence.parries_per_round
        self._threat_cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._derived_cache: dict[tuple, tuple[float, ...]] = {}
        # what does not change between steps (see ``build``)
        self._base_cache: dict[int, tuple[Any, np.ndarray]] = {}
        self._row_cache: dict[tuple, tuple[tuple[Any, ...], int, bool]] = {}
        self._zone_cache: dict[tuple, tuple[np.ndarray, ...]] = {}

    def spaces(self) -> dict[str, spaces.Space]:
        """The observation's keys and spaces (without ``action_mask``)."""
        n = self.n_units
        return {
            "planes": spaces.Box(0.0, 1.0, (len(PLANES), self.height, self.width),
                                 dtype=np.float32),
            "units": spaces.Box(-1.0, 1.0, (n, len(UNIT_FEATURES)), dtype=np.float32),
            "decision": spaces.MultiDiscrete([len(DECISION_KINDS) + 1, n + 1]),
            "globals": spaces.Box(0.0, 1.0, (len(GLOBAL_FEATURES),), dtype=np.float32),
        }

    # ------------------------------------------------------------ build
    def build(self, b: Battle, team: str, self_id: str | None = None,
              show_reachable: bool = True) -> dict[str, np.ndarray]:
        """The observation of ``team`` (``self_id``: the observing combatant, if any).

        ``show_reachable``: fill the ``reachable`` plane with the decider's destinations
        (callers pass False when the decider is not the observer's to command).

        Only what changed since an earlier build is computed again: the map planes come
        from a copy kept per door state (the map object, shared by identity), each unit
        row from a table keyed on everything the row's features read (``_unit_key``),
        and the threat marks from a table keyed on the threatening units' squares.
        """
        d = b.decision
        decider = d.actor if d is not None else None
        source = d.source if d is not None else None
        grid = b.grid
        planes = self._base(grid).copy()
        lit = self._lit(b)
        if lit is not self._lit_default:
            planes[_LIT] = lit
        owner = b.current_actor
        rank = {cid: i for i, cid in enumerate(b.initiative_order)}
        allies = enemies = ally_total = 0
        view: UnitView | None = None
        rows_cache = self._row_cache
        # every unit plane mark as (channel, y, x), written at once below
        channels: list[int] = []
        ys: list[int] = []
        xs: list[int] = []
        rows = []
        zones = []  # (ally, square, reach) of each threatening unit in action
        combatants = b.combatants
        for cid in self.unit_ids:
            c = combatants[cid]
            x, y = position = c.position
            ally = c.team == team
            ally_total += ally
            # a Python float (lit is 0 or 1): numpy scalars make the row slow to convert
            lit_here = float(lit[y, x])
            key = _unit_key(c, b.round, team, self_id, decider, source, owner,
                            rank.get(cid, 0), lit_here)
            hit = rows_cache.get(key)
            if hit is None:
                if view is None:
                    view = UnitView(team=team, self_id=self_id, decider=decider,
                                    source=source, owner=owner, rank=rank,
                                    allowed_parries=self._parries_per_round,
                                    width=self.width, height=self.height,
                                    n_units=self.n_units)
                ready = c.ready_weapons()
                reach_sq = c.reach  # H12, the rules' own queries
                threatens = c.threatens
                view.ready, view.reach, view.threatens = ready, reach_sq, threatens
                view.lit = lit_here
                view.derived = self._derived(b, c)
                hit = (tuple([value(c, view) for value in _UNIT_VALUES]), reach_sq, threatens)
                if len(rows_cache) > _ROWS_KEPT:
                    rows_cache.clear()
                rows_cache[key] = hit
            row, reach_sq, threatens = hit
            rows.append(row)
            if c.in_action:
                channels.append(_ALLY if ally else _ENEMY)
                allies += ally
                enemies += not ally
                if threatens:
                    zones.append((ally, position, reach_sq))
            else:
                channels.append(_DOWN)
            ys.append(y)
            xs.append(x)
            if cid == decider:
                channels.append(_DECIDER)
                ys.append(y)
                xs.append(x)
            if cid == self_id:
                channels.append(_SELF)
                ys.append(y)
                xs.append(x)
        if zones:
            zone_channels, zone_ys, zone_xs = self._zones(b, tuple(zones))
            planes[zone_channels, zone_ys, zone_xs] = 1
        for inst in b.ground:
            if inst.square is not None:
                channels.append(_GROUND_ITEM)
                ys.append(inst.square[1])
                xs.append(inst.square[0])
        if show_reachable and d is not None:
            squares = [a.square for a in b.legal_actions()
                       if a.square is not None and a.kind in DESTINATION_KINDS]
            channels += [_REACHABLE] * len(squares)
            ys += [square[1] for square in squares]
            xs += [square[0] for square in squares]
        planes[channels, ys, xs] = 1
        units = np.array(rows, dtype=np.float32).reshape(self.n_units, len(UNIT_FEATURES))
        enemy_total = self.n_units - ally_total
        decision = np.array(
            [len(DECISION_KINDS), self.n_units] if d is None
            else [_KIND_INDEX[d.kind], self.slot_of[d.actor]], dtype=np.int64)
        global_view = GlobalView(battle=b, team=team, owner=owner, decision=d, allies=allies,
                                 ally_total=ally_total, enemies=enemies,
                                 enemy_total=enemy_total, max_rounds=self.max_rounds)
        glob = np.array([value(global_view) for _, value in GLOBAL_FEATURE_SPECS],
                        dtype=np.float32)
        return {"planes": planes, "units": units, "decision": decision, "globals": glob}

    def _base(self, grid: Any) -> np.ndarray:
        """The static planes with this door state's doors and the default light (kept per
        map object: a door state is one shared map, ``GridMap.with_door``). Read-only:
        ``build`` copies it."""
        hit = self._base_cache.get(id(grid))
        if hit is not None and hit[0] is grid:
            return hit[1]
        planes = self._static.copy()
        for (x, y), is_open in grid.doors.items():
            planes[_OPEN_DOOR if is_open else _CLOSED_DOOR, y, x] = 1
        planes[_LIT] = self._lit_default
        if len(self._base_cache) >= _DOOR_STATES_KEPT:
            self._base_cache.clear()
        self._base_cache[id(grid)] = (grid, planes)  # the map held: its id stays its own
        return planes

    def _zones(self, b: Battle, zones: tuple[tuple[bool, Any, int], ...],
               ) -> tuple[np.ndarray, ...]:
        """(channel, y, x) index arrays of the ally/enemy threat marks of ``zones``
        ((ally, square, reach) per threatening unit), kept per map and zones."""
        key = (b.grid, zones)
        hit = self._zone_cache.get(key)
        if hit is None:
            parts = []
            for ally, square, reach in zones:
                zone_xs, zone_ys = self._threat(b.grid, square, reach)
                parts.append((np.full(len(zone_xs), _ALLY_THREAT if ally else _ENEMY_THREAT,
                                      dtype=np.intp), zone_ys, zone_xs))
            hit = tuple(np.concatenate(column) for column in zip(*parts, strict=True))
            if len(self._zone_cache) > _ZONES_KEPT:
                self._zone_cache.clear()
            self._zone_cache[key] = hit
        return hit

    def _threat(self, grid: Any, square: Any, reach: int) -> tuple[np.ndarray, np.ndarray]:
        """H12: the squares a unit on ``square`` threatens with ``reach``, as index arrays
        (cached per map, square and reach)."""
        key = (grid, square, reach)
        hit = self._threat_cache.get(key)
        if hit is None:
            sq = sorted(threatened_squares(grid, square, reach))
            hit = (np.array([s[0] for s in sq], dtype=np.intp),
                   np.array([s[1] for s in sq], dtype=np.intp))
            if len(self._threat_cache) > 4096:
                self._threat_cache.clear()
            self._threat_cache[key] = hit
        return hit

    def _derived(self, b: Battle, c: Combatant) -> tuple[float, ...]:
        """Skill-derived features, recomputed only when what they depend on changes
        (inventory, fatigue, buffs)."""
        key = (c.id, c.fatigue_level, c.armour,
               tuple((i.uid, i.item, i.state, i.count) for i in c.inventory),
               tuple(c.buffs), b.round if c.buffs else 0)
        hit = self._derived_cache.get(key)
        if hit is None:
            ready = c.ready_weapons()
            hit = (
                min(1.0, c.mov / 12),
                float(c.encumbered),
                min(1.0, c.skill("dodge", b.round) / 100),
                min(1.0, max((c.skill(w.skill, b.round) for _, w in ready), default=0) / 100),
                min(1.0, c.armour_points / 10),
            )
            if len(self._derived_cache) > 4096:
                self._derived_cache.clear()
            self._derived_cache[key] = hit
        return hit

    def _lit(self, b: Battle) -> np.ndarray:
        """The lit plane: the default one itself (read-only) unless a torch burns."""
        if not self._dark:
            return self._lit_default
        torches = any(i.lit for c in b.combatants.values() for i in c.inventory) or any(
            i.lit for i in b.ground)
        if not torches:
            return self._lit_default
        lit = self._lit_default.copy()
        for x, y in self._dark:
            lit[y, x] = float(q.is_lit(b, (x, y)))
        return lit
