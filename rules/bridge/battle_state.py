"""A battle's whole state on the native engine (issue 23): ``rules/native/core/state.hpp``'s
``BattleState`` (with ``rules/native/core/frames.hpp``'s frames), built from a
:class:`rules.Battle`'s Python state, and the rules it steps by.

:mod:`rules.state` stays the reference; :mod:`rules.bridge.driver` builds and rebuilds a
native battle's state with this module. ``tests/native/test_battle_state_roundtrip.py``
checks, at every decision of random play, that the native state's ``to_dict()`` written as
JSON equals ``battle.to_json()``.

- :func:`native_state` builds a ``rules._native.BattleState`` from a battle: its
  combatants (a ``Roster``, :mod:`rules.bridge.combatants`), ground items, door states,
  the frames (``frame_to_dict``), the dice (``Roller.state()``: the generator and the
  forced faces), the events (interned in a :mod:`rules.bridge.records` name table),
  round, turn, initiative order, result and pending decision; :func:`native_state_of`
  the same from a Python state and its decision.
- :func:`apply_rules` compiles the ruleset numbers the native step reads and the weapons'
  damage columns (``rules._native.ApplyRules``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rules import engine
from rules.bridge.combatants import compile_content, native_roster
from rules.bridge.records import shared_records
from rules.frames import frame_to_dict
from rules.saves import JSON_VERSION

if TYPE_CHECKING:
    from rules.actions import Decision
    from rules.battle import Battle
    from rules.events import Event
    from rules.state import BattleState


def _module() -> Any:
    """The compiled module, holding the battle state (``rules.engine.require_native``)."""
    return engine.require_native("BattleState", "the battle state")


def native_state(battle: Battle, records: Any = None) -> Any:
    """``battle``'s state as a ``rules._native.BattleState`` (``records``: the name table
    its events are interned in, default ``shared_records()``)."""
    header = {
        "version": JSON_VERSION,
        "scenario": {"text": battle.scenario.text, "source": battle.scenario.source},
        "content_dir": battle.content_dir,
        "seed": battle.seed,
    }
    # the decision is None once over, as Battle.to_dict writes it then
    return native_state_of(battle.state, battle.decision, header, records)


def native_state_of(state: BattleState, decision: Decision | None, header: dict[str, Any],
                    records: Any = None) -> Any:
    """The ``rules._native.BattleState`` of a Python battle state, its pending ``decision``
    and ``header`` (the version, scenario, content_dir and seed ``to_dict`` writes)."""
    return _module().BattleState(
        roster_of(state), shared_records() if records is None else records,
        parts_of(state, decision, header, state.events))


def roster_of(state: BattleState) -> Any:
    """The combatants of ``state`` as a ``rules._native.Roster``
    (:mod:`rules.bridge.combatants`)."""
    return native_roster(state.combatants.values(), compile_content(state.content))


def parts_of(state: BattleState, decision: Decision | None, header: dict[str, Any],
             events: Sequence[Event]) -> dict[str, Any]:
    """Everything but the combatants that a ``rules._native.BattleState`` is built from
    (``events``: the events to put in its log)."""
    return {
        "header": header,
        "dice": state.dice.state(),
        "round": state.round,
        "turn_index": state.turn_index,
        "initiative_order": state.initiative_order,
        "ground": state.ground,
        "doors": list(state.grid.doors.items()),
        "stack": [frame_to_dict(frame) for frame in state.stack],
        "events": events,
        "is_over": state.is_over,
        "winner": state.winner,
        "end_turn_requested": state.end_turn_requested,
        "decision": None if decision is None else {
            "kind": decision.kind.value, "actor": decision.actor, "source": decision.source},
    }


def apply_rules(content: Any, native: Any) -> Any:
    """``content``'s numbers the native step reads (the ruleset, the weapons' damage
    columns), as a ``rules._native.ApplyRules`` for the native state ``native`` built with
    it (what ``rules/native/core/harm.cpp``, ``combat.cpp``, ``effects.cpp`` and
    ``frames.cpp`` step by)."""
    return engine.require_native("ApplyRules", "the native step").ApplyRules(content, native)
