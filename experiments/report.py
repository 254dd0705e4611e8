"""Plain-text views of a battle for the CLI: the map with units (the env's drawing), the
combatants' derived values, and the event log. Reads the model; never changes it."""

from __future__ import annotations

from collections.abc import Iterable

import rules
from env.render import map_cells, unit_symbols
from rules.events import Event


def map_text(battle: rules.Battle) -> str:
    """The map with units, drawn as in the env's ``ansi`` render mode."""
    return "\n".join("".join(row) for row in map_cells(battle))


def combatant_table(battle: rules.Battle) -> str:
    """Every combatant's derived values (S17, S19-S21, H4-H6, H12)."""
    letters = unit_symbols(battle)
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
