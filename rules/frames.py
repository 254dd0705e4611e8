"""Work in progress as a stack of typed frames (``rules.turns`` starts them).

Each frame is a small JSON-able dataclass that owns its rule procedure, side by side
(botbowl's procedures):

- ``step(state)`` advances it and returns a :class:`Decision` when input is needed;
- ``legal_actions(state, decision)`` lists the answers to that decision;
- ``answer(state, action)`` applies the chosen answer.

Frame types (``FRAME_TYPES``, by ``type`` name, for ``frame_to_dict``/``frame_from_dict``):

- :class:`MoveFrame` (``move``): a MOVE, FULL_MOVE or DISENGAGE walking its path square
  by square; before leaving a threatened square it offers each provoked enemy a Free
  Attack (S5, H13).
- :class:`ActFrame` (``act``): any other turn action: the Free Attacks it provokes first
  (S5, S6), then its effect (:mod:`rules.effects`).
- :class:`RideFrame` (``ride``): a MOUNT or DISMOUNT: the Ride roll first; a failure
  provokes, and takes the whole round or ends the turn (S13, H22).
- :class:`OfferFrame` (``offer``): an enemy deciding whether to take its Free Attack (S5).
- :class:`AttackFrame` (``attack``): one attack roll and the defender's parry and dodge
  decisions, then damage (the rolls and the damage are :mod:`rules.combat`'s).

Which frame a turn action gets is its ``ACTION_SPECS`` row's ``frame``. Every frame
leaves the stack through :func:`pop_frame`. Only offer and attack frames ask for
decisions; asking a move, act or ride frame for legal actions, or any frame about an
answer of a kind it does not take, is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar

from rules import budget, effects, harm, reactions
from rules import queries as q
from rules.actions import (
    PROVOKING,
    Action,
    ActionKind,
    Decision,
    DecisionKind,
    attack_mode,
)
from rules.attack_frame import AttackFrame, pop_frame, push_attack
from rules.combatant import Combatant
from rules.errors import IllegalActionError
from rules.events import FreeAttackDeclined, Moved, Provoked

if TYPE_CHECKING:
    from rules.state import BattleState

K = ActionKind
Square = tuple[int, int]


def _no_decision(frame: Frame) -> RuntimeError:
    """The error for asking a frame that never waits for a decision about one."""
    return RuntimeError(f"a {frame.type} frame asks for no decision")


def unknown_answer(frame: Frame, action: Action) -> IllegalActionError:
    """The error for an answer a frame does not take (never treated as another kind)."""
    return IllegalActionError(f"{action} is no answer to a {frame.type} frame")


# ------------------------------------------------------------------ frame types
@dataclass(slots=True)
class OfferFrame:
    """S5: ``enemy`` decides whether to take its Free Attack on ``actor``."""

    type: ClassVar[str] = "offer"
    enemy: str
    actor: str

    def step(self, state: BattleState) -> Decision | None:
        """Ask the enemy, or drop the offer when it can no longer attack (S5)."""
        enemy, provoker = state.combatants[self.enemy], state.combatants[self.actor]
        if not q.can_free_attack(state, enemy, provoker):
            pop_frame(state, self)
            return None
        return Decision(DecisionKind.FREE_ATTACK, enemy.id, provoker.id)

    def legal_actions(self, state: BattleState, decision: Decision) -> list[Action]:
        """S5: the Free Attacks open to the enemy, and DECLINE."""
        return reactions.free_attack_actions(state, self)

    def answer(self, state: BattleState, action: Action) -> None:
        """Decline, or push the Free Attack's attack frame."""
        if action.kind not in (K.DECLINE, K.FREE_ATTACK):
            raise unknown_answer(self, action)
        pop_frame(state, self)
        enemy = state.combatants[self.enemy]
        if action.kind is K.DECLINE:
            state.emit(FreeAttackDeclined, enemy=enemy.id, actor=self.actor)
            return
        enemy.free_attack_used = True
        push_attack(state, enemy, state.combatants[action.target or ""], action.item,
                    attack_mode(K.FREE_ATTACK))

    def copy(self) -> OfferFrame:
        """An independent copy (for ``clone``)."""
        return OfferFrame(self.enemy, self.actor)


