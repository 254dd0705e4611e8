"""``fray train --backend batched`` from a cloned tactician: cloning into the
PolicyValueNet (expert iteration's code), PPO, the final evaluation and ``learned:``
playing the network files it writes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

import agents
import rules
from agents.model_file import LearnedModelError
from agents.policy_value import NetworkShape, PolicyValueNet, load_policy, save_network
from experiments import cli

#: the fair scenarios' shipped monsters (agents/models/NAME.json: network files)
FAIR_MODELS = ("duel_fair",)


def _native() -> None:
    from env import native

    if not native.available():
        pytest.skip("the batched learner runs on the native vector env")


def _play(agent: agents.Agent, scenario: str, seed: int) -> int:
    """Play a whole battle with ``agent`` commanding every team; the decisions played
    (each checked legal)."""
    battle = rules.Battle.from_scenario(scenario, seed=seed)
    count = 0
    while not battle.is_over and count < 400:
        action = agent.act(battle)
        assert action in battle.legal_actions()
        battle.apply(action)
        count += 1
    return count


def test_the_cloned_start_then_ppo_then_the_final_evaluation(tmp_path: Path) -> None:
    _native()
    out = tmp_path / "run"
    assert cli.main(["train", "duel_fair", "--backend", "batched", "--imitate", "tactician",
                     "--imitate-battles", "20", "--imitate-epochs", "3",
                     "--opponent", "tactician,berserker", "--envs", "4", "--n-steps", "8",
                     "--steps", "64", "--checkpoint-every", "0",
                     "--final-eval-battles", "2", "--out", str(out)]) == 0
    checkpoints = sorted(p.name for p in (out / "checkpoints").glob("*.json"))
    assert checkpoints == ["step_0000000000.json", "step_0000000064.json"]
    with (out / "imitation.csv").open() as handle:
        (figures,) = list(csv.DictReader(handle))
    assert int(figures["imitation_samples"]) > 20      # every decision of 20 battles
    assert 0.0 <= float(figures["imitation_held_out_accuracy"]) <= 1.0
    description = json.loads((out / "checkpoints" / "step_0000000064.json").read_text())
    assert description["trained"]["imitate"] == ["tactician"]
    with (out / "final_eval.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["party"], row["seen"]) for row in rows] == [
        ("tactician", "True"), ("berserker", "True"), ("skirmisher", "False"),
        ("defender", "False"), ("pack", "False")]
    assert all(row["battles"] == "2" and row["baseline"] == "tactician" for row in rows)
    assert (out / "learning_curves.png").stat().st_size > 1000
    model = agents.make(f"learned:{out / 'checkpoints' / 'step_0000000064.json'}")
    assert _play(model, "duel_fair", seed=5) > 2


def test_cloning_fits_the_demonstrator(tmp_path: Path) -> None:
    """More cloning epochs agree with the tactician on more of its own decisions than an
    untrained network does (a clone that learned nothing would not)."""
    import torch

    from experiments.train.batched_ppo import BatchedConfig, clone
    from experiments.train.expert_iteration import accuracy, demonstration_samples

    torch.manual_seed(0)
    net = PolicyValueNet(NetworkShape.of_scenario("duel"))
    samples = demonstration_samples("duel", ["monsters"], ["tactician"], ["berserker"], 30,
                                    seed=7)
    before = accuracy(net, samples)
    config = BatchedConfig("duel", str(tmp_path), opponents=["berserker"],
                           imitate=["tactician"], imitate_battles=30, imitate_epochs=20,
                           progress=False)
    figures = clone(net, config)
    assert figures["imitation_accuracy"] > max(0.6, before + 0.2)
    assert (tmp_path / "imitation.csv").is_file()


def test_learned_plays_network_files_and_checks_their_fit(tmp_path: Path) -> None:
    import torch

    torch.manual_seed(1)
    net = PolicyValueNet(NetworkShape.of_scenario("duel"))
    path = save_network(net, tmp_path / "net.json", scenario="duel", team="monsters")
    model = agents.make(f"learned:{path}")
    assert _play(model, "duel", seed=2) > 2
    # the most probable legal action of the network, as az(iterations=0) plays it
    battle = rules.Battle.from_scenario("duel", seed=3)
    search_free = agents.make(f"az(path={path},iterations=0)")
    for _ in range(6):
        if battle.is_over:
            break
        action = model.act(battle)
        assert action == search_free.act(battle)
        battle.apply(action)
    sampled = [agents.make(f"learned:{path}(deterministic=false)", seed=9).act(
        rules.Battle.from_scenario("duel", seed=3)) for _ in range(2)]
    assert sampled[0] == sampled[1]
    with pytest.raises(LearnedModelError, match="does not fit scenario 'skirmish'"):
        model.act(rules.Battle.from_scenario("skirmish", seed=0))


def test_a_network_files_options_must_be_agent_specs(tmp_path: Path) -> None:
    net = PolicyValueNet(NetworkShape(planes=(15, 5, 9), units=(2, 37), decision=(4, 2),
                                      globals=3, actions=4))
    path = save_network(net, tmp_path / "sel.json", scenario="duel", team="monsters",
                        trained={"options": ["tactician", "defender", "berserker",
                                             "skirmisher"]})
    assert load_policy(path).options == ["tactician", "defender", "berserker", "skirmisher"]
    data = json.loads(path.read_text())
    data["trained"]["options"] = [3]
    path.write_text(json.dumps(data))
    with pytest.raises(LearnedModelError, match=r"trained.options: expected a list"):
        load_policy(path)
    data["trained"] = "none"
    path.write_text(json.dumps(data))
    with pytest.raises(LearnedModelError, match=r"trained: expected an object"):
        load_policy(path)


@pytest.mark.parametrize("flags", [
    ["--imitate", "tactician", "--imitate-rounds", "1"],
    ["--imitate", "tactician", "--imitate-keep", "2"],
    ["--imitate", "tactician", "--imitate-data", "demos.npz"],
    ["--imitate", "tactician", "--options", "tactician,defender"],
    ["--imitate", "self"],
])
def test_batched_imitation_usage_errors_are_one_line(tmp_path: Path, flags: list[str],
                                                      capsys: pytest.CaptureFixture) -> None:
    argv = ["train", "duel", "--backend", "batched", "--out", str(tmp_path / "x"), *flags]
    assert cli.main(argv) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "x" / "checkpoints").exists()


def test_fit_shapes_of_a_network_policy(tmp_path: Path) -> None:
    net = PolicyValueNet(NetworkShape.of_scenario("duel"))
    path = save_network(net, tmp_path / "n.json", scenario="duel", team="monsters")
    shapes, actions = load_policy(path).fit_shapes()
    assert actions == net.shape.actions
    assert shapes["planes"] == net.shape.planes and shapes["globals"] == (net.shape.globals,)
    assert np.prod(shapes["units"]) > 0


def test_the_shipped_fair_models_are_network_files_and_play_by_name() -> None:
    """``learned:duel_fair`` is the batched learner's network file in agents/models
    (docs/training.md, D): it loads by name from the safe format and plays a battle."""
    from agents.learned import load_model, shipped_models
    from agents.policy_value import NetworkPolicy

    for name in FAIR_MODELS:
        assert name in shipped_models()
        model = load_model(name)
        assert isinstance(model, NetworkPolicy)
        assert model.description["scenario"] == name and model.description["team"] == "monsters"
        assert model.description["trained"]["imitate"] == ["tactician"]
        assert _play(agents.make(f"learned:{name}"), name, seed=11) > 2
