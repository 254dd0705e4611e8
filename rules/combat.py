"""Attacks: S4, S8, S9, S10, H6, H7, H9-H11, H15, H19, H23, S24.

One attack is an :class:`AttackFrame`: the roll, then the defender's PARRY decision, then its
DODGE decision (H10: after any parry), then damage, or for a grapple, trip or disarm
(H19) its resistance roll unless a parry or dodge defeated it. Hit points and status
change through :mod:`rules.harm`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from rules import harm, reactions
from rules import queries as q
from rules.actions import (
    ATTACK_MODES,
    MANOEUVRES,
    Action,
    ActionKind,
    Decision,
    DecisionKind,
    attack_mode,
)
from rules.combatant import Combatant
from rules.dice import Dice, SuccessLevel, success_level
from rules.errors import IllegalActionError
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
    from rules.state import BattleState

K = ActionKind
L = SuccessLevel


@dataclass(slots=True)
class AttackFrame:
    """One attack: ``stage`` runs roll, parry, dodge, damage. ``mode``: one of
    ``rules.actions.ATTACK_MODES`` (melee, free, unarmed, full_melee, missile,
    full_missile, or a manoeuvre: grapple, trip, disarm, H19, which rolls ``skill``).
    Levels are stored as ``SuccessLevel`` ints."""

    type: ClassVar[str] = "attack"
    attacker: str
    target: str
    weapon: str | None
    weapon_id: str | None
    mode: str
    points: int = 0
    stage: str = "roll"
    missile: bool = False
    skill: str | None = None
    level: int | None = None
    parry_level: int | None = None
    parry_item: str | None = None
    dodge_level: int | None = None

    def step(self, state: BattleState) -> Decision | None:
        """S4 roll, then S8 parry and S9 dodge decisions (H10: the dodge after any
        parry), then damage (H6-H10) or, for a manoeuvre, its resistance roll (H19)."""
        attacker, target = state.combatants[self.attacker], state.combatants[self.target]
        if self.stage == "roll":
            return self._roll(state, attacker, target)
        if self.stage == "parry":
            if reactions.can_parry(state, target, self.missile):
                return Decision(DecisionKind.PARRY, target.id, attacker.id)
            self.stage = "dodge"
            return None
        if self.stage == "dodge":
            settled = self.parry_level == int(L.CRITICAL) or (
                self.mode in MANOEUVRES and _defended(self))
            if not settled and reactions.can_dodge(state, target, attacker):
                return Decision(DecisionKind.DODGE, target.id, attacker.id)
            self.stage = "damage"
            return None
        _pop(state, self)
        if self.mode in MANOEUVRES:
            _manoeuvre_effect(state, self, attacker, target)
        else:
            _damage(state, self, attacker, target)
        return None

    def _roll(self, state: BattleState, attacker: Combatant, target: Combatant) -> None:
        """S4: the attack roll; a fumble drops the weapon (H11); a miss ends the frame."""
        if not attacker.in_action or not target.in_action:
            _pop(state, self)
            return None
        weapon = state.content.weapons.get(self.weapon_id or "")
        skill = self.skill or (weapon.skill if weapon is not None else q.UNARMED_SKILL)
        chance = attack_chance(state, attacker, target, skill, self.missile, self.points)
        roll = state.dice.d100()
        level = success_level(roll, chance, state.content.ruleset.success)
        state.emit(AttackRolled, attacker=attacker.id, target=target.id,
                   weapon=self.skill or self.weapon_id or "unarmed", mode=self.mode,
                   chance=chance, roll=roll, level=level.name)
        if level is L.FUMBLE and weapon is not None and not weapon.natural and self.weapon:
            thrown = next((item for item in state.ground if item.uid == self.weapon), None)
            if thrown is not None:  # H11: a fumbled throw falls in the thrower's square
                thrown.square = attacker.position
                state.emit(ItemMoved, actor=attacker.id, item=thrown.uid,
                           state_from="ground", state_to="ground", square=attacker.position)
            else:
                harm.drop_item(state, attacker, self.weapon, "fumble")  # H11
        if not level.succeeded:
            _pop(state, self)
            return None
        self.level = int(level)
        self.stage = "parry"
        return None

    def legal_actions(self, state: BattleState, decision: Decision) -> list[Action]:
        """The defender's PARRY choices (S8) or DODGE choices (S9, H10), and DECLINE."""
        if self.stage == "parry":
            return reactions.parry_actions(state, self)
        if self.stage == "dodge":
            return reactions.dodge_actions(state, self)
        raise RuntimeError(f"an attack frame at stage {self.stage} asks for no decision")

    def answer(self, state: BattleState, action: Action) -> None:
        """The defender's PARRY or DODGE answer (or DECLINE)."""
        if self.stage == "parry" and action.kind in (K.PARRY, K.DECLINE):
            self.stage = "dodge"
            if action.kind is K.PARRY:
                self._parry(state, action)
            return
        if self.stage == "dodge" and action.kind in (K.DODGE, K.DECLINE):
            self.stage = "damage"
            if action.kind is K.DODGE:
                self._dodge(state, action)
            return
        raise IllegalActionError(f"{action} is no answer to an attack frame at stage "
                                 f"{self.stage}")

    def _parry(self, state: BattleState, action: Action) -> None:
        """S8/S10: roll the parry, spending the round's parry first, then Fight
        Defensively's extra."""
        target = state.combatants[self.target]
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
        self.parry_level, self.parry_item = int(level), inst.uid
        harm.break_concentration(state, target)

    def _dodge(self, state: BattleState, action: Action) -> None:
        """S9/H10/S10: roll the dodge and pay its disadvantage (a Shift back, a fall, or
        nothing under Fight Defensively)."""
        target = state.combatants[self.target]
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
        self.dodge_level = int(level)
        if disadvantage == "shift":  # H10: the dodge spends the Shift...
            target.position = action.square
            target.shifted_this_round = True
            harm.release_grapples_by(state, target)
        elif disadvantage != "none":  # ...or the dodger falls (from the saddle, H22)
            harm.set_prone(state, target, "dodged")
        harm.break_concentration(state, target)

    def copy(self) -> AttackFrame:
        """An independent copy (for ``clone``); every field is immutable."""
        return replace(self)


