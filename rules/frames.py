"""Work in progress as a stack of typed frames, and the round/turn bookkeeping.

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
- :class:`OfferFrame` (``offer``): an enemy deciding whether to take its Free Attack (S5).
- :class:`rules.combat.AttackFrame` (``attack``): one attack roll and the defender's
  parry and dodge decisions, then damage.

Only offer and attack frames ask for decisions; asking a move or act frame for legal
actions, or any frame about an answer of a kind it does not take, is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar

from rules import combat, effects, harm, legal, reactions
from rules import queries as q
from rules.actions import (
    ACTION_SPECS,
    PROVOKING,
    Action,
    ActionKind,
    Decision,
    DecisionKind,
    attack_mode,
    category_of,
)
from rules.combat import AttackFrame
from rules.combatant import Combatant
from rules.errors import IllegalActionError
from rules.events import ActionTaken, Concentration, FreeAttackDeclined, Moved, Provoked
from rules.grid import KING_STEPS_BY_ROW

if TYPE_CHECKING:
    from rules.state import BattleState

K = ActionKind
Square = tuple[int, int]


def pop_frame(state: BattleState, frame: Frame) -> None:
    """Pop ``frame``, which is always the top frame when its own step finishes it."""
    if not state.stack or state.stack[-1] is not frame:
        raise RuntimeError(f"frame {frame.type} finished while not on top of the stack")
    state.stack.pop()


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
            state.stack.pop()
            return None
        return Decision(DecisionKind.FREE_ATTACK, enemy.id, provoker.id)

    def legal_actions(self, state: BattleState, decision: Decision) -> list[Action]:
        """S5: the Free Attacks open to the enemy, and DECLINE."""
        return reactions.free_attack_actions(state, self)

    def answer(self, state: BattleState, action: Action) -> None:
        """Decline, or push the Free Attack's attack frame."""
        if action.kind not in (K.DECLINE, K.FREE_ATTACK):
            raise unknown_answer(self, action)
        state.stack.pop()
        enemy = state.combatants[self.enemy]
        if action.kind is K.DECLINE:
            state.emit(FreeAttackDeclined, enemy=enemy.id, actor=self.actor)
            return
        enemy.free_attack_used = True
        combat.push_attack(state, enemy, state.combatants[action.target or ""], action.item,
                           attack_mode(K.FREE_ATTACK))

    def copy(self) -> OfferFrame:
        """An independent copy (for ``clone``)."""
        return OfferFrame(self.enemy, self.actor)


