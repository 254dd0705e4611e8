"""``fray train --imitate``: demonstrations through the env, behaviour cloning, the warm
start before PPO and the cloning loss kept during it."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

import agents
import rules
from agents.learned import load_model
from agents.model_file import save_model_file
from env.core import ScenarioSetup
from env.observation import DECISION_KINDS
from experiments.cli import main
from experiments.train.imitation import (
    BehaviourCloning,
    Demonstrations,
    accuracy,
    accuracy_by_kind,
    collect,
    discounted,
    pretrain,
    split,
)
from experiments.train.sb3 import TrainConfig, latest_checkpoint, train
from rules import DecisionKind


@pytest.fixture(scope="module")
def demos():
    return collect("duel", "monsters", ["tactician"], ["berserker", "tactician"], 4, seed=5)


def test_discounted_returns() -> None:
    assert discounted([0.0, 0.5, 1.0], 0.5).tolist() == [0.5, 1.0, 1.0]


def test_demonstrations_hold_every_decision_of_the_team_with_legal_indices(demos) -> None:
    n = len(demos)
    assert n > 20 and demos.battles == 4 and 0 <= demos.wins <= 4
    masks = demos.observations["action_mask"]
    assert masks.shape == (n, ScenarioSetup("duel").n)
    assert all(masks[i, demos.actions[i]] == 1 for i in range(n))
    # reactions are recorded too, not only turns
    kinds = {DECISION_KINDS[k] for k in demos.observations["decision"][:, 0]}
    assert DecisionKind.TURN in kinds and len(kinds) > 1
    assert sorted(set(demos.episodes.tolist())) == [5, 6, 7, 8]
    # the last return of each battle is its last reward, which holds the outcome
    last = [np.flatnonzero(demos.episodes == b)[-1] for b in (5, 6, 7, 8)]
    assert all(abs(demos.returns[i]) >= 0.5 for i in last)


def test_demonstrations_are_reproducible(demos) -> None:
    again = collect("duel", "monsters", ["tactician"], ["berserker", "tactician"], 4, seed=5)
    assert np.array_equal(again.actions, demos.actions)
    assert np.array_equal(again.returns, demos.returns)
    for key, value in demos.observations.items():
        assert np.array_equal(again.observations[key], value)


def test_a_driver_plays_while_the_demonstrator_labels(demos) -> None:
    driven = collect("duel", "monsters", ["tactician"], ["berserker", "tactician"], 4, seed=5,
                     driver="random")
    masks = driven.observations["action_mask"]
    assert all(masks[i, driven.actions[i]] == 1 for i in range(len(driven)))
    # the same battles, but the random driver reaches other states than the tactician
    assert len(driven) != len(demos) or not np.array_equal(
        driven.observations["units"], demos.observations["units"])


def test_split_holds_out_whole_battles(demos) -> None:
    train_set, held_out = split(demos, held_out=0.25)
    assert set(held_out.episodes.tolist()) == {8}
    assert len(train_set) + len(held_out) == len(demos)


def test_cloning_fits_the_demonstrator(demos, tmp_path: Path) -> None:
    import torch

    from tests.learned.conftest import save_untrained

    torch.manual_seed(0)
    model = load_model(save_untrained("duel", tmp_path / "bc.json"))
    before = accuracy(model.policy, demos)
    history = pretrain(model.policy, demos, epochs=6, batch_size=32, seed=0)
    assert [row["epoch"] for row in history] == [1, 2, 3, 4, 5, 6]
    assert history[-1]["loss"] < history[0]["loss"]
    assert accuracy(model.policy, demos) > max(before, 0.5)
    rows = accuracy_by_kind(model.policy, demos, ScenarioSetup("duel").codec)
    assert sum(row["samples"] for row in rows) == len(demos)
    assert all(row["same_index"] <= row["same_kind"] for row in rows)
    weighted = sum(row["samples"] * row["same_index"] for row in rows) / len(demos)
    assert weighted == pytest.approx(accuracy(model.policy, demos))
    assert {row["kind"] for row in rows} <= {kind.name for kind in rules.ActionKind}


@pytest.mark.parametrize("policy", ["fray-spatial"])
def test_the_spatial_policy_clones_too(demos, tmp_path: Path, policy: str) -> None:
    import torch

    from tests.learned.conftest import save_untrained

    torch.manual_seed(0)
    model = load_model(save_untrained("duel", tmp_path / "bc.json", policy=policy))
    before = accuracy(model.policy, demos)
    pretrain(model.policy, demos, epochs=6, batch_size=32, seed=0)
    assert accuracy(model.policy, demos) > max(before, 0.5)


def test_kept_cloning_decays_to_zero() -> None:
    cloning = BehaviourCloning.__new__(BehaviourCloning)
    cloning.minibatches, cloning.steps = 4, 1000
    assert [cloning.count(s) for s in (0, 500, 999, 1000, 5000)] == [4, 2, 1, 0, 0]


def test_warm_started_training_writes_step_zero_and_plays_legally(tmp_path: Path) -> None:
    config = TrainConfig(scenario="duel", out=str(tmp_path), opponents=["berserker", "self"],
                         steps=128, n_steps=64, batch_size=64, n_epochs=1,
                         checkpoint_every=0, imitate=["tactician"], imitate_battles=3,
                         imitate_epochs=2, imitate_rounds=1, imitate_keep=2,
                         imitate_keep_steps=100, imitate_data=str(tmp_path / "demos.npz"),
                         learning_rate=5e-5, clip_range=0.1, ent_coef=0.0, progress=False)
    final = train(config)
    assert final == latest_checkpoint(tmp_path).with_suffix(".json")
    assert load_model(final).description["trained"]["steps"] == 128
    step_zero = load_model(tmp_path / "checkpoints" / "step_0000000000.json")
    assert step_zero.description["trained"]["steps"] == 0
    with (tmp_path / "imitation.csv").open() as handle:
        rows = [(row["round"], row["epoch"]) for row in csv.DictReader(handle)]
    assert rows == [("0", "1"), ("0", "2"), ("1", "1")]
    cached = Demonstrations.load(tmp_path / "demos.npz")  # the first set, before DAgger
    assert cached.battles == 3 and len(cached) > 0
    chosen = []
    for _ in range(2):
        battle = rules.Battle.from_scenario("duel", seed=4)
        agent = agents.make(f"learned:{final}")
        party = agents.make("berserker", seed=4)
        actions = []
        while not battle.is_over:
            team = battle.combatants[battle.decision.actor].team
            action = agent.act(battle) if team == "monsters" else party.act(battle)
            assert action in battle.legal_actions()
            actions.append(action)
            battle.apply(action)
        chosen.append(actions)
    assert chosen[0] == chosen[1]


def test_the_cli_rejects_bad_imitation_arguments(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in (
            (["--imitate", "self"], "--imitate: expected agent names"),
            (["--imitate", "nobody"], "unknown agent 'nobody'"),
            (["--imitate", "tactician", "--imitate-battles", "0"],
             "--imitate-battles: expected a whole number >= 1"),
            (["--learning-rate", "0"], "--learning-rate: expected a number > 0"),
            (["--ent-coef", "-1"], "--ent-coef: expected a number >= 0")):
        args = ["train", "duel", "--out", str(tmp_path / "bad"), *argv]
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and message in err


def test_init_starts_ppo_from_a_saved_policy_and_keeps_its_cloning_loss(
        demos, tmp_path: Path) -> None:
    import torch

    from tests.learned.conftest import save_untrained

    source = save_untrained("duel", tmp_path / "source.json")
    demos.save(tmp_path / "demos.npz")
    config = TrainConfig(scenario="duel", out=str(tmp_path / "run"), opponents=["berserker"],
                         steps=64, n_steps=64, batch_size=64, n_epochs=1, checkpoint_every=0,
                         init=str(source), imitate_data=str(tmp_path / "demos.npz"),
                         imitate_keep=2, imitate_keep_steps=100, progress=False)
    final = train(config)
    assert load_model(final).description["trained"]["steps"] == 64
    start = load_model(tmp_path / "run" / "checkpoints" / "step_0000000000.json")
    for key, value in load_model(source).policy.state_dict().items():
        assert torch.equal(start.policy.state_dict()[key], value), key
    moved = load_model(final).policy.state_dict()
    assert any(not torch.equal(moved[k], v) for k, v in start.policy.state_dict().items())


def test_the_cli_rejects_a_bad_init(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.learned.conftest import save_untrained, untrained_model

    mlp = save_untrained("duel", tmp_path / "mlp.json", policy="mlp")
    pickled = tmp_path / "plain.zip"
    untrained_model("duel").save(pickled)
    for argv, message in (
            (["--init", str(tmp_path / "missing.json")], "--init: no model file"),
            (["--init", str(pickled), "--steps", "64", "--checkpoint-every", "0"],
             "a stable-baselines3 zip is unpickled when loaded"),
            (["--init", str(mlp), "--resume"], "--resume: no checkpoint"),
            (["--imitate-keep", "2"], "--imitate-keep: needs --imitate"),
            (["--init", str(mlp), "--imitate-keep", "2"], "--imitate-data must name"),
            (["--init", str(mlp), "--steps", "64", "--n-steps", "64", "--envs", "1",
              "--checkpoint-every", "0"], "is not a --policy fray network")):
        args = ["train", "duel", "--out", str(tmp_path / "bad"), *argv]
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and message in err


def test_init_with_imitate_clones_on_from_the_saved_weights(demos, tmp_path: Path) -> None:
    from tests.learned.conftest import save_untrained

    cloned = load_model(save_untrained("duel", tmp_path / "source.json"))
    pretrain(cloned.policy, demos, epochs=6, batch_size=32, seed=0)
    save_model_file(cloned.policy, tmp_path / "cloned.json", scenario="duel", team="monsters")
    demos.save(tmp_path / "demos.npz")
    config = TrainConfig(scenario="duel", out=str(tmp_path / "run"), opponents=["berserker"],
                         steps=1, n_steps=64, batch_size=32, n_epochs=1, checkpoint_every=0,
                         init=str(tmp_path / "cloned.json"), imitate=["tactician"],
                         imitate_data=str(tmp_path / "demos.npz"), imitate_epochs=1,
                         progress=False)
    train(config)
    start = load_model(tmp_path / "run" / "checkpoints" / "step_0000000000.json")
    fresh = load_model(save_untrained("duel", tmp_path / "fresh.json"))
    pretrain(fresh.policy, demos, epochs=1, batch_size=32, seed=0)
    # one more epoch from the cloned weights keeps their accuracy; one from scratch is behind
    assert accuracy(start.policy, demos) >= accuracy(cloned.policy, demos) - 0.05
    assert accuracy(start.policy, demos) > accuracy(fresh.policy, demos)


def test_demonstrations_and_cloning_show_their_bars_with_a_total_from_the_start(
        demos, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The demonstrations bar moves per battle (not per chunk of ten), behaviour cloning's
    per minibatch against epochs x minibatches: both have an ETA early."""
    import re

    from experiments.train.imitation import _collect_chunk
    from tests.learned.conftest import save_untrained

    collect("duel", "monsters", ["tactician"], ["berserker"], 2, seed=5, progress=True)
    lines = re.split(r"[\r\n]", capsys.readouterr().err)
    assert any(" 0/2 " in line for line in lines if line.startswith("demonstrations"))
    assert any(" 2/2 " in line for line in lines if line.startswith("demonstrations"))
    ticks: list[int] = []  # in-process, the bar moves after every battle of a chunk
    job = ("duel", "monsters", ["tactician"], ["berserker"], [5, 6], 0.5, 0.99, None)
    chunk = _collect_chunk(job, lambda: ticks.append(len(ticks)))
    assert ticks == [0, 1] and len(chunk[2]) == 2
    model = load_model(save_untrained("duel", tmp_path / "bar.zip"))
    batches = -(-len(split(demos)[0]) // 32)
    pretrain(model.policy, demos, epochs=2, batch_size=32, seed=0, progress=True)
    bar = [line for line in re.split(r"[\r\n]", capsys.readouterr().err)
           if line.startswith("behaviour cloning:")]
    assert f" 0/{2 * batches} " in bar[0] and f" {2 * batches}/{2 * batches} " in bar[-1]
