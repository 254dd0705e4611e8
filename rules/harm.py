"""Rolls, status and harm: S4, S11, S21, S23, H2, H5, H8, H22.

Every change of hit points or status goes through :func:`lose_hp`, :func:`deal_damage`
and :func:`heal`, so out-of-action and death (H5) are decided in one place; every d100
roll outside an attack goes through :func:`roll_skill` or :func:`roll_under`. Attacks
themselves are :mod:`rules.combat`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules import queries as q
from rules.combatant import Combatant
from rules.dice import SuccessLevel, resistance_chance, success_level
from rules.events import (
    Concentration,
    DamageDealt,
    Fell,
    HitPointsChanged,
    ItemMoved,
    Resisted,
    SkillRolled,
    StatusChanged,
    item_label,
)

if TYPE_CHECKING:
    from rules.battle import Battle


# ------------------------------------------------------------------ rolls
def roll_skill(b: Battle, c: Combatant, skill: str, purpose: str, *, factor: float = 1.0,
               points: int = 0, extra_fumble: int = 0) -> SuccessLevel:
    """A d100 skill roll (S4, H2, H3), logged as a SkillRolled event."""
    chance = c.skill(skill, b.round, factor, points)
    roll = b.dice.d100()
    level = success_level(roll, chance, b.content.ruleset.success, extra_fumble)
    b.emit(SkillRolled, actor=c.id, skill=skill, purpose=purpose, chance=chance, roll=roll,
           level=level.name)
    return level


def roll_under(b: Battle, actor: Combatant, chance: int, purpose: str) -> bool:
    """A d100 roll under ``chance`` (H2: 01-05 succeed, 96-00 fail), logged as Resisted."""
    roll = b.dice.d100()
    ok = success_level(roll, chance, b.content.ruleset.success).succeeded
    b.emit(Resisted, actor=actor.id, purpose=purpose, chance=chance, roll=roll, success=ok)
    return ok


def resist(b: Battle, actor: Combatant, active: int, passive: int, purpose: str) -> bool:
    """H8: active vs passive resistance roll, d100 under 50 + 5 x (active - passive)."""
    r = b.content.ruleset.resistance
    return roll_under(b, actor, resistance_chance(active, passive, r.base, r.step), purpose)


# ------------------------------------------------------------------ status and harm
def set_prone(b: Battle, c: Combatant, cause: str) -> None:
    """Knock ``c`` prone. A rider, or the mount under one, throws the rider off first
    (H22); with no free square to fall into, two combatants in action stay as they are."""
    if c.prone:
        return
    rider_id = c.id if c.riding else c.ridden_by
    if rider_id is not None:
        rider = b.combatants[rider_id]
        if not unseat(b, rider):
            return
        if rider is not c:
            set_prone(b, rider, "thrown from the mount")
    c.prone = True
    b.emit(StatusChanged, actor=c.id, status="prone", cause=cause)


def unseat(b: Battle, rider: Combatant) -> bool:
    """H22: separate a rider from its mount, the rider into a free neighbouring square.

    When both are in action and no square is free, nothing happens (False); when either
    is out of action the rider may stay on the square, as bodies hold no square."""
    mount = b.combatants[rider.riding or ""]
    spots = q.free_adjacent(b, rider)
    if spots:
        rider.position = spots[0]
    elif rider.in_action and mount.in_action:
        return False
    rider.riding = None
    mount.ridden_by = None
    b.emit(StatusChanged, actor=rider.id, status=f"off {mount.id}", cause="unseated")
    return True


def lose_hp(b: Battle, c: Combatant, amount: int, cause: str, log: bool = True) -> None:
    """Take ``amount`` HP off ``c`` and settle H5 (out of action at 0, dead below -CON)."""
    if amount <= 0 or c.dead:
        return
    c.hp -= amount
    if log:
        b.emit(HitPointsChanged, actor=c.id, amount=-amount, hp=c.hp, cause=cause)
    settle_status(b, c, cause)


def settle_status(b: Battle, c: Combatant, cause: str) -> None:
    if c.status == "active" and c.hp <= b.content.ruleset.hit_points.out_of_action_at:
        c.status = "out"
        b.emit(StatusChanged, actor=c.id, status="out of action", cause=cause)
        set_prone(b, c, "out of action")
        _leave_action(b, c)
        rider_id = c.id if c.riding else c.ridden_by
        if rider_id is not None:  # H22: the pair separates (a prone rider never rides)
            unseat(b, b.combatants[rider_id])
    if c.status == "out" and c.hp < -c.char("con"):
        kill(b, c, cause)


def deal_damage(b: Battle, attacker: Combatant, target: Combatant, damage: int, cause: str,
                **record: Any) -> None:
    """Take ``damage`` off ``target``, log it as DamageDealt (``record``: how it was made
    up) and settle H5."""
    target.hp -= damage
    b.emit(DamageDealt, attacker=attacker.id, target=target.id, damage=damage, hp=target.hp,
           **record)
    settle_status(b, target, cause)


def kill(b: Battle, c: Combatant, cause: str) -> None:
    if c.status == "active":
        c.status = "out"
        _leave_action(b, c)
    c.status = "dead"
    c.bleeding = False
    b.emit(StatusChanged, actor=c.id, status="dead", cause=cause)


def _leave_action(b: Battle, c: Combatant) -> None:
    """H5/H22: an out-of-action combatant lets go of everything it was doing."""
    release_grapples_by(b, c)
    c.grappled_by = None
    c.casting = None
    c.concentration = None


def heal(b: Battle, c: Combatant, amount: int, cause: str) -> None:
    """Restore HP up to the maximum; above 0 an out-of-action combatant is back in action
    (still prone)."""
    if c.dead or amount <= 0:
        return
    gained = min(amount, c.max_hp - c.hp)
    c.hp += gained
    b.emit(HitPointsChanged, actor=c.id, amount=gained, hp=c.hp, cause=cause)
    if c.status == "out" and c.hp > b.content.ruleset.hit_points.out_of_action_at:
        pair = (c.id, c.riding or "", c.ridden_by or "")
        if c.position in q.occupied(b, exclude=pair):  # someone stands over the body
            spots = q.free_adjacent(b, c)
            if not spots:
                return  # nowhere to get up to: stays out of action for now
            c.position = spots[0]
        c.status = "active"
        b.emit(StatusChanged, actor=c.id, status="back in action", cause=cause)


def release_grapples_by(b: Battle, c: Combatant) -> None:
    for o in b.combatants.values():
        if o.grappled_by == c.id:
            o.grappled_by = None
            b.emit(StatusChanged, actor=o.id, status="released", cause=f"{c.id} let go")


def drop_item(b: Battle, c: Combatant, uid: str, cause: str) -> None:
    """H11/H21: an item leaves the inventory and lies in ``c``'s square."""
    inst = c.item(uid)
    if inst is None:
        return
    c.inventory.remove(inst)
    old = inst.state
    inst.state, inst.square, inst.nocked = "ground", c.position, False
    b.ground.append(inst)
    b.emit(ItemMoved, actor=c.id, item=uid, state_from=old, state_to="ground",
           square=c.position)
    if cause:
        b.emit(StatusChanged, actor=c.id, status=f"without {item_label(uid, c.id)}",
               cause=cause)


