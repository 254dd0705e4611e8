"""Reactions: the answers a waiting frame offers (S5 Free Attacks, S8 parries, S9
dodges, H10, S10, H22), and whether a parry or dodge is open at all.

:class:`rules.frames.OfferFrame` and :class:`rules.frames.AttackFrame` list their legal
actions from here; every list ends with DECLINE.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules import queries as q
from rules.actions import Action, ActionKind
from rules.combatant import Combatant
from rules.grid import chebyshev

if TYPE_CHECKING:
    from rules.frames import AttackFrame, OfferFrame
    from rules.state import BattleState

K = ActionKind


def free_attack_actions(state: BattleState, frame: OfferFrame) -> list[Action]:
    """S5: one melee attack with a ready weapon that reaches the provoker (or its mount)."""
    enemy = state.combatants[frame.enemy]
    provoker = state.combatants[frame.actor]
    targets = [provoker]
    if provoker.riding is not None:
        targets.append(state.combatants[provoker.riding])
    out = []
    for target in targets:
        for inst, weapon in enemy.ready_melee():
            if q.weapon_reaches(state, enemy, weapon.reach, target.position):
                out.append(Action(K.FREE_ATTACK, target=target.id, item=inst.uid))
    out.append(Action(K.DECLINE))
    return out


def parry_items(state: BattleState, defender: Combatant, missile: bool) -> list[str]:
    """S8/H9: ready weapons that can parry, and shields; only shields parry missiles."""
    out = []
    for inst in defender.inventory:
        if inst.state != "ready":
            continue
        if inst.item in state.content.armour:
            armour = state.content.armour[inst.item]
            if armour.slot == "shield" and armour.skill and defender.skill_possible(armour.skill):
                out.append(inst.uid)
        elif inst.item in state.content.weapons and not missile:
            weapon = state.content.weapons[inst.item]
            if weapon.parry and not weapon.natural and weapon.kind == "melee":
                out.append(inst.uid)
    return out


def can_parry(state: BattleState, defender: Combatant, missile: bool) -> bool:
    """S8/S10: one parry attempt per hit, one per round plus Fight Defensively's extra
    (which lasts until the start of the fighter's next turn); never limited per turn."""
    normal = state.content.ruleset.defence.parries_per_round
    return (defender.in_action
            and (defender.parries_used < normal or defender.extra_parries > 0)
            and bool(parry_items(state, defender, missile)))


def parry_actions(state: BattleState, frame: AttackFrame) -> list[Action]:
    """The PARRY decision of an attack frame: each item that can parry, or DECLINE."""
    defender = state.combatants[frame.target]
    items = parry_items(state, defender, frame.missile)
    return [Action(K.PARRY, item=uid) for uid in items] + [Action(K.DECLINE)]


def dodge_squares(state: BattleState, defender: Combatant,
                  attacker: Combatant) -> list[tuple[int, int]]:
    """H10: squares one shift away and not closer to the attacker; none if the Shift is
    spent, the defender moved this round or is moving now (S7: no Shift in a round the
    character otherwise moves), is prone (H15: no moving before standing up), grappled,
    or rides or is ridden (H22: a shift would split the pair)."""
    moving = any(frame.type == "move" and frame.actor == defender.id for frame in state.stack)
    if (defender.shifted_this_round or defender.moved_this_round or moving or defender.prone
            or defender.grappled_by is not None or defender.riding is not None
            or defender.ridden_by is not None):
        return []
    here = chebyshev(defender.position, attacker.position)
    return [square for square in q.free_adjacent(state, defender)
            if chebyshev(square, attacker.position) >= here]


def can_fall_to_dodge(state: BattleState, defender: Combatant) -> bool:
    """H10/H22: falling prone is open while standing; a rider (or the mount under one)
    falls from the saddle, which needs a free neighbouring square for the rider."""
    if defender.prone:
        return False
    if defender.riding is None and defender.ridden_by is None:
        return True
    rider = defender if defender.riding is not None else \
        state.combatants[defender.ridden_by or ""]
    return bool(q.free_adjacent(state, rider))


def dodge_options(state: BattleState, defender: Combatant, attacker: Combatant) -> list[Action]:
    """S9/H10/S10: one dodge attempt per hit, for every hit. The dodger chooses its
    disadvantage: a Shift back (DODGE with the square) or falling prone (DODGE without a
    square). Under Fight Defensively the one DODGE without a square pays nothing. Empty
    when no disadvantage is open."""
    if not defender.in_action:
        return []
    if defender.dodge_waived:
        return [Action(K.DODGE)]
    options = [Action(K.DODGE, square=square)
               for square in dodge_squares(state, defender, attacker)]
    if can_fall_to_dodge(state, defender):
        options.append(Action(K.DODGE))
    return options


def dodge_actions(state: BattleState, frame: AttackFrame) -> list[Action]:
    """The DODGE decision of an attack frame: the open choices, or DECLINE."""
    defender = state.combatants[frame.target]
    attacker = state.combatants[frame.attacker]
    return [*dodge_options(state, defender, attacker), Action(K.DECLINE)]


def can_dodge(state: BattleState, defender: Combatant, attacker: Combatant) -> bool:
    """S9/H10: a dodge is offered when some disadvantage is open (or waived, S10)."""
    return bool(dodge_options(state, defender, attacker))
