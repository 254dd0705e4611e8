"""Residual policies (``agents/advice.py``, ``fray train --advice``): the ``advice`` key names
the advisor's action, and an untrained advised model plays exactly as its advisor."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

import agents
from agents.advice import ADVICE_KEY, AdviceWrapper
from agents.environments import skirmish_env
from agents.model_file import save_model_file
from experiments.cli import main
from experiments.train.sb3 import TrainConfig, latest_checkpoint, policy_spec, train
from tests.learned.conftest import events_against_berserkers, play_legally


def _advised_env(scenario: str) -> AdviceWrapper:
    return AdviceWrapper(skirmish_env(scenario=scenario, opponent="berserker"), "tactician",
                         seed=3)


def test_advice_names_the_advisors_legal_action() -> None:
    env = _advised_env("skirmish")
    assert env.observation_space[ADVICE_KEY].n == env.action_space.n + 1
    obs, _ = env.reset(seed=1)
    shadow = agents.make("tactician", seed=3)
    for _ in range(40):
        battle = env.unwrapped.battle
        expected = env.unwrapped.encode(shadow.act(battle))
        assert obs[ADVICE_KEY] == expected and obs["action_mask"][expected] == 1
        obs, _, done, truncated, _ = env.step(int(obs[ADVICE_KEY]))
        if done or truncated:
            assert obs[ADVICE_KEY] == env.action_space.n
            break


def test_an_advisor_can_be_an_agent_spec() -> None:
    env = AdviceWrapper(skirmish_env(scenario="duel", opponent="berserker"),
                        "tactician(step_back=true)", seed=3)
    assert env.advisor.step_back is True
    obs, _ = env.reset(seed=2)
    assert obs["action_mask"][obs[ADVICE_KEY]] == 1


def _untrained_advised(path: Path, scenario: str) -> Path:
    torch.set_num_threads(1)
    name, kwargs = policy_spec("fray-spatial", scenario, "tactician")
    model = MaskablePPO(name, _advised_env(scenario), policy_kwargs=kwargs, n_steps=64,
                        batch_size=32, seed=0, device="cpu")
    return save_model_file(model.policy, path, scenario=scenario, team="monsters")


@pytest.mark.parametrize("scenario", ["duel", "skirmish"])
def test_an_untrained_advised_model_plays_as_its_advisor(tmp_path: Path,
                                                         scenario: str) -> None:
    path = _untrained_advised(tmp_path / "advised.json", scenario)
    for seed in (2, 3):
        logs = [events_against_berserkers(scenario, seed, monsters, monster_seed=5)
                for monsters in (f"learned:{path}", "tactician")]
        assert logs[0] == logs[1] and len(logs[0]) > 10


def test_advised_training_runs_and_its_checkpoint_plays_legally(tmp_path: Path) -> None:
    config = TrainConfig(scenario="duel", out=str(tmp_path), opponents=["berserker"],
                         steps=64, n_steps=64, batch_size=64, n_epochs=1,
                         checkpoint_every=0, policy="fray-spatial", advice="tactician",
                         progress=False)
    final = train(config)
    assert final == latest_checkpoint(tmp_path).with_suffix(".json")
    agent = agents.make(f"learned:{final}", seed=1)
    assert play_legally(agent, "duel", seed=3, decisions=30) > 5
    weight = agent.model.policy.features_extractor.advice_weight
    assert np.isfinite(float(weight.detach()))


def test_the_cli_rejects_bad_advice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in (
            (["--advice", "tactician"], "--advice: needs --policy fray-spatial"),
            (["--advice", "nobody", "--policy", "fray-spatial"], "unknown agent 'nobody'"),
            (["--advice", "tactician", "--policy", "fray-spatial", "--imitate", "tactician"],
             "--advice: goes without --imitate")):
        assert main(["train", "duel", "--out", str(tmp_path / "bad"), *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and message in err
