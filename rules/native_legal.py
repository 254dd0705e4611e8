"""The legal actions on the native engine (issue 23): ``rules/native/core/legal.cpp`` (for
:mod:`rules.legal`'s ``turn_actions`` and every generator it runs, and ``actions_for``),
``budget.cpp`` (for :mod:`rules.budget`'s ``can_spend``, ``free_left`` and
``spell_category``) and ``reactions.cpp`` (for :mod:`rules.reactions`' lists: what a
waiting offer or attack frame's ``legal_actions`` returns), run on a native battle state
(:mod:`rules.native_battle`).

:mod:`rules.legal` stays the reference; a native battle lists its actions with
``legal.cpp`` through :mod:`rules.native_driver` (this module compiles its map).
``tests/native/test_legal_differential.py`` checks that ``native_decision_actions(battle)
== battle.legal_actions()`` (same actions, same order) at every decision of random play.

- :func:`legal_map` compiles a battle's map as its doors stand (``rules._native.Grid``,
  :func:`rules.native_queries.native_grid`) with the reach search over it and the
  ruleset's movement costs into a ``rules._native.LegalMap``, kept for the next call with
  the same map object and costs.
- :func:`native_turn_actions` builds the native state (:func:`native_battle.native_state`)
  and lists its TURN decision's actions as :class:`rules.Action` objects (the Records'
  cached ones, :mod:`rules.native_records`); :func:`native_decision_actions` any
  decision's, reactions included.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from rules import engine, native_battle, native_queries
from rules.actions import Action
from rules.grid import GridMap
from rules.state import BattleState

if TYPE_CHECKING:
    from rules.battle import Battle

#: Compiled maps kept, most recently used last (a battle's door states share few maps).
_MAPS_KEPT = 16
_MAPS: OrderedDict[tuple, Any] = OrderedDict()


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
    found = _module().LegalMap(native_queries.native_grid(grid), 1, diagonal,
                               movement.difficult_multiplier)
    while len(_MAPS) >= _MAPS_KEPT:
        _MAPS.popitem(last=False)
    _MAPS[key] = found
    return found


def turn_actions(native: Any, state: BattleState) -> list[Action]:
    """The TURN decision's legal actions of ``native`` (a ``rules._native.BattleState``
    built from ``state``, :func:`native_battle.native_state`)."""
    return _module().turn_actions(native, legal_map(state))


def native_decision_actions(battle: Battle) -> list[Action]:
    """``battle.legal_actions()`` listed by the native engine: a TURN decision's, or the
    top frame's for a reaction decision (``rules.reactions``: Free Attacks, parries,
    dodges); ``[]`` once the battle is over."""
    if battle.is_over or battle.decision is None:
        return []
    return _module().decision_actions(native_battle.native_state(battle),
                                      legal_map(battle.state))


def native_turn_actions(battle: Battle) -> list[Action]:
    """``battle``'s TURN decision's legal actions (``rules.legal.turn_actions``) listed by
    the native engine: the same actions in the same order. ``ValueError`` when the battle
    is not waiting for a TURN decision."""
    return turn_actions(native_battle.native_state(battle), battle.state)
