"""The skill ladder experiment (experiments/comparison/ladder.py, fray ladder): cells,
resume, tables and one-line errors. Win rates are measured in docs/agents.md, never
asserted here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.comparison.ladder import LadderConfig, run_ladder
from experiments.comparison.tournament import TournamentError


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


def test_a_resumed_run_counts_every_cells_finished_battles_before_playing(tmp_path: Path) -> None:
    log = tmp_path / "battles.jsonl"
    run_ladder(LadderConfig(out=str(tmp_path), agents=("berserker",), scenarios=("duel",),
                            battles=1))
    calls: list[tuple[int, int]] = []  # (battles counted, lines on disk at the call)
    run_ladder(LadderConfig(out=str(tmp_path), agents=("berserker",), scenarios=("duel",),
                            battles=2),
               progress=lambda n: calls.append((n, len(log.read_text().splitlines()))))
    # both cells' finished battles first (before any new line), then each new battle
    assert calls == [(2, 2), (1, 3), (1, 4)]


def test_a_run_killed_mid_line_resumes_without_the_half_written_battle(tmp_path: Path) -> None:
    config = LadderConfig(out=str(tmp_path), agents=("berserker",), scenarios=("duel",),
                          battles=2)
    run_ladder(config)
    log = tmp_path / "battles.jsonl"
    whole = log.read_text()
    log.write_text(whole[:-25])  # the last record cut short, as a kill mid-write leaves it
    cells = run_ladder(config)
    assert log.read_text().count("\n") == 4 and sum(c.played for c in cells) == 4
    def battles(text: str) -> list[dict]:  # the records but their clock readings
        return sorted(({k: v for k, v in json.loads(line).items() if k != "seconds"}
                       for line in text.splitlines()), key=lambda r: r["id"])

    assert battles(log.read_text()) == battles(whole)  # the same battle, played again


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


def _write_run(folder: Path, agent: str, outcomes: dict[tuple[str, int], bool],
               opponent: str = "tactician") -> None:
    """A ladder folder whose battles.jsonl holds ``outcomes`` (side, seed) -> agent won."""
    folder.mkdir()
    lines = []
    for (side, seed), won in outcomes.items():
        other = "party" if side == "monsters" else "monsters"
        lines.append(json.dumps({"id": f"duel/{side}/{agent}/{seed}", "scenario": "duel",
                                 "seed": seed, "agents": {side: agent, other: opponent},
                                 "winner": side if won else other}))
    (folder / "battles.jsonl").write_text("\n".join(lines) + "\n")


def test_paired_rows_count_the_battles_only_one_run_won(tmp_path: Path) -> None:
    from experiments.comparison.paired import load_run, paired_rows, paired_table

    # seeds 0..5 as monsters: A wins 0,1,2,3; B wins 2,3,4 -> A only 2 (0,1), B only 1 (4)
    a = {("monsters", s): s in (0, 1, 2, 3) for s in range(6)}
    b = {("monsters", s): s in (2, 3, 4) for s in range(6)}
    # as party, seeds 0..3 (B also played seed 9, which A did not): A 0,1,2,3; B 0
    a |= {("party", s): True for s in range(4)}
    b |= {("party", s): s == 0 for s in (0, 1, 2, 3, 9)}
    _write_run(tmp_path / "a", "mcts", a)
    _write_run(tmp_path / "b", "tactician", b)
    rows = paired_rows(load_run(str(tmp_path / "a")), load_run(str(tmp_path / "b")))
    got = [(r.side, r.pairs, r.first_wins, r.second_wins, r.only_first, r.only_second)
           for r in rows]
    assert got == [("monsters", 6, 4, 3, 2, 1), ("party", 4, 4, 1, 3, 0),
                   ("both", 10, 8, 4, 5, 1)]
    assert rows[2].p_value == pytest.approx(0.21875)  # 2 * P(X <= 1), X ~ Bin(6, 1/2)
    assert rows[0].first_agent == "mcts" and rows[0].second_agent == "tactician"
    only = paired_rows(load_run(str(tmp_path / "a")), load_run(str(tmp_path / "b")),
                       seeds=range(2, 4))
    assert [(r.side, r.pairs, r.only_first, r.only_second) for r in only] == [
        ("monsters", 2, 0, 0), ("party", 2, 2, 0), ("both", 4, 2, 0)]
    assert "| duel | both | 10 | mcts | 8 | [0.490, 0.943] | tactician | 4 |" in \
        paired_table(rows)


def test_paired_runs_refuse_what_does_not_pair(tmp_path: Path) -> None:
    from experiments.comparison.paired import load_run, paired_rows

    _write_run(tmp_path / "a", "mcts", {("monsters", 0): True})
    _write_run(tmp_path / "b", "tactician", {("monsters", 0): False}, opponent="berserker")
    _write_run(tmp_path / "c", "tactician", {("monsters", 5): False})
    with pytest.raises(ValueError, match="different opponents"):
        paired_rows(load_run(str(tmp_path / "a")), load_run(str(tmp_path / "b")))
    with pytest.raises(ValueError, match="found none"):
        paired_rows(load_run(str(tmp_path / "a")), load_run(str(tmp_path / "c")))
    with pytest.raises(ValueError, match="expected battles of agent 'random'"):
        load_run(f"{tmp_path / 'a'}#random")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "battles.jsonl").write_text('{"id": "duel/monsters/x/0"}\nnot json\n'
                                                  '{"id": "duel/monsters/x/1"}\n')
    with pytest.raises(TournamentError, match=r"battles.jsonl: line 2: expected a JSON record"):
        load_run(str(tmp_path / "d"))
    (tmp_path / "d" / "battles.jsonl").write_text('[1, 2]\n')
    with pytest.raises(ValueError, match=r"line 1: expected a battle record with a text 'id'"):
        load_run(str(tmp_path / "d"))


def test_fray_ladder_paired_cli(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    for agent in ("berserker", "tactician"):
        assert main(["ladder", "--agents", agent, "--scenarios", "duel", "--battles", "2",
                     "--out", str(tmp_path / agent)]) == 0
    capsys.readouterr()
    assert main(["ladder", "--paired", str(tmp_path / "berserker"),
                 str(tmp_path / "tactician"), "--seeds", "1:"]) == 0
    out = capsys.readouterr().out
    assert "| duel | monsters | 1 | berserker |" in out and "| duel | both | 2 |" in out
    both = LadderConfig(out=str(tmp_path / "both"), agents=("berserker", "tactician"),
                        scenarios=("duel",), battles=1)
    run_ladder(both)
    assert main(["ladder", "--paired", str(tmp_path / "both"), str(tmp_path / "tactician")]) == 2
    assert "name one as" in capsys.readouterr().err
    assert main(["ladder", "--paired", f"{tmp_path / 'both'}#berserker",
                 str(tmp_path / "tactician")]) == 0
    assert "| duel | party | 1 | berserker |" in capsys.readouterr().out
    assert main(["ladder", "--paired", str(tmp_path / "nowhere"), str(tmp_path / "both")]) == 2
    assert "nowhere/battles.jsonl: expected a ladder's battle records" in \
        capsys.readouterr().err
    assert main(["ladder", "--paired", str(tmp_path / "both"), str(tmp_path / "both"),
                 "--seeds", "5:2"]) == 2
    assert "--seeds: expected FROM:TO with TO > FROM" in capsys.readouterr().err
    assert main(["ladder", "--seeds", "1:2", "--out", str(tmp_path / "x")]) == 2
    assert "--seeds: only with --paired" in capsys.readouterr().err
