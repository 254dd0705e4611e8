"""The skill ladder experiment (experiments/comparison/ladder.py, fray ladder): cells,
resume, tables and one-line errors. Win rates are measured in docs/agents.md, never
asserted here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.comparison.ladder import LadderConfig, run_ladder


def test_ladder_plays_every_cell_and_resumes(tmp_path: Path) -> None:
    config = LadderConfig(out=str(tmp_path), agents=("berserker", "tactician"),
                          scenarios=("duel",), battles=2, battles_for={"tactician": 1})
    cells = run_ladder(config)
    assert [(c.side, c.agent, c.played) for c in cells] == [
        ("monsters", "berserker", 2), ("monsters", "tactician", 1),
        ("party", "berserker", 2), ("party", "tactician", 1)]
    for c in cells:
        assert c.wins + c.losses + c.draws == c.played
        low, high = c.interval
        assert 0.0 <= low <= c.rate <= high <= 1.0
    records = [json.loads(line) for line in (tmp_path / "battles.jsonl").read_text().splitlines()]
    assert len(records) == 6 and len({r["id"] for r in records}) == 6
    again = run_ladder(config)  # resume: nothing left to play
    assert len((tmp_path / "battles.jsonl").read_text().splitlines()) == 6
    assert [(c.wins, c.draws) for c in again] == [(c.wins, c.draws) for c in cells]
    table = (tmp_path / "ladder.md").read_text()
    assert "| duel | monsters | berserker | tactician | 1 | " in table
    assert len((tmp_path / "ladder.csv").read_text().splitlines()) == 5


def test_a_resumed_cell_counts_its_finished_battles_before_playing(tmp_path: Path) -> None:
    log = tmp_path / "battles.jsonl"
    run_ladder(LadderConfig(out=str(tmp_path), agents=("berserker",), scenarios=("duel",),
                            battles=1))
    calls: list[tuple[int, int]] = []  # (battles counted, lines on disk at the call)
    run_ladder(LadderConfig(out=str(tmp_path), agents=("berserker",), scenarios=("duel",),
                            battles=2),
               progress=lambda n: calls.append((n, len(log.read_text().splitlines()))))
    # per cell: its one finished battle first (before any new line), then the new battle
    assert calls == [(1, 2), (1, 3), (1, 3), (1, 4)]


def test_fray_ladder_cli(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    assert main(["ladder", "--agents", "berserker", "--scenarios", "duel", "--battles", "1",
                 "--out", str(out)]) == 0
    assert "| duel | party | berserker | berserker | 1 |" in capsys.readouterr().out
    assert main(["ladder", "--battles", "0", "--out", str(out)]) == 2
    assert "--battles: expected a whole number >= 1, got 0" in capsys.readouterr().err
    assert main(["ladder", "--agents", "nobody", "--out", str(out)]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    assert main(["ladder", "--scenarios", "moon", "--out", str(out)]) == 2
    assert "--scenarios: expected shipped names" in capsys.readouterr().err
    assert main(["ladder", "--battles-for", "mcts=x", "--out", str(out)]) == 2
    assert "--battles-for: expected AGENT=N" in capsys.readouterr().err
    assert main(["ladder"]) == 2
    assert "--out: expected an output folder" in capsys.readouterr().err
    assert main(["ladder", "--time", "berserker", "--scenarios", "duel"]) == 0
    assert "duel: berserker as party vs berserker:" in capsys.readouterr().out