@dataclass(slots=True)
class ActFrame:
    """A turn action other than a move or a ride: provoked Free Attacks, then its
    effect. ``phase`` runs start, provoke, effect, done."""

    type: ClassVar[str] = "act"
    actor: str
    action: Action
    phase: str = "start"
    offers: list[str] = field(default_factory=list)

    def step(self, state: BattleState) -> Decision | None:
        """Advance one phase."""
        actor = state.combatants[self.actor]
        action = self.action
        if self.phase == "start":
            if provokes(state, action, self):
                mode = _concentration(state, actor, action)
                if mode is not None:
                    actor.concentration, actor.concentration_broken = mode, False
                self.offers = q.provokers_at(state, actor)
                for enemy in self.offers:
                    state.emit(Provoked, actor=actor.id, enemy=enemy)
            self.phase = "provoke"
            return None
        if self.phase == "provoke":
            if not actor.in_action:
                actor.concentration = None
                pop_frame(state, self)
                return None
            if self.offers:
                push_offer(state, self.offers.pop(0), actor.id)
                return None
            self.phase = "effect"
            return None
        if self.phase == "effect":
            self.phase = "done"
            effects.apply_effect(state, actor, action, self)
            return None
        actor.concentration = None
        actor.concentration_broken = False
        pop_frame(state, self)
        return None

    def legal_actions(self, state: BattleState, decision: Decision) -> list[Action]:
        """An act frame never waits for a decision."""
        raise _no_decision(self)

    def answer(self, state: BattleState, action: Action) -> None:
        """An act frame never waits for a decision."""
        raise _no_decision(self)

    def copy(self) -> ActFrame:
        """An independent copy (for ``clone``)."""
        return replace(self, offers=list(self.offers))


@dataclass(slots=True)
class RideFrame:
    """S13/H22: a MOUNT or DISMOUNT. ``phase`` runs roll (the Ride roll), provoke (only
    after a failure: a failed roll provokes Free Attacks), effect, done. A failure with
    the round whole (nothing but this MOVE spent) takes the whole round and then
    completes; otherwise it is ``incomplete``: the character stays where it was and the
    turn ends when the frame is done."""

    type: ClassVar[str] = "ride"
    actor: str
    action: Action
    phase: str = "roll"
    offers: list[str] = field(default_factory=list)
    incomplete: bool = False

    def step(self, state: BattleState) -> Decision | None:
        """Advance one phase."""
        actor = state.combatants[self.actor]
        if self.phase in ("roll", "provoke") and not actor.in_action:
            actor.concentration = None
            pop_frame(state, self)
            return None
        if self.phase == "roll":
            self.phase = "effect"
            if not harm.roll_skill(state, actor, "ride", self.action.kind.value).succeeded:
                self.incomplete = not budget.spend_whole_round(actor)
                self.offers = q.provokers_at(state, actor)
                for enemy in self.offers:
                    state.emit(Provoked, actor=actor.id, enemy=enemy)
                self.phase = "provoke"
            return None
        if self.phase == "provoke":
            if self.offers:
                push_offer(state, self.offers.pop(0), actor.id)
                return None
            self.phase = "effect"
            return None
        if self.phase == "effect":
            self.phase = "done"
            kind = self.action.kind
            if self.incomplete:
                effects.lost(state, actor,
                             f"{kind.value} failed with the round no longer whole (S13)")
            else:
                effects.apply_effect(state, actor, self.action, self)
            return None
        actor.concentration = None
        actor.concentration_broken = False
        pop_frame(state, self)
        if self.incomplete:  # S13: the failed attempt ends the turn
            state.end_turn_requested = True
        return None

    def legal_actions(self, state: BattleState, decision: Decision) -> list[Action]:
        """A ride frame never waits for a decision."""
        raise _no_decision(self)

    def answer(self, state: BattleState, action: Action) -> None:
        """A ride frame never waits for a decision."""
        raise _no_decision(self)

    def copy(self) -> RideFrame:
        """An independent copy (for ``clone``)."""
        return replace(self, offers=list(self.offers))


