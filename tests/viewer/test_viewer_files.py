"""The viewer's files without a browser: the embedded data against the re-simulated rules,
run-length square sets, ``fray replay --html`` and ``fray watch --gif``."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

import rules
from env.render import render_rgb
from experiments import cli
from experiments.replay import Replay, play
from experiments.viewer import build_page, write_gif, write_page
from experiments.viewer.data import UNIT_FLAGS, cells_of, run_length, viewer_data
from experiments.viewer.gif import GIF_CELL, GIF_WIDTH, readable_cell, replay_frames


@given(st.sets(st.integers(0, 2000)))
def test_run_length_round_trips(cells: set[int]) -> None:
    run = run_length(cells)
    assert cells_of(run) == sorted(cells)
    assert len(run) <= 2 * len(cells)


def page_data(page: str) -> dict:
    text = re.search(r'<script type="application/json" id="fray-data">(.*?)</script>',
                     page, re.S).group(1)
    return json.loads(text)


def test_embedded_data_is_the_rules_state_after_every_action(replay: Replay) -> None:
    data = page_data(build_page(replay))
    assert data == json.loads(json.dumps(viewer_data(replay)))
    assert data["text"] == [str(rules.events.event_from_dict(e)) for e in replay.events]
    units, shown = len(data["units"]), {}
    rows: list[list[int]] = []
    for index, delta in enumerate(data["unitDelta"]):
        for slot, *row in delta:
            shown[slot] = row
        rows.append([shown[s] for s in range(units)])
        assert len(shown) == units, index
    battle = replay.new_battle()
    ends = [len(battle.events) - 1]
    states = [battle.clone()]
    for action, reason in zip(replay.actions, replay.reasons, strict=True):
        battle.apply(rules.Action.from_dict(action), reason=reason)
        ends.append(len(battle.events) - 1)
        states.append(battle.clone())
    bit = {name: 1 << i for i, name in enumerate(UNIT_FLAGS)}
    for index, (end, state) in enumerate(zip(ends, states, strict=True)):
        for slot, u in enumerate(data["units"]):
            c = state.combatants[u["id"]]
            x, y, hp, flags = rows[end][slot]
            assert (x, y, hp) == (*c.position, c.hp)
            assert bool(flags & bit["prone"]) == c.prone
            assert bool(flags & bit["riding"]) == (c.riding is not None)
            assert bool(flags & bit["dead"]) == c.dead
        assert data["snapshot"][end] == index  # zones of the battle after this action


def test_bad_arguments_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str],
                                               tmp_path) -> None:
    assert cli.main(["watch", "duel", "--gif", str(tmp_path / "x.png")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    path = tmp_path / "r.json"
    play("duel", 3, {"party": "berserker"})[1].save(path)
    assert cli.main(["replay", str(path), "--html", str(tmp_path / "x.txt")]) == 2
    err = capsys.readouterr().err
    assert "--html: expected a file name ending in .html" in err and err.count("\n") == 1


def test_replay_html_writes_the_viewer_page(capsys: pytest.CaptureFixture[str],
                                            tmp_path) -> None:
    battle, replay = play("duel", 3, {"party": "berserker", "monsters": "random"})
    source = replay.save(tmp_path / "duel.json")
    out = tmp_path / "pages" / "duel.html"
    assert cli.main(["replay", str(source), "--html", str(out)]) == 0
    assert f"Viewer page: {out}" in capsys.readouterr().out
    data = page_data(out.read_text(encoding="utf-8"))
    assert data["text"] == [str(e) for e in battle.events]
    assert data["result"]["winner"] == battle.winner
    assert write_page(replay, tmp_path / "again.html").read_text() == out.read_text()


def test_watch_gif_is_an_animation_of_render_rgb_frames(capsys: pytest.CaptureFixture[str],
                                                        tmp_path) -> None:
    out = tmp_path / "duel.gif"
    assert cli.main(["watch", "duel", "--seed", "3", "--gif", str(out)]) == 0
    assert f"Animation: {out}" in capsys.readouterr().out
    gif = Image.open(out)
    assert gif.n_frames > 3
    _, replay = play("duel", 3, {"party": "berserker", "monsters": "berserker"})
    cell = readable_cell(replay.new_battle().grid.width)
    assert gif.width >= GIF_WIDTH or cell == GIF_CELL[1]  # readable: scaled up (issue 50)
    first = np.asarray(replay_frames(replay, cell=cell)[0])
    start = render_rgb(replay.new_battle(), cell=cell)
    assert np.array_equal(first[-start.shape[0]:], start)  # below the caption strip
    gif.seek(0)
    shown = np.asarray(gif.convert("RGB"))[-start.shape[0]:].astype(int)
    assert np.abs(shown - start).max(axis=2).mean() < 8  # palette-quantised, same picture
    assert write_gif(replay, tmp_path / "b.gif", max_frames=2).exists()
    assert Image.open(tmp_path / "b.gif").n_frames == 2


def test_a_replay_with_an_illegal_action_fails_or_stops_there(tmp_path) -> None:
    from experiments.replay import ReplayError

    _, replay = play("duel", 3, {"party": "berserker", "monsters": "berserker"})
    replay.actions[6] = {"kind": "move", "target": None, "square": [0, 0], "item": None}
    with pytest.raises(ReplayError, match="action 6"):
        write_page(replay, tmp_path / "bad.html")
    data = page_data(write_page(replay, tmp_path / "bad.html", partial=True).read_text())
    assert data["stopped"].startswith("action 6 ")
    battle = replay.new_battle()
    for action in replay.actions[:6]:
        battle.apply(rules.Action.from_dict(action))
    assert data["text"] == [str(e) for e in battle.events]
