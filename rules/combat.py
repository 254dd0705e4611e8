"""Attacks: S4, S8, S9, S10, H6, H7, H9-H11, H15, H19, H23, S24.

One attack is an ``attack`` frame: the roll, then the defender's PARRY decision, then its
DODGE decision (H10: after any parry), then damage, or for a grapple, trip or disarm
(H19) its resistance roll unless a parry or dodge defeated it. Hit points and status
change through :mod:`rules.harm`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules import harm, legal
from rules import queries as q
from rules.actions import Action, ActionKind, Decision, DecisionKind
from rules.combatant import Combatant
from rules.dice import Dice, SuccessLevel, success_level
from rules.events import (
    AttackRolled,
    DodgeRolled,
    ItemBroken,
    ItemMoved,
    ItemWorn,
    ManoeuvreDefeated,
    ParryRolled,
    StatusChanged,
)
from rules.grid import chebyshev

if TYPE_CHECKING:
    from rules.battle import Battle

K = ActionKind
L = SuccessLevel
MANOEUVRES = ("grapple", "trip", "disarm")
MELEE_MODES = ("melee", "free", "unarmed", "full_melee", *MANOEUVRES)


def _pop(b: Battle, f: dict[str, Any]) -> None:
    """Pop ``f``, which is always the top frame when its own step finishes it."""
    if not b.stack or b.stack[-1] is not f:
        raise RuntimeError(f"frame {f.get('type')} finished while not on top of the stack")
    b.stack.pop()



# ------------------------------------------------------------------ attack frames
def push_attack(b: Battle, attacker: Combatant, target: Combatant, weapon_uid: str | None,
                mode: str, points: int = 0, weapon_id: str | None = None,
                skill: str | None = None) -> None:
    """Queue one attack. ``mode``: melee, free, unarmed, full_melee, missile, full_missile,
    or a manoeuvre (grapple, trip, disarm: H19), which rolls ``skill``."""
    if weapon_id is None and weapon_uid is not None:
        inst = attacker.item(weapon_uid)
        weapon_id = inst.item if inst is not None else None
    b.stack.append({
        "type": "attack", "attacker": attacker.id, "target": target.id, "weapon": weapon_uid,
        "weapon_id": weapon_id, "mode": mode, "points": points, "stage": "roll",
        "missile": mode not in MELEE_MODES, "skill": skill, "level": None,
        "parry_level": None, "parry_item": None, "dodge_level": None,
    })


def attack_chance(b: Battle, attacker: Combatant, target: Combatant, skill: str,
                  missile: bool, points: int) -> int:
    """H3/H15/H23: the attack skill with its situational modifiers."""
    mods = b.content.ruleset.modifiers
    factor = 1.0 if q.is_lit(b, target.position) else mods.dark_factor
    if missile:
        points += mods.prone_target_missile if target.prone else 0
    else:
        points += mods.prone_target_melee if target.prone else 0
        points += mods.prone_attacker_melee if attacker.prone else 0
    return attacker.skill(skill, b.round, factor, points)


def _defended(f: dict[str, Any]) -> bool:
    """H19: whether a successful parry or dodge has defeated a manoeuvre."""
    return any(f[key] is not None and L(f[key]).succeeded
               for key in ("parry_level", "dodge_level"))


def step_attack(b: Battle, f: dict[str, Any]) -> Decision | None:
    """S4 roll, then S8 parry and S9 dodge decisions (H10: the dodge after any parry),
    then damage (H6-H10) or, for a manoeuvre, its resistance roll (H19)."""
    attacker, target = b.combatants[f["attacker"]], b.combatants[f["target"]]
    stage = f["stage"]
    if stage == "roll":
        if not attacker.in_action or not target.in_action:
            _pop(b, f)
            return None
        w = b.content.weapons.get(f["weapon_id"] or "")
        skill = f["skill"] or (w.skill if w is not None else q.UNARMED_SKILL)
        chance = attack_chance(b, attacker, target, skill, f["missile"], f["points"])
        roll = b.dice.d100()
        level = success_level(roll, chance, b.content.ruleset.success)
        b.emit(AttackRolled, attacker=attacker.id, target=target.id,
               weapon=f["skill"] or f["weapon_id"] or "unarmed", mode=f["mode"],
               chance=chance, roll=roll, level=level.name)
        if level is L.FUMBLE and w is not None and not w.natural and f["weapon"]:
            thrown = next((g for g in b.ground if g.uid == f["weapon"]), None)
            if thrown is not None:  # H11: a fumbled throw falls in the thrower's square
                thrown.square = attacker.position
                b.emit(ItemMoved, actor=attacker.id, item=thrown.uid, state_from="ground",
                       state_to="ground", square=attacker.position)
            else:
                harm.drop_item(b, attacker, f["weapon"], "fumble")  # H11
        if not level.succeeded:
            _pop(b, f)
            return None
        f["level"] = int(level)
        f["stage"] = "parry"
        return None
    if stage == "parry":
        if legal.can_parry(b, target, f["missile"]):
            return Decision(DecisionKind.PARRY, target.id, attacker.id)
        f["stage"] = "dodge"
        return None
    if stage == "dodge":
        settled = f["parry_level"] == int(L.CRITICAL) or (
            f["mode"] in MANOEUVRES and _defended(f))
        if not settled and legal.can_dodge(b, target, attacker):
            return Decision(DecisionKind.DODGE, target.id, attacker.id)
        f["stage"] = "damage"
        return None
    _pop(b, f)
    if f["mode"] in MANOEUVRES:
        _manoeuvre_effect(b, f, attacker, target)
    else:
        _damage(b, f, attacker, target)
    return None


def answer_attack(b: Battle, f: dict[str, Any], action: Action) -> None:
    """The defender's PARRY or DODGE answer (or DECLINE) to the attack frame ``f``."""
    target = b.combatants[f["target"]]
    if f["stage"] == "parry":
        f["stage"] = "dodge"
        if action.kind is K.DECLINE:
            return
        inst = target.item(action.item or "")
        if inst is None:  # unreachable: legal_actions only lists held items
            return
        # S8/S10: the round's parry first, then Fight Defensively's extra
        if target.parries_used < b.content.ruleset.defence.parries_per_round:
            target.parries_used += 1
        else:
            target.extra_parries -= 1
        cw = b.content
        skill = cw.weapons[inst.item].skill if inst.item in cw.weapons else \
            cw.armour[inst.item].skill or "shield"
        chance = target.skill(skill, b.round)
        roll = b.dice.d100()
        level = success_level(roll, chance, cw.ruleset.success)
        b.emit(ParryRolled, defender=target.id, item=inst.uid, chance=chance, roll=roll,
               level=level.name)
        f["parry_level"], f["parry_item"] = int(level), inst.uid
        harm.break_concentration(b, target)
        return
    f["stage"] = "damage"
    if action.kind is K.DECLINE:
        return
    waived = target.dodge_waived  # S10: Fight Defensively's dodge pays nothing
    target.dodge_waived = False
    if waived:
        disadvantage = "none"
    elif action.square is not None:
        disadvantage = "shift"
    else:
        disadvantage = "saddle" if target.riding is not None else "prone"
    chance = target.skill("dodge", b.round)
    roll = b.dice.d100()
    level = success_level(roll, chance, b.content.ruleset.success)
    b.emit(DodgeRolled, defender=target.id, chance=chance, roll=roll, level=level.name,
           square=action.square, disadvantage=disadvantage)
    f["dodge_level"] = int(level)
    if disadvantage == "shift":  # H10: the dodge spends the Shift...
        target.position = action.square
        target.shifted_this_round = True
        harm.release_grapples_by(b, target)
    elif disadvantage != "none":  # ...or the dodger falls (from the saddle, H22)
        harm.set_prone(b, target, "dodged")
    harm.break_concentration(b, target)


