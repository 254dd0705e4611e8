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
    Moved,
    Resisted,
    SkillRolled,
    StatusChanged,
    item_label,
)

if TYPE_CHECKING:
    from rules.state import BattleState


# ------------------------------------------------------------------ rolls
def roll_skill(state: BattleState, combatant: Combatant, skill: str, purpose: str, *,
               factor: float = 1.0,
               points: int = 0, extra_fumble: int = 0) -> SuccessLevel:
    """A d100 skill roll (S4, H2, H3), logged as a SkillRolled event."""
    chance = combatant.skill(skill, state.round, factor, points)
    roll = state.dice.d100()
    level = success_level(roll, chance, state.content.ruleset.success, extra_fumble)
    state.emit(SkillRolled, actor=combatant.id, skill=skill, purpose=purpose, chance=chance,
               roll=roll,
           level=level.name)
    return level


def roll_under(state: BattleState, actor: Combatant, chance: int, purpose: str) -> bool:
    """A d100 roll under ``chance`` (H2: 01-05 succeed, 96-00 fail), logged as Resisted."""
    roll = state.dice.d100()
    ok = success_level(roll, chance, state.content.ruleset.success).succeeded
    state.emit(Resisted, actor=actor.id, purpose=purpose, chance=chance, roll=roll, success=ok)
    return ok


def resist(state: BattleState, actor: Combatant, active: int, passive: int, purpose: str) -> bool:
    """H8: active vs passive resistance roll, d100 under 50 + 5 x (active - passive)."""
    r = state.content.ruleset.resistance
    return roll_under(state, actor, resistance_chance(active, passive, r.base, r.step), purpose)


# ------------------------------------------------------------------ status and harm
def set_prone(state: BattleState, combatant: Combatant, cause: str) -> None:
    """Knock ``combatant`` prone. A rider, or the mount under one, throws the rider off first
    (H22); with no free square to fall into, two combatants in action stay as they are."""
    if combatant.prone:
        return
    rider_id = combatant.id if combatant.riding else combatant.ridden_by
    if rider_id is not None:
        rider = state.combatants[rider_id]
        if not unseat(state, rider):
            return
        if rider is not combatant:
            set_prone(state, rider, "thrown from the mount")
    combatant.prone = True
    state.emit(StatusChanged, actor=combatant.id, status="prone", cause=cause)


def unseat(state: BattleState, rider: Combatant) -> bool:
    """H22: separate a rider from its mount, the rider into a free neighbouring square
    (its landing logged as a Moved event of its own, cost 0).

    When both are in action and no square is free, nothing happens (False); when either
    is out of action the rider may stay on the square, as bodies hold no square."""
    mount = state.combatants[rider.riding or ""]
    spots = q.free_adjacent(state, rider)
    start = rider.position
    if spots:
        rider.position = spots[0]
    elif rider.in_action and mount.in_action:
        return False
    rider.riding = None
    mount.ridden_by = None
    state.emit(StatusChanged, actor=rider.id, status=f"off {mount.id}", cause="unseated")
    if rider.position != start:  # the landing, an event of its own (true logs)
        state.emit(Moved, actor=rider.id, path=(start, rider.position), cost=0, complete=True)
    return True


def lose_hp(state: BattleState, combatant: Combatant, amount: int, cause: str,
            log: bool = True) -> None:
    """Take ``amount`` HP off ``combatant`` and settle H5 (out of action at 0, dead below -CON)."""
    if amount <= 0 or combatant.dead:
        return
    combatant.hp -= amount
    if log:
        state.emit(HitPointsChanged, actor=combatant.id, amount=-amount, hp=combatant.hp,
                   cause=cause)
    settle_status(state, combatant, cause)


def settle_status(state: BattleState, combatant: Combatant, cause: str) -> None:
    """H5/H22: out of action at 0 HP (the pair separates), dead below -CON."""
    out_at = state.content.ruleset.hit_points.out_of_action_at
    if combatant.status == "active" and combatant.hp <= out_at:
        combatant.status = "out"
        state.emit(StatusChanged, actor=combatant.id, status="out of action", cause=cause)
        set_prone(state, combatant, "out of action")
        _leave_action(state, combatant)
        rider_id = combatant.id if combatant.riding else combatant.ridden_by
        if rider_id is not None:  # H22: the pair separates (a prone rider never rides)
            unseat(state, state.combatants[rider_id])
    if combatant.status == "out" and combatant.hp < -combatant.char("con"):
        kill(state, combatant, cause)


def deal_damage(state: BattleState, attacker: Combatant, target: Combatant, damage: int, cause: str,
                **record: Any) -> None:
    """Take ``damage`` off ``target``, log it as DamageDealt (``record``: how it was made
    up) and settle H5."""
    target.hp -= damage
    state.emit(DamageDealt, attacker=attacker.id, target=target.id, damage=damage, hp=target.hp,
           **record)
    settle_status(state, target, cause)


def kill(state: BattleState, combatant: Combatant, cause: str) -> None:
    """H5: the combatant dies (out of action first, no more bleeding)."""
    if combatant.status == "active":
        combatant.status = "out"
        _leave_action(state, combatant)
    combatant.status = "dead"
    combatant.bleeding = False
    state.emit(StatusChanged, actor=combatant.id, status="dead", cause=cause)


