"""The records the native engine and Python exchange (rules/native/core/actions.hpp,
events.hpp, bindings_records*.cpp through rules/bridge/records.py): the kinds and event
classes match rules.actions and rules.events member for member and field for field;
every legal action, decision and event of seeded random play on every shipped scenario
round-trips Python -> native -> Python; the Python Action for a record is one cached
object; NativeEvents behaves as the list of events and builds them lazily.

Timing (not a test): ``python tests/native/test_records.py`` prints ns per action
conversion (cached, uncached) and per lazily built event.
"""

from __future__ import annotations

import functools
import gc
import time

import pytest

import agents
import rules
import rules.engine
from rules.actions import ACTION_SPECS, Action, ActionKind, Decision, DecisionKind
from rules.events import (
    EVENT_TYPES,
    ActionTaken,
    Event,
    Moved,
    RoundStarted,
    event_from_dict,
    event_to_dict,
)

_MISSING = rules.engine.missing_native("Records", "the records")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)
native = rules.engine.native_module()

from rules.bridge import records as native_records  # noqa: E402  (needs the module checked above)
from tests.native.glue.state import NativeEvents  # noqa: E402

#: Decisions played per shipped scenario at most (seeded random play).
MAX_DECISIONS = 500


@functools.cache
def played(scenario: str, seed: int = 1) -> tuple[list[tuple[Decision, list[Action]]],
                                                   list[Event]]:
    """Every decision of a random-play battle with its legal actions, and its events
    (on the Python engine, the reference)."""
    battle = rules.Battle.from_scenario(scenario, seed=seed, engine="python")
    agent = agents.make("random", seed=seed)
    decisions = []
    while battle.decision is not None and len(decisions) < MAX_DECISIONS:
        decisions.append((battle.decision, list(battle.legal_actions())))
        battle.apply(agent.act(battle))
    return decisions, list(battle.events)


# ------------------------------------------------------------------ the tables
def test_kinds_match_python_in_order() -> None:
    python_kinds = [(kind.name, kind.value) for kind in ActionKind]
    assert python_kinds == native.ACTION_KINDS
    python_decisions = [(kind.name, kind.value) for kind in DecisionKind]
    assert python_decisions == native.DECISION_KINDS
    python_fields = [ACTION_SPECS[kind].fields for kind in ActionKind]
    assert python_fields == native.ACTION_FIELDS


def test_event_classes_match_python_in_order() -> None:
    python_types = list(zip(EVENT_TYPES, native_records.event_fields(), strict=True))
    assert python_types == native.EVENT_TYPES


def test_records_refuse_other_kinds() -> None:
    kinds = list(ActionKind)
    kinds[1], kinds[2] = kinds[2], kinds[1]
    with pytest.raises(ValueError, match=r"ActionKind member 1: C\+\+ has MOVE"):
        native.Records(kinds, list(DecisionKind), Action, Decision,
                       list(EVENT_TYPES.values()), native_records.event_fields())
    fields = native_records.event_fields()
    fields[0] = fields[0][:-1]
    with pytest.raises(ValueError, match="BattleStarted"):
        native.Records(list(ActionKind), list(DecisionKind), Action, Decision,
                       list(EVENT_TYPES.values()), fields)


# ------------------------------------------------------------------ actions and decisions
@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_actions_and_decisions_round_trip(scenario: str) -> None:
    records = native_records.new_records()
    decisions, _ = played(scenario)
    converted = 0
    for decision, legal in decisions:
        record = records.decision(decision)
        assert records.python_decision(record) == decision
        assert records.python_decision(records.decision(decision)) is \
            records.python_decision(record)
        for action in legal:
            record = records.action(action)
            back = records.python_action(record)
            assert back == action and type(back) is Action and str(back) == str(action)
            assert records.python_action(records.action(action)) is back
            assert records.action(back) == record and hash(records.action(back)) == hash(record)
            converted += 1
        as_list = records.python_actions(records.actions(legal))
        assert as_list == legal
        assert all(mine is records.python_action(records.action(action))
                   for mine, action in zip(as_list, legal, strict=True))
    assert converted > 0 and records.cache_size > 0


