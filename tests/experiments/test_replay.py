"""``fray replay FILE``: verifies every event, names the first mismatch, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments import cli
from experiments.replay import play


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    _, replay = play("duel", 3, {"party": "berserker", "monsters": "random"})
    return replay.save(tmp_path / "duel.json")


def test_replay_verifies_and_shows_the_battle(saved: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["replay", str(saved), "--full-log"]) == 0
    out = capsys.readouterr().out
    data = json.loads(saved.read_text())
    assert f"Verified: all {len(data['events'])} events of 'duel'" in out
    assert "battle over" in out


def test_a_changed_event_is_named(saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(saved.read_text())
    index = next(i for i, e in enumerate(data["events"]) if "roll" in e)
    data["events"][index]["roll"] = 100 if data["events"][index]["roll"] != 100 else 99
    saved.write_text(json.dumps(data))
    assert cli.main(["replay", str(saved)]) == 1
    assert f"MISMATCH in 'duel': event {index} differs" in capsys.readouterr().out


def test_an_action_that_is_not_legal_is_a_mismatch(
        saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(saved.read_text())
    data["actions"][0] = {"kind": "stand_up", "target": None, "square": None, "item": None}
    saved.write_text(json.dumps(data))
    assert cli.main(["replay", str(saved)]) == 1
    assert "action 0 (STAND_UP) is not legal" in capsys.readouterr().out


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such replay file"),
    ("not json", "expected a JSON replay file"),
    ('{"format": "other"}', "format: expected 'fray-replay'"),
    ('{"format": "fray-replay", "version": 1}', "scenario: expected a table of name, text"),
])
def test_bad_files_are_one_line(content: str | None, message: str, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    assert cli.main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_malformed_failure_field_is_one_line(saved: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(saved.read_text())
    data["failure"] = "boom"
    saved.write_text(json.dumps(data))
    assert cli.main(["replay", str(saved)]) == 2
    err = capsys.readouterr().err
    assert "failure: expected a table with kind, name, step" in err
    assert len(err.strip().splitlines()) == 1


def test_an_unreadable_action_is_one_line(saved: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(saved.read_text())
    data["actions"][1] = {"kind": "fly"}
    saved.write_text(json.dumps(data))
    assert cli.main(["replay", str(saved)]) == 2
    err = capsys.readouterr().err
    assert "actions[1]: expected an action" in err and len(err.strip().splitlines()) == 1


def test_a_failure_replay_whose_action_is_no_longer_legal_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fuzzer's finding whose actions no longer apply names the action."""
    _, replay = play("duel", 3, {"party": "berserker", "monsters": "random"})
    replay.failure = {"kind": "invariant", "name": "hp", "message": "planted", "step": 2,
                      "where": "", "checks": {"mask": False, "clone_every": 0,
                                              "json_every": 0, "replay": False}}
    replay.actions[1] = {"kind": "stand_up", "target": None, "square": None, "item": None}
    path = replay.save(tmp_path / "finding.json")
    assert cli.main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "a different failure happens now: invariant replay" in out
    assert "action 1 (STAND_UP) is not legal" in out


def test_a_compact_replay_is_verified_by_its_result(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Tournament replays keep no events: the replay checks the result, and says so."""
    _, replay = play("duel", 5, {"party": "berserker", "monsters": "random"})
    replay.events = []
    path = replay.save(tmp_path / "compact.json")
    assert cli.main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Verified: its result (a compact replay keeps no events)" in out
    assert f"{len(replay.actions)} actions" in out
