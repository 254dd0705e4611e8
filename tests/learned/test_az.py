"""The ``az`` agent (search guided by a policy/value network), its network files, expert
iteration on a tiny budget and the batched PPO learner."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

import agents
import rules
from agents.az import AZ, AZError, shipped_networks
from agents.model_file import LearnedModelError
from agents.policy_value import (
    NetworkShape,
    PolicyValueNet,
    load_network,
    save_network,
    tensors,
)
from experiments import cli


@pytest.fixture(scope="module")
def duel_network(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch

    torch.manual_seed(0)
    net = PolicyValueNet(NetworkShape.of_scenario("duel"))
    return save_network(net, tmp_path_factory.mktemp("net") / "duel.json", scenario="duel",
                        team="any")


def test_az_is_registered_and_its_options_are_checked(duel_network: Path) -> None:
    assert "az" in agents.names()
    agent = agents.make(f"az(path={duel_network},iterations=5,exploration=2.0)", seed=1)
    assert (agent.path, agent.iterations, agent.exploration) == (str(duel_network), 5, 2.0)
    assert agents.make("az", seed=0).iterations == 64
    with pytest.raises(ValueError, match="iterations expects an integer >= 0"):
        agents.make("az(iterations=-1)")
    with pytest.raises(ValueError, match="path expects a path"):
        agents.make("az(path=3)")
    assert {o.name for o in agents.option_table("az")} == {"path", "iterations",
                                                           "exploration"}


def test_the_shipped_networks_play_their_scenarios() -> None:
    assert set(shipped_networks()) >= {"duel", "skirmish"}
    for scenario in ("duel", "skirmish"):
        battle = rules.Battle.from_scenario(scenario, seed=2)
        agent = agents.make("az(iterations=4)", seed=0)
        assert agent.act(battle) in battle.legal_actions()


def test_a_scenario_without_a_network_is_a_one_line_error(duel_network: Path) -> None:
    battle = rules.Battle.from_scenario("horde", seed=0)
    with pytest.raises(AZError, match="no network shipped for scenario 'horde'"):
        agents.make("az", seed=0).act(battle)
    with pytest.raises(AZError, match="the network has 474 actions"):
        agents.make(f"az(path={duel_network})", seed=0).act(battle)


def test_the_search_never_sees_the_battles_dice(duel_network: Path) -> None:
    battle = rules.Battle.from_scenario("duel", seed=5)
    before = battle.dice.state()
    other = battle.clone()
    other.dice.reseed(123_456)  # the same state, other future dice
    first = agents.make(f"az(path={duel_network},iterations=24)", seed=9)
    second = agents.make(f"az(path={duel_network},iterations=24)", seed=9)
    assert first.act(battle) == second.act(other)
    assert first.last_visits == second.last_visits and sum(first.last_visits.values()) == 24
    assert battle.dice.state() == before


def test_az_plays_a_whole_battle_legally(duel_network: Path) -> None:
    battle = rules.Battle.from_scenario("duel", seed=1)
    players = {"monsters": agents.make(f"az(path={duel_network},iterations=3)", seed=1),
               "party": agents.make("tactician", seed=2)}
    while not battle.is_over:
        decision = battle.decision
        action = players[battle.combatants[decision.actor].team].act(battle)
        assert action in battle.legal_actions()
        battle.apply(action)
    no_search = agents.make(f"az(path={duel_network},iterations=0)", seed=0)
    fresh = rules.Battle.from_scenario("duel", seed=1)
    assert no_search.act(fresh) in fresh.legal_actions()
    assert len(no_search.last_visits) == 1


def test_network_files_round_trip_and_refuse_tampering(duel_network: Path,
                                                       tmp_path: Path) -> None:
    import torch

    net, description = load_network(duel_network)
    assert description["format"] == "fray-network" and description["scenario"] == "duel"
    again = PolicyValueNet(net.shape)
    again.load_state_dict(torch.load(duel_network.with_suffix(".pt"), weights_only=True))
    battle = rules.Battle.from_scenario("duel", seed=0)
    from agents.az import observe

    _, observation, _ = observe(battle)
    batch = [t[None] for t in tensors(observation)]
    with torch.no_grad():
        assert torch.equal(net(*batch)[0], again.eval()(*batch)[0])
    copy = tmp_path / "copy.json"
    copy.write_text(duel_network.read_text())
    copy.with_suffix(".pt").write_bytes(duel_network.with_suffix(".pt").read_bytes() + b"x")
    with pytest.raises(LearnedModelError, match="weights_sha256"):
        load_network(copy)
    data = json.loads(duel_network.read_text())
    data["network"]["hidden"] = -1
    copy.write_text(json.dumps(data))
    copy.with_suffix(".pt").write_bytes(duel_network.with_suffix(".pt").read_bytes())
    with pytest.raises(LearnedModelError, match=r"network\.hidden: expected a positive integer"):
        load_network(copy)
    data["format"] = "fray-model"
    copy.write_text(json.dumps(data))
    with pytest.raises(LearnedModelError, match="format: expected 'fray-network'"):
        load_network(copy)


def test_expert_iteration_runs_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "az"
    common = ["--battles", "1", "--search", "3", "--imitate-battles", "2",
              "--imitate-epochs", "1", "--epochs", "1"]
    assert cli.main(["az-train", "duel", "--out", str(out), "--iterations", "1",
                     *common]) == 0
    checkpoints = sorted(p.name for p in (out / "checkpoints").glob("*.json"))
    assert checkpoints == ["iteration_0000.json", "iteration_0001.json"]
    assert cli.main(["az-train", "duel", "--out", str(out), "--iterations", "2",
                     "--resume"]) == 0
    rows = list(csv.DictReader((out / "progress.csv").open()))
    assert [row["iteration"] for row in rows] == ["1", "2"]
    assert all(int(row["samples"]) > 0 for row in rows)
    assert int(rows[1]["replay"]) == int(rows[0]["samples"]) + int(rows[1]["samples"])
    assert (out / "data" / "iteration_0002.npz").is_file()
    first, _ = load_network(out / "checkpoints" / "iteration_0001.json")
    second, _ = load_network(out / "checkpoints" / "iteration_0002.json")
    assert any(not np.array_equal(a.detach().numpy(), b.detach().numpy())
               for a, b in zip(first.parameters(), second.parameters(), strict=True))
    battle = rules.Battle.from_scenario("duel", seed=0)
    played = agents.make(f"az(path={out}/checkpoints/iteration_0002.json,iterations=2)")
    assert played.act(battle) in battle.legal_actions()


def test_az_train_usage_errors_are_one_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["az-train", "duel", "--out", str(tmp_path), "--resume"],
                 ["az-train", "duel", "--out", str(tmp_path), "--search", "0"],
                 ["az-train", "duel", "--out", str(tmp_path), "--imitate", "nobody"]):
        assert cli.main(argv) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_batched_ppo_writes_networks_az_plays(tmp_path: Path) -> None:
    from env import native

    if not native.available():
        pytest.skip("the batched learner runs on the native vector env")
    from experiments.train.batched_ppo import BatchedConfig, train_batched

    config = BatchedConfig("duel", str(tmp_path), opponents=["berserker"], steps=64, envs=4,
                           n_steps=8, minibatch=16, checkpoint_every=0, progress=False)
    final, figures = train_batched(config)
    assert figures["steps"] == 64 and figures["flops_per_sample"] > 0
    assert final.name == "step_0000000064.json"
    battle = rules.Battle.from_scenario("duel", seed=0)
    agent = AZ(path=str(final), iterations=0)
    assert agent.act(battle) in battle.legal_actions()
    assert cli.main(["train", "duel", "--backend", "batched", "--out", str(tmp_path),
                     "--opponent", "self"]) == 2
