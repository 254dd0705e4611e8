"""``Battle.apply`` at the edge (rules/inputs.py): a malformed action is an
``IllegalActionError`` like any illegal one, with the battle left exactly as it was, and
numpy values in a legal action are normalised to plain ints and strs on entry."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import rules
from rules import Action, IllegalActionError
from rules import ActionKind as K
from rules.events import Moved
from rules.inputs import plain_action


def duel_on_a_move() -> tuple[rules.Battle, Action]:
    """The duel at its first decision, and the first legal MOVE."""
    b = rules.Battle.from_scenario("duel", seed=7)
    move = next(a for a in b.legal_actions() if a.kind is K.MOVE)
    return b, move


def numpy_square(action: Action) -> Action:
    assert action.square is not None
    x, y = action.square
    return dataclasses.replace(action, square=(np.int64(x), np.int64(y)))


MALFORMED = {
    "square as a list": (
        lambda move: Action(K.MOVE, square=list(move.square)),
        "Action.square: expected an (x, y) tuple of two integers or None, got [{x}, {y}]",
    ),
    "square of floats": (
        lambda move: Action(K.MOVE, square=(float(move.square[0]), float(move.square[1]))),
        "Action.square: expected an (x, y) tuple of two integers or None, got ({x}.0, {y}.0)",
    ),
    "square with three coordinates": (
        lambda move: Action(K.MOVE, square=(*move.square, 0)),
        "Action.square: expected an (x, y) tuple of two integers or None, got ({x}, {y}, 0)",
    ),
    "square of booleans": (
        lambda move: Action(K.MOVE, square=(True, False)),
        "Action.square: expected an (x, y) tuple of two integers or None, got (True, False)",
    ),
    "kind as a string": (
        lambda move: Action("move", square=move.square),  # type: ignore[arg-type]
        "Action.kind: expected a rules.ActionKind (e.g. ActionKind.MOVE), got 'move'",
    ),
    "target as a number": (
        lambda move: Action(K.MELEE_ATTACK, target=1, item="hero.longsword"),  # type: ignore[arg-type]
        "Action.target: expected a combatant id (a string) or None, got 1",
    ),
    "item as a list": (
        lambda move: Action(K.MELEE_ATTACK, target="orc_1", item=["hero.longsword"]),  # type: ignore[arg-type]
        "Action.item: expected an item or spell id (a string) or None, got ['hero.longsword']",
    ),
    "not an Action": (
        lambda move: "MOVE",
        "expected a rules.Action, got str 'MOVE'",
    ),
    "an action's dict": (
        lambda move: move.to_dict(),
        "expected a rules.Action, got dict {dump}",
    ),
    "None": (
        lambda move: None,
        "expected a rules.Action, got NoneType None",
    ),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_action_is_illegal_and_changes_nothing(case: str) -> None:
    b, move = duel_on_a_move()
    make, message = MALFORMED[case]
    before = b.to_json()
    with pytest.raises(IllegalActionError) as info:
        b.apply(make(move))
    x, y = move.square
    assert str(info.value) == message.format(x=x, y=y, dump=move.to_dict())
    assert b.to_json() == before
    assert b.apply(move)  # the battle goes on as if nothing had happened


def test_numpy_integers_are_plain_ints_on_entry() -> None:
    b, move = duel_on_a_move()
    events = b.apply(numpy_square(move))
    moves = [e for e in events if isinstance(e, Moved)]
    assert moves and all("np." not in repr(e) and "np." not in str(e) for e in events)
    assert all(type(v) is int for e in moves for square in e.path for v in square)
    reference, _ = duel_on_a_move()
    reference.apply(move)
    assert b.to_json() == reference.to_json()


def test_plain_action_keeps_a_plain_action_as_it_is() -> None:
    action = Action(K.MOVE, square=(1, 2))
    assert plain_action(action) is action
    converted = plain_action(Action(K.MELEE_ATTACK, target=np.str_("orc_1"),
                                    square=(np.int32(1), np.int8(2))))
    assert converted == Action(K.MELEE_ATTACK, target="orc_1", square=(1, 2))
    assert type(converted.target) is str and [type(v) for v in converted.square] == [int, int]


def test_a_whole_battle_of_numpy_squares_logs_plain_ints() -> None:
    """Every legal action with numpy ints in it is accepted and logged as plain ints."""
    b = rules.Battle.from_scenario("duel", seed=3)
    rng = np.random.default_rng(3)
    while not b.is_over:
        acts = b.legal_actions()
        action = acts[rng.integers(len(acts))]
        if action.square is not None:
            action = numpy_square(action)
        b.apply(action)
    assert "np." not in b.to_json()
    assert all("np." not in str(e) for e in b.events)
