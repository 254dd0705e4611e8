"""Rounds and turns: what starts and ends them (S2, S5, S7, S8, S10, S21, H7, H14, H18,
H22, H25), and starting a turn action: paying its budget (:mod:`rules.budget`) and
pushing the frame its ``ACTION_SPECS`` row names (:mod:`rules.frames`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules import budget, harm
from rules import queries as q
from rules.actions import ACTION_SPECS, Action, ActionKind
from rules.combatant import Combatant
from rules.events import ActionTaken, Concentration
from rules.frames import ActFrame, MoveFrame, RideFrame

if TYPE_CHECKING:
    from rules.state import BattleState

K = ActionKind


def start_round(state: BattleState) -> None:
    """Per-round resets (S5, S7, S8, H14), bleeding (H7) and fatigue checks (S21)."""
    ruleset = state.content.ruleset
    for combatant in state.combatants.values():
        combatant.moved_this_round = False
        combatant.shifted_this_round = False
        combatant.diagonal_parity = 0
        combatant.free_attack_used = False
        combatant.parries_used = 0
        combatant.buffs = [buff for buff in combatant.buffs if buff[1] >= state.round]
    for cid in state.initiative_order:
        combatant = state.combatants[cid]
        if combatant.bleeding and not combatant.dead:
            harm.lose_hp(state, combatant, ruleset.misc.bleed_per_round, "bleeding")
    every = ruleset.fatigue.rounds_per_check
    if state.round > 1 and (state.round - 1) % every == 0:
        for cid in state.initiative_order:
            combatant = state.combatants[cid]
            if combatant.in_action:
                harm.fatigue_check(state, combatant)


def start_turn(state: BattleState, owner: Combatant) -> None:
    """S2/H25: a new turn's budget (:func:`rules.budget.reset`); S10: Fight Defensively
    lasts until the start of the fighter's next turn (a ridden mount's turn is its
    rider's, H22)."""
    budget.reset(owner)
    for fighter in (owner, state.combatants.get(owner.riding or "")):
        if fighter is not None:
            fighter.extra_parries = 0
            fighter.dodge_waived = False
    owner.concentration = None
    owner.concentration_broken = False


def finish_turn(state: BattleState, owner: Combatant) -> None:
    """H18: a multi-round casting not continued this round is abandoned."""
    if owner.casting is not None and owner.casting["round"] < state.round:
        owner.casting = None
        state.emit(Concentration, actor=owner.id, what="multi-round casting abandoned")


def start_action(state: BattleState, actor: Combatant, action: Action) -> None:
    """Pay the action's budget (S2, H25) and push the frame that carries it out."""
    if action.kind is K.END_TURN:
        state.end_turn_requested = True
        return
    budget.pay(state, actor, action)
    state.emit(ActionTaken, actor=actor.id, action=str(action))
    spec = ACTION_SPECS[action.kind]
    if spec.frame == "move":
        provoking = spec.provokes
        route = q.routes(state, actor, q.move_budget(state, actor, spec.rate == "whole"),
                         provoking)[action.square]
        state.stack.append(MoveFrame(actor.id, action.kind.value, tuple(route.path),
                                     parity=actor.diagonal_parity, provokes=provoking))
    elif spec.frame == "ride":
        state.stack.append(RideFrame(actor.id, action))
    else:
        state.stack.append(ActFrame(actor.id, action))