def _damage(b: Battle, f: dict[str, Any], attacker: Combatant, target: Combatant) -> None:
    """H6, H7, H9, H10, S24: damage after parry, dodge and armour."""
    rs = b.content.ruleset
    level = L(f["level"])
    w = b.content.weapons.get(f["weapon_id"] or "")
    dice: Dice = w.damage if w is not None else rs.misc.unarmed_damage
    dtype = w.damage_type if w is not None else "crush"
    kind = "thrown" if (w is not None and w.thrown) else (
        "melee" if f["mode"] in MELEE_MODES else "missile")
    if level is L.CRITICAL:  # H7: maximum weapon damage + rolled bonus, ignores armour
        base, faces = dice.maximum, ()
    elif level is L.SPECIAL and dtype == "impale":  # H7: impale rolls the dice twice
        r1, f1 = b.dice.roll(dice)
        r2, f2 = b.dice.roll(dice)
        base, faces = r1 + r2, f1 + f2
    else:
        base, faces = b.dice.roll(dice)
    bonus = 0
    if kind in rs.misc.damage_bonus_applies_to:
        bonus, bfaces = b.dice.roll(attacker.damage_bonus_dice())
        faces += bfaces
    rolled = max(0, base + bonus)
    parried = _parry_block(b, f, target, rolled)
    after_parry = rolled - parried
    dodged = _dodge_reduction(b, f, after_parry)
    through = after_parry - dodged
    armour = 0 if level is L.CRITICAL else min(through, target.armour_points)
    damage = max(0, through - armour)
    effect = level.name.lower()
    if damage > 0 and level is L.SPECIAL:
        effect += {"slash": " (bleeds)", "crush": " (knockdown check)",
                   "impale": " (impaled)"}[dtype]
    harm.deal_damage(b, attacker, target, damage, f"hit by {attacker.id}", rolled=rolled,
                dice=tuple(faces), parried=parried, dodged=dodged, armour=armour,
                effect=effect)
    if damage > 0 and level is L.SPECIAL and not target.dead:
        if dtype == "slash" and not target.bleeding:
            target.bleeding = True
            b.emit(StatusChanged, actor=target.id, status="bleeding", cause="special slash")
        elif dtype == "crush" and not harm.resist(b, target, target.char("con"), damage,
                                             "knockdown (CON vs damage)"):
            harm.set_prone(b, target, "special crush")
    if w is not None and w.poison is not None and through > 0 and not target.dead:
        _poison(b, attacker, target, w.poison)


