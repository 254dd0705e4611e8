"""Evaluation rows: outcomes of seeded battles, Wilson intervals, CSV as it goes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from experiments.comparison.stats import sign_test
from experiments.replay import play
from experiments.train import evaluation
from experiments.train.evaluation import Tally, evaluate, main, paired


def test_evaluate_counts_the_outcomes_of_the_seeded_battles() -> None:
    tally = evaluate("duel", "monsters", "berserker", "random", battles=6, seed=10)
    winners = [play("duel", s, {"monsters": "berserker", "party": "random"})[0].winner
               for s in range(10, 16)]
    assert tally == Tally(wins=winners.count("monsters"), draws=winners.count(None),
                          losses=winners.count("party"), winners=winners)
    low, high = tally.interval()
    assert low <= tally.rate <= high


def test_wilson_interval_of_a_known_count() -> None:
    # scipy's Wilson interval for 156 / 500 (RULES-free arithmetic, checked by hand:
    # centre (156 + 1.92) / 503.84, half-width 1.96 * sqrt(156*344/500 + 0.96) / 503.84)
    low, high = Tally(wins=156, losses=344).interval()
    assert round(low, 3) == 0.273 and round(high, 3) == 0.354


def test_main_writes_one_row_per_agent_and_opponent(tmp_path: Path) -> None:
    out = tmp_path / "rows.csv"
    assert main(["duel", "--agents", "berserker,random", "--opponents", "random",
                 "--battles", "3", "--seed", "5", "--out", str(out)]) == 0
    with out.open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["agent"], r["opponent"], r["battles"], r["seed_first"], r["seed_last"])
            for r in rows] == [("berserker", "random", "3", "5", "7"),
                               ("random", "random", "3", "5", "7")]


def test_paired_counts_the_seeds_only_one_agent_won() -> None:
    first = Tally(wins=2, losses=2, winners=["monsters", "monsters", "party", "party"])
    second = Tally(wins=1, draws=1, losses=2, winners=["monsters", None, "party", "party"])
    assert paired(first, second, "monsters")[:2] == (1, 0)
    # 9 of 10 discordant seeds to one side: 2 * (1 + 10) / 1024
    assert sign_test(9, 1) == pytest.approx(22 / 1024)
    assert sign_test(0, 0) == 1.0


def test_main_logs_every_battle(tmp_path: Path) -> None:
    log = tmp_path / "battles.jsonl"
    assert main(["duel", "--agents", "berserker,random", "--opponents", "random",
                 "--battles", "3", "--seed", "5", "--battle-log", str(log)]) == 0
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["agent"], r["seed"]) for r in rows] == [
        ("berserker", 5), ("berserker", 6), ("berserker", 7),
        ("random", 5), ("random", 6), ("random", 7)]
    assert {r["winner"] for r in rows} <= {"party", "monsters", None}


def test_a_log_of_a_killed_evaluation_is_read_not_played_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks logged by a killed evaluation (the log cut after its first chunk, with a
    half-written line) are read back; only the rest is played, to the uninterrupted
    tallies. A chunk of another evaluation in the same log is not taken."""
    whole = evaluate("duel", "monsters", "berserker", "random", battles=60, seed=3)
    log = tmp_path / "evaluation.jsonl"
    evaluate("duel", "monsters", "random", "random", battles=25, seed=3, log=log)
    evaluate("duel", "monsters", "berserker", "random", battles=60, seed=3, log=log)
    lines = log.read_text().splitlines(keepends=True)
    assert len(lines) == 1 + 3
    log.write_text("".join(lines[:2]) + '{"scenario": "du')
    played: list[int] = []
    chunk = evaluation._play_chunk
    monkeypatch.setattr(evaluation, "_play_chunk",
                        lambda job: played.append(job[4][0]) or chunk(job))
    resumed = evaluate("duel", "monsters", "berserker", "random", battles=60, seed=3,
                       log=log)
    assert sorted(played) == [28, 53]
    assert resumed == whole


def test_main_resumes_without_writing_rows_twice(tmp_path: Path) -> None:
    """``--resume`` after a run killed between its two rows: the CSV and battle log are
    those of a run never killed; other arguments are refused in one line."""
    argv = ["duel", "--agents", "berserker,random", "--opponents", "random",
            "--battles", "30", "--seed", "5"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    whole.mkdir()
    cut.mkdir()
    assert main([*argv, "--out", str(whole / "e.csv"),
                 "--battle-log", str(whole / "b.jsonl")]) == 0
    assert main([*argv, "--out", str(cut / "e.csv"),
                 "--battle-log", str(cut / "b.jsonl")]) == 0
    # as killed in the second evaluation: its row, its log lines and its last chunk gone
    csv_lines = (cut / "e.csv").read_text().splitlines(keepends=True)
    (cut / "e.csv").write_text("".join(csv_lines[:2]))
    (cut / "b.jsonl").write_text("".join(
        (cut / "b.jsonl").read_text().splitlines(keepends=True)[:30]))
    log = evaluation.checkpoint_files(cut / "e.csv")[0]
    records = log.read_text().splitlines(keepends=True)
    assert sum('"written"' in r for r in records) == 2
    log.write_text("".join(records[:4]))   # the first row done, one chunk of the second
    assert main([*argv, "--out", str(cut / "e.csv"),
                 "--battle-log", str(cut / "b.jsonl"), "--resume"]) == 0
    assert (cut / "e.csv").read_text() == (whole / "e.csv").read_text()
    assert (cut / "b.jsonl").read_text() == (whole / "b.jsonl").read_text()
    with pytest.raises(SystemExit) as exit_:
        main([*argv[:-1], "6", "--out", str(cut / "e.csv"), "--resume"])
    assert exit_.value.code == 2


def test_fray_trains_final_evaluation_reads_back_its_logged_chunks(tmp_path: Path) -> None:
    """``fray train``'s final evaluation keeps its chunks in the run's folder
    (``evaluation.jsonl``): rerun on a log cut half-way (as a resumed run does), it writes
    the same ``final_eval.csv`` as the uninterrupted run."""
    from experiments.train.final_evaluation import final_evaluation

    log = tmp_path / evaluation.TRAIN_LOG
    whole = final_evaluation("duel", "monsters", "berserker", ["random"], 30, tmp_path,
                             log=log)
    expected = (tmp_path / "final_eval.csv").read_text()
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:len(lines) // 2]) + '{"scen')
    again = final_evaluation("duel", "monsters", "berserker", ["random"], 30, tmp_path,
                             log=log)
    assert again == whole and (tmp_path / "final_eval.csv").read_text() == expected
    assert len(log.read_text().splitlines()) == len(lines)   # only the missing chunks
