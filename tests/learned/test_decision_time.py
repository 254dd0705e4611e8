"""experiments.train.decision_time: the agents' own decisions are counted and timed on the
same battles (the measure behind issue 49's "at equal time per decision")."""

from __future__ import annotations

import pytest

import rules
from experiments.replay import play
from experiments.train.decision_time import main, measure


def test_each_agent_is_timed_on_its_own_decisions_of_the_same_battles() -> None:
    tallies = measure("duel", ["tactician", "random"], battles=2, seed=7)
    assert list(tallies) == ["tactician", "random"]
    # the tactician's decisions are exactly those of the same battles played untimed
    expected = 0
    for seed in (7, 8):
        deciders: list[str] = []

        def note(battle: rules.Battle, deciders: list[str] = deciders) -> None:
            deciders.append(battle.combatants[battle.decision.actor].team)

        play("duel", seed, {"monsters": "tactician", "party": "tactician"}, on_decision=note)
        expected += deciders.count("monsters")
    assert tallies["tactician"].decisions == expected
    for tally in tallies.values():
        assert tally.decisions > 0 and tally.seconds > 0
        assert tally.mean == pytest.approx(tally.seconds / tally.decisions)


def test_bad_arguments_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", "--agents", "tactician", "--battles", "0"]) == 2
    assert main(["duel", "--agents", "tactician", "--team", "elves"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("decision_time: error: ") for line in lines)
    with pytest.raises(rules.FrayError):
        rules.load_scenario("no_such_scenario", rules.default_content())
