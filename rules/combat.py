"""Attack resolution: S4, S8, S9, S10, H6, H7, H9-H11, H15, H19, H23, S24.

One attack is a :class:`rules.frames.AttackFrame`, which sequences it: the roll
(:func:`roll_attack`), then the defender's PARRY decision (:func:`roll_parry`), then its
DODGE decision (H10: after any parry, :func:`roll_dodge`), then :func:`resolve`: damage,
or for a grapple, trip or disarm (H19) its resistance roll unless a parry or dodge
defeated it. This module rolls and resolves; it pushes no frame. Hit points and status
change through :mod:`rules.harm`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules import harm
from rules import queries as q
from rules.actions import ATTACK_MODES, Action, ActionKind
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
    from rules.frames import AttackFrame
    from rules.state import BattleState

K = ActionKind
L = SuccessLevel


def roll_attack(state: BattleState, frame: AttackFrame) -> bool:
    """S4: the attack roll; a fumble drops the weapon (H11). True on a hit (its level
    stored in the frame); False when attacker or target is out of action, or on a miss."""
    attacker, target = state.combatants[frame.attacker], state.combatants[frame.target]
    if not attacker.in_action or not target.in_action:
        return False
    weapon = state.content.weapons.get(frame.weapon_id or "")
    skill = frame.skill or (weapon.skill if weapon is not None else q.UNARMED_SKILL)
    chance = attack_chance(state, attacker, target, skill, frame.missile, frame.points)
    roll = state.dice.d100()
    level = success_level(roll, chance, state.content.ruleset.success)
    state.emit(AttackRolled, attacker=attacker.id, target=target.id,
               weapon=frame.skill or frame.weapon_id or "unarmed", mode=frame.mode,
               chance=chance, roll=roll, level=level.name)
    if level is L.FUMBLE and weapon is not None and not weapon.natural and frame.weapon:
        thrown = next((item for item in state.ground if item.uid == frame.weapon), None)
        if thrown is not None:  # H11: a fumbled throw falls in the thrower's square
            thrown.square = attacker.position
            state.emit(ItemMoved, actor=attacker.id, item=thrown.uid,
                       state_from="ground", state_to="ground", square=attacker.position)
        else:
            harm.drop_item(state, attacker, frame.weapon, "fumble")  # H11
    if not level.succeeded:
        return False
    frame.level = int(level)
    return True


def roll_parry(state: BattleState, frame: AttackFrame, action: Action) -> None:
    """S8/S10: roll the parry, spending the round's parry first, then Fight
    Defensively's extra."""
    target = state.combatants[frame.target]
    inst = target.item(action.item or "")
    if inst is None:  # unreachable: legal_actions only lists held items
        return
    if target.parries_used < state.content.ruleset.defence.parries_per_round:
        target.parries_used += 1
    else:
        target.extra_parries -= 1
    content = state.content
    skill = content.weapons[inst.item].skill if inst.item in content.weapons else \
        content.armour[inst.item].skill or "shield"
    chance = target.skill(skill, state.round)
    roll = state.dice.d100()
    level = success_level(roll, chance, content.ruleset.success)
    state.emit(ParryRolled, defender=target.id, item=inst.uid, chance=chance, roll=roll,
               level=level.name)
    frame.parry_level, frame.parry_item = int(level), inst.uid
    harm.break_concentration(state, target)


def roll_dodge(state: BattleState, frame: AttackFrame, action: Action) -> None:
    """S9/H10/S10: roll the dodge and pay its disadvantage (a Shift back, a fall, or
    nothing under Fight Defensively)."""
    target = state.combatants[frame.target]
    waived = target.dodge_waived  # S10: Fight Defensively's dodge pays nothing
    target.dodge_waived = False
    if waived:
        disadvantage = "none"
    elif action.square is not None:
        disadvantage = "shift"
    else:
        disadvantage = "saddle" if target.riding is not None else "prone"
    chance = target.skill("dodge", state.round)
    roll = state.dice.d100()
    level = success_level(roll, chance, state.content.ruleset.success)
    state.emit(DodgeRolled, defender=target.id, chance=chance, roll=roll,
               level=level.name, square=action.square, disadvantage=disadvantage)
    frame.dodge_level = int(level)
    if disadvantage == "shift":  # H10: the dodge spends the Shift...
        target.position = action.square
        target.shifted_this_round = True
        harm.release_grapples_by(state, target)
    elif disadvantage != "none":  # ...or the dodger falls (from the saddle, H22)
        harm.set_prone(state, target, "dodged")
    harm.break_concentration(state, target)


