"""experiments/search_headroom.py: the held-out gain of the best other root candidate
over the tactician's choice, measured by paired rollouts in the engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.search_headroom import Sample, main, paired_gain, report, samples
from rules import engine

pytestmark = pytest.mark.skipif(not engine.native_available(),
                                reason="the native engine (rules._native) is not built")


def test_the_paired_gain_and_its_standard_error() -> None:
    # differences 1, 2, 3: mean 2, sample sd 1, error 1 / sqrt(3)
    gain, error = paired_gain([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    assert gain == 2.0 and error == pytest.approx(3 ** -0.5)
    assert paired_gain([1.0], [0.5]) == (0.5, 0.0)


def test_samples_are_reproducible_and_from_the_deciders_side() -> None:
    first = list(samples("duel", battles=1, seed=3, every=5, rounds=8))
    assert first == list(samples("duel", battles=1, seed=3, every=5, rounds=8))
    assert first and all(s.candidates >= 2 and s.best != s.tactician for s in first)
    assert all(0.0 <= s.tactician_value <= 1.0 and abs(s.gain) <= 1.0 for s in first)
    assert [s.decision for s in first] == sorted(s.decision for s in first)
    assert all(s.decision % 5 == 0 for s in first)


def test_the_report_counts_headroom_by_kind() -> None:
    def sample(kind: str, gain: float, error: float) -> Sample:
        return Sample(0, 0, kind, "monsters", 3, "END_TURN", 0.5, "MELEE_ATTACK", "MELEE_ATTACK",
                      gain, error)

    lines = report([sample("TURN", 0.1, 0.01), sample("TURN", 0.0, 0.01),
                    sample("PARRY", 0.01, 0.01)])
    assert lines[0].startswith("all: 3 decisions, 1 with headroom (33.3%)")
    assert lines[1].startswith("decision PARRY: 1 decisions, 0 with headroom")
    assert lines[2].startswith("decision TURN: 2 decisions, 1 with headroom (50.0%)")
    assert lines[3] == "the better action's kind, where there is headroom: MELEE_ATTACK 1"


def test_main_writes_every_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "samples.jsonl"
    assert main(["duel", "--battles", "1", "--every", "6", "--rounds", "6", "--out",
                 str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and {"gain", "error", "best", "tactician"} <= set(rows[0])
    assert capsys.readouterr().out.startswith(f"all: {len(rows)} decisions")
    assert main(["duel", "--rounds", "2"]) == 2