def _leave_action(state: BattleState, combatant: Combatant) -> None:
    """H5/H22: an out-of-action combatant lets go of everything it was doing."""
    release_grapples_by(state, combatant)
    combatant.grappled_by = None
    combatant.casting = None
    combatant.concentration = None


def heal(state: BattleState, combatant: Combatant, amount: int, cause: str) -> None:
    """Restore HP up to the maximum; above 0 an out-of-action combatant is back in action
    (still prone)."""
    if combatant.dead or amount <= 0:
        return
    gained = min(amount, combatant.max_hp - combatant.hp)
    combatant.hp += gained
    state.emit(HitPointsChanged, actor=combatant.id, amount=gained, hp=combatant.hp, cause=cause)
    out_at = state.content.ruleset.hit_points.out_of_action_at
    if combatant.status == "out" and combatant.hp > out_at:
        pair = (combatant.id, combatant.riding or "", combatant.ridden_by or "")
        if combatant.position in q.occupied(state, exclude=pair):  # someone stands over the body
            spots = q.free_adjacent(state, combatant)
            if not spots:
                return  # nowhere to get up to: stays out of action for now
            combatant.position = spots[0]
        combatant.status = "active"
        state.emit(StatusChanged, actor=combatant.id, status="back in action", cause=cause)


def release_grapples_by(state: BattleState, combatant: Combatant) -> None:
    """H19: everyone ``combatant`` holds is released."""
    for o in state.combatants.values():
        if o.grappled_by == combatant.id:
            o.grappled_by = None
            state.emit(StatusChanged, actor=o.id, status="released", cause=f"{combatant.id} let go")


def drop_item(state: BattleState, combatant: Combatant, uid: str, cause: str) -> None:
    """H11/H21: an item leaves the inventory and lies in ``combatant``'s square."""
    inst = combatant.item(uid)
    if inst is None:
        return
    combatant.inventory.remove(inst)
    old = inst.state
    inst.state, inst.square, inst.nocked = "ground", combatant.position, False
    state.ground.append(inst)
    state.emit(ItemMoved, actor=combatant.id, item=uid, state_from=old, state_to="ground",
           square=combatant.position)
    if cause:
        state.emit(StatusChanged, actor=combatant.id,
                   status=f"without {item_label(uid, combatant.id)}",
               cause=cause)


def fatigue_check(state: BattleState, combatant: Combatant) -> None:
    """S21: a CON x5 roll each exploration turn of exertion, else one step more tired."""
    f = state.content.ruleset.fatigue
    ok = roll_under(state, combatant, combatant.char("con") * f.con_multiplier, "fatigue (CON x5)")
    if not ok and combatant.fatigue_level < 2:
        combatant.fatigue_level += 1
        state.emit(StatusChanged, actor=combatant.id, status=combatant.fatigue, cause="exertion")


def recover(state: BattleState, combatant: Combatant, rounds: int) -> None:
    """S21: rest clears Fatigued after 1 hour and Exhausted after 8 hours."""
    f = state.content.ruleset.fatigue
    need = {1: f.rest_rounds_fatigued, 2: f.rest_rounds_exhausted}.get(combatant.fatigue_level)
    if need is not None and rounds >= need:
        combatant.fatigue_level = 0
        state.emit(StatusChanged, actor=combatant.id, status="fresh",
                   cause=f"rested {rounds} rounds")


def fall(state: BattleState, combatant: Combatant, depth_ft: int) -> None:
    """S23: d6 per 10 ft; armour does not help; a defence (Dodge) success takes off a die,
    a Jump/Acrobatics success another; the faller lands prone."""
    fr = state.content.ruleset.falling
    n = depth_ft // fr.feet_per_die
    rolled = sum(state.dice.roll(fr.die)[0] for _ in range(n))
    reduced = 0
    if combatant.in_action:
        if roll_skill(state, combatant, "dodge", "falling").succeeded:
            reduced += state.dice.roll(fr.skill_reduction)[0]
        best = max(fr.reduction_skills, key=lambda skill: combatant.skill(skill, state.round))
        if roll_skill(state, combatant, best, "falling").succeeded:
            reduced += state.dice.roll(fr.skill_reduction)[0]
    damage = max(0, rolled - reduced)
    state.emit(Fell, actor=combatant.id, depth_ft=depth_ft, rolled=rolled, reduced=reduced,
               damage=damage)
    set_prone(state, combatant, "fell")
    lose_hp(state, combatant, damage, "falling")


def break_concentration(state: BattleState, combatant: Combatant) -> None:
    """S11: any parry or dodge attempt while aiming or casting negates the aim or aborts
    the spell (H17, H18)."""
    if combatant.concentration is not None and not combatant.concentration_broken:
        combatant.concentration_broken = True
        what = "aim negated" if combatant.concentration == "aim" else "casting aborted"
        state.emit(Concentration, actor=combatant.id, what=what)
    if combatant.casting is not None:
        combatant.casting = None
        state.emit(Concentration, actor=combatant.id, what="multi-round casting aborted")
