"""Drawing a battle: an ANSI text frame and an RGB image (Pillow).

Both read the battle's public state and its events; neither recomputes a rule.

:data:`PALETTE` and :data:`GEOMETRY` are the one place for the look: the RGB frames
(``render_mode="rgb_array"``, ``fray watch --gif``) use them here, and the replay viewer
page (``experiments.viewer``) injects the same dictionaries into its script, so a frame and
the page show the same map, unit discs, initials and HP bars.
"""

from __future__ import annotations

import functools
import string

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from rules import Battle, Combatant
from rules.grid import GridMap

#: Team colours in the order of the scenario's teams (CSS hex), shared with the page.
TEAM_COLOURS: tuple[str, ...] = ("#285ad2", "#c82828", "#28a03c", "#aa3caa")
#: Colours by role (CSS hex), shared with the viewer page.
PALETTE: dict[str, str] = {
    "floor": "#c8c4b8",
    "wall": "#3c3834",
    "door_closed": "#78481e",
    "door_open": "#be9664",
    "difficult": "#a0aa6e",
    "dark": "#6e6c78",
    "drop": "#191e32",
    "gridline": "#aaa69c",
    "down": "#5a5a5a",
    "hp_good": "#28be3c",
    "hp_bad": "#781414",
    "decider": "#fad200",
    "initials": "#ffffff",
    "bleeding": "#e01010",
    "threat": "#ff7800",
    "reach": "#3cb4ff",
    "path": "#fad200",
    "reaction": "#ff00c8",
    "selected": "#000000",
}
#: Sizes as fractions of a square, shared with the viewer page.
GEOMETRY: dict[str, float] = {
    "unit_radius": 0.4,      # unit disc
    "rider_radius": 0.28,    # a rider drawn on its mount
    "mount_inset": 0.08,     # a ridden mount is a rounded square this far inside its square
    "hp_bar_height": 0.12,   # HP bar along the top of the square
    "hp_bar_inset": 0.1,
    "font": 0.38,            # initials, in squares
    "mark_radius": 0.09,     # status dots (bleeding)
    "threat_width": 0.12,    # threatened squares: a frame this wide inside the square
    "reach_alpha": 0.35,     # reachable squares: a tint of this opacity
}


