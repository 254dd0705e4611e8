"""Evaluation rows: outcomes of seeded battles, Wilson intervals, CSV as it goes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from experiments.comparison.stats import sign_test
from experiments.replay import play
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