@dataclass(slots=True)
class MoveFrame:
    """A MOVE, FULL_MOVE or DISENGAGE walking ``path``; ``index`` is the square reached,
    ``checked`` the last square whose provokers were counted (H13), ``mount`` the mount
    that carried the actor when it set out (H22), still known once the rider is thrown."""

    type: ClassVar[str] = "move"
    actor: str
    kind: str
    path: tuple[Square, ...]
    index: int = 0
    checked: int = -1
    parity: int = 0
    provokes: bool = True
    provoked: list[str] = field(default_factory=list)
    offers: list[str] = field(default_factory=list)
    mount: str | None = None

    def step(self, state: BattleState) -> Decision | None:
        """Offer Free Attacks before leaving a threatened square, then take one step."""
        mover = state.combatants[self.actor]
        _body, ids = q.mover_of(state, mover)
        if mover.riding is not None:
            self.mount = mover.riding
        path = self.path
        index = self.index
        if not mover.in_action or mover.prone or mover.position != path[index]:
            self.finish(state, complete=False)
            return None
        last = len(path) - 1
        if self.provokes and self.checked != index and index < last:
            self.checked = index
            new = [enemy for enemy in q.provokers_at(state, mover)
                   if enemy not in self.provoked]
            self.provoked += new
            self.offers += new
            for enemy in new:
                state.emit(Provoked, actor=mover.id, enemy=enemy)
        if self.offers:
            push_offer(state, self.offers.pop(0), mover.id)
            return None
        if index == last:
            self.finish(state, complete=True)
            return None
        following = path[index + 1]
        holder = q.occupied(state, exclude=ids).get(following)
        if holder is not None and ((holder.in_action and holder.team != mover.team)
                                   or index + 1 == last):
            self.finish(state, complete=False)
            return None
        for cid in ids:
            state.combatants[cid].position = following
        harm.release_grapples_by(state, mover)
        self.index = index + 1
        depth = state.grid.drop_depth(following)
        if depth:
            self.finish(state, complete=index + 1 == last)
            for cid in ids:
                harm.fall(state, state.combatants[cid], depth)
        return None

    def finish(self, state: BattleState, complete: bool) -> None:
        """End the move. Allies may be passed, not ended on (H13): the bodies of a move
        cut short (the actor, and the mount it set out on, H22; in action or not) that
        still stand on a square somebody else holds go back along the path, together, to
        the last square they may end on (see ``rules.queries.way_back``).

        True logs: every Moved event's actor stands on its last square. A mover that left
        its walk meanwhile (a rider thrown from the saddle, its landing already logged by
        ``harm.unseat``; a dodge's shift) gets the mount's way as the mount's own event,
        then its own: where it stands, or, carried by nobody, the walk and the shift."""
        mover = state.combatants[self.actor]
        walked = self.path[: self.index + 1]
        bodies = tuple(cid for cid in (self.actor, self.mount) if cid is not None
                       and not state.combatants[cid].dead
                       and state.combatants[cid].position == walked[-1])
        if bodies:
            walked = q.way_back(state, walked, bodies)
            for cid in bodies:
                state.combatants[cid].position = walked[-1]
        cost, parity = state.graph.path_cost(walked, self.parity)
        mover.diagonal_parity = parity
        mover.moved_this_round = True
        if mover.position == walked[-1]:
            state.emit(Moved, actor=mover.id, path=walked, cost=cost, complete=complete)
        else:  # the mover left its walk: thrown from the saddle (H22), shifted by a dodge (H10)
            carried = [cid for cid in bodies if cid != mover.id]  # the mount, its own way
            for cid in carried:
                state.emit(Moved, actor=cid, path=walked, cost=cost, complete=complete)
            own = (mover.position,) if carried else (*walked, mover.position)
            state.emit(Moved, actor=mover.id, path=own, cost=0 if carried else cost,
                       complete=complete)
        pop_frame(state, self)

    def legal_actions(self, state: BattleState, decision: Decision) -> list[Action]:
        """A move frame never waits for a decision."""
        raise _no_decision(self)

    def answer(self, state: BattleState, action: Action) -> None:
        """A move frame never waits for a decision."""
        raise _no_decision(self)

    def copy(self) -> MoveFrame:
        """An independent copy (for ``clone``)."""
        return replace(self, provoked=list(self.provoked), offers=list(self.offers))


