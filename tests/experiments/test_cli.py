"""The ``fray`` CLI: watch shows the default scenario and a whole battle (the demo is
tested in test_demo.py)."""

from __future__ import annotations

import pytest

import rules
from experiments import cli
from experiments.comparison import report


def test_watch_shows_map_derived_values_initiative_and_a_battle(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["watch", cli.DEFAULT_SCENARIO, "--seed", "2"]) == 0
    out = capsys.readouterr().out
    battle = rules.Battle.from_scenario(cli.DEFAULT_SCENARIO, seed=2)
    assert report.map_text(battle) in out
    assert "Initiative order (S1): " + " > ".join(battle.initiative_order) in out
    for cid, c in battle.combatants.items():
        assert cid in out
        assert f"{c.hp}/{c.max_hp}" in out
    assert "Result: " in out


def test_watch_plays_the_named_agents_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["watch", "duel", "--seed", "3", "--party", "berserker",
                     "--monsters", "random", "--full-log"]) == 0
    out = capsys.readouterr().out
    battle = cli.play_battle("duel", 3, "berserker", "random")
    assert battle.is_over
    assert str(battle.events[-1]) in out


def test_bad_scenario_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["watch", "no_such_place"]) == 2
    err = capsys.readouterr().err
    assert "no_such_place: name: expected a shipped scenario" in err


def test_scenarios_lists_every_shipped_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["scenarios"]) == 0
    out = capsys.readouterr().out
    for name in rules.shipped_scenarios():
        assert name in out

