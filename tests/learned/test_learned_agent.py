"""``agents.make("learned:PATH")``: legal, deterministic, fits-or-says-so, lazy torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import agents
import rules
from agents.learned import LearnedAgent, LearnedModelError, load_model
from tests.learned.conftest import play_legally

ROOT = Path(__file__).resolve().parents[2]


def _fits(model_path: Path, scenario: str) -> bool:
    agent = agents.make(f"learned:{model_path}")
    battle = rules.Battle.from_scenario(scenario, seed=0)
    try:
        agent.act(battle)
    except LearnedModelError:
        return False
    return True


def test_learned_plays_only_legal_actions_on_every_scenario_it_fits(
        untrained_models: dict[str, Path]) -> None:
    fitted = []
    for model_name, path in untrained_models.items():
        for scenario in rules.shipped_scenarios():
            if not _fits(path, scenario):
                continue
            fitted.append((model_name, scenario))
            battle = rules.Battle.from_scenario(scenario, seed=1)
            # sampling (not the argmax) visits more kinds of decisions; one learned agent
            # per team: any decision of any team
            players = {t: agents.make(f"learned:{path}", seed=1, deterministic=False)
                       for t in battle.scenario.teams}
            decisions = 0
            while not battle.is_over and decisions < 150:
                team = battle.combatants[battle.decision.actor].team
                action = players[team].act(battle)
                assert action in battle.legal_actions()
                battle.apply(action)
                decisions += 1
            assert decisions > 0
    assert ("duel", "duel") in fitted and ("skirmish", "skirmish") in fitted


def test_a_model_that_does_not_fit_says_what_it_expected(
        untrained_models: dict[str, Path]) -> None:
    agent = agents.make(f"learned:{untrained_models['duel']}")
    battle = rules.Battle.from_scenario("skirmish", seed=0)
    with pytest.raises(LearnedModelError, match="does not fit scenario 'skirmish'"):
        agent.act(battle)


def test_deterministic_by_default_and_seeded_when_sampling(
        untrained_models: dict[str, Path]) -> None:
    path = untrained_models["skirmish"]

    def actions(agent: LearnedAgent, seed: int) -> list[rules.Action]:
        battle = rules.Battle.from_scenario("skirmish", seed=seed)
        out = []
        while not battle.is_over and len(out) < 60:
            action = agent.act(battle)
            out.append(action)
            battle.apply(action)
        return out

    first = actions(agents.make(f"learned:{path}", seed=1), 5)
    second = actions(agents.make(f"learned:{path}", seed=99), 5)
    assert first == second  # deterministic mode ignores the agent seed
    sample_a = actions(agents.make(f"learned:{path}", seed=3, deterministic=False), 5)
    sample_b = actions(agents.make(f"learned:{path}", seed=3, deterministic=False), 5)
    assert sample_a == sample_b
    assert sample_a != first  # an untrained policy samples away from its argmax


def test_the_model_is_loaded_once_per_file_version(untrained_models: dict[str, Path]) -> None:
    path = untrained_models["duel"]
    assert load_model(path) is load_model(str(path))


def test_missing_model_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(LearnedModelError, match="no such model file"):
        agents.make(f"learned:{tmp_path / 'nothing.zip'}")
    with pytest.raises(LearnedModelError, match="expected a shipped model name"):
        agents.make("learned")


def test_importing_agents_does_not_import_torch() -> None:
    code = "import sys, agents; agents.make('berserker'); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


def test_shipped_models_load_by_name_and_play_their_scenario() -> None:
    from agents.learned import shipped_models

    assert {"duel", "skirmish"} <= set(shipped_models())
    for name in ("duel", "skirmish"):
        assert play_legally(agents.make(f"learned:{name}"), name, seed=4, decisions=40) > 10


def test_a_learned_agent_loads_without_importing_experiments() -> None:
    """DESIGN.md: ``agents`` imports ``rules`` and ``env`` only, learned policies included
    (the features extractor lives in ``agents.features``)."""
    code = ("import sys, agents, rules; agent = agents.make('learned:duel'); "
            "battle = rules.Battle.from_scenario('duel', seed=1); "
            "battle.apply(agent.act(battle)); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'experiments'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
