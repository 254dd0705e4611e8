"""The map and the read-only queries on the native engine (issue 23):
``rules/native/core/grid.cpp`` (for :mod:`rules.grid`), ``threat_zones.cpp`` (for
:mod:`rules.threat_zones`) and ``queries.cpp`` (for :mod:`rules.queries`), built from the
Python objects.

:mod:`rules.queries` stays the reference; a native battle's step calls the C++ queries
directly, and this module is the differential tests' view of them:
``tests/native/test_queries_differential.py`` checks that both agree exactly.

- :func:`native_grid` compiles a :class:`~rules.grid.GridMap` (doors as they stand) into
  a ``rules._native.Grid``, kept for the next call with the same map object.
- :func:`native_view` builds a ``rules._native.QueryView`` of a
  :class:`~rules.state.BattleState`: its combatants as a Roster
  (:func:`rules.native_state.native_roster`, in ``state.combatants`` order), its map,
  ground items, initiative order and round. The view's queries take combatants by their
  index in ``state.combatants`` and answer with ids and ``(x, y)`` tuples.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from rules import engine, native_state
from rules.grid import GridMap

if TYPE_CHECKING:
    from rules.state import BattleState

#: Compiled maps kept, most recently used last (a battle's door states share few maps).
_GRIDS_KEPT = 64
_GRIDS: OrderedDict[GridMap, Any] = OrderedDict()


def _module() -> Any:
    """The compiled module, holding the native queries (``rules.engine.require_native``)."""
    return engine.require_native("QueryView", "the native queries")


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


def native_view(state: BattleState) -> Any:
    """``state`` as the native queries read it (a ``rules._native.QueryView``)."""
    compiled = native_state.compile_content(state.content)
    roster = native_state.native_roster(state.combatants.values(), compiled)
    return _module().QueryView(roster, native_grid(state.grid), state.ground,
                               state.initiative_order, state.round)