def _parry_block(b: Battle, f: dict[str, Any], target: Combatant, rolled: int) -> int:
    """H9: success blocks the item's AP, special 2 x AP, critical all; the item loses 1 AP
    when the damage exceeds the block, and breaks at 0. A fumble blocks nothing (H11)."""
    if f["parry_level"] is None:
        return 0
    level = L(f["parry_level"])
    inst = target.item(f["parry_item"])
    if inst is None or not level.succeeded:
        return 0
    d = b.content.ruleset.defence
    ap = inst.ap or 0
    block = {L.SUCCESS: ap, L.SPECIAL: ap * d.parry_special_factor}.get(level, rolled)
    if rolled > block:
        inst.ap = ap - d.parry_wear
        b.emit(ItemWorn, owner=target.id, item=inst.uid, ap=inst.ap)
        if inst.ap <= 0:
            target.inventory.remove(inst)
            b.emit(ItemBroken, owner=target.id, item=inst.uid)
    return min(block, rolled)


def _dodge_reduction(b: Battle, f: dict[str, Any], damage: int) -> int:
    """H10: success -10, special -20, critical negates; failure and fumble nothing."""
    if f["dodge_level"] is None:
        return 0
    level = L(f["dodge_level"])
    d = b.content.ruleset.defence
    cut = {L.SUCCESS: d.dodge_success_reduction, L.SPECIAL: d.dodge_special_reduction,
           L.CRITICAL: damage}.get(level, 0)
    return min(cut, damage)


def _poison(b: Battle, attacker: Combatant, target: Combatant, poison: Any) -> None:
    """S24: a poisoned hit needs a CON x10 save (x5 against snakes) even if armour held."""
    p = b.content.ruleset.poison
    mult = p.snake_con_multiplier if (poison.snake or attacker.snake) else p.con_multiplier
    if not harm.roll_under(b, target, target.char("con") * mult, f"poison (CON x{mult})"):
        amount, _ = b.dice.roll(poison.damage)
        harm.lose_hp(b, target, amount, "poison")


# ------------------------------------------------------------------ H19 manoeuvres
def manoeuvre(b: Battle, c: Combatant, a: Action) -> None:
    """H19: grapple, trip, disarm: an attack roll the target may parry or dodge like any
    hit, then (unless a parry or dodge succeeded) a resistance roll."""
    target = b.combatants[a.target or ""]
    weapon = next(((i, w) for i, w in c.ready_melee() if not w.natural), None)
    if a.kind is K.GRAPPLE:
        skill = "grapple"
    elif a.kind is K.DISARM and weapon is not None:
        skill = weapon[1].skill
    else:
        skill = q.UNARMED_SKILL
    held = weapon if a.kind is K.DISARM else None  # H11: a fumbled disarm drops it
    push_attack(b, c, target, held[0].uid if held else None, a.kind.value,
                weapon_id=held[0].item if held else None, skill=skill)


def _manoeuvre_effect(b: Battle, f: dict[str, Any], c: Combatant,
                      target: Combatant) -> None:
    """H19: a parried or dodged manoeuvre is defeated; a target a failed dodge carried
    out of reach is out of it (documented choice); else the resistance roll decides."""
    kind = ActionKind(f["mode"])
    if _defended(f):
        by = "parry" if f["parry_level"] is not None and L(f["parry_level"]).succeeded \
            else "dodge"
        b.emit(ManoeuvreDefeated, attacker=c.id, target=target.id, manoeuvre=f["mode"],
               defence=by)
        return
    if not target.in_action or chebyshev(c.position, target.position) > 1:
        b.emit(ManoeuvreDefeated, attacker=c.id, target=target.id, manoeuvre=f["mode"],
               defence="distance")
        return
    if kind is K.TRIP:
        if harm.resist(b, c, c.char("str"), target.char("dex"), "trip (STR vs DEX)"):
            harm.set_prone(b, target, f"tripped by {c.id}")
        return
    if not harm.resist(b, c, c.char("str"), target.char("str"), f"{kind.value} (STR vs STR)"):
        return
    if kind is K.GRAPPLE:
        if c.grappled_by == target.id:
            c.grappled_by = None
            b.emit(StatusChanged, actor=c.id, status="free", cause=f"broke {target.id}'s hold")
        else:
            target.grappled_by = c.id
            b.emit(StatusChanged, actor=target.id, status="grappled", cause=f"by {c.id}")
        return
    held = next((i for i, w in target.ready_weapons() if not w.natural), None)
    if held is not None:
        harm.drop_item(b, target, held.uid, f"disarmed by {c.id}")
