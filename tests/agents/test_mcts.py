"""MCTS (issue 9): legal, reproducible for a fixed seed and budget, and blind to the real
battle's future dice. Small budgets only; strength is measured in docs/agents.md."""

from __future__ import annotations

import pytest

import agents
from agents.mcts import MCTS, candidates, hp_balance
from rules import Battle, DecisionKind

SMALL = {"iterations": 6, "rollout_depth": 4}


def test_mcts_plays_legal_actions_for_every_decision_kind() -> None:
    b = Battle.from_scenario("duel", seed=5)
    players = {"party": agents.make("mcts", seed=1, **SMALL),
               "monsters": agents.make("mcts", seed=2, **SMALL)}
    seen = set()
    for _ in range(300):
        d = b.decision
        if d is None:
            break
        agent = players[b.combatants[d.actor].team]
        action = agent.act(b)
        assert action in b.legal_actions(), (action, d)
        assert isinstance(agent.reason, str) and agent.reason.startswith("mcts")
        seen.add(d.kind)
        b.apply(action, reason=agent.reason)
    assert b.is_over
    assert DecisionKind.TURN in seen
    assert seen & {DecisionKind.PARRY, DecisionKind.DODGE, DecisionKind.FREE_ATTACK}


def _trace(seed: int) -> list:
    b = Battle.from_scenario("duel", seed=3)
    mcts = MCTS(seed=seed, **SMALL)
    other = agents.make("berserker", seed=0)
    for _ in range(16):
        d = b.decision
        if d is None:
            break
        agent = mcts if b.combatants[d.actor].team == "party" else other
        b.apply(agent.act(b))
    return b.events


def test_mcts_is_reproducible_for_a_seed_and_budget() -> None:
    assert _trace(7) == _trace(7)


@pytest.mark.parametrize("options", [SMALL, {**SMALL, "plan": 2}], ids=["flat", "plan"])
def test_mcts_never_sees_the_real_dice(options: dict) -> None:
    """The search leaves the real battle untouched, and its choice does not depend on
    the real battle's future dice (two battles that differ only there); the plan search
    (plan=2, tests/agents/test_mcts_plan.py) too."""
    b = Battle.from_scenario("duel", seed=2)
    b.apply(next(a for a in b.legal_actions() if a.kind.name == "MOVE"))
    before = b.to_json()
    choice = MCTS(seed=4, **options).act(b)
    assert b.to_json() == before
    other = b.clone()
    other.dice.reseed(12345)  # a different future for the real battle
    assert MCTS(seed=4, **options).act(other) == choice


def test_candidates_keep_every_reaction_and_a_few_moves() -> None:
    b = Battle.from_scenario("skirmish", seed=1)
    legal = b.legal_actions()
    picked = candidates(b, legal)
    assert set(picked) <= set(legal)
    moves = [a for a in picked if a.kind.name in ("MOVE", "FULL_MOVE")]
    assert 0 < len(moves) < len([a for a in legal if a.kind.name in ("MOVE", "FULL_MOVE")])


def test_hp_balance_is_one_half_at_the_start_and_bad_budgets_are_refused() -> None:
    b = Battle.from_scenario("duel", seed=1)
    assert hp_balance(b, "party") == pytest.approx(0.5)
    with pytest.raises(ValueError, match="iterations expects an integer from 1 to 1000000"):
        agents.make("mcts(iterations=0)")
    with pytest.raises(ValueError, match="give iterations or seconds, not both"):
        MCTS(iterations=8, seconds=1.0)
    assert (MCTS().iterations, MCTS(seconds=1.0).iterations) == (64, None)


def test_mcts_keeps_the_prior_unless_the_paired_test_says_otherwise() -> None:
    """With an unreachable confidence bar the search always plays the prior's choice;
    with no bar at all (and no bonus) it plays the best mean, which here differs
    somewhere along the battle."""
    b = Battle.from_scenario("duel", seed=3)
    tactician = agents.make("tactician", seed=1)  # in step with strict's own prior
    strict = MCTS(seed=1, confidence=1e9, **SMALL)
    loose = MCTS(seed=1, confidence=0.0, prior_bonus=0.0, iterations=32, rollout_depth=4)
    differs = 0
    for _ in range(40):
        if b.is_over:
            break
        prior = tactician.act(b)
        assert strict.act(b) == prior
        differs += loose.act(b) != prior
        b.apply(prior)
    assert differs > 0
