"""The battle state on the native engine (rules/native/core/state.hpp, frames.hpp,
bindings_battle.cpp, bindings_frames.cpp through rules/bridge/battle_state.py): at every
decision of seeded random play on every shipped scenario, mid-action decisions
included (Free Attack offers, parries and dodges, with their frames on the stack), the
native state built from the battle gives back ``battle.to_dict()`` exactly, and its
``to_json`` byte for byte; so does a native clone.

Timing (not a test): ``test_clone_timing`` prints the µs of a native clone and of
``Battle.clone()`` mid-skirmish (``pytest -s``, or ``python
tests/native/test_battle_state_roundtrip.py``).
"""

from __future__ import annotations

import collections
import json
import time

import pytest

import agents
import rules
import rules.engine
from rules.actions import ATTACK_MODES
from rules.frames import FRAME_TYPES

_MISSING = rules.engine.missing_native("BattleState", "the battle state")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)
native = rules.engine.native_module()

from rules.bridge import native_state  # noqa: E402  (needs the module checked above)
from tests.native.glue import state as native_battle  # noqa: E402

#: Decisions played per battle at most (seeded random play).
MAX_DECISIONS = 200
SEEDS = (1, 2)


def test_frame_tables_match_python() -> None:
    """The frame types (FRAME_TYPES' order) and attack modes (ATTACK_MODES') are
    Python's, in order."""
    tables = native.FRAME_TABLES
    assert tables["types"] == list(FRAME_TYPES)
    assert tables["attack_modes"] == list(ATTACK_MODES)


def _check_round_trip(battle: rules.Battle, seen: collections.Counter[str],
                      clone_json: bool = True) -> None:
    """The native state of ``battle``, and its clone, give ``battle.to_dict()`` back
    (equal dicts: tuples stay tuples) and its ``to_json()`` byte for byte (the clone's
    JSON when ``clone_json``; its dict always)."""
    expected = battle.to_dict()
    expected_json = json.dumps(expected, sort_keys=True)  # what battle.to_json() writes
    state = native_state(battle)
    written = native_battle.to_dict(state)
    assert written == expected
    assert json.dumps(written, sort_keys=True) == expected_json
    assert native_battle.to_dict(state, events=False) == battle.to_dict(events=False)
    copy = native_battle.clone(state)
    copied = native_battle.to_dict(copy)
    assert copied == expected
    if clone_json:
        assert json.dumps(copied, sort_keys=True) == expected_json
    for frame_type in state.stack_types:
        seen[frame_type] += 1


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_round_trip_at_every_decision(scenario: str) -> None:
    """Every decision of two seeded random battles (up to MAX_DECISIONS each), and the
    end of each finished battle."""
    seen: collections.Counter[str] = collections.Counter()
    for seed in SEEDS:
        battle = rules.Battle.from_scenario(scenario, seed=seed, engine="python")
        agent = agents.make("random", seed=seed)
        decisions = 0
        while battle.decision is not None and decisions < MAX_DECISIONS:
            if battle.decision.kind.value != "turn":
                seen["reaction"] += 1
            _check_round_trip(battle, seen, clone_json=decisions % 10 == 0)
            battle.apply(agent.act(battle))
            decisions += 1
        assert native_battle.to_json(native_state(battle)) == battle.to_json()
        _check_round_trip(battle, seen)
    print(f"{scenario}: frames on the stack at decisions {dict(seen)}")


def test_mid_action_frames_are_covered() -> None:
    """The shipped scenarios' random play reaches decisions with every frame type that
    waits for one (offer, attack) and the frames under them (act, move) on the stack."""
    seen: collections.Counter[str] = collections.Counter()
    for scenario in ("skirmish", "duel", "horde"):
        battle = rules.Battle.from_scenario(scenario, seed=1, engine="python")
        agent = agents.make("random", seed=1)
        while battle.decision is not None and len(battle.events) < 3000:
            for frame in battle.stack:
                seen[frame.type] += 1
            battle.apply(agent.act(battle))
    assert {"offer", "attack", "act", "move"} <= set(seen), seen


def test_forced_faces_and_finished_battle() -> None:
    """Forced dice faces still queued, and a battle over (no decision, a winner) round
    trip too, from Battle.to_dict() data read back."""
    battle = rules.Battle.from_scenario("duel", seed=3, engine="python")
    battle.dice.force(5, 7, 9)
    state = native_state(battle)
    assert native_battle.to_json(state) == battle.to_json()
    assert state.to_dict()["dice"]["forced"] == [5, 7, 9]
    battle.dice.forced.clear()
    agent = agents.make("random", seed=3)
    while battle.decision is not None:
        battle.apply(agent.act(battle))
    state = native_state(
        rules.Battle.from_json(json.dumps(battle.to_dict()), engine="python"))
    assert state.is_over
    assert native_battle.to_json(state) == battle.to_json()


def _mid_skirmish() -> rules.Battle:
    battle = rules.Battle.from_scenario("skirmish", seed=1, engine="python")
    agent = agents.make("random", seed=1)
    for _ in range(60):
        if battle.decision is None:
            break
        battle.apply(agent.act(battle))
    return battle


def _microseconds(function: object, repeats: int = 2000) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            function()  # type: ignore[operator]
        best = min(best, (time.perf_counter() - start) / repeats)
    return best * 1e6


def print_clone_timing() -> None:
    """Prints a native clone's µs against Battle.clone()'s
    (`python tests/native/test_battle_state_roundtrip.py`; never a timed test)."""
    battle = _mid_skirmish()
    state = native_state(battle)
    native_us = _microseconds(state.clone)
    python_us = _microseconds(battle.clone)
    print(f"\nclone mid-skirmish ({len(battle.events)} events, {len(battle.combatants)} "
          f"combatants): native {native_us:.2f} µs, Battle.clone() {python_us:.2f} µs")


if __name__ == "__main__":
    print_clone_timing()
