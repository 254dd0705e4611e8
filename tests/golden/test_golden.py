"""Golden playthroughs (experiments/golden.py): every shipped scenario's recorded battle
re-plays to exactly the same event lines. A failure names the first differing event; if
the change of behaviour is intended, re-record with ``fray golden --update`` and commit
the diff with a message that explains it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rules
import rules.engine
from experiments import golden
from experiments.cli import main

SHIPPED = rules.shipped_scenarios()


def test_every_shipped_scenario_has_exactly_one_golden_file() -> None:
    assert golden.recorded_scenarios() == sorted(SHIPPED)


@pytest.mark.parametrize("engine", rules.engine.ENGINES)
@pytest.mark.parametrize("scenario", SHIPPED)
def test_golden_playthrough_is_unchanged(scenario: str, engine: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """On both engines (issue 23): the native one where it is built."""
    if engine == "native" and not rules.engine.native_available():
        pytest.skip("the native engine is not built here (no C++20 compiler at install)")
    monkeypatch.setenv(rules.engine.ENVIRONMENT_VARIABLE, engine)
    recorded = golden.load(golden.path_for(scenario))
    assert (recorded.scenario, recorded.seed) == (scenario, golden.SEED)
    assert recorded.result["events"] == len(recorded.lines)
    difference = golden.check(scenario)
    assert difference is None, (f"{scenario}: {difference}; if intended, run "
                                "`fray golden --update` and commit the diff")


def _copy(tmp_path: Path, scenario: str = "duel") -> Path:
    target = golden.path_for(scenario, tmp_path)
    target.write_text(golden.path_for(scenario).read_text(encoding="utf-8"), encoding="utf-8")
    return target


def test_the_file_keeps_one_event_per_line() -> None:
    text = golden.path_for("duel").read_text(encoding="utf-8")
    data = json.loads(text)
    rows = [row.rstrip(",") for row in text.splitlines()]
    assert all(f"  {json.dumps(line)}" in rows for line in data["events"])
    assert golden.load(golden.path_for("duel")).to_json() == text


def test_cli_prints_the_first_difference_and_exits_1(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = _copy(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    old = data["events"][3]
    data["events"][3] = "[r1] something else happened"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["golden", "duel", "--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert (f"duel: event 3 differs: recorded '[r1] something else happened', now '{old}'"
            in out)
    assert main(["golden", "duel", "--dir", str(tmp_path), "--update"]) == 0
    assert main(["golden", "duel", "--dir", str(tmp_path)]) == 0
    assert path.read_text(encoding="utf-8") == golden.path_for("duel").read_text(
        encoding="utf-8")


def test_cli_reports_a_missing_or_broken_file(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["golden", "duel", "--dir", str(tmp_path)]) == 1
    assert "no golden file; run `fray golden --update`" in capsys.readouterr().out
    golden.path_for("duel", tmp_path).write_bytes(b"\xff\xfe not json")
    assert main(["golden", "duel", "--dir", str(tmp_path)]) == 1
    assert "expected a JSON golden file" in capsys.readouterr().out


def test_cli_rejects_an_unknown_scenario_with_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["golden", "nowhere"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fray: error: unknown scenario 'nowhere'")


def test_first_difference_names_counts_and_results() -> None:
    base = golden.Golden("duel", 1, {"party": "berserker"}, {"winner": "party"}, ["a", "b"])
    longer = golden.Golden("duel", 1, {"party": "berserker"}, {"winner": "party"},
                           ["a", "b", "c"])
    assert golden.first_difference(base, base) is None
    assert golden.first_difference(base, longer) == (
        "event count differs: recorded 2, now 3 (first extra, now: 'c')")
    other = golden.Golden("duel", 2, {"party": "berserker"}, {"winner": "party"}, ["a", "b"])
    assert golden.first_difference(base, other) == "seed differs: recorded 1, now 2"