Frame = MoveFrame | ActFrame | RideFrame | OfferFrame | AttackFrame
#: The phases of an act frame, of a ride frame and the stages of an attack frame, in order.
ACT_PHASES = ("start", "provoke", "effect", "done")
RIDE_PHASES = ("roll", "provoke", "effect", "done")
ATTACK_STAGES = ("roll", "parry", "dodge", "damage")
FRAME_TYPES: dict[str, type[Frame]] = {
    frame_type.type: frame_type
    for frame_type in (MoveFrame, ActFrame, RideFrame, OfferFrame, AttackFrame)
}


def frame_to_dict(frame: Frame) -> dict[str, Any]:
    """A frame as plain JSON data, tagged with its ``type``."""
    data: dict[str, Any] = {"type": frame.type}
    for spec in fields(frame):
        value = getattr(frame, spec.name)
        if isinstance(value, Action):
            value = value.to_dict()
        elif isinstance(value, tuple):
            value = [list(square) for square in value]
        elif isinstance(value, list):
            value = list(value)
        data[spec.name] = value
    return data


def frame_from_dict(data: dict[str, Any]) -> Frame:
    """The frame ``frame_to_dict`` wrote."""
    frame_type = FRAME_TYPES.get(data.get("type", ""))
    if frame_type is None:
        raise ValueError(f"unknown frame type {data.get('type')!r}; expected one of "
                         f"{', '.join(sorted(FRAME_TYPES))}")
    values = {key: value for key, value in data.items() if key != "type"}
    if frame_type is ActFrame or frame_type is RideFrame:
        values["action"] = Action.from_dict(values["action"])
    if frame_type is MoveFrame:
        values["path"] = tuple((square[0], square[1]) for square in values["path"])
    return frame_type(**values)


# ------------------------------------------------------------------ provocation
def provokes(state: BattleState, action: Action, frame: ActFrame) -> bool:
    """S6/S15: whether this action provokes Free Attacks; a melee attack with an
    unarmed natural weapon (a fist) provokes like any unarmed attack (a failed Ride roll
    provokes too: :class:`RideFrame`, S13)."""
    if action.kind is K.MELEE_ATTACK:
        inst = state.combatants[frame.actor].item(action.item or "")
        weapon = state.content.weapons.get(inst.item) if inst is not None else None
        return weapon is not None and q.is_unarmed(weapon)
    if action.kind is K.CAST_SPELL:
        spell = state.content.spells[action.item or ""]
        return spell.provokes and spell.casting != "free"
    return action.kind in PROVOKING


def _concentration(state: BattleState, actor: Combatant, action: Action) -> str | None:
    """S11/H17: casting, and an aimed shot (a missile Full Attack), need concentration."""
    if action.kind is K.CAST_SPELL and state.content.spells[action.item or ""].casting != "free":
        return "cast"
    if action.kind is K.FULL_ATTACK:
        inst = actor.item(action.item or "")
        if inst is not None and state.content.weapons[inst.item].kind == "missile":
            return "aim"
    return None


def push_offer(state: BattleState, enemy: str, actor: str) -> None:
    """Queue ``enemy``'s Free Attack decision on ``actor`` (S5)."""
    state.stack.append(OfferFrame(enemy, actor))


# ------------------------------------------------------------------ stepping
def step(state: BattleState, frame: Frame) -> Decision | None:
    """Advance the top frame (``frame.step``)."""
    return frame.step(state)


def answer(state: BattleState, frame: Frame, action: Action) -> None:
    """Feed a reaction decision's chosen action to the top frame (``frame.answer``)."""
    frame.answer(state, action)
