"""``fray train`` (sb3): checkpoints, evaluation rows, resume, CLI errors."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import signal
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

import agents
import rules
from agents.learned import load_model
from experiments.cli import main
from experiments.train.final_evaluation import FINAL_SEED
from experiments.train.sb3 import TrainConfig, adam_options, latest_checkpoint, policy_spec, train
from rules import engine as rules_engine


def _steps(model: Path) -> int:
    """The step count a model file says it was saved at."""
    return load_model(model).description["trained"]["steps"]


def _config(out: Path, steps: int) -> TrainConfig:
    return TrainConfig(scenario="duel", out=str(out), opponents=["berserker", "self"],
                       steps=steps, n_steps=64, batch_size=64, n_epochs=1,
                       checkpoint_every=128, eval_every=128, eval_battles=3,
                       progress=False)


def test_training_writes_loadable_checkpoints_and_resume_continues_the_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp = tmp_path / "temp"  # where stable-baselines3 would make its SB3-<time> folders
    temp.mkdir()
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    find_spec = importlib.util.find_spec  # and no tensorboard, whose folder would be used
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: (
        None if name == "tensorboard" else find_spec(name, *rest)))
    final = train(_config(tmp_path, 256))
    assert list(temp.glob("SB3-*")) == []  # the run's logs stay in its folder
    assert final == latest_checkpoint(tmp_path).with_suffix(".json")
    assert _steps(final) == 256
    for suffix in (".zip", ".json", ".pt"):  # the trainer's state, the model, its weights
        steps = sorted(int(p.stem.split("_")[1])
                       for p in (tmp_path / "checkpoints").glob(f"*{suffix}"))
        assert steps == [128, 256]
    battle = rules.Battle.from_scenario("duel", seed=2)
    agent = agents.make(f"learned:{final}")
    while not battle.is_over:
        action = agent.act(battle) if battle.combatants[
            battle.decision.actor].team == "monsters" else battle.legal_actions()[0]
        assert action in battle.legal_actions()
        battle.apply(action)
    with (tmp_path / "eval.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["step"], r["opponent"], r["battles"]) for r in rows] == [
        ("128", "berserker", "3"), ("256", "berserker", "3")]
    assert json.loads((tmp_path / "config.json").read_text())["steps"] == 256
    from sb3_contrib import MaskablePPO

    trainer = MaskablePPO.load(latest_checkpoint(tmp_path), device="cpu")
    assert trainer.policy.optimizer.defaults.get("fused") == adam_options().get("fused")

    resumed = train(_config(tmp_path, 384), resume=True)
    assert _steps(resumed) == 384
    assert resumed.name == "step_0000000384.json"


class _TerminatingOpponent:
    """A berserker that sends this process SIGTERM at its 40th decision (as ``timeout``
    would) and plays on."""

    def __init__(self, seed: int | None = None) -> None:
        self.inner = agents.make("berserker", seed=seed)
        self.reason = ""
        self.decisions = 0

    def act(self, battle: rules.Battle) -> rules.Action:
        self.decisions += 1
        if self.decisions == 40:
            os.kill(os.getpid(), signal.SIGTERM)
        return self.inner.act(battle)


def test_sigterm_saves_a_checkpoint_and_stops_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(agents._REGISTRY, "terminating", _TerminatingOpponent)
    before = signal.getsignal(signal.SIGTERM)
    config = TrainConfig(scenario="duel", out=str(tmp_path), opponents=["terminating"],
                         steps=100_000, n_steps=64, batch_size=64, n_epochs=1,
                         checkpoint_every=0, progress=False)
    final = train(config)
    steps = _steps(final)
    assert 0 < steps < 100_000 and final == latest_checkpoint(tmp_path).with_suffix(".json")
    assert final.name == f"step_{steps:010d}.json"
    assert signal.getsignal(signal.SIGTERM) == before      # the handler is put back
    resumed = train(replace(config, steps=steps + 64, opponents=["berserker"]), resume=True)
    assert _steps(resumed) >= steps + 64


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_ppo_update_drops_it_and_saves_the_policy_before_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int) -> None:
    """Issue 50: the run stops without finishing the update (one took 75 s under load)
    and saves the policy and optimizer as they were before it; --resume continues."""
    import torch
    from sb3_contrib import MaskablePPO

    original = MaskablePPO.train
    updates: list[str] = []
    before: dict[str, torch.Tensor] = {}

    def signal_at_the_second_update(model: MaskablePPO) -> None:
        if updates == ["finished"]:
            before.update({k: v.clone() for k, v in model.policy.state_dict().items()})
            updates.append("started")
            signal.raise_signal(signum)
        original(model)
        updates.append("finished")

    monkeypatch.setattr(MaskablePPO, "train", signal_at_the_second_update)
    handlers = [signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)]
    config = TrainConfig(scenario="duel", out=str(tmp_path), opponents=["berserker"],
                         steps=100_000, n_steps=64, batch_size=64, n_epochs=1,
                         checkpoint_every=0, progress=False)
    final = train(config)
    assert updates == ["finished", "started"]        # the second update did not finish
    rollout = config.n_steps * config.envs
    assert _steps(final) == 2 * rollout               # its rollout's steps stay counted
    assert final == latest_checkpoint(tmp_path).with_suffix(".json")
    saved = MaskablePPO.load(latest_checkpoint(tmp_path), device="cpu").policy.state_dict()
    assert saved.keys() == before.keys()
    assert all(torch.equal(saved[name], value) for name, value in before.items())
    played = load_model(final).policy.state_dict()     # fray's model file: the same policy
    assert played.keys() == before.keys()
    assert all(torch.equal(played[name], value) for name, value in before.items())
    assert [signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)] == handlers
    resumed = train(replace(config, steps=3 * rollout), resume=True)
    assert _steps(resumed) == 3 * rollout


def test_the_cli_trains_and_rejects_bad_arguments(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["train", "duel", "--steps", "64", "--out", str(out),
                 "--opponent", "random", "--checkpoint-every", "0", "--policy", "mlp",
                 "--final-eval-battles", "3"]) == 0
    # one rollout of 512 steps: the smallest PPO update the defaults allow
    assert _steps(latest_checkpoint(out).with_suffix(".json")) == 512
    # the final evaluation: the trained party and the three held-out ones, the model and
    # the tactician on the same seeds, and the curves beside the checkpoints
    with (out / "final_eval.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["party"], row["seen"]) for row in rows] == [
        ("random", "True"), ("skirmisher", "False"), ("defender", "False"), ("pack", "False")]
    for row in rows:
        assert int(row["battles"]) == 3 and int(row["seed_first"]) == FINAL_SEED
        assert int(row["only_model"]) <= int(row["model_wins"]) <= 3
        assert float(row["model_low"]) <= float(row["model_rate"]) <= float(row["model_high"])
        assert 0 < float(row["sign_test_p"]) <= 1
    assert (out / "learning_curves.png").read_bytes().startswith(b"\x89PNG")
    capsys.readouterr()
    for argv, message in (
            (["--opponent", "nobody"], "unknown agent 'nobody'"),
            (["--steps", "0"], "--steps: expected a whole number >= 1"),
            (["--team", "elves"], "--team: 'elves' is not a team"),
            (["--resume", "--out", str(tmp_path / "empty")], "--resume: no checkpoint")):
        args = ["train", "duel", "--out", str(tmp_path / "bad"), *argv]
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and message in err


@pytest.mark.parametrize("name", ["fray", "fray-spatial", "mlp"])
def test_ppo_updates_with_the_fused_adam_where_torch_has_it(name: str) -> None:
    import torch

    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    assert adam_options() == ({"fused": True} if (major, minor) >= (2, 4) else {})
    assert policy_spec(name, "duel")[1]["optimizer_kwargs"] == adam_options()


def test_torch_threads_sets_the_count_inside_and_restores_it() -> None:
    import torch

    from experiments.train.sb3 import torch_threads, update_thread_count

    before = torch.get_num_threads()
    with torch_threads(update_thread_count()):
        assert torch.get_num_threads() == update_thread_count() >= 1
        with torch_threads(1):
            assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


@pytest.mark.skipif(not rules_engine.native_available(), reason="the native engine is not built")
def test_envs_collect_in_one_batched_native_vector_env(tmp_path: Path) -> None:
    from experiments.train.sb3 import batched_vec_env

    config = TrainConfig(scenario="duel", out=str(tmp_path), opponents=["random", "berserker"],
                         envs=4, steps=256, n_steps=32, batch_size=64, n_epochs=1,
                         checkpoint_every=0, progress=False)
    vec = batched_vec_env(config)
    assert vec is not None and vec.num_envs == 4
    vec.close()
    # an opponent deciding in Python, or --subprocesses: the Gymnasium envs
    assert batched_vec_env(replace(config, opponents=["self"])) is None
    assert batched_vec_env(replace(config, opponents=["pack"])) is None
    final = train(config)
    assert _steps(final) >= 256
