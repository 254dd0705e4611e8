"""Random-play simulation tests in the style of OpenSpiel's: whole battles of random legal
actions on every shipped scenario, with the rules' invariants checked after every action
(S2, S5, S8, S9, S10, H5, H13, H25), plus clone / JSON round-trip / replay determinism.
"""

from __future__ import annotations

import collections
import json
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules
from rules.actions import FREE_ACTIONS, ActionKind, DecisionKind
from rules.events import ActionTaken, AttackRolled, DodgeRolled, ParryRolled, TurnStarted

SCENARIOS = rules.shipped_scenarios()
#: H25: the once-per-turn limit counts voluntary FREE actions (and free-casting spells)
VOLUNTARY_FREE = {k.value for k in FREE_ACTIONS} | {ActionKind.CAST_SPELL.value}
ALLOWED_BUDGETS = (
    [],
    ["move"],
    ["attack"],
    ["full"],
    ["move", "move"],
    ["move", "attack"],
    ["attack", "move"],
)


def check_invariants(b: rules.Battle) -> None:
    grid = b.grid
    held: dict[tuple[int, int], str] = {}
    # a mover in the middle of its path may stand on an ally's square (H13: passable)
    passing = {f.actor for f in b.stack if f.type == "move"}
    for c in b.combatants.values():
        assert c.actions_used in ALLOWED_BUDGETS, (c.id, c.actions_used)  # S2
        assert not grid.blocks_movement(c.position), (c.id, c.position)  # nobody in a wall
        assert c.hp <= c.max_hp, (c.id, c.hp)
        assert c.power_points >= 0, (c.id, c.power_points)
        if c.status == "active":
            assert c.hp > 0, (c.id, c.hp)  # H5
        else:
            assert c.prone or c.dead, c.id
        if c.riding is not None:
            mount = b.combatants[c.riding]
            assert mount.ridden_by == c.id and mount.position == c.position  # H22
        if c.in_action and c.ridden_by is None and c.id not in passing:
            assert c.position not in held, (c.id, held.get(c.position), c.position)
            held[c.position] = c.id
        assert len(set(c.free_used)) == len(c.free_used), (c.id, c.free_used)  # H25
        assert set(c.free_used) <= VOLUNTARY_FREE, (c.id, c.free_used)  # never reactions
    d = b.decision
    if b.is_over:
        assert d is None and b.legal_actions() == []
        return
    assert d is not None
    actor = b.combatants[d.actor]
    assert actor.in_action, d  # out-of-action combatants never decide (H5)
    acts = b.legal_actions()
    assert acts, d
    assert len(set(acts)) == len(acts)
    assert b.round <= b.scenario.max_rounds
    if d.kind is DecisionKind.TURN:
        assert d.actor == b.current_actor
    elif d.kind is DecisionKind.DODGE:
        check_dodge_choices(b, actor, b.combatants[d.source or ""], acts)


def check_dodge_choices(b: rules.Battle, defender: rules.Combatant,
                        attacker: rules.Combatant, acts: list[rules.Action]) -> None:
    """H10/S10: each DODGE square is a free neighbour not closer to the attacker, taken
    only with the Shift unspent; DODGE without a square (fall, or Fight Defensively's
    free dodge) is there at most once; DECLINE is always there."""
    squares = [a.square for a in acts if a.kind is ActionKind.DODGE and a.square is not None]
    falls = [a for a in acts if a.kind is ActionKind.DODGE and a.square is None]
    assert acts[-1].kind is ActionKind.DECLINE and len(falls) <= 1 and (squares or falls)
    if squares:
        assert not defender.dodge_waived and not defender.prone
        assert not defender.shifted_this_round and not defender.moved_this_round
    occupied = {c.position for c in b.combatants.values()
                if not c.dead and c.id not in (defender.id, defender.riding)}
    here = max(abs(defender.position[0] - attacker.position[0]),
               abs(defender.position[1] - attacker.position[1]))
    for sq in squares:
        assert max(abs(sq[0] - defender.position[0]), abs(sq[1] - defender.position[1])) == 1
        assert sq not in occupied, sq
        assert max(abs(sq[0] - attacker.position[0]), abs(sq[1] - attacker.position[1])) >= here
    if falls and not defender.dodge_waived:
        assert not defender.prone


