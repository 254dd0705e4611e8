"""Test-only listing of the legal actions by the native engine (issue 47: moved out of the
shipped package; a native battle lists them through ``rules.bridge.driver``):
``tests/native/test_legal_differential.py`` checks that ``native_decision_actions(battle)
== battle.legal_actions()`` (same actions, same order) at every decision of random play.

- :func:`native_turn_actions` builds the native state
  (``rules.bridge.battle_state.native_state``) and lists its TURN decision's actions as
  :class:`rules.Action` objects (the Records' cached ones, ``rules.bridge.records``);
  :func:`native_decision_actions` any decision's, reactions included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules import engine
from rules.bridge.battle_state import native_state
from rules.bridge.legal import legal_map

if TYPE_CHECKING:
    from rules.actions import Action
    from rules.battle import Battle
    from rules.state import BattleState


def _module() -> Any:
    """The compiled module, holding the native legal actions (``rules.engine.require_native``)."""
    return engine.require_native("turn_actions", "the native legal actions")


def turn_actions(native: Any, state: BattleState) -> list[Action]:
    """The TURN decision's legal actions of ``native`` (a ``rules._native.BattleState``
    built from ``state``, ``rules.bridge.battle_state.native_state``)."""
    return _module().turn_actions(native, legal_map(state))


def native_decision_actions(battle: Battle) -> list[Action]:
    """``battle.legal_actions()`` listed by the native engine: a TURN decision's, or the
    top frame's for a reaction decision (``rules.reactions``: Free Attacks, parries,
    dodges); ``[]`` once the battle is over."""
    if battle.is_over or battle.decision is None:
        return []
    return _module().decision_actions(native_state(battle),
                                      legal_map(battle.state))


def native_turn_actions(battle: Battle) -> list[Action]:
    """``battle``'s TURN decision's legal actions (``rules.legal.turn_actions``) listed by
    the native engine: the same actions in the same order. ``ValueError`` when the battle
    is not waiting for a TURN decision."""
    return turn_actions(native_state(battle), battle.state)
