"""The shrinker on planted bugs: a test-only broken invariant, and a monkeypatched rule
(clones that share their combatants' budget lists). Nothing in rules/ changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rules
from experiments import cli
from experiments.fuzzing import fuzz, generate, shrink
from experiments.fuzzing.fuzz_campaign import campaign
from experiments.fuzzing.invariants import need
from experiments.replay import Replay
from rules.events import DamageDealt


def no_hit_of_four_or_more(b: rules.Battle) -> None:
    """A planted, wrong invariant: nobody ever takes 4 damage or more."""
    for e in b.events[-12:]:
        if isinstance(e, DamageDealt):
            need(e.damage < 4, "planted", f"{e.target} took {e.damage}")


def _first_failing_generated(checks: fuzz.Checks) -> tuple[fuzz.Case, fuzz.Outcome, int]:
    rng = np.random.default_rng(5)
    content = rules.default_content()
    for i in range(40):
        data = generate.random_scenario(rng, content, name=f"g{i}")
        case = fuzz.Case(generate.scenario_toml(data), f"<g{i}>", i)
        outcome = fuzz.run(case, fuzz.agent_chooser(case.battle(), {}, i), checks)
        if outcome.failure is not None and outcome.decisions > 12:  # something to shrink
            return case, outcome, len(data["units"])
    raise AssertionError("no generated battle hit the planted invariant")


def test_shrinker_finds_a_small_reproduction_of_a_planted_invariant() -> None:
    checks = fuzz.Checks(clone_every=0, json_every=0, extra=(no_hit_of_four_or_more,))
    case, outcome, units = _first_failing_generated(checks)
    assert outcome.failure is not None and outcome.failure.name == "planted"
    result = shrink.shrink(case, outcome.choices, outcome.failure, checks, seconds=300,
                           max_tests=250)
    assert result is not None
    assert result.outcome.failure is not None
    assert result.outcome.failure.name == "planted"
    assert len(result.choices) < outcome.decisions
    assert len(result.choices) <= 12  # a hit needs at most a few turns of moves
    shrunk = generate.scenario_data(result.case.text)
    original = generate.scenario_data(case.text)
    assert len(shrunk["units"]) <= units
    rows, old_rows = generate.map_rows(shrunk), generate.map_rows(original)
    assert len(rows) <= len(old_rows) and len(rows[0]) <= len(old_rows[0])
    # the shrunk run really fails from its own choices
    again = fuzz.run_choices(result.case, result.choices, checks)
    assert again.failure is not None and again.failure.name == "planted"


@pytest.fixture
def shared_budget_clones(monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted rule bug: ``Combatant.copy`` forgets to copy ``actions_used``. It is
    planted in the Python engine, which these battles run on."""
    monkeypatch.setenv(rules.engine.ENVIRONMENT_VARIABLE, "python")
    original = rules.Combatant.copy

    def broken(self: rules.Combatant) -> rules.Combatant:
        new = original(self)
        new.actions_used = self.actions_used
        return new

    monkeypatch.setattr(rules.Combatant, "copy", broken)


def test_fuzz_finds_shrinks_and_replays_a_planted_rule_bug(
        shared_budget_clones: None, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fuzz"
    summary = campaign(out, seconds=60, battles=1, seed=1, agent_pool=["berserker"],
                       checks=fuzz.Checks(json_every=0, replay=False), shrink_seconds=300,
                       shrink_tests=150)
    assert len(summary.found) == 1
    found = summary.found[0]
    assert found.failure.name in ("clone", "budget")
    assert found.shrunk_to is not None and found.shrunk_to <= 3
    replay = Replay.load(found.path)
    assert replay.failure is not None and replay.failure["name"] == found.failure.name
    assert len(replay.actions) == found.shrunk_to
    assert cli.main(["replay", str(found.path)]) == 1
    assert "REPRODUCED" in capsys.readouterr().out


def test_a_fixed_bug_no_longer_reproduces(shared_budget_clones: None, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    summary = campaign(tmp_path, seconds=60, battles=1, seed=1, agent_pool=["random"],
                       checks=fuzz.Checks(json_every=0, replay=False), shrink_seconds=300,
                       shrink_tests=20)
    path = summary.found[0].path
    monkeypatch.undo()  # "fix" the rule
    assert cli.main(["replay", str(path)]) == 0
    assert "no longer happens" in capsys.readouterr().out


def test_fuzz_command_exits_1_and_names_the_replay_file(
        shared_budget_clones: None, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["fuzz", "--battles", "1", "--seconds", "300", "--agents", "random",
                     "--shrink-seconds", "3", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAILURE invariant" in out and str(tmp_path / "failures") in out
    found = list((tmp_path / "failures").glob("00-invariant-*.json"))
    assert found
    page = found[0].with_suffix(".html").read_text(encoding="utf-8")  # the viewer page
    assert "<canvas" in page and Replay.load(found[0]).scenario_name in page
