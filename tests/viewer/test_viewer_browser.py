"""The replay viewer in a real headless Chromium: what the page shows (DOM text and canvas
pixels) is checked against the replay's events and against the rules re-simulated here.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass

import numpy as np
import pytest
from PIL import Image
from viewer_replays import ODD_REASON

import rules
from env.render import PALETTE, TEAM_COLOURS
from experiments.replay import Replay
from rules import queries
from rules.events import event_from_dict

SHOWN = """() => ({
  index: document.getElementById('event-index').textContent,
  round: document.getElementById('round').textContent,
  line: document.querySelector('#log li.current').textContent,
  current: document.getElementById('current-line').textContent,
  acting: document.querySelector('#order li.acting')?.textContent ?? null,
  units: Object.fromEntries([...document.querySelectorAll('#units tr')].map(tr => [
    tr.dataset.unit, {hp: tr.querySelector('.hp').textContent,
                      pos: tr.querySelector('.pos').textContent,
                      status: tr.querySelector('.status').textContent}]))
})"""


@dataclass
class Boundary:
    """The battle right after one action: the index of its last event, and the battle."""

    last_event: int
    battle: rules.Battle


_BOUNDARIES: dict[int, tuple[Replay, list[Boundary]]] = {}


def boundaries(replay: Replay) -> list[Boundary]:
    """Re-simulate ``replay`` and keep the battle after every action (once per replay)."""
    if id(replay) in _BOUNDARIES and _BOUNDARIES[id(replay)][0] is replay:
        return _BOUNDARIES[id(replay)][1]
    battle = replay.new_battle()
    out = [Boundary(len(battle.events) - 1, battle.clone())]
    for data, reason in zip(replay.actions, replay.reasons, strict=True):
        battle.apply(rules.Action.from_dict(data), reason=reason)
        out.append(Boundary(len(battle.events) - 1, battle.clone()))
    _BOUNDARIES[id(replay)] = (replay, out)
    return out


def status_text(c: rules.Combatant) -> str:
    """The status column the page should show for ``c``."""
    marks = ["dead"] if c.dead else ["out of action"] if c.status == "out" else []
    marks += [name for name, on in (("prone", c.prone), ("bleeding", c.bleeding),
                                    ("mounted", c.riding is not None),
                                    ("ridden", c.ridden_by is not None),
                                    ("grappled", c.grappled_by is not None)) if on]
    return ", ".join(marks)


def canvas_image(page) -> tuple[Image.Image, int]:
    """A screenshot of the map canvas and its square size in pixels."""
    png = page.locator("#map").screenshot()
    return Image.open(io.BytesIO(png)).convert("RGB"), int(page.evaluate("window.fray.cell"))


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def close(a: tuple[int, ...], b: tuple[int, ...], tolerance: int = 24) -> bool:
    return max(abs(x - y) for x, y in zip(a, b, strict=True)) <= tolerance


def go(page, index: int) -> None:
    page.evaluate(f"location.hash = '#e={index}'")
    page.wait_for_function(f"document.body.dataset.event === '{index}'")


# ---------------------------------------------------------------- stepping
def test_keyboard_steps_show_every_event_as_the_replay_has_it(page, replay: Replay) -> None:
    events = [event_from_dict(e) for e in replay.events]
    after = {b.last_event: b.battle for b in boundaries(replay)}
    damage_checked = moves_checked = states_checked = 0
    for index, event in enumerate(events):
        if index:
            page.keyboard.press("ArrowRight")
        shown = page.evaluate(SHOWN)
        assert shown["index"] == f"Event {index} / {len(events) - 1}"
        assert shown["round"] == f"Round {event.round}"
        assert shown["line"] == shown["current"] == str(event)
        units = shown["units"]
        if type(event).__name__ == "DamageDealt":
            target = after[max(after)].combatants[event.target]
            assert units[event.target]["hp"] == f"HP {event.hp}/{target.max_hp}"
            damage_checked += 1
        if type(event).__name__ == "Moved":
            assert units[event.actor]["pos"] == "({}, {})".format(*event.path[-1])
            moves_checked += 1
        if index in after:  # the state after an action: exactly the rules' state
            for c in after[index].combatants.values():
                assert units[c.id] == {"hp": f"HP {c.hp}/{c.max_hp}",
                                       "pos": "({}, {})".format(*c.position),
                                       "status": status_text(c)}, (index, c.id)
            owner = after[index].current_actor
            if owner is not None and not after[index].is_over:
                assert shown["acting"] == owner
            states_checked += 1
    assert damage_checked and moves_checked and states_checked == len(replay.actions) + 1
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(SHOWN)["line"] == str(events[-2])
    assert not page.errors


def test_url_fragment_keeps_the_position(page, page_path, replay: Replay) -> None:
    events = [event_from_dict(e) for e in replay.events]
    page.goto(page_path.as_uri() + "#e=120")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate(SHOWN)["line"] == str(events[120])
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("location.hash") == "#e=119"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate(SHOWN)["index"] == f"Event 119 / {len(events) - 1}"


def test_jump_to_a_round_and_buttons(page, replay: Replay) -> None:
    events = [event_from_dict(e) for e in replay.events]
    first = next(i for i, e in enumerate(events) if e.round == 3)
    page.select_option("#round-select", "3")
    shown = page.evaluate(SHOWN)
    assert shown["round"] == "Round 3" and shown["line"] == str(events[first])
    page.click("#forward")
    page.click("#forward")
    page.click("#back")
    assert page.evaluate(SHOWN)["line"] == str(events[first + 1])
    page.click("#last")
    assert page.evaluate(SHOWN)["line"] == str(events[-1])
    page.click("#first")
    assert page.evaluate(SHOWN)["line"] == str(events[0])


def test_play_pause_and_speed(page) -> None:
    page.fill("#speed", "30")
    page.dispatch_event("#speed", "input")
    assert page.text_content("#speed-text") == "30 events/s"
    page.click("#play")
    page.wait_for_function("Number(document.body.dataset.event) >= 3")
    page.click("#play")
    assert page.text_content("#play") == "Play"
    stopped = page.evaluate("document.body.dataset.event")
    page.wait_for_timeout(300)  # paused: the position stays
    assert page.evaluate("document.body.dataset.event") == stopped


def test_log_has_every_die_roll_and_reason(page, replay: Replay) -> None:
    lines = page.locator("#log li").all_text_contents()
    assert lines == [str(event_from_dict(e)) for e in replay.events]
    reasons = [line for line in lines if " reasons: " in line]
    assert len(reasons) == sum(r is not None for r in replay.reasons)
    assert any(line.endswith(ODD_REASON) for line in reasons)  # markup shown as text
    assert page.locator("#log b").count() == 0
    rolls = [e for e in replay.events if e["type"] == "AttackRolled"]
    assert rolls and all(f"{e['roll']} vs {e['chance']}" in lines[i]
                         for i, e in enumerate(replay.events) if e in rolls)


# ---------------------------------------------------------------- selection
def test_click_a_unit_shows_its_threatened_and_reachable_squares(page,
                                                                  replay: Replay) -> None:
    candidates = []
    for b in boundaries(replay)[5:]:
        for c in b.battle.combatants.values():
            threat = queries.threat_squares(b.battle, c) if c.threatens else frozenset()
            if len(threat) >= 3 and c.ridden_by is None:
                candidates.append((b, c, threat))
    assert candidates, "the battle has a threatening unit"
    b, c, threat = candidates[len(candidates) // 2]
    go(page, b.last_event)
    centre = page.evaluate(f"window.fray.squareCentre({c.position[0]}, {c.position[1]})")
    page.mouse.click(centre["x"], centre["y"])
    assert page.text_content("#selected .id") == c.id
    assert page.text_content("#threat-count") == str(len(threat))
    reach = queries.routes(b.battle, c, queries.move_budget(b.battle, c, full=True),
                           provoking=False)
    assert page.text_content("#reach-count") == str(len(reach))
    image, cell = canvas_image(page)
    grid = b.battle.grid
    assert image.size == (grid.width * cell, grid.height * cell)
    orange = rgb(PALETTE["threat"])
    for x, y in grid.squares():
        pixel = image.getpixel((x * cell + 1, y * cell + cell // 2))  # the frame's left side
        assert close(pixel, orange) == ((x, y) in threat), (x, y, pixel)
    # a reachable square nobody stands on is tinted towards the reach colour
    floor, reach_colour = rgb(PALETTE["floor"]), rgb(PALETTE["reach"])
    empty = [sq for sq in reach if not grid.is_difficult(sq) and sq not in threat
             and all(o.position != sq for o in b.battle.combatants.values())]
    assert empty
    for x, y in empty[:20]:
        pixel = image.getpixel((x * cell + cell // 2, y * cell + cell // 2))
        alpha = page.evaluate("window.fray.data.look.geometry.reach_alpha")
        expected = tuple(round(f + (r - f) * alpha) for f, r in zip(floor, reach_colour,
                                                                    strict=True))
        assert close(pixel, expected, 6), ((x, y), pixel, expected)


# ---------------------------------------------------------------- pictures
@pytest.mark.parametrize("moment", ["start", "middle"])
def test_screenshot_shows_units_in_team_colours(page, replay: Replay, moment: str) -> None:
    bounds = boundaries(replay)
    b = bounds[0] if moment == "start" else bounds[len(bounds) // 2]
    go(page, b.last_event)
    image, cell = canvas_image(page)
    pixels = np.asarray(image, dtype=int)
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 10  # not blank
    teams = b.battle.scenario.teams
    geometry = page.evaluate("window.fray.data.look.geometry")
    checked = 0
    for c in b.battle.combatants.values():
        if not c.in_action:
            continue
        x, y = c.position
        square = pixels[y * cell:(y + 1) * cell, x * cell:(x + 1) * cell]
        radius = geometry["rider_radius" if c.riding else "unit_radius"]
        disc = math.pi * radius ** 2 * (0.55 if c.prone else 1.0)  # share of the square
        for team in teams:
            colour = np.array(rgb(TEAM_COLOURS[teams.index(team)]))
            share = float((np.abs(square - colour).max(axis=2) <= 30).mean())
            if team == c.team:
                assert share > disc / 3, (c.id, share, disc)  # initials cover some
            else:
                assert share < 0.02, (c.id, team, share)
        checked += 1
    assert checked >= 4


def test_page_is_offline_and_self_contained(page, page_path) -> None:
    assert page.requests == [page_path.as_uri()]
    text = page_path.read_text(encoding="utf-8")
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|https?://", text)


# ---------------------------------------------------------------- odds
def test_odds_panel_shows_the_exact_odds_of_the_attack_as_made(page, replay: Replay) -> None:
    from rules import odds

    battle = replay.new_battle()
    checked = 0
    for data, reason in zip(replay.actions, replay.reasons, strict=True):
        action = rules.Action.from_dict(data)
        start = len(battle.events)
        expected = odds.attack_odds(battle, action) if action.kind in odds.ATTACK_KINDS else None
        battle.apply(action, reason=reason)
        if expected is None or checked >= 3:
            continue
        rolled = next(i for i in range(start, len(battle.events))
                      if type(battle.events[i]).__name__ == "AttackRolled")
        go(page, rolled)
        rows = page.locator("#odds table").first.locator("tr").all_text_contents()
        for level, p in expected.levels.items():
            exact = f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p)
            assert any(r.startswith(level.name.lower()) and r.endswith(exact) for r in rows)
        text = page.text_content("#odds .attack")
        assert f"attack chance {expected.chance}" in text
        defences = page.locator("#odds table").nth(1).locator("tr").all_text_contents()
        drops = f"{100 * float(expected.drops):.1f}%"
        assert any(r.startswith("none") and drops in r for r in defences)
        checked += 1
    assert checked == 3


# ---------------------------------------------------------------- terrain and doors
TERRAIN = """
name = "terrain_check"
max_rounds = 3
map = '''
##########
#.+.~:;_2#
#........#
##########
'''
[[units]]
id = "hero"
team = "party"
creature = "human_warrior"
at = [1, 1]
[[units]]
id = "orc_1"
team = "monsters"
creature = "orc"
at = [8, 2]
"""


def door_replay() -> Replay:
    """A short battle in which the hero opens the door next to it (every other decision
    takes its first legal action, ending turns when it can)."""
    battle = rules.Battle.from_toml(TERRAIN, seed=1, source="terrain_check")
    replay = Replay.start(battle, {"party": "test", "monsters": "test"})
    opened = 0
    while not battle.is_over and opened < 3:
        actions = battle.legal_actions()
        kinds = {a.kind: a for a in actions}
        action = kinds.get(rules.ActionKind.OPEN_DOOR) or kinds.get(
            rules.ActionKind.END_TURN) or actions[0]
        battle.apply(action)
        replay.record(action, None)
        opened += bool(opened) or action.kind is rules.ActionKind.OPEN_DOOR
    replay.finish(battle)
    assert opened, "the hero opened the door"
    return replay


def test_map_shows_terrain_and_doors_opening(browser, tmp_path) -> None:
    from experiments.viewer import write_page

    replay = door_replay()
    path = write_page(replay, tmp_path / "terrain.html")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    opened = next(i for i, e in enumerate(replay.events) if e["type"] == "DoorChanged")
    for index, door in ((0, "door_closed"), (opened - 1, "door_closed"),
                        (opened, "door_open")):
        go(page, index)
        image, cell = canvas_image(page)
        expected = {(0, 0): "wall", (1, 2): "floor", (2, 1): door, (4, 1): "difficult",
                    (5, 1): "dark", (7, 1): "drop", (8, 1): "drop"}
        for (x, y), name in expected.items():
            pixel = image.getpixel((x * cell + 3, y * cell + 3))  # a corner: no marks
            assert close(pixel, rgb(PALETTE[name]), 2), (index, (x, y), name, pixel)
        dark_difficult = image.getpixel((6 * cell + 3, cell + 3))
        assert close(dark_difficult, rgb(PALETTE["dark"]), 2)
        assert close(image.getpixel((6 * cell + cell // 2, cell + cell // 2)),
                     rgb(PALETTE["difficult"]), 2)  # its hatch
    page.close()
