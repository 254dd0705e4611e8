"""fray compare: the SPRT on agents of known difference, and its error paths."""

from __future__ import annotations

import math

import pytest

import agents
from agents.random_agent import RandomAgent
from experiments import cli
from experiments.commands.compare import Comparison, compare
from experiments.comparison.runner import AgentSpec
from experiments.comparison.stats import Sprt


def test_berserker_is_better_than_random_on_duel_within_few_battles(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["compare", "berserker", "random", "--scenario", "duel",
                     "--workers", "1", "--max-battles", "200"]) == 0
    out = capsys.readouterr().out
    assert "berserker is BETTER than random" in out
    battles = int(out.split("after ")[1].split(" battles")[0])
    assert 2 <= battles < 100 and battles % 2 == 0


def test_the_bar_shows_the_expected_stop_not_the_cap(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50: the bar's total was --max-battles, so its ETA was the worst case."""
    assert cli.main(["compare", "berserker", "random", "--scenario", "duel",
                     "--workers", "1", "--max-battles", "2000"]) == 0
    captured = capsys.readouterr()
    battles = int(captured.out.split("after ")[1].split(" battles")[0])
    final = captured.err.rsplit("\r", 1)[-1]
    assert f"| {battles}/{battles} [" in final and "at most 2000" in final


def test_the_expected_stop_carries_the_llr_on_to_its_bound() -> None:
    state = Comparison({"better": Sprt(0, 50), "worse": Sprt(0, -50)})
    assert state.expected_battles(400) == 400  # nothing known yet
    for pair in ((1.0, 1.0), (1.0, 0.0), (1.0, 1.0), (1.0, 0.5)):  # A's score in each
        state.add_pair(pair)
    better = state.tests["better"]
    expected = 2 * math.ceil(better.bounds[1] / (better.llr / better.pairs))
    assert better.llr > 0 and state.expected_battles(10_000) == expected
    assert state.expected_battles(10) == 10


def test_random_is_worse_than_berserker(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["compare", "random", "berserker", "--scenario", "duel",
                     "--workers", "1", "--max-battles", "200"]) == 0
    assert "random is WORSE than berserker" in capsys.readouterr().out


def test_a_copy_of_random_is_equal_within_a_wide_margin() -> None:
    agents.register("test_random_copy", RandomAgent, replace=True)
    state = compare(AgentSpec("random"), AgentSpec("test_random_copy"), "duel",
                    {"better": Sprt(0, 400), "worse": Sprt(0, -400)}, max_battles=400,
                    workers=1, progress=False)
    assert state.verdict == "equal"
    assert state.battles == 2 * max(test.pairs for test in state.tests.values())


def test_fixed_hypotheses_and_the_battle_cap(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["compare", "berserker", "random", "--scenario", "duel", "--elo0", "0",
                     "--elo1", "30", "--workers", "1"]) == 0
    assert "H1 accepted: berserker is 30 Elo or more stronger" in capsys.readouterr().out
    assert cli.main(["compare", "berserker", "random", "--scenario", "duel",
                     "--max-battles", "2", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "UNDECIDED after --max-battles 2" in out and "after 2 battles" in out


@pytest.mark.parametrize(("extra", "message"), [
    (["--alpha", "0.7"], "--alpha: expected a probability in (0, 0.5), got 0.7"),
    (["--elo0", "0"], "--elo0 and --elo1: expected both or neither"),
    (["--elo0", "5", "--elo1", "5"], "--elo1: expected a value other than --elo0"),
    (["--margin", "0"], "--margin: expected Elo > 0, got 0.0"),
    (["--max-battles", "1"], "--max-battles: expected a whole number >= 2, got 1"),
    (["--scenario", "nowhere"], "nowhere: name: expected a shipped scenario"),
])
def test_bad_compare_arguments_are_one_line(
        capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    assert cli.main(["compare", "berserker", "random", "--scenario", "duel", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_comparing_an_agent_with_itself_is_an_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["compare", "random", "random", "--scenario", "duel"]) == 2
    assert "expected two different agents, got 'random' twice" in capsys.readouterr().err
