"""The attack frame (S4, S8, S9, H10, H19): one attack's roll, parry, dodge and damage,
and the work stack's one pop (:func:`pop_frame`). Its own module below :mod:`rules.frames`
(which re-exports both) so that :mod:`rules.effects`, which queues attacks, and
:mod:`rules.frames`, which runs effects, do not import each other (issue 47)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from rules import combat, reactions
from rules.actions import ATTACK_MODES, Action, ActionKind, Decision, DecisionKind
from rules.combatant import Combatant
from rules.errors import IllegalActionError

if TYPE_CHECKING:
    from rules.frames import Frame
    from rules.state import BattleState

K = ActionKind


def pop_frame(state: BattleState, frame: Frame) -> None:
    """Pop ``frame``, which is always the top frame when its own step finishes it."""
    if not state.stack or state.stack[-1] is not frame:
        raise RuntimeError(f"frame {frame.type} finished while not on top of the stack")
    state.stack.pop()



@dataclass(slots=True)
class AttackFrame:
    """One attack: ``stage`` runs roll, parry, dodge, damage (S4, S8, S9, H10: the dodge
    after any parry). ``mode``: one of ``rules.actions.ATTACK_MODES`` (a manoeuvre,
    H19, rolls ``skill`` and ends in a resistance roll instead of damage). Levels are
    stored as ``SuccessLevel`` ints; the rolls and the damage are :mod:`rules.combat`'s."""

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
        """S4 roll, then S8 parry and S9 dodge decisions, then damage or a manoeuvre's
        resistance roll (H19)."""
        if self.stage == "roll":
            if combat.roll_attack(state, self):
                self.stage = "parry"
            else:
                pop_frame(state, self)
            return None
        attacker, target = state.combatants[self.attacker], state.combatants[self.target]
        if self.stage == "parry":
            if reactions.can_parry(state, target, self.missile):
                return Decision(DecisionKind.PARRY, target.id, attacker.id)
            self.stage = "dodge"
            return None
        if self.stage == "dodge":
            if not combat.settled(self) and reactions.can_dodge(state, target, attacker):
                return Decision(DecisionKind.DODGE, target.id, attacker.id)
            self.stage = "damage"
            return None
        pop_frame(state, self)
        combat.resolve(state, self)
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
                combat.roll_parry(state, self, action)
            return
        if self.stage == "dodge" and action.kind in (K.DODGE, K.DECLINE):
            self.stage = "damage"
            if action.kind is K.DODGE:
                combat.roll_dodge(state, self, action)
            return
        raise IllegalActionError(f"{action} is no answer to an attack frame at stage "
                                 f"{self.stage}")

    def copy(self) -> AttackFrame:
        """An independent copy (for ``clone``); every field is immutable."""
        return replace(self)



def push_attack(state: BattleState, attacker: Combatant, target: Combatant,
                weapon_uid: str | None, mode: str, points: int = 0,
                weapon_id: str | None = None, skill: str | None = None) -> None:
    """Queue one attack (see :class:`AttackFrame` for ``mode`` and ``skill``)."""
    if weapon_id is None and weapon_uid is not None:
        inst = attacker.item(weapon_uid)
        weapon_id = inst.item if inst is not None else None
    state.stack.append(AttackFrame(attacker.id, target.id, weapon_uid, weapon_id, mode,
                                   points, missile=ATTACK_MODES[mode].missile, skill=skill))
