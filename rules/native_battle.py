"""A battle's whole state on the native engine (issue 23): ``rules/native/core/state.hpp``'s
``BattleState`` (with ``rules/native/core/frames.hpp``'s frames), built from a
:class:`rules.Battle` and read back in the shape of :meth:`rules.Battle.to_dict`.

:mod:`rules.state` stays the reference; :mod:`rules.native_driver` builds and rebuilds a
native battle's state with this module.
``tests/native/test_battle_state_roundtrip.py`` checks, at every decision of random play,
that ``json.dumps(to_dict(native_state(battle)), sort_keys=True) == battle.to_json()``.

- :func:`native_state` builds a ``rules._native.BattleState`` from a battle: its
  combatants (a ``Roster``, ``rules.native_state``), ground items, door states, the
  frames (``frame_to_dict``), the dice (``Roller.state()``: the generator and the forced
  faces), the events (interned in a ``rules.native_records`` name table), round, turn,
  initiative order, result and pending decision.
- :func:`to_dict` gives ``Battle.to_dict()`` back (``events=False`` too); :func:`clone`
  copies the state (the event log's full chunks and the content tables are shared, as
  ``Battle.clone`` shares its frozen events and content).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rules import engine, native_records
from rules import native_state as native_combatants
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
    its events are interned in, default ``native_records.shared_records()``)."""
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
        roster_of(state), native_records.shared_records() if records is None else records,
        parts_of(state, decision, header, state.events))


def roster_of(state: BattleState) -> Any:
    """The combatants of ``state`` as a ``rules._native.Roster`` (``rules.native_state``)."""
    return native_combatants.native_roster(
        state.combatants.values(), native_combatants.compile_content(state.content))


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


def to_dict(native: Any, *, events: bool = True) -> dict[str, Any]:
    """``Battle.to_dict(events=events)`` of the battle whose state ``native`` is."""
    return native.to_dict(events=events)


def to_json(native: Any) -> str:
    """``Battle.to_json()`` of the battle whose state ``native`` is."""
    return json.dumps(native.to_dict(), sort_keys=True)


def clone(native: Any) -> Any:
    """An independent copy of ``native`` (``BattleState.copy``)."""
    return native.clone()
