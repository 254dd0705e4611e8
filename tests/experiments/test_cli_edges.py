"""What a user meets at the edges of the file system and of the options (issue 50): one
line ``fray: error: ...`` naming the option, exit 2, no traceback and no folder tree made
for one file; output closed early (``fray scenarios | head -1``) ends quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiments import cli, coverage
from experiments.replay import play

ROOT = Path(__file__).resolve().parents[2]


def _one_error_line(capsys: pytest.CaptureFixture[str], arguments: list[str]) -> str:
    assert cli.main(arguments) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fray: error: "), err
    return err[0]


OUT_FOLDER_COMMANDS = [
    ["tournament", "--agents", "random,berserker", "--scenarios", "duel", "--battles", "1"],
    ["demo"],
    ["fuzz", "--seconds", "1"],
    ["sweep", "--set", "parries_per_round=1", "--agents", "random,berserker", "--scenario",
     "duel", "--battles", "1"],
    ["ladder", "--agents", "random"],
    ["exploits", "--agent", "random", "--scenario", "duel", "--battles", "1"],
    ["compare", "random", "berserker", "--scenario", "duel"],
    ["train", "duel"],
    ["balance", "duel", "--knob", "scenario.max_rounds=5..10", "--target",
     "party_win=0.4..0.6", "--party", "random", "--monsters", "random"],
    ["az-train", "duel"],
]


@pytest.mark.parametrize("arguments", OUT_FOLDER_COMMANDS, ids=lambda a: a[0])
def test_an_output_folder_under_a_file_is_one_line(arguments, tmp_path, capsys) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    line = _one_error_line(capsys, [*arguments, "--out", str(a_file / "x")])
    assert f"argument --out: {a_file / 'x'}: {a_file} is a file, not a folder" in line
    line = _one_error_line(capsys, [*arguments, "--out", str(a_file)])
    assert "expected a folder, found a file" in line


@pytest.mark.parametrize("arguments", [
    ["replay", "{folder}"],
    ["headroom", "duel", "--out", "{folder}"],
    ["bench", "--quick", "--json", "{folder}"],
    ["watch", "duel", "--gif", "{folder}"],
    ["knobs", "duel", "--json", "{folder}"],
], ids=lambda a: a[0])
def test_a_folder_where_a_file_is_expected_is_one_line(arguments, tmp_path, capsys) -> None:
    line = _one_error_line(capsys, [a.format(folder=tmp_path) for a in arguments])
    assert f"{tmp_path}: expected a file, found a folder" in line


@pytest.mark.parametrize("arguments", [
    ["watch", "duel", "--gif", "{missing}/duel.gif"],
    ["replay", "{replay}", "--html", "{missing}/duel.html"],
    ["bench", "--quick", "--json", "{missing}/bench.json"],
    ["headroom", "duel", "--out", "{missing}/headroom.csv"],
], ids=lambda a: a[0])
def test_a_file_two_missing_folders_down_is_refused_and_no_folder_is_made(arguments, tmp_path,
                                                                     capsys) -> None:
    _, replay = play("duel", 1, {"party": "berserker", "monsters": "berserker"})
    replay_file = tmp_path / "duel.json"
    replay.save(replay_file)
    missing = tmp_path / "no" / "such" / "folder"
    line = _one_error_line(capsys, [a.format(missing=missing, replay=replay_file)
                                    for a in arguments])
    assert f"the folder {missing.parent} does not exist" in line
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(("arguments", "named"), [
    (["odds", "duel", "hero", "orc1", "--seed", "-3"], "--seed: expected a whole number >= 0"),
    (["watch", "duel", "--tail", "-5"], "--tail: expected a whole number >= 0"),
    (["tournament", "--agents", "random,berserker", "--scenarios", "duel,duel", "--battles",
      "1", "--out", "{out}"], "--scenarios: expected each scenario once, got duel more"),
], ids=lambda a: a[0] if isinstance(a, list) else "")
def test_bad_values_name_their_option(arguments, named, tmp_path, capsys) -> None:
    line = _one_error_line(capsys, [a.format(out=tmp_path / "t") for a in arguments])
    assert named in line
    assert not (tmp_path / "t").exists()


def test_coverage_outside_a_checkout_says_it_needs_one(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(coverage, "ROOT", tmp_path)  # as in site-packages: no docs/, tests/
    line = _one_error_line(capsys, ["coverage"])
    assert "needs a checkout of fray" in line and "RULES.md" in line


@pytest.mark.parametrize("arguments", [["scenarios"], ["watch", "duel", "--full-log"],
                                       ["replay", "{replay}", "--full-log"]],
                         ids=lambda a: a[0])
def test_output_closed_by_its_reader_ends_quietly(arguments, tmp_path) -> None:
    """``fray scenarios | head -1``: the reader is gone before fray writes (its end of the
    pipe closed at once), so every write fails; no BrokenPipeError traceback."""
    _, replay = play("duel", 1, {"party": "berserker", "monsters": "berserker"})
    replay.save(tmp_path / "duel.json")
    read, write = os.pipe()
    os.close(read)
    done = subprocess.run(
        [sys.executable, "-m", "experiments.cli",
         *[a.format(replay=tmp_path / "duel.json") for a in arguments]],
        stdout=write, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode == 141  # 128 + SIGPIPE, as a shell tool ends
