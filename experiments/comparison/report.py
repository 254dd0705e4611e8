"""Plain-text views of a battle for the CLI: the map with units (the env's drawing), the
combatants' derived values, and the event log. Reads the model; never changes it."""

from __future__ import annotations

from collections.abc import Iterable

import rules
from env.render import map_cells, unit_symbols
from rules.events import Event
from rules.grid import LEGEND


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


def legend_text(battle: rules.Battle) -> str:
    """The glyphs of the map (those it uses, from ``rules.grid.LEGEND``) and the units."""
    used = set(battle.grid.to_text(
        drop_depth_ft=battle.content.ruleset.misc.default_drop_depth_ft))
    lines = [f"  {glyph}  {meaning}" for glyph, meaning in LEGEND.items() if glyph in used]
    letters = unit_symbols(battle)
    for team in battle.scenario.teams:
        ids = [cid for cid, c in battle.combatants.items() if c.team == team]
        lines.append(f"  {''.join(letters[i] for i in ids)}  team {team}: "
                     + ", ".join(f"{letters[i]}={i}" for i in ids))
    lines += ["  *  items on the ground", "  %  a fallen combatant"]
    return "\n".join(lines)


def _weapon_line(combatant: rules.Combatant, inst: rules.ItemInstance) -> str:
    content = combatant.c
    w = content.weapons[inst.item]
    reach = f"reach {w.reach} ({content.ruleset.misc.reach_squares[w.reach]} sq)"
    if w.kind == "missile":
        longest = w.range * content.ruleset.modifiers.long_range_factor
        reach = f"range {w.range} sq, up to {longest} sq at long range"
    return (f"    {w.name:<16} {inst.state:<9} {w.skill} {combatant.skill(w.skill)}%  damage "
            f"{w.damage}  {reach}" + ("  (natural)" if w.natural else ""))


def combatant_details(combatant: rules.Combatant) -> str:
    """One combatant's derived values: MOV, capacity, load, skills after burden, HP,
    weapons with reach and range (S17, S19-S21, H3, H5, H12, H16)."""
    enc = "encumbered" if combatant.encumbered else "not encumbered"
    lines = [
        f"{combatant.id} ({combatant.team}): {combatant.name}, race {combatant.race}",
        f"  HP {combatant.hp}/{combatant.max_hp}  "
        f"power points {combatant.power_points}/{combatant.max_power_points}  "
        f"status {combatant.status}{', prone' if combatant.prone else ''}  "
        f"fatigue {combatant.fatigue}",
        f"  MOV {combatant.mov} squares per round, {combatant.move_squares} per MOVE action",
        f"  capacity {combatant.capacity_stones:.2f} stones, "
        f"load {combatant.load_stones:.2f} stones, {enc}; "
        f"armour {combatant.armour or 'none'} (AP {combatant.armour_points}, "
        f"burden {combatant.burden}, trained {combatant.armour_training})",
    ]
    names = sorted(set(combatant.base_skills) | {"dodge"})
    skills = [
        f"{n} {combatant.base_skill(n)}->{combatant.skill(n)}"
        if combatant.base_skill(n) != combatant.skill(n)
        else f"{n} {combatant.skill(n)}"
        for n in names
    ]
    lines.append("  skills (base->after burden, encumbrance, fatigue, gear): "
                 + ", ".join(skills))
    weapons = [i for i in combatant.inventory if i.item in combatant.c.weapons]
    lines.append("  weapons:" if weapons else "  weapons: none")
    lines += [_weapon_line(combatant, inst) for inst in weapons]
    others = [f"{i.item} ({i.state}{f' x{i.count}' if i.count > 1 else ''})"
              for i in combatant.inventory if i.item not in combatant.c.weapons]
    if others:
        lines.append("  other gear: " + ", ".join(others))
    if combatant.spells:
        lines.append("  spells: " + ", ".join(combatant.spells))
    if combatant.riding:
        lines.append(f"  rides {combatant.riding}")
    return "\n".join(lines)


def inspect_text(battle: rules.Battle) -> str:
    """``fray inspect``: header, map with its legend, and every combatant's details."""
    sc = battle.scenario
    parts = [f"Scenario '{sc.name}' (max {sc.max_rounds} rounds): {sc.description}", "",
             map_text(battle), "", "Legend:", legend_text(battle), "",
             "Initiative order (S1, this seed): " + " > ".join(
                 f"{cid} ({battle.combatants[cid].initiative})"
                 for cid in battle.initiative_order), ""]
    parts += [combatant_details(battle.combatants[u.id]) + "\n" for u in sc.units]
    return "\n".join(parts).rstrip() + "\n"
