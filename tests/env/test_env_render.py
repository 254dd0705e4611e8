"""``render_mode="rgb_array"`` frames (env.render.render_rgb): the look the viewer page
shares (one palette), checked by pixels."""

from __future__ import annotations

import numpy as np
import pytest

import rules
from env.render import GEOMETRY, PALETTE, TEAM_COLOURS, render_rgb, unit_initials

SCENARIO = """
name = "render_check"
max_rounds = 5
map = '''
#########
#..~..+.#
#..:..'.#
#.._....#
#########
'''
[[units]]
id = "hero"
team = "party"
creature = "human_warrior"
at = [1, 1]
current_hp = {hp}
[[units]]
id = "orc_1"
team = "monsters"
creature = "orc"
at = [7, 3]
[[units]]
id = "orc_2"
team = "monsters"
creature = "orc"
at = [4, 3]
out_of_action = true
"""
CELL = 24


def rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])


def square(image: np.ndarray, sq: tuple[int, int]) -> np.ndarray:
    x, y = sq
    return image[y * CELL:(y + 1) * CELL, x * CELL:(x + 1) * CELL].astype(int)


def share(block: np.ndarray, colour: str, tolerance: int = 12) -> float:
    return float((np.abs(block - rgb(colour)).max(axis=2) <= tolerance).mean())


def battle(hp: int = 2) -> rules.Battle:
    return rules.Battle.from_toml(SCENARIO.format(hp=hp), seed=1)


def test_terrain_squares_have_their_palette_colours() -> None:
    b = battle()
    image = render_rgb(b, cell=CELL)
    assert image.shape == (b.grid.height * CELL, b.grid.width * CELL, 3)
    for sq, name in (((0, 0), "wall"), ((3, 1), "difficult"), ((6, 1), "door_closed"),
                     ((6, 2), "door_open"), ((3, 2), "dark"), ((3, 3), "drop"),
                     ((2, 2), "floor")):
        assert share(square(image, sq)[:-1, :-1], PALETTE[name], 0) == 1.0, name


def test_units_are_discs_in_team_colours_with_hp_bars() -> None:
    b = battle(hp=2)
    image = render_rgb(b, cell=CELL)
    hero, orc = b.combatants["hero"], b.combatants["orc_1"]
    radius = GEOMETRY["unit_radius"]
    for c, own, other in ((hero, TEAM_COLOURS[0], TEAM_COLOURS[1]),
                          (orc, TEAM_COLOURS[1], TEAM_COLOURS[0])):
        block = square(image, c.position)
        assert share(block, own) > np.pi * radius ** 2 * 0.6
        assert share(block, other) == 0.0
        bar = block[1]  # the HP bar's top row
        good, bad = share(bar[None], PALETTE["hp_good"], 0), share(bar[None], PALETTE["hp_bad"], 0)
        inset = round(CELL * GEOMETRY["hp_bar_inset"])
        width = (CELL - 2 * inset) / CELL
        assert good == pytest.approx(width * c.hp / c.max_hp, abs=2 / CELL)
        assert good + bad == pytest.approx(width, abs=2 / CELL)
    assert hero.hp < hero.max_hp  # a wounded hero's bar is part red


def test_the_fallen_are_grey_and_crossed_and_the_turn_owner_framed() -> None:
    b = battle()
    image = render_rgb(b, cell=CELL)
    fallen = square(image, b.combatants["orc_2"].position)
    assert share(fallen, PALETTE["down"]) > 0.1  # a flat (prone) grey disc
    assert share(fallen, PALETTE["wall"]) > 0.02  # the cross
    assert share(fallen, TEAM_COLOURS[1]) == 0.0
    decider = square(image, b.combatants[b.current_actor].position)
    assert share(decider[:, :2], PALETTE["decider"], 0) > 0.8  # the frame's left edge
    others = [c for c in b.combatants.values() if c.id != b.current_actor]
    assert all(share(square(image, c.position)[:, :2], PALETTE["decider"], 0) == 0
               for c in others)


@pytest.mark.parametrize("name", rules.shipped_scenarios())
def test_initials_are_short_and_unique(name: str) -> None:
    initials = unit_initials(rules.Battle.from_scenario(name, seed=0))
    assert len(set(initials.values())) == len(initials)
    assert all(1 <= len(text) <= 3 for text in initials.values())
