"""The map and the read-only queries on the native engine (issue 23):
``rules/native/core/grid.cpp`` (for :mod:`rules.grid`), ``threat_zones.cpp`` (for
:mod:`rules.threat_zones`) and ``queries.cpp`` (for :mod:`rules.queries`), built from the
Python objects.

:mod:`rules.queries` stays the reference; a native battle's step calls the C++ queries
directly, and this test-only module is the differential tests' view of them:
``tests/native/test_queries_differential.py`` checks that both agree exactly.

- ``rules.bridge.legal.native_grid`` compiles a :class:`~rules.grid.GridMap` (doors as
  they stand) into a ``rules._native.Grid`` (shipped: the native legal actions read it).
- :func:`native_view` builds a ``rules._native.QueryView`` of a
  :class:`~rules.state.BattleState`: its combatants as a Roster
  (``rules.bridge.combatants.native_roster``, in ``state.combatants`` order), its map,
  ground items, initiative order and round. The view's queries take combatants by their
  index in ``state.combatants`` and answer with ids and ``(x, y)`` tuples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules import engine
from rules.bridge.combatants import compile_content, native_roster
from rules.bridge.legal import native_grid

if TYPE_CHECKING:
    from rules.state import BattleState

__all__ = ["native_grid", "native_view"]


def _module() -> Any:
    """The compiled module, holding the native queries (``rules.engine.require_native``)."""
    return engine.require_native("QueryView", "the native queries")


def native_view(state: BattleState) -> Any:
    """``state`` as the native queries read it (a ``rules._native.QueryView``)."""
    compiled = compile_content(state.content)
    roster = native_roster(state.combatants.values(), compiled)
    return _module().QueryView(roster, native_grid(state.grid), state.ground,
                               state.initiative_order, state.round)
