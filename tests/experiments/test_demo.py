"""fray demo: the tactic comparison on tiny settings (one battle per pairing and side; the
slow mcts replaced by a name that is not registered, which the demo must skip)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import agents
from experiments import cli
from experiments.commands import demo
from experiments.replay import Replay, verify

TINY_AGENTS = ("tactician", "berserker", "random", "not_an_agent")


@pytest.fixture
def tiny_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo, "DEMO_AGENTS", TINY_AGENTS)


def test_demo_agents_are_the_registered_ones_with_mcts_at_a_small_budget() -> None:
    chosen, skipped = demo.demo_agents()
    missing = [f"{name} (not registered yet)" for name in demo.DEMO_AGENTS
               if name not in agents.names()]
    assert [s for s in skipped if s.endswith("(not registered yet)")] == missing
    assert len(chosen) + len(skipped) == len(demo.DEMO_AGENTS)
    for spec in chosen:
        assert dict(spec.kwargs) == (demo.MCTS_OPTIONS if spec.name == "mcts" else {})


def test_demo_prints_the_table_and_writes_its_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], tiny_demo: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "demo"
    argv = ["demo", "--out", str(out), "--battles", "1", "--workers", "1"]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    chosen, skipped = demo.demo_agents()
    assert "not_an_agent (not registered yet)" in skipped
    assert f"skipped: {', '.join(skipped)}" in printed
    assert "win [95% CI]" in printed and "rating [95% CI]" in printed
    assert "wall time" in printed
    assert "per pairing and side, not" not in printed  # nobody capped: no line on why
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
    page = (out / demo.PAGE_FILE).read_text(encoding="utf-8")
    assert replay.scenario_name in page and "<script" in page
    assert "http://" not in page and "https://" not in page  # self-contained, offline
    # again on the same folder: nothing is played, the table is printed again
    before = (out / "battles.jsonl").read_bytes()
    monkeypatch.setattr("experiments.comparison.runner.play_one", pytest.fail)
    assert cli.main(argv) == 0
    assert "win [95% CI]" in capsys.readouterr().out
    assert (out / "battles.jsonl").read_bytes() == before
    assert json.loads((out / "tournament.json").read_text())["scenarios"] == [demo.SCENARIO]


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


def test_demo_says_why_mcts_plays_fewer_battles() -> None:
    from experiments.comparison.runner import AgentSpec
    from experiments.comparison.tournament import config_from

    mcts = AgentSpec("mcts", tuple(demo.MCTS_OPTIONS.items()))
    others = [AgentSpec(name, ()) for name in ("tactician", "berserker", "random")]
    config = config_from([mcts, *others], [demo.SCENARIO], demo.BATTLES, 0, None,
                         {mcts.label: demo.MCTS_BATTLES})
    # 3 pairings x 2 sides x 2 battles; the others: 2 pairings x 2 x 40, plus mcts's 4
    assert demo.battles_per_agent(config) == {mcts.label: 12, "tactician": 164,
                                              "berserker": 164, "random": 164}
    assert demo.capped_line(config) == (
        f"{mcts.label} plays 12 battles, the others 164 each: 2 per pairing and side, not "
        f"40, as a battle with mcts at this budget takes {demo.MCTS_COST} the CPU time of "
        "one without (so its intervals are wider)")
    uncapped = config_from([mcts, *others], [demo.SCENARIO], 1, 0, None, {mcts.label: 1})
    assert demo.capped_line(uncapped) is None  # --battles 1: everyone plays as many


def test_the_heatmap_shows_how_many_battles_each_cell_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from experiments.comparison import plots

    drawn = []
    monkeypatch.setattr(plots, "_save", lambda figure, path: drawn.append(figure) or path)
    plots.matchup_heatmap(["a", "b", "c"], [[None, 0.75, 0.5], [0.25, None, 1.0],
                                            [0.5, 0.0, None]],
                          tmp_path / "heatmap.png", battles=[[0, 12, 4], [12, 0, 80],
                                                             [4, 80, 0]])
    texts = sorted(text.get_text() for text in drawn[0].axes[0].texts)
    assert texts == sorted(["0.75\nn=12", "0.50\nn=4", "0.25\nn=12", "1.00\nn=80",
                            "0.50\nn=4", "0.00\nn=80"])
