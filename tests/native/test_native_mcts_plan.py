"""The plan search's C++ (rules/native/agents/agents_mcts.cpp, MCTS(plan=N)): the action grouping
equal to mcts.candidates on the states of random battles, and PlanSearch's rounds growing
a tree with values in [0, 1]. Run under the sanitizers too (tests/native/sanitized.sh);
the whole search against the Python loop is tests/agents/test_mcts_plan.py."""

from __future__ import annotations

import pytest

from agents import mcts
from rules import ActionKind, Battle, bridge, engine

pytestmark = pytest.mark.skipif(not engine.native_available(),
                                reason="the native engine (rules._native) is not built")

SEARCHED, MOVES = mcts.SEARCHED_KIND_NUMBERS, mcts.MOVE_KIND_NUMBERS


@pytest.mark.parametrize("scenario", ["duel", "skirmish", "ambush", "horde"])
def test_the_engines_grouping_is_mcts_candidates(scenario: str) -> None:
    module = engine.native_module()
    compared = 0
    for seed in range(3):
        battle = Battle.from_scenario(scenario, seed, engine="native")
        for step in range(60):
            if battle.is_over:
                break
            driver = battle._driver
            assert driver is not None
            legal = battle.legal_actions()
            native = module.mcts_candidates(driver.to_native(battle), driver.loop,
                                            driver.rules, SEARCHED, MOVES)
            assert native == mcts.candidates(battle, legal), (seed, step)
            compared += 1
            battle.apply(legal[(seed * 7 + step * 3) % len(legal)])
    assert compared >= 60


def test_plan_search_rounds_grow_a_tree_of_values_in_range() -> None:
    module = engine.native_module()
    battle = Battle.from_scenario("skirmish", 4, engine="native")
    battle.random_play(4, 12)
    driver = battle._driver
    assert driver is not None and not battle.is_over
    team = battle.combatants[battle.decision.actor].team
    search = module.PlanSearch(driver.to_native(battle), SEARCHED, MOVES, 2, 10, team, 0.7)
    candidates = mcts.candidates(battle, battle.legal_actions())[:4]
    rollout = bridge.native_agent("berserker", 1)
    prior = bridge.native_agent("tactician", 2)
    before = battle.to_json()
    for seed in range(12):
        values = search.round(driver.to_native(battle), driver.loop, driver.rules, candidates,
                              seed, rollout, prior if seed % 2 else None)
        assert len(values) == len(candidates)
        assert all(0.0 <= value <= 1.0 for value in values)
    assert search.node_count > len(candidates)
    assert battle.to_json() == before  # every iteration ran on a clone
    with pytest.raises(ValueError, match="no team"):
        module.PlanSearch(driver.to_native(battle), SEARCHED, MOVES, 2, 10, "nobody", 0.7)
    with pytest.raises(ValueError, match="out of range"):
        module.PlanSearch(driver.to_native(battle), [len(ActionKind)], MOVES, 2, 10, team, 0.7)
