"""The legal actions' map on the native engine (issue 23): a battle's map compiled for
``rules/native/core/legal.cpp`` (for :mod:`rules.legal`'s ``turn_actions`` and every
generator it runs, and ``actions_for``), ``budget.cpp`` (:mod:`rules.budget`) and
``reactions.cpp`` (:mod:`rules.reactions`' lists), which a native battle's loop lists its
actions with (:mod:`rules.bridge.driver`).

:mod:`rules.legal` stays the reference; ``tests/native/test_legal_differential.py``
checks that the native engine lists ``battle.legal_actions()`` (same actions, same order)
at every decision of random play.

- :func:`native_grid` compiles a :class:`~rules.grid.GridMap` (doors as they stand) into
  a ``rules._native.Grid`` (``rules/native/core/grid.cpp``, for :mod:`rules.grid`), kept
  for the next call with the same map object.
- :func:`legal_map` compiles a battle's map as its doors stand with the reach search over
  it and the ruleset's movement costs into a ``rules._native.LegalMap``, kept for the next
  call with the same map object and costs.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from rules import engine
from rules.grid import GridMap

if TYPE_CHECKING:
    from rules.state import BattleState

#: Compiled maps kept, most recently used last (a battle's door states share few maps).
_MAPS_KEPT = 16
_MAPS: OrderedDict[tuple, Any] = OrderedDict()
_GRIDS_KEPT = 64
_GRIDS: OrderedDict[GridMap, Any] = OrderedDict()


def _module() -> Any:
    """The compiled module, holding the native legal actions (``rules.engine.require_native``)."""
    return engine.require_native("turn_actions", "the native legal actions")


def legal_map(state: BattleState) -> Any:
    """``state``'s map as its doors stand, with the reach search over it (S17, S18, H13),
    as a ``rules._native.LegalMap``."""
    grid: GridMap = state.grid
    movement = state.content.ruleset.movement
    diagonal = tuple(movement.diagonal_costs)
    key = (grid, diagonal, movement.difficult_multiplier)
    found = _MAPS.get(key)
    if found is not None:
        _MAPS.move_to_end(key)
        return found
    if len(diagonal) != 2:
        raise ValueError(f"diagonal_costs: expected two costs, got {diagonal!r}")
    found = _module().LegalMap(native_grid(grid), 1, diagonal,
                               movement.difficult_multiplier)
    while len(_MAPS) >= _MAPS_KEPT:
        _MAPS.popitem(last=False)
    _MAPS[key] = found
    return found


def native_grid(grid: GridMap) -> Any:
    """``grid`` as a ``rules._native.Grid``, compiled once per map (maps are immutable;
    a dict lookup finds the same object by identity first)."""
    found = _GRIDS.get(grid)
    if found is not None:
        _GRIDS.move_to_end(grid)
        return found
    found = _module().Grid(
        grid.width, grid.height, grid.walls, grid.closed_doors, grid.open_doors,
        grid.difficult, grid.dark, grid.drops)
    while len(_GRIDS) >= _GRIDS_KEPT:
        _GRIDS.popitem(last=False)
    _GRIDS[grid] = found
    return found
