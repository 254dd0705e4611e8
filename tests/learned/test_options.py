"""Selector policies (``agents/options.py``, ``fray train --options``): an action picks which
scripted agent plays the decision, and a selector favouring its first option plays
exactly as that option."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

import agents
import rules
from agents.environments import skirmish_env
from agents.model_file import save_model_file
from agents.options import OptionSelector, OptionsWrapper
from experiments.cli import main
from experiments.train.sb3 import (
    TrainConfig,
    favour_first_option,
    latest_checkpoint,
    policy_spec,
    train,
)
from tests.learned.conftest import events_against_berserkers, play_legally

OPTIONS = ["tactician", "defender", "berserker"]


def _selector_env(scenario: str, seed: int = 3, hold: str = "decision") -> OptionsWrapper:
    return OptionsWrapper(skirmish_env(scenario=scenario, opponent="berserker"), OPTIONS,
                          seed=seed, hold=hold)


@pytest.mark.parametrize("option", range(len(OPTIONS)))
def test_an_option_plays_as_its_agent_does(option: int) -> None:
    """Choosing option k at every decision is the battle option k's agent would play."""
    wrapped = _selector_env("skirmish")
    plain = skirmish_env(scenario="skirmish", opponent="berserker")
    wrapped.reset(seed=5)
    plain.reset(seed=5)
    shadow = agents.make(OPTIONS[option], seed=3 * 31 + option)
    for _ in range(60):
        expected = plain.encode(shadow.act(plain.battle))
        _, reward, done, truncated, _ = wrapped.step(option)
        _, plain_reward, plain_done, _, _ = plain.step(expected)
        assert reward == plain_reward and done == plain_done
        if done or truncated:
            break
    events = [repr(e) for e in wrapped.unwrapped.battle.events]
    assert events == [repr(e) for e in plain.battle.events] and len(events) > 20


def test_every_option_is_always_legal_and_others_are_refused() -> None:
    env = _selector_env("duel")
    env.reset(seed=1)
    assert env.action_space.n == len(OPTIONS)
    assert env.action_masks().tolist() == [True] * len(OPTIONS)
    with pytest.raises(ValueError, match=r"option 3 is not one of 0\.\.2"):
        env.step(3)
    with pytest.raises(ValueError, match="at least two agents"):
        OptionSelector(["tactician"])


@pytest.mark.parametrize("hold", ["turn", "battle"])
def test_a_held_choice_plays_on_without_asking(hold: str) -> None:
    """Held choices: the policy is asked once per unit and round (``turn``) or once per
    unit (``battle``), and holding option k is the battle of choosing k every time."""
    for option in (0, 1):
        held, every = _selector_env("skirmish", hold=hold), _selector_env("skirmish")
        held.reset(seed=7)
        every.reset(seed=7)
        asked, total, every_total = [], 0.0, 0.0
        for _ in range(300):
            battle = held.unwrapped.battle
            asked.append((battle.decision.actor, battle.round if hold == "turn" else 0))
            _, reward, done, truncated, _ = held.step(option)
            total += reward
            if done or truncated:
                break
        for _ in range(300):
            _, reward, done, truncated, _ = every.step(option)
            every_total += reward
            if done or truncated:
                break
        assert len(asked) == len(set(asked)), "a held unit was asked again"
        events = [repr(e) for e in held.unwrapped.battle.events]
        assert events == [repr(e) for e in every.unwrapped.battle.events]
        assert abs(total - every_total) < 1e-9
        if hold == "battle":
            assert len(asked) <= 4  # skirmish's four monsters


def _untrained_selector(path: Path, scenario: str, prior: float,
                        hold: str = "decision") -> Path:
    torch.set_num_threads(1)
    name, kwargs = policy_spec("fray", scenario, options=OPTIONS, option_hold=hold)
    model = MaskablePPO(name, _selector_env(scenario, hold=hold), policy_kwargs=kwargs,
                        n_steps=64,
                        batch_size=32, seed=0, device="cpu")
    favour_first_option(model, prior)
    return save_model_file(model.policy, path, scenario=scenario, team="monsters")


