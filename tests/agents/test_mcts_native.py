"""MCTS's flat rounds in the engine (rules/native/agents/agents_mcts.cpp): on a native battle
with a rollout policy that has a native form, the same values, statistics, choices and
reasons as the Python iterations."""

from __future__ import annotations

import pytest

import agents
from agents import mcts
from experiments import replay as replays
from rules import bridge, engine

pytestmark = pytest.mark.skipif(not engine.native_available(),
                                reason="the native engine (rules._native) is not built")

SPEC = "mcts(iterations=24,rollout=berserker,prior=berserker,rollout_depth=10)"


#: the default search (tactician prior and rollouts) at a small budget
SMALL_DEFAULT = "mcts(iterations=8,rollout_depth=4)"


@pytest.mark.parametrize(("scenario", "seed", "spec"), [
    ("duel", 1, SPEC), ("skirmish", 2, SPEC), ("ambush", 3, SPEC), ("duel", 4, SMALL_DEFAULT)])
def test_native_rounds_play_the_same_battle(monkeypatch: pytest.MonkeyPatch, scenario: str,
                                            seed: int, spec: str) -> None:
    rounds = []
    original = bridge.search_round
    monkeypatch.setattr(bridge, "search_round",
                        lambda *args, **kwargs: rounds.append(1) or original(*args, **kwargs))
    played = {}
    for name in engine.ENGINES:
        monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, name)
        battle, replay = replays.play(scenario, seed, {"party": spec, "monsters": "berserker"})
        played[name] = (replay.to_dict(), battle.to_json())
    assert rounds, "the native battle's search never ran in the engine"
    assert played["native"] == played["python"]


def test_hp_balance_equals_the_python_leaf_value() -> None:
    import rules

    for seed in range(5):
        battle = rules.Battle.from_scenario("skirmish", seed, engine="native")
        battle.random_play(seed, 60)
        team = battle.scenario.teams[0]
        if battle.is_over:
            continue
        values = bridge.search_round(battle, battle.legal_actions()[:1], seed,
                                            bridge.native_agent("random", seed), 0, team)
        copy = battle.clone()
        copy.dice.reseed(seed)
        copy.apply(copy.legal_actions()[0])
        assert values == [mcts.hp_balance(copy, team)]


def test_a_tree_search_or_a_python_rollout_stays_in_python() -> None:
    assert agents.make("mcts(rollout=berserker,tree=true)", seed=0)._native_rollout is None
    assert agents.make("mcts(rollout=pack)", seed=0)._native_rollout is None
    assert agents.make("mcts(rollout=defender)", seed=0)._native_rollout is not None
    assert agents.make("mcts(rollout=random)", seed=0)._native_rollout is not None
