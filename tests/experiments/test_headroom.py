"""``experiments.comparison.headroom`` / ``fray headroom``: rows, sums and the CLI's errors."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

import agents
from experiments.checkpoint import ResumeError
from experiments.cli import main
from experiments.comparison import headroom
from rules import Action, ActionKind, Battle, engine

K = ActionKind


def _row(battle: int, gap: float, error: float) -> headroom.Row:
    return headroom.Row(battle, 0, "monsters", "TURN", 3, "a", "b", gap, gap, error)


def test_summary_sums_confirmed_gaps_per_battle_and_counts_empty_battles() -> None:
    rows = [_row(0, 0.2, 0.05), _row(0, -0.1, 0.05), _row(2, 0.3, 0.2)]
    summary = headroom.summarise(rows, [0, 1, 2])
    assert summary.battles == 3 and summary.decisions == 3
    assert summary.mean_gain == pytest.approx((0.1 + 0.0 + 0.3) / 3)
    assert [r.battle for r in summary.significant] == [0]  # 0.3 < 2 x 0.2
    assert "one-step gain per battle +0.133" in summary.lines()[0]


def _disarmed_duel() -> tuple[Battle, str]:
    """A duel the orc (no melee weapon besides its axe) starts by dropping its axe at its
    feet."""
    b = next(b for seed in range(50) if (b := Battle.from_scenario("duel", seed=seed))
             .decision is not None and b.decision.actor == "orc_1")
    actor = b.combatants["orc_1"]
    weapon = actor.ready_melee()[0][0].uid
    b.apply(Action(K.DROP_ITEM, item=weapon))
    return b, weapon


def test_headroom_finds_the_pick_up_a_berserker_base_never_makes() -> None:
    """The berserker never picks up a dropped weapon; one-step search over it finds that
    picking it up is better (fixed seeds: the same figures every run)."""
    b, weapon = _disarmed_duel()
    base = agents.make("berserker", seed=0)
    choice = base.act(b)
    assert choice.kind is not K.PICK_UP
    row = headroom.decision_row(b, 0, 0, choice, agents.make("berserker", seed=1),
                                screen=12, confirm=40, seed=3)
    assert row is not None
    assert row.best == str(Action(K.PICK_UP, item=weapon))
    assert row.gap > 0 and row.candidates >= 2
    again = headroom.decision_row(b, 0, 0, choice, agents.make("berserker", seed=1),
                                  screen=12, confirm=40, seed=3)
    assert again == row


def test_run_writes_a_row_per_decision_with_a_choice(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One duel at the smallest budget: the CSV holds the rows the summary counts, in
    decision order, and a row's gap is 0 exactly when the screen kept the base choice.
    The progress bar has its total (so an ETA) from the start: the planned rollouts, less
    the confirmations not needed, are the rollouts played."""
    out = tmp_path / "headroom.csv"
    planned = headroom.planned_rollouts("duel", [0], "berserker", screen=1, confirm=2)
    summary = headroom.run("duel", [0], "berserker", screen=1, confirm=2, out=out,
                           progress=True)
    bar = [line for line in re.split(r"[\r\n]", capsys.readouterr().err)
           if line.startswith("headroom duel:")]
    assert f" 0/{planned} " in bar[0]
    with out.open() as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == headroom.COLUMNS
    assert len(rows) == summary.decisions > 0
    decisions = [int(r["decision"]) for r in rows]
    assert decisions == sorted(set(decisions))
    for r in rows:
        if r["best"] == r["base"]:
            assert float(r["gap"]) == 0.0 and float(r["error"]) == 0.0
    assert summary.mean_gain == pytest.approx(sum(float(r["gap"]) for r in rows))
    played = sum(int(r["candidates"]) + (4 if r["best"] != r["base"] else 0) for r in rows)
    assert f" {played}/{played} " in bar[-1] and played <= planned


