"""MCTS(plan=N), the deeper search (issue 24): a tree over the searching team's next
decisions below the root candidates. The same battles on both engines (the tree in the
engine on a native battle, rules/native/agents/agents_mcts.cpp PlanSearch), a real tree, and
step_back searching only where the prior ends its turn. Blind to the real dice:
tests/agents/test_mcts.py; the engine's grouping and tree alone:
tests/native/test_native_mcts_plan.py."""

from __future__ import annotations

import pytest

import agents
from agents.mcts import MCTS
from experiments import replay as replays
from rules import ActionKind, Battle, engine

needs_native = pytest.mark.skipif(not engine.native_available(),
                                  reason="the native engine (rules._native) is not built")

SMALL = {"iterations": 12, "rollout_depth": 6, "plan": 2}


@needs_native
@pytest.mark.parametrize(("scenario", "seed", "spec"), [
    ("duel", 1, "mcts(iterations=24,rollout_depth=6,plan=2)"),
    ("skirmish", 2, "mcts(iterations=16,rollout=berserker,prior=berserker,rollout_depth=8,plan=3)"),
    ("ambush", 3, "mcts(iterations=16,rollout_depth=5,plan=1,prior=none)"),
])
def test_plan_search_plays_the_same_battle_on_both_engines(
        monkeypatch: pytest.MonkeyPatch, scenario: str, seed: int, spec: str) -> None:
    searches: list = []
    original = MCTS._new_plan_search

    def spy(self: MCTS, battle: Battle, team: str) -> object | None:
        made = original(self, battle, team)
        searches.append(made)
        return made

    monkeypatch.setattr(MCTS, "_new_plan_search", spy)
    played = {}
    for name in engine.ENGINES:
        monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, name)
        battle, replay = replays.play(scenario, seed, {"party": spec, "monsters": "tactician"})
        played[name] = (replay.to_dict(), battle.to_json())
    in_engine = [s for s in searches if s is not None]
    assert in_engine and any(s.node_count > 0 for s in in_engine), \
        "the native battle's plan search never built a tree in the engine"
    assert played["native"] == played["python"]


def test_plan_search_builds_a_tree_below_the_root_candidates() -> None:
    b = Battle.from_scenario("duel", seed=2, engine="python")
    searcher = MCTS(seed=3, **SMALL)
    captured = {}
    original = searcher._pick

    def keep(root, *args):  # type: ignore[no-untyped-def]
        captured["root"] = root
        return original(root, *args)

    searcher._pick = keep  # type: ignore[method-assign]
    searcher.act(b)
    root = captured["root"]
    below = [grandchild for child in root.children.values()
             for grandchild in child.children.values()]
    assert below, "no node below the root candidates"
    for child in root.children.values():
        assert sum(g.visits for g in child.children.values()) <= child.visits
        for grandchild in child.children.values():
            assert 1 <= grandchild.visits <= grandchild.available


def test_plan_and_tree_together_are_refused() -> None:
    with pytest.raises(ValueError, match="tree or plan"):
        agents.make("mcts(tree=true,plan=2)", seed=0)
    assert agents.make("mcts(plan=2)", seed=0).plan == 2


def test_step_back_searches_only_where_the_prior_ends_its_turn() -> None:
    b = Battle.from_scenario("duel", seed=3, engine="python")
    searcher = MCTS(seed=1, iterations=24, rollout_depth=4, step_back=True)
    prior = agents.make("tactician", seed=1)
    searched = 0
    for _ in range(40):
        d = b.decision
        if d is None:
            break
        if b.combatants[d.actor].team != "party":
            b.apply(agents.make("tactician", seed=0).act(b))
            continue
        expected = prior.act(b)
        action = searcher.act(b)
        assert action in b.legal_actions()
        if expected.kind is not ActionKind.END_TURN:
            assert action == expected and "not searched" in (searcher.reason or "")
        else:
            assert action.kind in (ActionKind.END_TURN, ActionKind.SHIFT)
            searched += searcher.last_iterations > 0
        b.apply(action)
    assert searched > 0
    with pytest.raises(ValueError, match="needs a prior"):
        agents.make("mcts(step_back=true,prior=none)", seed=0)
