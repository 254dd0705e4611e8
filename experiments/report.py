"""Plain-text views of a battle for the CLI: the map with units, the combatants' derived
values, and the event log. Reads the model; never changes it."""

from __future__ import annotations

from collections.abc import Iterable

import rules
from rules.events import Event

_GLYPHS = {"wall": "#", "closed": "+", "open": "'", "difficult": "~", "dark": ":",
           "drop": "_", "floor": "."}


def unit_letters(battle: rules.Battle) -> dict[str, str]:
    """One letter per combatant: party upper case, everyone else lower case."""
    letters: dict[str, str] = {}
    for i, cid in enumerate(battle.combatants):
        c = battle.combatants[cid]
        ch = chr(ord("A") + i % 26)
        letters[cid] = ch if c.team == battle.scenario.teams[0] else ch.lower()
    return letters


def map_text(battle: rules.Battle) -> str:
    """The map as text, units drawn by letter (out-of-action units as 'x')."""
    g = battle.grid
    rows = []
    letters = unit_letters(battle)
    at: dict[tuple[int, int], str] = {}
    for cid, c in battle.combatants.items():
        if c.ridden_by is not None:
            continue
        if c.in_action or c.position not in at:
            at[c.position] = letters[cid] if c.in_action else "x"
    doors = g.doors
    for y in range(g.height):
        row = []
        for x in range(g.width):
            sq = (x, y)
            if sq in at:
                row.append(at[sq])
            elif g.is_wall(sq):
                row.append(_GLYPHS["wall"])
            elif sq in doors:
                row.append(_GLYPHS["open" if doors[sq] else "closed"])
            elif g.drop_depth(sq):
                row.append(_GLYPHS["drop"])
            elif g.is_difficult(sq):
                row.append(_GLYPHS["difficult"])
            elif g.is_dark(sq):
                row.append(_GLYPHS["dark"])
            else:
                row.append(_GLYPHS["floor"])
        rows.append("".join(row))
    return "\n".join(rows)


def combatant_table(battle: rules.Battle) -> str:
    """Every combatant's derived values (S17, S19-S21, H4-H6, H12)."""
    letters = unit_letters(battle)
    head = (f"{'':2}{'id':<17}{'team':<9}{'creature':<15}{'HP':>6}{'MOV':>4}{'mv/act':>7}"
            f"{'cap':>6}{'load':>6}{'enc':>4}{'armour':>12}{'dodge':>6}{'init':>5}  weapons")
    lines = [head]
    for cid in battle.initiative_order:
        c = battle.combatants[cid]
        weapons = ", ".join(f"{w.name} {c.skill(w.skill)}%" for _, w in c.ready_weapons())
        lines.append(
            f"{letters[cid]:2}{cid:<17}{c.team:<9}{c.creature:<15}{f'{c.hp}/{c.max_hp}':>6}"
            f"{c.mov:>4}{c.move_squares:>7}{c.capacity_stones:>6.1f}{c.load_stones:>6.1f}"
            f"{'yes' if c.encumbered else 'no':>4}{(c.armour or '-'):>12}{c.skill('dodge'):>6}"
            f"{c.initiative:>5}  {weapons}"
        )
    return "\n".join(lines)


def describe(battle: rules.Battle) -> str:
    """Scenario header, map, combatant table and initiative order."""
    sc = battle.scenario
    parts = [f"Scenario '{sc.name}' (max {sc.max_rounds} rounds): {sc.description}", "",
             map_text(battle), "", combatant_table(battle), "",
             "Initiative order (S1): " + " > ".join(battle.initiative_order)]
    return "\n".join(parts)


def log_text(events: Iterable[Event]) -> str:
    return "\n".join(str(e) for e in events)