def _rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` -> ``(r, g, b)``."""
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))


def team_colour(battle: Battle, team: str) -> str:
    """The palette colour of a team (by its index among the scenario's teams)."""
    return TEAM_COLOURS[battle.scenario.teams.index(team) % len(TEAM_COLOURS)]


def unit_initials(battle: Battle) -> dict[str, str]:
    """Up to three characters per combatant, unique in the battle: the first letters of
    the id's words and its trailing number (``goblin_archer_1`` -> ``GA1``, ``archer`` ->
    ``Ar``); a clash falls back to the first letter and the unit's index."""
    out: dict[str, str] = {}
    for index, u in enumerate(battle.scenario.units):
        words = [w for w in u.id.replace("-", "_").split("_") if w]
        number = words.pop() if len(words) > 1 and words[-1].isdigit() else ""
        if len(words) == 1 and not number:
            text = words[0][:2].capitalize()
        else:
            text = "".join(w[0].upper() for w in words)[: 3 - min(2, len(number))] + number
        text = text[:3]
        if text in out.values():
            text = (u.id[:1].upper() + str(index))[:3]
        out[u.id] = text
    return out


def unit_symbols(battle: Battle) -> dict[str, str]:
    """One character per combatant: the first team's units A, B, C..., the second's
    a, b, c..., further teams digits."""
    teams = battle.scenario.teams
    alphabets = (string.ascii_uppercase, string.ascii_lowercase, string.digits,
                 string.punctuation)
    counters = dict.fromkeys(teams, 0)
    out = {}
    for u in battle.scenario.units:
        t = teams.index(u.team)
        alpha = alphabets[min(t, len(alphabets) - 1)]
        out[u.id] = alpha[counters[u.team] % len(alpha)]
        counters[u.team] += 1
    return out


def map_cells(battle: Battle) -> list[list[str]]:
    """The map as rows of characters: terrain in the scenario legend (``GridMap.to_text``),
    ground items ``*``, units by :func:`unit_symbols`, the fallen ``%`` (a standing unit
    on the same square is drawn over them)."""
    depth = battle.content.ruleset.misc.default_drop_depth_ft
    cells = [list(row) for row in battle.grid.to_text(drop_depth_ft=depth).splitlines()]
    for item in battle.ground:
        if item.square is not None:
            cells[item.square[1]][item.square[0]] = "*"
    sym = unit_symbols(battle)
    for c in sorted(battle.combatants.values(), key=lambda combatant: combatant.in_action):
        x, y = c.position
        cells[y][x] = sym[c.id] if c.in_action else "%"
    return cells


def render_ansi(battle: Battle, events: int = 8, learner_team: str | None = None) -> str:
    """The map with unit symbols, a roster with HP and status, and the last events."""
    sym = unit_symbols(battle)
    cells = map_cells(battle)
    d = battle.decision
    head = (f"{battle.scenario.name}  round {battle.round}/{battle.scenario.max_rounds}  "
            + (f"decision: {d.kind.name} by {d.actor}" if d is not None
               else f"over, winner: {battle.winner or 'none (draw)'}"))
    lines = [head, *("".join(row) for row in cells), ""]
    for u in battle.scenario.units:
        c = battle.combatants[u.id]
        flags = [f for f, on in (("prone", c.prone), ("bleeding", c.bleeding),
                                 ("grappled", c.grappled_by is not None),
                                 ("riding " + (c.riding or ""), c.riding is not None))
                 if on]
        mark = "*" if learner_team is not None and c.team == learner_team else " "
        status = c.status if c.status != "active" else ""
        lines.append(f"{mark}{sym[c.id]} {c.id:<18} {c.team:<9} HP {c.hp:>3}/{c.max_hp:<3} "
                     f"{status} {' '.join(flags)}".rstrip())
    if events > 0:
        lines.append("")
        lines += [str(e) for e in battle.events[-events:]]
    return "\n".join(lines) + "\n"


def render_rgb(battle: Battle, cell: int = 24) -> np.ndarray:
    """An ``(H * cell, W * cell, 3)`` uint8 image of the map and the units, in the look of
    the viewer page: terrain, unit discs in team colours with initials, HP bars, status
    marks (prone flat, bleeding dot, out of action grey and crossed, riders on mounts) and
    the combatant whose turn it is framed."""
    image = Image.fromarray(_terrain(battle.grid, cell))
    draw = ImageDraw.Draw(image)
    initials = unit_initials(battle)
    owner = battle.current_actor if not battle.is_over else None
    # the fallen first, then mounts, then riders and everyone else on top
    order = sorted(battle.combatants.values(),
                   key=lambda combatant: (combatant.in_action, combatant.ridden_by is None))
    for c in order:
        _draw_unit(draw, battle, c, cell, initials[c.id], c.id == owner)
    return np.asarray(image, dtype=np.uint8).copy()


@functools.lru_cache(maxsize=64)
def _terrain(grid: GridMap, cell: int) -> np.ndarray:
    """The map's terrain as an image array, gridlines on floor-like squares (cached per
    map: a door opened is another map)."""
    colours = np.empty((grid.height, grid.width, 3), dtype=np.uint8)
    wall = np.zeros((grid.height, grid.width), dtype=bool)
    doors = grid.doors
    for x, y in grid.squares():
        colours[y, x] = _rgb(_terrain_colour(grid, (x, y), doors))
        wall[y, x] = grid.is_wall((x, y))
    image = np.repeat(np.repeat(colours, cell, axis=0), cell, axis=1)
    lines = np.repeat(np.repeat(~wall, cell, axis=0), cell, axis=1)
    edge = np.zeros((cell, cell), dtype=bool)
    edge[-1, :] = edge[:, -1] = True
    lines &= np.tile(edge, (grid.height, grid.width))
    image[lines] = _rgb(PALETTE["gridline"])
    image.setflags(write=False)
    return image


def _terrain_colour(grid: GridMap, square: tuple[int, int], doors: dict) -> str:
    """The palette colour of one square's terrain."""
    if grid.is_wall(square):
        return PALETTE["wall"]
    if square in doors:
        return PALETTE["door_open"] if doors[square] else PALETTE["door_closed"]
    if grid.drop_depth(square):
        return PALETTE["drop"]
    if grid.is_difficult(square):
        return PALETTE["difficult"]
    if grid.is_dark(square):
        return PALETTE["dark"]
    return PALETTE["floor"]


@functools.lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at ``size`` pixels."""
    return ImageFont.load_default(size=size)


def _draw_unit(draw: ImageDraw.ImageDraw, battle: Battle, combatant: Combatant, cell: int,
               initials: str, acting: bool) -> None:
    """One combatant on its square (see :func:`render_rgb` for the marks)."""
    x0, y0 = combatant.position[0] * cell, combatant.position[1] * cell
    cx, cy = x0 + cell / 2, y0 + cell / 2
    colour = team_colour(battle, combatant.team) if combatant.in_action else PALETTE["down"]
    if acting:
        width = max(2, cell // 12)
        draw.rectangle((x0, y0, x0 + cell - 2, y0 + cell - 2), outline=PALETTE["decider"],
                       width=width)
    if combatant.dead:
        _cross(draw, cx, cy, cell * GEOMETRY["unit_radius"], max(1, cell // 10))
        return
    radius = cell * GEOMETRY["unit_radius"]
    mount = combatant.ridden_by is not None and combatant.in_action
    rider = combatant.riding is not None
    if mount:
        inset = cell * GEOMETRY["mount_inset"]
        draw.rounded_rectangle((x0 + inset, y0 + inset, x0 + cell - 1 - inset,
                                y0 + cell - 1 - inset), radius=cell // 5, fill=colour)
    else:
        if rider:
            radius = cell * GEOMETRY["rider_radius"]
        squash = 0.55 if combatant.prone else 1.0
        top = cy - radius * squash + (radius * (1 - squash) if combatant.prone else 0)
        ring = (PALETTE["initials"], max(1, cell // 16)) if rider else (None, 0)
        draw.ellipse((cx - radius, top, cx + radius, top + 2 * radius * squash), fill=colour,
                     outline=ring[0], width=ring[1])
        size = max(6, round(cell * GEOMETRY["font"]))
        draw.text((cx, cy + (radius * 0.3 if combatant.prone else 0)), initials,
                  fill=PALETTE["initials"], font=_font(size), anchor="mm")
    if not combatant.in_action:
        _cross(draw, cx, cy, radius, max(1, cell // 12))
    _hp_bar(draw, combatant, x0, y0 + (cell * (1 - GEOMETRY["hp_bar_height"]) - 1 if mount else 0),
            cell)
    if combatant.bleeding:
        r = cell * GEOMETRY["mark_radius"]
        mx, my = x0 + cell - 2 * r, y0 + cell * GEOMETRY["hp_bar_height"] + 2 * r
        draw.ellipse((mx - r, my - r, mx + r, my + r), fill=PALETTE["bleeding"])


def _hp_bar(draw: ImageDraw.ImageDraw, combatant: Combatant, x0: float, top: float,
            cell: int) -> None:
    """HP left as a bar across the square."""
    inset = cell * GEOMETRY["hp_bar_inset"]
    width = cell - 2 * inset
    height = max(2.0, cell * GEOMETRY["hp_bar_height"])
    fraction = max(0.0, min(1.0, combatant.hp / max(1, combatant.max_hp)))
    draw.rectangle((x0 + inset, top, x0 + inset + width - 1, top + height - 1),
                   fill=PALETTE["hp_bad"])
    if fraction > 0:
        draw.rectangle((x0 + inset, top, x0 + inset + max(1.0, width * fraction) - 1,
                        top + height - 1), fill=PALETTE["hp_good"])


def _cross(draw: ImageDraw.ImageDraw, cx: float, cy: float, radius: float, width: int) -> None:
    """An X over a fallen unit."""
    draw.line(
        (cx - radius, cy - radius, cx + radius, cy + radius), fill=PALETTE["wall"], width=width
    )
    draw.line(
        (cx - radius, cy + radius, cx + radius, cy - radius), fill=PALETTE["wall"], width=width
    )