def settled(frame: AttackFrame) -> bool:
    """Whether nothing is left to dodge: a critical parry stops the hit (H9), and any
    successful parry defeats a manoeuvre (H19)."""
    return frame.parry_level == int(L.CRITICAL) or (
        ATTACK_MODES[frame.mode].manoeuvre and _defended(frame))


def resolve(state: BattleState, frame: AttackFrame) -> None:
    """After the defences: damage (H6-H10), or a manoeuvre's resistance roll (H19)."""
    attacker, target = state.combatants[frame.attacker], state.combatants[frame.target]
    if ATTACK_MODES[frame.mode].manoeuvre:
        _manoeuvre_effect(state, frame, attacker, target)
    else:
        _damage(state, frame, attacker, target)


def attack_chance(state: BattleState, attacker: Combatant, target: Combatant, skill: str,
                  missile: bool, points: int) -> int:
    """H3/H15/H23: the attack skill with its situational modifiers."""
    modifiers = state.content.ruleset.modifiers
    factor = 1.0 if q.is_lit(state, target.position) else modifiers.dark_factor
    if missile:
        points += modifiers.prone_target_missile if target.prone else 0
    else:
        points += modifiers.prone_target_melee if target.prone else 0
        points += modifiers.prone_attacker_melee if attacker.prone else 0
    return attacker.skill(skill, state.round, factor, points)


def _defended(frame: AttackFrame) -> bool:
    """H19: whether a successful parry or dodge has defeated a manoeuvre."""
    return any(level is not None and L(level).succeeded
               for level in (frame.parry_level, frame.dodge_level))


def _damage(state: BattleState, frame: AttackFrame, attacker: Combatant, target: Combatant) -> None:
    """H6, H7, H9, H10, S24: damage after parry, dodge and armour."""
    rs = state.content.ruleset
    level = L(frame.level)
    w = state.content.weapons.get(frame.weapon_id or "")
    dice: Dice = w.damage if w is not None else rs.misc.unarmed_damage
    dtype = w.damage_type if w is not None else "crush"
    kind = "thrown" if (w is not None and w.thrown) else (
        "missile" if ATTACK_MODES[frame.mode].missile else "melee")
    if level is L.CRITICAL:  # H7: maximum weapon damage + rolled bonus, ignores armour
        base, faces = dice.maximum, ()
    elif level is L.SPECIAL and dtype == "impale":  # H7: impale rolls the dice twice
        r1, f1 = state.dice.roll(dice)
        r2, f2 = state.dice.roll(dice)
        base, faces = r1 + r2, f1 + f2
    else:
        base, faces = state.dice.roll(dice)
    bonus = 0
    if kind in rs.misc.damage_bonus_applies_to:
        bonus, bfaces = state.dice.roll(attacker.damage_bonus_dice())
        faces += bfaces
    rolled = max(0, base + bonus)
    parried = _parry_block(state, frame, target, rolled)
    after_parry = rolled - parried
    dodged = _dodge_reduction(state, frame, after_parry)
    through = after_parry - dodged
    armour = 0 if level is L.CRITICAL else min(through, target.armour_points)
    damage = max(0, through - armour)
    effect = level.name.lower()
    if damage > 0 and level is L.SPECIAL:
        effect += {"slash": " (bleeds)", "crush": " (knockdown check)",
                   "impale": " (impaled)"}[dtype]
    harm.deal_damage(state, attacker, target, damage, f"hit by {attacker.id}", rolled=rolled,
                dice=tuple(faces), parried=parried, dodged=dodged, armour=armour,
                effect=effect)
    if damage > 0 and level is L.SPECIAL and not target.dead:
        if dtype == "slash" and not target.bleeding:
            target.bleeding = True
            state.emit(StatusChanged, actor=target.id, status="bleeding", cause="special slash")
        elif dtype == "crush" and not harm.resist(state, target, target.char("con"), damage,
                                             "knockdown (CON vs damage)"):
            harm.set_prone(state, target, "special crush")
    if w is not None and w.poison is not None and through > 0 and not target.dead:
        _poison(state, attacker, target, w.poison)


