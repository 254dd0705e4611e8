"""A battle's combatants as its scenario musters them: each unit spec made a
:class:`rules.combatant.Combatant` (the creature's statistics, the unit's overrides,
its equipment with item uids, its state), the riders on their mounts (H22), and the
initiative order (S1, H4; ``rules/native/core/muster.cpp`` is its native twin)."""

from __future__ import annotations

from collections.abc import Mapping

from rules.combatant import (
    Combatant,
    ItemInstance,
    hit_points_for,
    power_points_for,
    roll_characteristics,
)
from rules.content import Content
from rules.roller import Roller
from rules.scenario import Scenario, UnitSpec, apply_state


def build_combatant(content: Content, dice: Roller, spec: UnitSpec) -> Combatant:
    """The combatant of one unit spec (``dice`` rolls its characteristics when the spec
    asks for rolled ones)."""
    stat = content.creatures[spec.creature]
    characteristics = dict(stat.characteristics)
    if spec.roll_characteristics:
        characteristics = roll_characteristics(content, dice)
    characteristics |= dict(spec.characteristics)
    skills = dict(stat.skills) | dict(spec.skills)
    armour = stat.armour if spec.armour is None else spec.armour
    armour = None if armour == "none" else armour
    training = spec.armour_training or stat.armour_training
    entries = stat.equipment if spec.equipment is None else spec.equipment
    inventory: list[ItemInstance] = []
    seen: dict[str, int] = {}
    for entry in entries:
        seen[entry.item] = seen.get(entry.item, 0) + 1
        uid = f"{spec.id}.{entry.item}" + (f".{seen[entry.item]}"
                                           if seen[entry.item] > 1 else "")
        state = entry.state
        ap = None
        if entry.item in content.weapons:
            weapon = content.weapons[entry.item]
            ap = weapon.ap
            if weapon.natural:
                state = "ready"
        elif entry.item in content.armour:
            ap = content.armour[entry.item].ap
        inventory.append(ItemInstance(uid, entry.item, state, entry.count, ap, lit=entry.lit,
                                      nocked=entry.nocked, loaded=entry.loaded))
    max_hp = spec.hp if spec.hp is not None else hit_points_for(content, characteristics)
    power = power_points_for(stat, characteristics) or 0
    combatant = Combatant(
        id=spec.id, team=spec.team, creature=spec.creature, name=stat.name,
        race=spec.race or stat.race, characteristics=characteristics, base_skills=skills,
        armour=armour, armour_training=training, position=spec.at, max_hp=max_hp,
        hp=max_hp, max_power_points=power, power_points=power,
        spells=spec.spells if spec.spells is not None else stat.spells,
        is_mount=stat.mount, snake=stat.snake, inventory=inventory, content=content,
    )
    apply_state(combatant, spec)
    return combatant


def muster_combatants(content: Content, dice: Roller,
                      scenario: Scenario) -> dict[str, Combatant]:
    """Every unit of ``scenario`` built (``build_combatant``, in unit order) and each rider
    put on its mount (H22): the combatants by id, before initiative."""
    combatants = {spec.id: build_combatant(content, dice, spec) for spec in scenario.units}
    for spec in scenario.units:
        if spec.riding is not None:
            combatants[spec.id].riding = spec.riding
            combatants[spec.riding].ridden_by = spec.id
    return combatants


def rolls_at_muster(scenario: Scenario) -> bool:
    """Whether mustering ``scenario`` rolls dice (a unit with ``roll_characteristics``,
    H1): its combatants then depend on the seed."""
    return any(spec.roll_characteristics for spec in scenario.units)


def roll_initiative(content: Content, dice: Roller,
                    combatants: Mapping[str, Combatant]) -> list[str]:
    """S1/H4: d12 + DEX bonus once per combat; impaired totals halve (round down); ties go
    to higher DEX, then to a seeded draw. Sets each combatant's initiative; the ids in
    turn order."""
    ruleset = content.ruleset
    keys = {}
    for cid, combatant in combatants.items():
        total, _ = dice.roll(ruleset.initiative.die)
        total += combatant.dex_bonus
        factor = combatant.fatigue_factor()
        if combatant.encumbered:
            factor *= ruleset.initiative.impaired_factor
        combatant.initiative = int(total * factor // 1)
        keys[cid] = (-combatant.initiative, -combatant.char("dex"), dice.uniform())
    return sorted(combatants, key=keys.__getitem__)
