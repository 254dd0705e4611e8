"""The layout of an action codec's index space: which indices each action kind owns and
what their parameters mean.

The layout depends only on the scenario (its map size, its units and what they carry),
never on the battle's state, so ``n`` is fixed for an env configuration. The index space
is the concatenation of one *block* per :class:`rules.ActionKind`, in enum order; each
block is the product of that kind's parameters (its row's ``parameters`` in
``rules.actions.ACTION_SPECS``, so a new kind brings its block with it):

=================  ============================================================
parameter          encoding
=================  ============================================================
``target``         combatant slot: every unit of the scenario, in file order
``target|none``    combatant slot, or one extra slot for "no target" (potions)
``square``         (dx, dy) relative to the actor in a window of radius ``r``
                   (clipped to the map); ``r`` bounds the longest move of any
                   unit or mount of the scenario (race MOV, every step costs >= 1)
``adjacent``       one of the 8 king steps from the actor (shift, doors, dismount)
``dodge``          one of the 8 king steps, or falling prone (no square)
``item:<cat>``     item slot among the scenario's items of one category; for each
                   actor its own starting items come first (in inventory order),
                   then everybody else's, so slot 0 of a goblin is its own spear
``spell``          index into the actor's own spell list
=================  ============================================================

Items keep their uid for the whole battle (dropped, disarmed, thrown and picked-up
items move between inventories and the ground), so the per-actor item tables are
static, with one exception: throwing one weapon of a stack (a pair of javelins) splits
it off under a new uid. Each such stack reserves ``count - 1`` *overflow* slots after
the static ones, filled oldest split first.

:class:`BlockLayout` reads that layout (which block an index is in, what it means, the
square windows, the spec-sheet table); :class:`env.spaces.ActionCodec` builds it for a
scenario and maps actions of a battle to indices and back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import rules
from rules import ActionKind
from rules.actions import ACTION_SPECS
from rules.grid import KING_STEPS_BY_ROW

Square = tuple[int, int]

#: The eight king steps row by row (rules.grid's one table, in its row order).
KING: tuple[tuple[int, int], ...] = KING_STEPS_BY_ROW
_KING_INDEX = {d: i for i, d in enumerate(KING)}

#: Item categories: which of a scenario's items a parameter ranges over.
ITEM_CATEGORIES = ("any", "melee", "missile", "weapon", "holdable", "usable", "torch",
                   "nock", "wind")


@dataclass(frozen=True)
class Param:
    """One parameter of an action kind: its name (for docs) and its size."""

    name: str
    size: int


@dataclass(frozen=True)
class Block:
    """The indices ``offset .. offset + size - 1`` of one action kind."""

    kind: ActionKind
    offset: int
    params: tuple[Param, ...]

    @property
    def size(self) -> int:
        out = 1
        for p in self.params:
            out *= p.size
        return out


def _item_categories(content: rules.Content, item: str) -> set[str]:
    cats = {"any"}
    if item in content.weapons:
        w = content.weapons[item]
        cats |= {"weapon", "holdable", w.kind}
        if w.reload == "nock":
            cats.add("nock")
        elif w.reload == "wind":
            cats.add("wind")
    elif item in content.armour:
        if content.armour[item].slot == "shield":
            cats.add("holdable")
    elif item in content.items:
        kind = content.items[item].kind
        if kind in ("potion", "scroll"):
            cats.add("usable")
        elif kind == "torch":
            cats.add("torch")
    return cats


class BlockLayout:
    """The readers of a codec's block layout that need no battle: block lookup, index
    descriptions, the square windows and the layout table. :class:`env.spaces.ActionCodec`
    sets the attributes below and inherits these methods."""

    width: int
    height: int
    n: int
    blocks: dict[ActionKind, Block]
    _square_radius: dict[str, int]
    #: each block's first index, and its kind, in ActionKind order
    _starts: np.ndarray
    _kinds: list[ActionKind]

    # ------------------------------------------------------------ squares
    def _radii(self, radius: int) -> tuple[int, int]:
        return min(radius, self.width - 1), min(radius, self.height - 1)

    def _window_size(self, radius: int) -> int:
        rx, ry = self._radii(radius)
        return (2 * rx + 1) * (2 * ry + 1)

    def _window_table(self, radius: int) -> dict[tuple[int, int], int]:
        """(dx, dy) -> index in the square window of ``radius`` (clipped to the map)."""
        rx, ry = self._radii(radius)
        return {(dx, dy): (dy + ry) * (2 * rx + 1) + (dx + rx)
                for dy in range(-ry, ry + 1) for dx in range(-rx, rx + 1)}

    def _dec_square(self, radius: int, actor: Square, index: int) -> Square | None:
        rx, ry = self._radii(radius)
        dy, dx = divmod(index, 2 * rx + 1)
        sq = (actor[0] + dx - rx, actor[1] + dy - ry)
        if not (0 <= sq[0] < self.width and 0 <= sq[1] < self.height):
            return None
        return sq

    # ------------------------------------------------------------ blocks
    def block_of(self, index: int) -> Block:
        """The block holding ``index``; IndexError outside ``0 <= index < n``."""
        if not 0 <= index < self.n:
            raise IndexError(f"action index {index} outside 0..{self.n - 1}")
        k = int(np.searchsorted(self._starts, index, side="right")) - 1
        block = self.blocks[self._kinds[k]]
        while block.size == 0:  # empty blocks share their offset with the next one
            k += 1
            block = self.blocks[self._kinds[k]]
        return block

    def describe(self, index: int) -> str:
        """The layout meaning of an index, independent of any state."""
        if not 0 <= index < self.n:
            return f"index {index} (out of range)"
        block = self.block_of(index)
        rest = index - block.offset
        parts = []
        for p in reversed(block.params):
            rest, i = divmod(rest, p.size)
            parts.append(f"{p.name}={i}")
        return " ".join([block.kind.name, *reversed(parts)])

    def square_windows(self) -> tuple[tuple[int, int, int], ...]:
        """``(offset, rx, ry)`` of each block whose one parameter is a square window
        around the actor (MOVE, FULL_MOVE, DISENGAGE): index ``offset + (dy + ry) *
        (2 rx + 1) + dx + rx`` is the square ``(x + dx, y + dy)`` of an actor at
        ``(x, y)``. The ``fray-spatial`` policy scores these blocks square by square."""
        return tuple((b.offset, *self._radii(self._square_radius[b.params[0].name]))
                     for b in self.blocks.values()
                     if len(b.params) == 1 and b.params[0].name in self._square_radius
                     and b.size)

    def layout(self) -> list[tuple[str, int, int, str]]:
        """(kind, first index, size, parameters) for every block: the spec sheet table."""
        return [(b.kind.name, b.offset, b.size,
                 " x ".join(f"{p.name}[{p.size}]" for p in b.params) or "-")
                for b in self.blocks.values()]

    def layout_text(self) -> str:
        rows = [f"{k:<20} {o:>6} {s:>6}  {p}" for k, o, s, p in self.layout()]
        return "\n".join([f"{'kind':<20} {'first':>6} {'size':>6}  parameters", *rows,
                          f"total n = {self.n}"])


#: The :class:`rules.Action` field each parameter fills.
_FIELD = {"target": "target", "target|none": "target", "adjacent": "square",
          "dodge": "square", "square:move": "square", "square:full": "square",
          "spell": "item", **{f"item:{c}": "item" for c in ITEM_CATEGORIES}}

#: The parameters of each action kind: its ``parameters`` in rules.actions.ACTION_SPECS.
LAYOUT: dict[ActionKind, Sequence[str]] = {
    kind: spec.parameters for kind, spec in ACTION_SPECS.items()}