def check_reaction_limits(b: rules.Battle) -> None:
    """S5: one Free Attack per character per round. S8/S9: at most one parry and one
    dodge attempt per hit. S8/S10: parries per round, plus Fight Defensively's extra,
    which lasts until the start of the fighter's next turn."""
    defence = b.content.ruleset.defence
    free = collections.Counter()
    parries = collections.Counter()
    extra: dict[str, int] = {}
    hit: dict[str, Any] = {}
    for e in b.events:
        if isinstance(e, TurnStarted):
            extra[e.actor] = 0
        elif isinstance(e, ActionTaken) and e.action == "FIGHT_DEFENSIVELY":
            extra[e.actor] = defence.fight_defensively_extra_parries
        elif isinstance(e, AttackRolled):
            if e.mode == "free":
                free[(e.round, e.attacker)] += 1
            hit = {"target": e.target, "parries": 0, "dodges": 0}
        elif isinstance(e, ParryRolled):
            assert hit.get("target") == e.defender, (e, hit)
            hit["parries"] += 1
            assert hit["parries"] == 1, e  # S8: one attempt per hit
            if parries[(e.round, e.defender)] < defence.parries_per_round:
                parries[(e.round, e.defender)] += 1
            else:
                assert extra.get(e.defender, 0) > 0, e  # S10: the one extra
                extra[e.defender] -= 1
        elif isinstance(e, DodgeRolled):
            assert hit.get("target") == e.defender, (e, hit)
            hit["dodges"] += 1
            assert hit["dodges"] == 1, e  # S9: one attempt per hit
    assert all(n == 1 for n in free.values()), free


def play(b: rules.Battle, rng: np.random.Generator, check: bool = True) -> list:
    chosen = []
    while not b.is_over:
        acts = b.legal_actions()
        a = acts[int(rng.integers(len(acts)))]
        chosen.append(a)
        b.apply(a)
        if check:
            check_invariants(b)
    return chosen


# Battles of random play per shipped scenario (about 1,900 in all, some 1.2 million
# decisions), split into chunks so pytest-xdist can spread them over the cores.
BATTLES = {"duel": 1000, "snake_pit": 200, "casters": 200, "skirmish": 120, "crypt": 120,
           "ambush": 120, "cavalry": 80, "horde": 50}
CHUNK = 40
CHUNKS = [(sc, start, min(start + CHUNK, BATTLES.get(sc, CHUNK)))
          for sc in SCENARIOS for start in range(0, BATTLES.get(sc, CHUNK), CHUNK)]


#: On the native engine, the decisions the engine plays (``Battle.random_play(check=True)``:
#: its own invariants after every event and decision, ``rules/native/core/invariants.cpp``)
#: between two of this file's Python checks. Each Python check reads the whole state
#: through the mirror and writes it back before the next native step (about 1 ms), so a
#: check after every action made these battles as slow as on the Python engine; that
#: engine, the reference, still checks after every action (CI runs tests/rules on it
#: too), and tests/native compares the two engines event for event.
NATIVE_CHECK_EVERY = 10


def play_checked(b: rules.Battle, seed: int) -> None:
    """``b`` played to its end by random legal choices, the invariants checked as it goes:
    after every action on the Python engine, every ``NATIVE_CHECK_EVERY`` decisions (and
    by the engine itself in between) on the native one."""
    if b.engine == "python":
        play(b, np.random.default_rng(seed))
        return
    part = 0
    while not b.is_over:
        made = b.random_play(seed + (part << 20), NATIVE_CHECK_EVERY, check=True)
        assert made >= 1
        check_invariants(b)
        part += 1


@pytest.mark.parametrize(("scenario", "first", "stop"), CHUNKS,
                         ids=[f"{sc}-{a}" for sc, a, _ in CHUNKS])
