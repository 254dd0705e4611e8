"""fray demo: the tactic comparison on tiny settings (one battle per pairing and side)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import agents
from experiments import cli
from experiments.commands import demo
from experiments.replay import Replay, verify


def test_demo_prints_the_table_and_writes_its_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    assert cli.main(["demo", "--out", str(out), "--battles", "1", "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    chosen, skipped = demo.demo_agents()
    expected_skipped = [n for n in demo.DEMO_AGENTS if n not in agents.names()]
    assert skipped == expected_skipped
    if skipped:
        assert f"skipped (not registered yet): {', '.join(skipped)}" in printed
    assert "win [95% CI]" in printed and "rating [95% CI]" in printed
    assert "wall time" in printed
    for spec in chosen:
        assert spec.label in printed
    for name in ("battles.jsonl", "summary.csv", "heatmap.png", demo.REPLAY_FILE):
        assert (out / name).stat().st_size > 0, name
    pairings = len(chosen) * (len(chosen) - 1) // 2
    assert len((out / "battles.jsonl").read_text().splitlines()) == 2 * pairings
    with (out / "summary.csv").open() as handle:
        assert {row["agent"] for row in csv.DictReader(handle)} == {s.label for s in chosen}
    replay = Replay.load(out / demo.REPLAY_FILE)
    assert replay.events, "the demo's replay keeps its events for the viewer"
    assert verify(replay) is None


def test_demo_again_on_its_folder_plays_nothing_more(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "demo"
    argv = ["demo", "--out", str(out), "--battles", "1", "--workers", "1"]
    assert cli.main(argv) == 0
    before = (out / "battles.jsonl").read_bytes()
    monkeypatch.setattr("experiments.runner.play_one", pytest.fail)
    assert cli.main(argv) == 0
    assert (out / "battles.jsonl").read_bytes() == before
    settings = json.loads((out / "tournament.json").read_text())
    assert settings["scenarios"] == [demo.SCENARIO]


def test_a_demo_folder_with_other_settings_is_cleared_first(tmp_path: Path) -> None:
    (tmp_path / "replays").mkdir()
    (tmp_path / "replays" / "old.json").write_text("{}")
    (tmp_path / "battles.jsonl").write_text('{"id": "old"}\n')
    (tmp_path / "tournament.json").write_text(json.dumps({"seed": 1}))
    assert demo.replace_other_settings(tmp_path, {"seed": 1}) is False
    assert (tmp_path / "battles.jsonl").exists()
    assert demo.replace_other_settings(tmp_path, {"seed": 3}) is True
    assert not (tmp_path / "battles.jsonl").exists()
    assert not (tmp_path / "replays").exists()


def test_demo_bad_battles_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--battles", "0"]) == 2
    err = capsys.readouterr().err
    assert err == "fray: error: --battles: expected a whole number >= 1, got 0\n"