def _parry_block(state: BattleState, frame: AttackFrame, target: Combatant, rolled: int) -> int:
    """H9: success blocks the item's AP, special 2 x AP, critical all; the item loses 1 AP
    when the damage exceeds the block, and breaks at 0. A fumble blocks nothing (H11)."""
    if frame.parry_level is None:
        return 0
    level = L(frame.parry_level)
    inst = target.item(frame.parry_item)
    if inst is None or not level.succeeded:
        return 0
    d = state.content.ruleset.defence
    ap = inst.ap or 0
    block = {L.SUCCESS: ap, L.SPECIAL: ap * d.parry_special_factor}.get(level, rolled)
    if rolled > block:
        inst.ap = ap - d.parry_wear
        state.emit(ItemWorn, owner=target.id, item=inst.uid, ap=inst.ap)
        if inst.ap <= 0:
            target.inventory.remove(inst)
            state.emit(ItemBroken, owner=target.id, item=inst.uid)
    return min(block, rolled)


def _dodge_reduction(state: BattleState, frame: AttackFrame, damage: int) -> int:
    """H10: success -10, special -20, critical negates; failure and fumble nothing."""
    if frame.dodge_level is None:
        return 0
    level = L(frame.dodge_level)
    d = state.content.ruleset.defence
    cut = {L.SUCCESS: d.dodge_success_reduction, L.SPECIAL: d.dodge_special_reduction,
           L.CRITICAL: damage}.get(level, 0)
    return min(cut, damage)


def _poison(state: BattleState, attacker: Combatant, target: Combatant, poison: Any) -> None:
    """S24: a poisoned hit needs a CON x10 save (x5 against snakes) even if armour held."""
    p = state.content.ruleset.poison
    mult = p.snake_con_multiplier if (poison.snake or attacker.snake) else p.con_multiplier
    if not harm.roll_under(state, target, target.char("con") * mult, f"poison (CON x{mult})"):
        amount, _ = state.dice.roll(poison.damage)
        harm.lose_hp(state, target, amount, "poison")


# ------------------------------------------------------------------ H19 manoeuvres
def _manoeuvre_effect(state: BattleState, frame: AttackFrame, attacker: Combatant,
                      target: Combatant) -> None:
    """H19: a parried or dodged manoeuvre is defeated; a target a failed dodge carried
    out of reach is out of it (documented choice); else the resistance roll decides."""
    kind = ATTACK_MODES[frame.mode].kind
    if _defended(frame):
        by = "parry" if frame.parry_level is not None and L(frame.parry_level).succeeded \
            else "dodge"
        state.emit(ManoeuvreDefeated, attacker=attacker.id, target=target.id, manoeuvre=frame.mode,
               defence=by)
        return
    if not target.in_action or chebyshev(attacker.position, target.position) > 1:
        state.emit(ManoeuvreDefeated, attacker=attacker.id, target=target.id, manoeuvre=frame.mode,
               defence="distance")
        return
    if kind is K.TRIP:
        if harm.resist(state, attacker, attacker.char("str"), target.char("dex"),
                       "trip (STR vs DEX)"):
            harm.set_prone(state, target, f"tripped by {attacker.id}")
        return
    if not harm.resist(state, attacker, attacker.char("str"), target.char("str"),
                       f"{kind.value} (STR vs STR)"):
        return
    if kind is K.GRAPPLE:
        if attacker.grappled_by == target.id:
            attacker.grappled_by = None
            state.emit(StatusChanged, actor=attacker.id, status="free",
                       cause=f"broke {target.id}'s hold")
        else:
            target.grappled_by = attacker.id
            state.emit(StatusChanged, actor=target.id, status="grappled", cause=f"by {attacker.id}")
        return
    held = next((i for i, w in target.ready_weapons() if not w.natural), None)
    if held is not None:
        harm.drop_item(state, target, held.uid, f"disarmed by {attacker.id}")