def test_random_battles_keep_invariants_and_end(scenario: str, first: int, stop: int) -> None:
    """Random legal play on every shipped scenario: the invariants as it goes
    (``play_checked``), and every battle ends within its round limit (H25)."""
    for seed in range(first, stop):
        b = rules.Battle.from_scenario(scenario, seed=seed)
        check_invariants(b)
        play_checked(b, 1000 + seed)
        check_reaction_limits(b)
        assert b.is_over
        assert b.round <= b.scenario.max_rounds
        assert b.winner in (*b.scenario.teams, None)
        if b.winner is not None:
            assert any(c.in_action for c in b.combatants.values() if c.team == b.winner)
            assert not any(c.in_action for c in b.combatants.values() if c.team != b.winner)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_same_seed_same_actions_same_events(scenario: str) -> None:
    a = rules.Battle.from_scenario(scenario, seed=11)
    actions = play(a, np.random.default_rng(5), check=False)
    b = rules.Battle.from_scenario(scenario, seed=11)
    for act in actions:
        b.apply(act)
    assert [str(e) for e in a.events] == [str(e) for e in b.events]
    assert a.events == b.events


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_clone_and_json_continue_identically(scenario: str) -> None:
    """A clone and a JSON round-trip taken at random decisions (mid-action included)
    continue exactly like the original."""
    rng = np.random.default_rng(7)
    b = rules.Battle.from_scenario(scenario, seed=3)
    steps = 0
    while not b.is_over and steps < 400:
        if steps % 37 == 5:
            clone = b.clone()
            restored = rules.Battle.from_json(b.to_json())
            assert restored.to_json() == b.to_json()
            assert restored.decision == b.decision
            assert restored.legal_actions() == b.legal_actions()
            fork = np.random.default_rng(steps)
            for _ in range(40):
                if b.is_over:
                    break
                acts = b.legal_actions()
                assert clone.legal_actions() == acts == restored.legal_actions()
                a = acts[int(fork.integers(len(acts)))]
                e1, e2, e3 = b.apply(a), clone.apply(a), restored.apply(a)
                assert e1 == e2 == e3
            assert b.to_json() == clone.to_json() == restored.to_json()
            if b.is_over:
                break
        acts = b.legal_actions()
        b.apply(acts[int(rng.integers(len(acts)))])
        steps += 1


def test_illegal_action_leaves_state_untouched() -> None:
    b = rules.Battle.from_scenario("duel", seed=1)
    before = b.to_json()
    bogus = [
        rules.Action(ActionKind.PARRY, item="nothing"),
        rules.Action(ActionKind.MOVE, square=(0, 0)),
        rules.Action(ActionKind.MELEE_ATTACK, target="nobody"),
    ]
    for a in bogus:
        with pytest.raises(rules.IllegalActionError, match="legal kinds"):
            b.apply(a)
        assert b.to_json() == before


def test_json_is_plain_json() -> None:
    b = rules.Battle.from_scenario("duel", seed=2)
    play(b, np.random.default_rng(0), check=False)
    data = json.loads(b.to_json())
    assert data["is_over"] is True
    assert rules.Battle.from_json(b.to_json()).winner == b.winner


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=st.sampled_from(SCENARIOS), seed=st.integers(0, 2**32 - 1),
       picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=300))
def test_property_any_legal_sequence_keeps_invariants_and_replays(
        scenario: str, seed: int, picks: list[int]) -> None:
    """Hypothesis drives the choices: any sequence of legal actions keeps the invariants,
    and replaying it from the JSON of the start gives the same events."""
    b = rules.Battle.from_scenario(scenario, seed=seed)
    start = b.to_json()
    chosen = []
    for p in picks:
        if b.is_over:
            break
        acts = b.legal_actions()
        a = acts[p % len(acts)]
        chosen.append(a)
        b.apply(a)
        check_invariants(b)
    replay = rules.Battle.from_json(start)
    for a in chosen:
        replay.apply(a)
    assert replay.events == b.events
    assert replay.to_json() == b.to_json()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_clone_is_independent(scenario: str) -> None:
    """Playing a clone to the end leaves the original exactly as it was."""
    b = rules.Battle.from_scenario(scenario, seed=9)
    rng = np.random.default_rng(2)
    for _ in range(60):
        if b.is_over:
            break
        acts = b.legal_actions()
        b.apply(acts[int(rng.integers(len(acts)))])
    before = b.to_json()
    c = b.clone()
    play(c, np.random.default_rng(3), check=False)
    assert b.to_json() == before