@pytest.mark.parametrize("argv, message", [
    (["headroom", "nowhere"], "SCENARIO: expected a shipped scenario"),
    (["headroom", "duel", "--base", "nobody"], "--base: expected an agent name"),
    (["headroom", "duel", "--confirm", "1"], "--confirm: expected a whole number >= 2"),
    (["headroom", "duel", "--resume"], "--resume: needs --out"),
    (["headroom", "duel", "--out", "/no/such/dir/x.csv"],
     "--out: /no/such/dir/x.csv: the folder /no/such does not exist"),
])
def test_cli_errors_are_one_line(argv: list[str], message: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


@pytest.mark.skipif(not engine.native_available(), reason="the native engine is not built")
def test_native_rollouts_give_the_python_engines_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the tactician as the base, the battles and rollouts run in the engine on the
    native engine (its twin, used in place): the rows are the Python engine's."""
    found = {}
    for name in engine.ENGINES:
        monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, name)
        found[name] = list(headroom.battle_rows("duel", 1, "tactician", screen=2, confirm=2,
                                                seed=4))
    assert found["native"] == found["python"] and len(found["native"]) > 5


def test_parallel_headroom_writes_the_same_rows_in_battle_order(tmp_path: Path) -> None:
    """Two workers (a battle each) give the one-process run's CSV and summary."""
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    alone = headroom.run("duel", [0, 1, 2], "berserker", screen=1, confirm=2, out=one)
    parallel = headroom.run("duel", [0, 1, 2], "berserker", screen=1, confirm=2, out=two,
                            workers=2)
    assert two.read_text() == one.read_text() and parallel == alone
    assert [int(r["battle"]) for r in csv.DictReader(two.open())] == sorted(
        int(r["battle"]) for r in csv.DictReader(one.open()))


def test_resume_after_a_killed_driver_gives_the_uninterrupted_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run killed after its first battle (its log cut there, with a half-written line)
    resumes without playing that battle again, to the uninterrupted run's CSV and
    summary; resuming with other arguments is refused."""
    whole, cut = tmp_path / "whole.csv", tmp_path / "cut.csv"
    uninterrupted = headroom.run("duel", [0, 1, 2], "berserker", screen=1, confirm=2,
                                 out=whole)
    headroom.run("duel", [0, 1, 2], "berserker", screen=1, confirm=2, out=cut)
    log = headroom.checkpoint_files(cut)[0]
    first = log.read_text().splitlines(keepends=True)[0]
    log.write_text(first + '{"battle": 1, "rows": [')
    cut.write_text("battle,decision\n")   # the CSV a killed run left
    played: list[int] = []
    rows = headroom.battle_rows
    monkeypatch.setattr(headroom, "battle_rows",
                        lambda scenario, index, *rest: played.append(index) or rows(
                            scenario, index, *rest))
    resumed = headroom.run("duel", [0, 1, 2], "berserker", screen=1, confirm=2, out=cut,
                           resume=True)
    assert played == [1, 2]
    assert resumed == uninterrupted and cut.read_text() == whole.read_text()
    with pytest.raises(ResumeError, match="screen: this headroom run was run"):
        headroom.run("duel", [0, 1, 2], "berserker", screen=2, confirm=2, out=cut,
                     resume=True)


def test_parallel_progress_counts_rollouts(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """With workers the bar counts rollouts too: it ends at the rollouts played."""
    out = tmp_path / "two.csv"
    headroom.run("duel", [0, 1], "berserker", screen=1, confirm=2, out=out, progress=True,
                 workers=2)
    bar = [line for line in re.split(r"[\r\n]", capsys.readouterr().err)
           if line.startswith("headroom duel:")]
    rows = list(csv.DictReader(out.open()))
    played = sum(int(r["candidates"]) + (4 if r["best"] != r["base"] else 0) for r in rows)
    assert f" {played}/{played} " in bar[-1] and "rollout" in bar[-1]
