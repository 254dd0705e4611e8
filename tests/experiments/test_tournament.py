"""fray tournament: the schedule and its seeds, the files it writes, compact replays that
re-simulate, a summary that agrees with the records, and every error path."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import rules
from experiments import cli
from experiments.comparison.runner import (
    AgentSpec,
    RunnerError,
    parse_agents,
    split_list,
    team_tallies,
)
from experiments.comparison.summary import seats, summarize
from experiments.comparison.sweep import write_variant
from experiments.comparison.tournament import (
    TournamentConfig,
    battle_seed,
    config_from,
    load_records,
    run_tournament,
    schedule,
)
from experiments.replay import DATA_DIR, Replay, content_hash, rerun, verify

RANDOM, BERSERKER = AgentSpec("random"), AgentSpec("berserker")


def tiny(battles: int = 2, seed: int = 0) -> TournamentConfig:
    return config_from([RANDOM, BERSERKER], ["duel"], battles, seed, None)


def test_schedule_plays_each_pairing_on_both_sides_with_one_seed_per_index() -> None:
    config = config_from([RANDOM, BERSERKER, AgentSpec("random", (("x", 1),))],
                         ["duel", "skirmish"], 3, 7, None, caps={"random(x=1)": 1})
    specs = schedule(config)
    # pairs: (r, b) 3 per side, (r, r(x=1)) and (b, r(x=1)) capped at 1 per side
    assert len(specs) == 2 * (2 * 3 + 2 * 1 + 2 * 1)
    assert len({s.id for s in specs}) == len(specs)
    first = [s for s in specs if s.scenario == "duel" and dict(s.meta)["index"] == 0][:2]
    assert first[0].seed == first[1].seed == battle_seed(7, "duel", "random", "berserker", 0)
    assert dict(first[0].agents) == {"party": RANDOM, "monsters": BERSERKER}
    assert dict(first[1].agents) == {"party": BERSERKER, "monsters": RANDOM}
    assert len({s.seed for s in specs}) == len(specs) // 2
    assert schedule(config) == specs


def test_one_agent_plays_itself_once_per_index() -> None:
    specs = schedule(config_from([BERSERKER], ["duel"], 3, 0, None))
    assert [dict(s.agents) for s in specs] == [{"party": BERSERKER,
                                                "monsters": BERSERKER}] * 3


def test_agent_specs_parse_arguments_and_keep_parentheses_together() -> None:
    assert split_list("a,mcts(iterations=5,c=1.5),b") == ["a", "mcts(iterations=5,c=1.5)", "b"]
    spec = AgentSpec.parse("mcts(iterations=5;c=1.5;greedy=true;rollout=berserker)")
    assert spec.kwargs == (("iterations", 5), ("c", 1.5), ("greedy", True),
                           ("rollout", "berserker"))
    assert spec.label == "mcts(iterations=5,c=1.5,greedy=True,rollout=berserker)"
    assert parse_agents("random, berserker") == [RANDOM, BERSERKER]


def test_tournament_writes_records_replays_and_a_consistent_summary(tmp_path: Path) -> None:
    config = tiny(battles=3)
    records = run_tournament(config, tmp_path, workers=1, progress=False)
    assert len(records) == 6
    assert load_records(tmp_path) == records
    for record in records:
        replay = Replay.load(tmp_path / record["replay"])
        assert replay.events == []              # compact: seed and actions only
        battle = rerun(replay)
        assert (battle.winner, battle.round) == (record["winner"], record["rounds"])
        assert len(replay.actions) == record["decisions"]
        assert team_tallies(battle) == record["teams"]
        assert record["agents"] == replay.agents
    summary = summarize(records, ["random", "berserker"], resamples=10)
    by_agent = {row.agent: row for row in summary.overall()}
    for name, row in by_agent.items():
        scores = [score for r in records for agent, _, score in seats(r) if agent == name]
        assert row.battles == len(scores) == 6
        assert row.wins == scores.count(1.0) and row.draws == scores.count(0.5)
        assert row.win_low <= row.win_rate <= row.win_high
    rate = summary.matchup[0][1]
    assert rate is not None and rate + summary.matchup[1][0] == pytest.approx(1.0)


def test_cli_tournament_prints_the_table_and_writes_every_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    assert cli.main(["tournament", "--agents", "random,berserker", "--scenarios", "duel",
                     "--battles", "2", "--out", str(out), "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "win [95% CI]" in printed and "berserker" in printed
    for name in ("battles.jsonl", "summary.csv", "summary.json", "heatmap.png",
                 "ratings.png", "rounds.png", "tournament.json"):
        assert (out / name).stat().st_size > 0, name
    assert len(list((out / "replays").glob("*.json"))) == 4
    with (out / "summary.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {(r["agent"], r["scenario"]) for r in rows} == {
        (a, s) for a in ("random", "berserker") for s in ("duel", "all")}
    data = json.loads((out / "summary.json").read_text())
    assert [r["agent"] for r in data["ratings"]] == ["random", "berserker"]
    assert sum(data["nash"]["mass"]) == pytest.approx(1.0)
    assert "battle.html (battle 0)" in printed
    first = json.loads((out / "battles.jsonl").read_text().splitlines()[0])
    page = (out / "battle.html").read_text(encoding="utf-8")
    assert first["agents"]["party"] in page and "<canvas" in page


def test_cli_tournament_page_out_of_range_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tournament", "--agents", "random,berserker", "--scenarios", "duel",
                     "--battles", "1", "--out", str(tmp_path / "t"), "--workers", "1",
                     "--page", "9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()  # after the progress bar
    assert err[-1] == "fray: error: --page: expected a battle index from 0 to 1, got 9"
    assert not any("Traceback" in line for line in err)


def test_resuming_a_finished_run_plays_nothing_more(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tiny()
    first = run_tournament(config, tmp_path, workers=1, progress=False)
    before = (tmp_path / "battles.jsonl").read_bytes()

    def refuse(spec: object) -> None:
        raise AssertionError(f"played {spec} again")

    monkeypatch.setattr("experiments.comparison.runner.play_one", refuse)
    again = run_tournament(config, tmp_path, resume=True, workers=1, progress=False)
    assert again == first
    assert (tmp_path / "battles.jsonl").read_bytes() == before


def test_a_half_written_last_line_is_dropped_and_replayed(tmp_path: Path) -> None:
    config = tiny()
    full = run_tournament(config, tmp_path / "full", workers=1, progress=False)
    cut = tmp_path / "cut"
    cut.mkdir()
    lines = (tmp_path / "full" / "battles.jsonl").read_bytes().splitlines(keepends=True)
    (cut / "battles.jsonl").write_bytes(b"".join(lines[:2]) + lines[2][:25])
    assert len(load_records(cut)) == 2
    resumed = run_tournament(config, cut, resume=True, workers=1, progress=False)
    assert resumed == [dict(r, replay=r["replay"]) for r in full]
    assert len(load_records(cut)) == len(full)


def test_a_corrupt_line_in_the_middle_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "battles.jsonl").write_text('{"id": 1}\nnot json\n{"id": 2}\n')
    with pytest.raises(rules.FrayError, match="line 2: expected a JSON record"):
        load_records(tmp_path)


@pytest.mark.parametrize(("argv", "message"), [
    (["--agents", "random,nobody"], "unknown agent 'nobody'"),
    (["--agents", "random,berserker(fury=3)"], "agent 'berserker(fury=3)': "),
    (["--agents", "random,mcts("], "expected NAME or NAME(key=value,...)"),
    (["--agents", "random,random"], "expected each agent once, got random"),
    (["--agents", ","], "--agents: expected at least one agent name"),
    (["--scenarios", "nowhere"], "nowhere: name: expected a shipped scenario"),
    (["--battles", "0"], "--battles: expected a whole number >= 1, got 0"),
    (["--seed", "-1"], "--seed: expected a whole number >= 0, got -1"),
    (["--workers", "0"], "--workers: expected a whole number >= 1, got 0"),
    (["--address", "1.2.3.4:6379"], "--address: only with --backend ray"),
    (["--backend", "ray", "--address", "127.0.0.1:1"],
     "--address 127.0.0.1:1: no Ray cluster reachable there"),
    (["--backend", "ray", "--address", "somewhere"], "--address: expected HOST:PORT"),
    (["--content-dir", "/no/such/folder"], "expected a folder of content TOML files"),
    (["--backend", "spark"], "argument --backend: invalid choice: 'spark'"),
    (["--battles", "many"], "argument --battles: invalid int value: 'many'"),
])
def test_bad_arguments_are_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        message: str) -> None:
    base = {"--agents": "random,berserker", "--scenarios": "duel", "--battles": "1",
            "--out": str(tmp_path / "t"), "--workers": "1"}
    options = dict(zip(argv[::2], argv[1::2], strict=True))
    args = ["tournament", *(x for k, v in {**base, **options}.items() for x in (k, v))]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and err.startswith("fray: error: ")


def test_an_existing_run_needs_resume_and_the_same_settings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament", "--agents", "random,berserker", "--scenarios", "duel",
            "--battles", "1", "--out", str(tmp_path), "--workers", "1"]
    assert cli.main(args) == 0
    capsys.readouterr()
    assert cli.main(args) == 2
    assert "already holds battles (battles.jsonl); pass --resume" in capsys.readouterr().err
    changed = [*args[:6], "2", *args[7:], "--resume"]
    assert cli.main(changed) == 2
    err = capsys.readouterr().err
    assert "battles: this folder was played with 1, got 2" in err
    assert err.count("\n") == 1


def test_out_that_is_a_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(rules.FrayError, match="expected a folder, found a file"):
        run_tournament(tiny(), path, workers=1, progress=False)


def test_a_bad_backend_name_in_the_api_is_a_runner_error(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="expected 'local' or 'ray'"):
        run_tournament(tiny(), tmp_path, backend="spark", progress=False)


def test_compact_replays_verify_by_their_result(tmp_path: Path) -> None:
    records = run_tournament(tiny(battles=1), tmp_path, workers=1, progress=False)
    replay = Replay.load(tmp_path / records[0]["replay"])
    assert verify(replay) is None
    replay.result = dict(replay.result, rounds=replay.result["rounds"] + 1)
    assert "result differs: recorded" in (verify(replay) or "")


def test_the_content_hash_follows_edits_of_the_content_files(tmp_path: Path) -> None:
    variant = write_variant(DATA_DIR, tmp_path / "rules", {"misc.bleed_per_round": 3})
    first = content_hash(variant)
    assert content_hash(variant) == first  # answered from its stamps
    edited = next(iter(sorted(variant.glob("*.toml"))))
    edited.write_bytes(edited.read_bytes() + b"\n# an edit\n")
    assert content_hash(variant) not in (first, content_hash(None))


def test_the_shipped_content_hash_is_the_shipped_files_whatever_the_folder_is_called(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # None and "" both stand for rules/data (as content_for reads them), not for the
    # working directory; a copy of the shipped files hashes the same
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stray.toml").write_text("x = 1\n")
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in DATA_DIR.glob("*.toml"):
        (copy / path.name).write_bytes(path.read_bytes())
    assert content_hash("") == content_hash(None) == content_hash(copy) == content_hash(DATA_DIR)


def test_a_tournament_plays_the_rules_of_its_content_dir(tmp_path: Path) -> None:
    variant = write_variant(DATA_DIR, tmp_path / "rules", {"misc.bleed_per_round": 3})
    config = config_from([RANDOM, BERSERKER], ["duel"], 1, 0, str(variant))
    records = run_tournament(config, tmp_path / "t", workers=1, progress=False)
    replay = Replay.load(tmp_path / "t" / records[0]["replay"])
    assert replay.content_dir == str(variant)
    assert replay.content_hash == content_hash(variant) != content_hash(None)
    settings = json.loads((tmp_path / "t" / "tournament.json").read_text())
    assert settings["content_dir"] == str(variant)
    assert [r["seed"] for r in records] == [s.seed for s in schedule(tiny(battles=1))]