def test_the_first_options_prior_sets_its_initial_probability(tmp_path: Path) -> None:
    """With K options and prior b, the untrained selector picks the first one with
    probability about e**b / (e**b + K - 1) (the head's other logits start near 0)."""
    agent = agents.make(f"learned:{_untrained_selector(tmp_path / 's.json', 'duel', 3.0)}")
    assert agent.options == OPTIONS
    battle = rules.Battle.from_scenario("duel", seed=2)
    while battle.combatants[battle.decision.actor].team != "monsters":
        battle.apply(agents.make("berserker").act(battle))
    probs, _ = agent.probabilities(battle)
    expected = np.exp(3.0) / (np.exp(3.0) + len(OPTIONS) - 1)
    assert probs.shape == (len(OPTIONS),) and abs(probs[0] - expected) < 0.02


@pytest.mark.parametrize("scenario", ["duel", "skirmish"])
def test_a_selector_favouring_its_first_option_plays_as_it(tmp_path: Path,
                                                           scenario: str) -> None:
    path = _untrained_selector(tmp_path / "selector.json", scenario, prior=50.0)
    for seed in (2, 3):
        logs = [events_against_berserkers(scenario, seed, monsters, monster_seed=0)
                for monsters in (f"learned:{path}", "tactician")]
        assert logs[0] == logs[1] and len(logs[0]) > 10


def test_a_learned_selector_asks_its_network_once_per_held_span(tmp_path: Path) -> None:
    path = _untrained_selector(tmp_path / "turn.json", "skirmish", prior=0.0, hold="turn")
    agent = agents.make(f"learned:{path}", seed=2, deterministic=False)
    asked: list[tuple[str, int]] = []
    choice = agent._choice

    def spy(battle: rules.Battle) -> tuple[int, object]:
        asked.append((battle.decision.actor, battle.round))
        return choice(battle)

    agent._choice = spy  # type: ignore[method-assign]
    assert play_legally(agent, "skirmish", seed=3, decisions=120) > len(set(asked)) > 3
    assert len(asked) == len(set(asked))


def test_selector_training_runs_and_its_checkpoint_plays_legally(tmp_path: Path) -> None:
    config = TrainConfig(scenario="duel", out=str(tmp_path), opponents=["berserker", "self"],
                         steps=64, n_steps=64, batch_size=64, n_epochs=1,
                         checkpoint_every=32, options=OPTIONS, option_hold="turn",
                         progress=False)
    final = train(config)
    assert final == latest_checkpoint(tmp_path).with_suffix(".json")
    agent = agents.make(f"learned:{final}", seed=1)
    assert agent.options == OPTIONS and agent._options.hold == "turn"
    assert play_legally(agent, "duel", seed=3, decisions=30) > 5
    again = [agents.make(f"learned:{final}", seed=1) for _ in range(2)]
    battles = [rules.Battle.from_scenario("duel", seed=4) for _ in range(2)]
    for _ in range(40):
        if battles[0].is_over:
            break
        actions = [a.act(b) for a, b in zip(again, battles, strict=True)]
        assert actions[0] == actions[1]
        for battle, action in zip(battles, actions, strict=True):
            battle.apply(action)


def test_the_cli_rejects_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in (
            (["--options", "tactician,defender", "--policy", "mlp"],
             "--options: needs --policy fray"),
            (["--options", "tactician"], "--options: expected two or more agent names"),
            (["--options", "tactician,self"], "--options: expected two or more agent names"),
            (["--options", "tactician,nobody"], "unknown agent 'nobody'"),
            (["--option-hold", "turn"], "--option-hold: goes with --options"),
            (["--options", "tactician,defender", "--backend", "rllib"],
             "--backend rllib: --options is sb3-only"),
            (["--options", "tactician,defender", "--imitate", "tactician"],
             "--options: goes without --imitate")):
        assert main(["train", "duel", "--out", str(tmp_path / "bad"), *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and message in err


def test_the_option_report_counts_the_option_behind_every_decision(tmp_path: Path) -> None:
    from experiments.train.option_report import main as report_main
    from experiments.train.option_report import option_report

    path = _untrained_selector(tmp_path / "first.json", "duel", prior=50.0)
    report = option_report(f"learned:{path}", scenario="duel", battles=2, seed=0)
    played = sum(sum(c.values()) for c in report.played.values())
    assert played == len(report.first_probabilities) > 5  # every decision asked
    assert all(set(c) == {"tactician"} for c in report.played.values())
    assert report.mean_first > 0.99 and "0 of" in report.lines()[0]
    plain = tmp_path / "plain.json"
    from tests.learned.conftest import save_untrained

    save_untrained("duel", plain)
    with pytest.raises(ValueError, match="not a selector model"):
        option_report(f"learned:{plain}", scenario="duel", battles=1)
    assert report_main([f"learned:{plain}", "--scenario", "duel", "--battles", "1"]) == 2