def fatigue_check(b: Battle, c: Combatant) -> None:
    """S21: a CON x5 roll each exploration turn of exertion, else one step more tired."""
    f = b.content.ruleset.fatigue
    ok = roll_under(b, c, c.char("con") * f.con_multiplier, "fatigue (CON x5)")
    if not ok and c.fatigue_level < 2:
        c.fatigue_level += 1
        b.emit(StatusChanged, actor=c.id, status=c.fatigue, cause="exertion")


def recover(b: Battle, c: Combatant, rounds: int) -> None:
    """S21: rest clears Fatigued after 1 hour and Exhausted after 8 hours."""
    f = b.content.ruleset.fatigue
    need = {1: f.rest_rounds_fatigued, 2: f.rest_rounds_exhausted}.get(c.fatigue_level)
    if need is not None and rounds >= need:
        c.fatigue_level = 0
        b.emit(StatusChanged, actor=c.id, status="fresh", cause=f"rested {rounds} rounds")


def fall(b: Battle, c: Combatant, depth_ft: int) -> None:
    """S23: d6 per 10 ft; armour does not help; a defence (Dodge) success takes off a die,
    a Jump/Acrobatics success another; the faller lands prone."""
    fr = b.content.ruleset.falling
    n = depth_ft // fr.feet_per_die
    rolled = sum(b.dice.roll(fr.die)[0] for _ in range(n))
    reduced = 0
    if c.in_action:
        if roll_skill(b, c, "dodge", "falling").succeeded:
            reduced += b.dice.roll(fr.skill_reduction)[0]
        best = max(fr.reduction_skills, key=lambda s: c.skill(s, b.round))
        if roll_skill(b, c, best, "falling").succeeded:
            reduced += b.dice.roll(fr.skill_reduction)[0]
    damage = max(0, rolled - reduced)
    b.emit(Fell, actor=c.id, depth_ft=depth_ft, rolled=rolled, reduced=reduced, damage=damage)
    set_prone(b, c, "fell")
    lose_hp(b, c, damage, "falling")


def break_concentration(b: Battle, c: Combatant) -> None:
    """S11: any parry or dodge attempt while aiming or casting negates the aim or aborts
    the spell (H17, H18)."""
    if c.concentration is not None and not c.concentration_broken:
        c.concentration_broken = True
        what = "aim negated" if c.concentration == "aim" else "casting aborted"
        b.emit(Concentration, actor=c.id, what=what)
    if c.casting is not None:
        c.casting = None
        b.emit(Concentration, actor=c.id, what="multi-round casting aborted")