def test_action_records_intern_names() -> None:
    records = native_records.new_records()
    record = records.action(Action(ActionKind.MELEE_ATTACK, target="orc_1", item="hero.sword"))
    assert record.kind == list(ActionKind).index(ActionKind.MELEE_ATTACK)
    assert records.name(record.target) == "orc_1" and records.name(record.item) == "hero.sword"
    assert record.square is None
    assert records.action(Action(ActionKind.DODGE, square=(-1, 70000))).square == (-1, 70000)
    with pytest.raises(TypeError, match=r"Action\.target"):
        records.action(Action(ActionKind.MOUNT, target=7))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"rules\.actions\.Action"):
        records.action("END_TURN")


# ------------------------------------------------------------------ events
@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_events_round_trip(scenario: str) -> None:
    _, events = played(scenario)
    converted = NativeEvents.from_events(events, native_records.new_records())
    assert len(converted) == len(events)
    dicts = converted.to_dicts()
    assert converted.built == 0, "to_dicts built Python events"
    for index, event in enumerate(events):
        back = converted[index]
        assert back == event and back is not event and type(back) is type(event)
        assert event_to_dict(back) == event_to_dict(event) == dicts[index]
        assert str(back) == str(event)
    assert {type(event).__name__ for event in events} >= {"BattleStarted", "ActionTaken",
                                                          "Moved", "AttackRolled"}
    # from_json's way: dicts -> events -> records -> the same dicts
    restored = NativeEvents.from_events(event_from_dict(data) for data in dicts)
    assert restored.to_dicts() == dicts


def test_action_taken_keeps_a_text_that_is_no_action() -> None:
    events = [ActionTaken(1, "hero", "MELEE_ATTACK target=orc 1 item=hero.sword"),
              ActionTaken(1, "hero", "NO_SUCH_KIND"),
              ActionTaken(2, "hero", "DODGE square=(-3, 4)"),
              ActionTaken(2, "hero", "MOVE square=(1,2)")]
    assert list(NativeEvents.from_events(events)) == events


def test_wrongly_typed_fields_are_refused_by_name() -> None:
    log = native.EventLog(native_records.new_records())
    with pytest.raises(TypeError, match=r"Moved\.complete:\ expected\ a\ bool"):
        log.append(Moved(1, "hero", ((0, 0),), 0, 1))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Moved\.path:\ expected\ a\ tuple"):
        log.append(Moved(1, "hero", [(0, 0)], 0, True))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"RoundStarted\.round:\ expected\ a\ 32\-bit\ int"):
        log.append(RoundStarted(2**40))
    with pytest.raises(TypeError, match=r"rules\.events\ event"):
        log.append("RoundStarted")
    assert len(log) == 0


# ------------------------------------------------------------------ NativeEvents
def test_native_events_behave_as_a_list_and_build_lazily() -> None:
    _, events = played("duel")
    view = NativeEvents.from_events(events, native_records.new_records())
    assert len(view) == len(events) and view.built == 0
    assert view[5] == events[5] and view.built == 1
    assert view[5] is view[5] and view.built == 1
    assert view[-1] == events[-1] and view[-len(events)] == events[0] and view.built == 3
    for index in (len(events), -len(events) - 1):
        with pytest.raises(IndexError):
            view[index]
    for part in (slice(2, 9), slice(None, 4), slice(-5, None), slice(None, None, 7),
                 slice(10, 2, -3), slice(4, 4), slice(-2, 500)):
        assert view[part] == events[part] and isinstance(view[part], list)
    assert view.built < len(events)
    assert list(view) == events and view == events and events == view
    assert view.built == len(events)
    assert view != events[:-1] and view != [*events[:-1], RoundStarted(99)]
    assert view != "events" and view.count(events[0]) == 1 and events[3] in view
    copy = view.copy()
    assert copy.built == 0 and copy == view and copy.built == len(events)
    assert repr(view) == f"NativeEvents({len(events)} events, {len(events)} built)"


