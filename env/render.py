"""Drawing a battle: an ANSI text frame and an RGB image (numpy only).

Both read the battle's public state and its events; neither recomputes a rule.
"""

from __future__ import annotations

import string

import numpy as np

from rules import Battle

_FLOOR = (200, 196, 184)
_WALL = (60, 56, 52)
_CLOSED_DOOR = (120, 72, 30)
_OPEN_DOOR = (190, 150, 100)
_DIFFICULT = (160, 170, 110)
_DARK = (110, 108, 120)
_DROP = (25, 30, 50)
_GRIDLINE = (170, 166, 156)
_TEAM_COLOURS = ((40, 90, 210), (200, 40, 40), (40, 160, 60), (170, 60, 170))
_DOWN = (90, 90, 90)
_HP_GOOD = (40, 190, 60)
_HP_BAD = (120, 20, 20)
_DECIDER = (250, 210, 0)


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
    for c in sorted(battle.combatants.values(), key=lambda c: c.in_action):
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


def render_rgb(battle: Battle, cell: int = 16) -> np.ndarray:
    """An ``(H * cell, W * cell, 3)`` uint8 image of the map and the units."""
    g = battle.grid
    img = np.empty((g.height * cell, g.width * cell, 3), dtype=np.uint8)
    doors = g.doors
    for y in range(g.height):
        for x in range(g.width):
            sq = (x, y)
            if g.is_wall(sq):
                colour = _WALL
            elif sq in doors:
                colour = _OPEN_DOOR if doors[sq] else _CLOSED_DOOR
            elif g.drop_depth(sq):
                colour = _DROP
            elif g.is_difficult(sq):
                colour = _DIFFICULT
            elif g.is_dark(sq):
                colour = _DARK
            else:
                colour = _FLOOR
            block = img[y * cell:(y + 1) * cell, x * cell:(x + 1) * cell]
            block[:] = colour
            if colour is not _WALL:
                block[-1, :] = _GRIDLINE
                block[:, -1] = _GRIDLINE
    teams = battle.scenario.teams
    d = battle.decision
    order = sorted(battle.combatants.values(), key=lambda c: c.in_action)
    m = max(1, cell // 8)
    for c in order:
        x, y = c.position
        block = img[y * cell:(y + 1) * cell, x * cell:(x + 1) * cell]
        if not c.in_action:
            for i in range(m, cell - m):  # a grey X
                block[i, i] = _DOWN
                block[i, cell - 1 - i] = _DOWN
            continue
        colour = _TEAM_COLOURS[teams.index(c.team) % len(_TEAM_COLOURS)]
        if d is not None and d.actor == c.id:
            block[:cell - 1, :cell - 1] = _DECIDER
        block[m + 1:cell - m - 1, m + 1:cell - m - 1] = colour
        if c.prone:  # a prone unit is drawn flat
            block[m + 1:cell // 2, m + 1:cell - m - 1] = _FLOOR
        frac = max(0.0, min(1.0, c.hp / max(1, c.max_hp)))
        width = cell - 2 * m - 2
        filled = round(frac * width)
        bar = block[m:m + max(1, cell // 8), m + 1:m + 1 + width]
        bar[:] = _HP_BAD
        bar[:, :filled] = _HP_GOOD
    return img