def _pop(state: BattleState, frame: AttackFrame) -> None:
    """Pop ``frame``, which is always the top frame when its own step finishes it."""
    if not state.stack or state.stack[-1] is not frame:
        raise RuntimeError(f"frame {frame.type} finished while not on top of the stack")
    state.stack.pop()


def push_attack(state: BattleState, attacker: Combatant, target: Combatant,
                weapon_uid: str | None, mode: str, points: int = 0,
                weapon_id: str | None = None, skill: str | None = None) -> None:
    """Queue one attack (see :class:`AttackFrame` for ``mode`` and ``skill``)."""
    if weapon_id is None and weapon_uid is not None:
        inst = attacker.item(weapon_uid)
        weapon_id = inst.item if inst is not None else None
    state.stack.append(AttackFrame(attacker.id, target.id, weapon_uid, weapon_id, mode,
                                   points, missile=ATTACK_MODES[mode].missile, skill=skill))


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
def manoeuvre(state: BattleState, attacker: Combatant, action: Action) -> None:
    """H19: grapple, trip, disarm: an attack roll the target may parry or dodge like any
    hit, then (unless a parry or dodge succeeded) a resistance roll."""
    target = state.combatants[action.target or ""]
    weapon = next(((i, w) for i, w in attacker.ready_melee() if not w.natural), None)
    if action.kind is K.GRAPPLE:
        skill = "grapple"
    elif action.kind is K.DISARM and weapon is not None:
        skill = weapon[1].skill
    else:
        skill = q.UNARMED_SKILL
    held = weapon if action.kind is K.DISARM else None  # H11: a fumbled disarm drops it
    push_attack(state, attacker, target, held[0].uid if held else None, attack_mode(action.kind),
                weapon_id=held[0].item if held else None, skill=skill)


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
