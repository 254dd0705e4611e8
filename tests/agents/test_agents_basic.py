"""agents.make registry, the random agent and the berserker (issue 4)."""

from __future__ import annotations

import pytest

import agents
import rules
from agents.base import Agent
from rules import ActionKind, Battle, DecisionKind

K = ActionKind
SCENARIOS = rules.shipped_scenarios()


def play(battle: Battle, by_team: dict[str, Agent], max_decisions: int = 20_000) -> int:
    """Play to the end; every chosen action must be in legal_actions()."""
    for n in range(max_decisions):
        d = battle.decision
        if d is None:
            return n
        agent = by_team[battle.combatants[d.actor].team]
        action = agent.act(battle)
        assert action in battle.legal_actions(), (action, d)
        battle.apply(action)
    raise AssertionError("the battle did not end")


def test_make_and_registry() -> None:
    assert {"random", "berserker"} <= set(agents.names())
    assert isinstance(agents.make("random", seed=1), agents.RandomAgent)
    assert isinstance(agents.make("berserker"), agents.Berserker)
    assert isinstance(agents.make("berserker"), Agent)
    with pytest.raises(ValueError, match=r"unknown agent 'nobody'.*berserker"):
        agents.make("nobody")
    with pytest.raises(ValueError, match="already registered"):
        agents.register("random", agents.RandomAgent)


def test_make_accepts_a_spec_with_keyword_arguments() -> None:
    assert agents.make("tactician(step_back=true)", seed=1).step_back is True
    assert agents.make("tactician", seed=1).step_back is False
    mcts = agents.make("mcts(iterations=8,rollout=berserker)", seed=2)
    assert (mcts.iterations, mcts.rollout_name) == (8, "berserker")
    with pytest.raises(ValueError, match="expected key=value"):
        agents.make("tactician(step_back)")
    with pytest.raises(ValueError, match="bogus"):
        agents.make("tactician(bogus=1)")


def test_registry_is_extensible_with_prefixed_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agents.registry, "_REGISTRY", dict(agents._REGISTRY))
    calls = []

    def learned(path: str, seed: int | None = None) -> Agent:
        calls.append((path, seed))
        return agents.RandomAgent(seed)

    agents.register("test_learned", learned)
    agent = agents.make("test_learned:models/x.zip", seed=4)
    assert isinstance(agent, agents.RandomAgent) and calls == [("models/x.zip", 4)]


def test_random_agent_is_seeded() -> None:
    def trace(seed: int) -> list:
        b = Battle.from_scenario("duel", seed=0)
        agent = agents.make("random", seed=seed)
        out = []
        for _ in range(30):
            if b.decision is None:
                break
            a = agent.act(b)
            out.append(a)
            b.apply(a)
        return out

    assert trace(1) == trace(1)
    assert trace(1) != trace(2)


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("matchup", [("random", "random"), ("berserker", "random"),
                                     ("berserker", "berserker")])
def test_agents_play_legal_actions_over_full_battles(scenario: str, matchup) -> None:
    for seed in range(2):
        b = Battle.from_scenario(scenario, seed=seed)
        party, monsters = matchup
        play(b, {"party": agents.make(party, seed=seed),
                 "monsters": agents.make(monsters, seed=seed + 100)})
        assert b.is_over


def test_berserker_reacts_as_documented() -> None:
    """Takes its Free Attacks, parries and dodges whenever offered."""
    seen = {DecisionKind.FREE_ATTACK: [], DecisionKind.PARRY: [], DecisionKind.DODGE: []}
    for seed in range(20):
        b = Battle.from_scenario("duel", seed=seed)
        rusher = agents.make("berserker", seed=seed)
        while b.decision is not None:
            d = b.decision
            a = rusher.act(b)
            if d.kind in seen:
                kinds = {x.kind for x in b.legal_actions()}
                seen[d.kind].append(a.kind)
                if kinds - {K.DECLINE}:
                    assert a.kind is not K.DECLINE
            b.apply(a)
    assert all(seen.values()), seen


def test_berserker_attacks_in_reach_and_closes_in() -> None:
    b = Battle.from_scenario("duel", seed=0)
    rusher = agents.make("berserker", seed=0)
    while b.decision is not None:
        d = b.decision
        acts = b.legal_actions()
        a = rusher.act(b)
        if d.kind is DecisionKind.TURN and any(x.kind is K.MELEE_ATTACK for x in acts):
            assert a.kind is K.MELEE_ATTACK
        b.apply(a)


def test_berserker_beats_random_in_duel() -> None:
    """Over 20 seeds on each side of the duel, the rusher wins most battles."""
    wins = games = 0
    for seed in range(20):
        for side in ("party", "monsters"):
            other = "monsters" if side == "party" else "party"
            b = Battle.from_scenario("duel", seed=seed)
            play(b, {side: agents.make("berserker", seed=seed),
                     other: agents.make("random", seed=seed)})
            wins += b.winner == side
            games += 1
    assert wins / games >= 0.7, f"berserker won {wins}/{games}"


def test_acting_on_a_finished_battle_is_an_error() -> None:
    b = Battle.from_scenario("duel", seed=0)
    play(b, {"party": agents.make("berserker"), "monsters": agents.make("berserker")})
    for name in ("random", "berserker"):
        with pytest.raises(ValueError, match="over"):
            agents.make(name).act(b)


def test_berserker_drops_a_bow_for_a_dagger() -> None:
    """An archer-only unit with its bow in hand rushes in with its dagger."""
    text = """
name = "archer_rush"
max_rounds = 6
map = '''
##########
#........#
##########
'''
[[units]]
id = "goblin_archer_1"
team = "monsters"
creature = "goblin_archer"
at = [1, 1]
[[units]]
id = "hero"
team = "party"
creature = "human_warrior"
at = [8, 1]
"""
    readied = False
    for seed in range(5):
        b = Battle.from_toml(text, seed=seed)
        rusher = agents.make("berserker", seed=seed)
        while b.decision is not None:
            a = rusher.act(b)
            if a.kind is K.READY_WEAPON and b.decision.actor == "goblin_archer_1":
                readied = True
            b.apply(a)
    assert readied
