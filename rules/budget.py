"""The turn budget: what a turn may still spend, and paying for an action (S2, S3, S13,
H18, H25).

A turn is one MOVE and one ATTACK (either order), or two MOVEs, or one FULL action, plus
FREE actions, each voluntary FREE action at most once per turn (H25). An action's
category is its ``ACTION_SPECS`` row's, but for a spell, whose casting time decides
(H18). ``Combatant.actions_used`` holds the categories spent this turn and
``Combatant.free_used`` the FREE kinds used; :func:`reset` empties both at the start of
each turn. ``rules.legal`` asks :func:`can_spend` and :func:`free_left` before listing
an action; ``rules.frames.start_action`` calls :func:`pay`; the Ride roll's failure with
the round whole takes the whole round (:func:`spend_whole_round`, S13).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.actions import Action, ActionKind, category_of
from rules.combatant import Combatant
from rules.events import Concentration

if TYPE_CHECKING:
    from rules.state import BattleState

#: What a MOVE may follow in the same turn (S2, S3).
_MOVE_AFTER = ("move", "attack")
#: The categories that spend the turn's budget (FREE actions are counted apart, H25).
BUDGETED = ("move", "attack", "full")
#: S2: what a combatant may have spent in one round (free actions are not budgeted).
ROUND_BUDGETS = (
    [], ["move"], ["attack"], ["full"], ["move", "move"], ["move", "attack"],
    ["attack", "move"],
)


def can_spend(combatant: Combatant, category: str) -> bool:
    """S2: whether the budget left this turn allows an action of ``category``.

    S3: an ATTACK fits before or after a MOVE; a MOVE is one atomic action (its path is
    walked to the end or cut short), so nothing can be done in the middle of one.
    """
    used = combatant.actions_used
    if category == "move":  # used is [], ["move"] or ["attack"]
        return not used or (len(used) == 1 and used[0] in _MOVE_AFTER)
    if category == "attack":  # used is [] or ["move"]
        return not used or (len(used) == 1 and used[0] == "move")
    if category == "full":
        return not used
    return True


def free_left(state: BattleState, combatant: Combatant, kind: ActionKind) -> bool:
    """H25: each voluntary FREE action at most ``misc.free_actions_per_turn`` times a turn
    (reactions are not FREE actions in this sense: they keep their own limits, S5, S8, S9)."""
    return combatant.free_used.count(kind.value) < \
        state.content.ruleset.misc.free_actions_per_turn


def spell_category(state: BattleState, spell_id: str) -> str:
    """H18: a spell's budget category from its casting time (multi-round: full)."""
    casting = state.content.spells[spell_id].casting
    return {"free": "free", "attack": "attack", "full": "full", "rounds": "full"}[casting]


def action_category(state: BattleState, action: Action) -> str:
    """The budget category of a turn action (a spell's depends on its casting time)."""
    if action.kind is ActionKind.CAST_SPELL:
        return spell_category(state, action.item or "")
    return category_of(action.kind)


def _continues_casting(combatant: Combatant, action: Action) -> bool:
    """H18: whether ``action`` is the next round of the multi-round casting under way."""
    return (action.kind is ActionKind.CAST_SPELL and combatant.casting is not None
            and combatant.casting["spell"] == action.item
            and combatant.casting["target"] == action.target)


def pay(state: BattleState, actor: Combatant, action: Action) -> None:
    """S2/H25: spend ``action``'s category (a FREE kind is marked used for the turn); a
    budgeted action other than the next round of a multi-round casting abandons it (H18)."""
    category = action_category(state, action)
    if category == "free":
        actor.free_used.append(action.kind.value)
    elif category in BUDGETED:
        actor.actions_used.append(category)
        if actor.casting is not None and not _continues_casting(actor, action):
            actor.casting = None
            state.emit(Concentration, actor=actor.id, what="multi-round casting abandoned")


def spend_whole_round(combatant: Combatant) -> bool:
    """S13: a failed Ride roll takes the whole round when the round is whole (nothing but
    this MOVE spent): the MOVE becomes a FULL action and True is returned; otherwise
    nothing changes and False is returned (the attempt does not complete this round)."""
    if combatant.actions_used == ["move"]:
        combatant.actions_used = ["full"]
        return True
    return False


def reset(combatant: Combatant) -> None:
    """H25/S2: a new turn: nothing spent, no FREE action used."""
    combatant.free_used = []
    combatant.actions_used = []