def test_copies_are_independent_and_share_chunks() -> None:
    _, events = played("skirmish")
    assert len(events) > 3 * 64
    view = NativeEvents.from_events(events[:150])
    copy = view.copy()
    view.log.extend(events[150:])
    copy.log.append(RoundStarted(77))
    assert view == events and list(copy) == [*events[:150], RoundStarted(77)]


# ------------------------------------------------------------------ timing (a script)
def measure(repeats: int = 5) -> None:
    """ns per action conversion (cached and uncached) and per lazily built event, best of
    ``repeats``, over the legal actions and events of random play on every shipped
    scenario. The battles played are moved out of the collector's way first
    (``gc.freeze``): collecting them would be most of the time measured."""
    actions = [a for s in rules.shipped_scenarios() for _, legal in played(s)[0] for a in legal]
    events = [e for s in rules.shipped_scenarios() for e in played(s)[1]]
    records = native_records.new_records()
    action_list = records.actions(actions)
    per_decision = [records.actions(legal) for s in rules.shipped_scenarios()
                    for _, legal in played(s)[0]]
    gc.collect()
    gc.freeze()
    best = functools.partial(min)

    def timed(run: object, before: object = None) -> float:
        times = []
        for _ in range(repeats):
            if before is not None:
                before()  # type: ignore[operator]
            start = time.perf_counter_ns()
            run()  # type: ignore[operator]
            times.append(time.perf_counter_ns() - start)
        return best(times)

    count = len(actions)
    to_native = timed(lambda: records.actions(actions)) / count
    distinct = records.actions(list(dict.fromkeys(actions)))  # each built once: no hits
    uncached = timed(lambda: records.python_actions(distinct), records.clear_cache) / len(distinct)
    cached = timed(lambda: records.python_actions(action_list)) / count
    decision_lists = timed(lambda: [records.python_actions(x) for x in per_decision]) / count
    single = [records.action(a) for a in actions[:20000]]
    one_call = timed(lambda: [records.python_action(r) for r in single]) / len(single)
    logs: list[NativeEvents] = []
    build = timed(lambda: logs.append(NativeEvents.from_events(events, records))) / len(events)
    fresh = [NativeEvents.from_events(events, records) for _ in range(repeats)]
    lazy = timed(lambda: list(fresh.pop())) / len(events)
    kept = NativeEvents.from_events(events, records)
    list(kept)
    again = timed(lambda: list(kept)) / len(events)
    dicts = timed(lambda: kept.to_dicts()) / len(events)
    python_dicts = timed(lambda: [event_to_dict(e) for e in events]) / len(events)
    print(f"{count} legal actions ({len(distinct)} distinct), {len(events)} events "
          "(random play, every shipped scenario)")
    print(f"Action -> record, in a list:               {to_native:7.0f} ns/action")
    print(f"record -> Action, cached (list):           {cached:7.0f} ns/action")
    print(f"record -> Action, uncached (list):         {uncached:7.0f} ns/action")
    print(f"record -> Action, cached, per decision:    {decision_lists:7.0f} ns/action "
          f"({count / len(per_decision):.1f} actions a decision)")
    print(f"record -> Action, cached, one call each:   {one_call:7.0f} ns/action")
    print(f"event -> record (NativeEvents.from_events): {build:6.0f} ns/event")
    print(f"record -> event, built lazily (first read): {lazy:6.0f} ns/event")
    print(f"record -> event, kept (second read):        {again:6.0f} ns/event")
    print(f"record -> event_to_dict (to_dicts):         {dicts:6.0f} ns/event"
          f" (Python event_to_dict: {python_dicts:.0f})")


if __name__ == "__main__":
    measure()