@dataclass(slots=True)
class ActFrame:
    """A turn action other than a move: provoked Free Attacks, then its effect.

    ``phase`` runs start, provoke, effect, done. The flags belong to S13's Ride roll:
    ``rolled`` (made), ``force_provoke`` (failed: it provokes), ``incomplete`` (failed
    with the round no longer whole) and ``end_turn`` (so the turn ends when done)."""

    type: ClassVar[str] = "act"
    actor: str
    action: Action
    phase: str = "start"
    offers: list[str] = field(default_factory=list)
    rolled: bool = False
    force_provoke: bool = False
    incomplete: bool = False
    end_turn: bool = False

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
                state.stack.pop()
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
        if self.end_turn:  # S13: a failed mount with the round no longer whole
            state.end_turn_requested = True
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
        the last square they may end on (see ``way_back``)."""
        mover = state.combatants[self.actor]
        walked = self.path[: self.index + 1]
        bodies = tuple(cid for cid in (self.actor, self.mount) if cid is not None
                       and not state.combatants[cid].dead
                       and state.combatants[cid].position == walked[-1])
        if bodies:
            walked = way_back(state, walked, bodies)
            for cid in bodies:
                state.combatants[cid].position = walked[-1]
        cost, parity = state.graph.path_cost(walked, self.parity)
        mover.diagonal_parity = parity
        mover.moved_this_round = True
        state.emit(Moved, actor=mover.id, path=walked, cost=cost, complete=complete)
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


def way_back(state: BattleState, walked: tuple[Square, ...],
             bodies: tuple[str, ...]) -> tuple[Square, ...]:
    """H13: ``walked`` cut back to the last square nobody but ``bodies`` holds (a thrown
    rider holds the square it landed on). When every square of it is held (a rider
    thrown onto the start square), ``walked`` goes on to the nearest square nobody holds,
    one legal king step at a time, drops avoided (S23); with none on the map it stays."""
    held = q.occupied(state, exclude=bodies)
    for end in range(len(walked), 0, -1):
        if walked[end - 1] not in held:
            return walked[:end]
    grid = state.grid
    came_from: dict[Square, Square] = {walked[-1]: walked[-1]}
    frontier = [walked[-1]]
    while frontier:
        following: list[Square] = []
        for square in frontier:
            for dx, dy in KING_STEPS_BY_ROW:
                near = (square[0] + dx, square[1] + dy)
                if near in came_from or not grid.step_allowed(square, near) \
                        or grid.drop_depth(near):
                    continue
                came_from[near] = square
                if near not in held:
                    extra = [near]
                    while came_from[extra[-1]] != walked[-1]:
                        extra.append(came_from[extra[-1]])
                    return walked + tuple(reversed(extra))
                following.append(near)
        frontier = following
    return walked


Frame = MoveFrame | ActFrame | OfferFrame | AttackFrame
FRAME_TYPES: dict[str, type[Frame]] = {
    frame_type.type: frame_type for frame_type in (MoveFrame, ActFrame, OfferFrame, AttackFrame)
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
    if frame_type is ActFrame:
        values["action"] = Action.from_dict(values["action"])
    if frame_type is MoveFrame:
        values["path"] = tuple((square[0], square[1]) for square in values["path"])
    return frame_type(**values)


# ------------------------------------------------------------------ rounds and turns
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
    """H25: voluntary FREE actions are once per turn, so they reset each turn; S10:
    Fight Defensively lasts until the start of the fighter's next turn (a ridden mount's
    turn is its rider's, H22)."""
    owner.free_used = []
    for fighter in (owner, state.combatants.get(owner.riding or "")):
        if fighter is not None:
            fighter.extra_parries = 0
            fighter.dodge_waived = False
    owner.actions_used = []
    owner.concentration = None
    owner.concentration_broken = False


def finish_turn(state: BattleState, owner: Combatant) -> None:
    """H18: a multi-round casting not continued this round is abandoned."""
    if owner.casting is not None and owner.casting["round"] < state.round:
        owner.casting = None
        state.emit(Concentration, actor=owner.id, what="multi-round casting abandoned")


# ------------------------------------------------------------------ starting actions
def _category(state: BattleState, action: Action) -> str:
    """The budget category of a turn action (a spell's depends on its casting time)."""
    if action.kind is K.CAST_SPELL:
        return legal.spell_category(state, action.item or "")
    return category_of(action.kind)


def _continues_casting(combatant: Combatant, action: Action) -> bool:
    """H18: whether ``action`` is the next round of the multi-round casting under way."""
    return (action.kind is K.CAST_SPELL and combatant.casting is not None
            and combatant.casting["spell"] == action.item
            and combatant.casting["target"] == action.target)


def start_action(state: BattleState, actor: Combatant, action: Action) -> None:
    """Pay the action's budget (S2, H25) and push the frame that carries it out."""
    if action.kind is K.END_TURN:
        state.end_turn_requested = True
        return
    category = _category(state, action)
    if category == "free":
        actor.free_used.append(action.kind.value)
    elif category in ("move", "attack", "full"):
        actor.actions_used.append(category)
        if actor.casting is not None and not _continues_casting(actor, action):
            actor.casting = None
            state.emit(Concentration, actor=actor.id, what="multi-round casting abandoned")
    state.emit(ActionTaken, actor=actor.id, action=str(action))
    spec = ACTION_SPECS[action.kind]
    if spec.frame == "move":
        provoking = spec.provokes
        route = q.routes(state, actor, q.move_budget(state, actor, spec.rate == "whole"),
                         provoking)[action.square]
        state.stack.append(MoveFrame(actor.id, action.kind.value, tuple(route.path),
                                     parity=actor.diagonal_parity, provokes=provoking))
        return
    state.stack.append(ActFrame(actor.id, action))


def provokes(state: BattleState, action: Action, frame: ActFrame) -> bool:
    """S6/S15/S13: whether this action provokes Free Attacks; a melee attack with an
    unarmed natural weapon (a fist) provokes like any unarmed attack."""
    if frame.force_provoke:
        return True
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
