"""The core's shape (issue 7 part 3): one spec row per action kind, typed frames with
their own legal actions and answers, the state apart from the driver, one king-step
table. Exact checks of the tables and whole random battles, nothing timed."""

from __future__ import annotations

import json
import random

import pytest

import rules
from rules import Action, ActionKind, DecisionKind, IllegalActionError, effects, legal
from rules.actions import ACTION_SPECS, FIELDS
from rules.frames import FRAME_TYPES, frame_from_dict, frame_to_dict
from rules.grid import KING_STEPS, KING_STEPS_BY_ROW

K = ActionKind
MOVES = {K.MOVE, K.FULL_MOVE, K.DISENGAGE}


def random_decisions(scenario: str, seed: int, limit: int = 400):
    """Yield the battle at each decision of a seeded random game."""
    battle = rules.Battle.from_scenario(scenario, seed=seed)
    pick = random.Random(seed)
    for _ in range(limit):
        if battle.is_over:
            return
        yield battle
        actions = battle.legal_actions()
        battle.apply(actions[pick.randrange(len(actions))])


def test_every_action_kind_has_one_row_a_generator_or_frame_and_an_effect() -> None:
    assert list(ACTION_SPECS) != [] and set(ACTION_SPECS) == set(ActionKind)
    assert set(legal.GENERATORS) == set(legal.TURN_GROUPS)
    for kind, spec in ACTION_SPECS.items():
        assert set(spec.fields) <= set(FIELDS), kind
        if spec.category == "reaction":
            assert spec.generator is None, kind
            continue
        assert spec.generator in legal.GENERATORS, kind
        if kind is not K.END_TURN and kind not in MOVES:
            assert kind in effects.EFFECTS, kind
    assert set(effects.EFFECTS) == {kind for kind, spec in ACTION_SPECS.items()
                                    if spec.category != "reaction"} - MOVES - {K.END_TURN}


@pytest.mark.parametrize("scenario", ["skirmish", "cavalry", "crypt"])
def test_turn_actions_come_in_the_tables_group_order_and_carry_only_their_fields(
        scenario: str) -> None:
    rank = {group: i for i, group in enumerate(legal.TURN_GROUPS)}
    turns = 0
    for battle in random_decisions(scenario, seed=5):
        actions = battle.legal_actions()
        for action in actions:
            carried = ACTION_SPECS[action.kind].fields
            assert all(getattr(action, name) is None for name in FIELDS
                       if name not in carried), action
        if battle.decision.kind is not DecisionKind.TURN:
            continue
        turns += 1
        ranks = [rank[ACTION_SPECS[action.kind].generator] for action in actions]
        assert ranks == sorted(ranks)
        assert actions[0] == Action(K.END_TURN)
    assert turns > 10


def test_a_field_the_kind_does_not_carry_is_an_illegal_action() -> None:
    battle = rules.Battle.from_scenario("duel", seed=1)
    before = len(battle.events)
    with pytest.raises(IllegalActionError, match="END_TURN carries no target"):
        battle.apply(Action(K.END_TURN, target=battle.decision.actor))
    with pytest.raises(IllegalActionError, match="SPEAK carries no square"):
        battle.apply(Action(K.SPEAK, square=(0, 0)))
    assert len(battle.events) == before


def test_frames_round_trip_through_json_at_every_decision() -> None:
    seen: set[str] = set()
    for scenario in ("skirmish", "cavalry", "duel", "ambush"):
        for battle in random_decisions(scenario, seed=11):
            for frame in battle.stack:
                data = json.loads(json.dumps(frame_to_dict(frame)))
                assert frame_from_dict(data) == frame
                assert frame.copy() == frame and frame.copy() is not frame
                seen.add(frame.type)
    assert seen <= set(FRAME_TYPES) and {"offer", "attack"} <= seen


def test_a_frame_raises_on_an_answer_of_a_kind_it_does_not_take() -> None:
    reactions = 0
    for battle in (b for name in ("duel", "cavalry", "ambush")
                   for b in random_decisions(name, seed=11)):
        if battle.decision.kind is DecisionKind.TURN:
            continue
        reactions += 1
        top = battle.stack[-1]
        for wrong in (Action(K.END_TURN), Action(K.SPEAK)):
            with pytest.raises(IllegalActionError, match="no answer"):
                top.answer(battle.state, wrong)
    assert reactions > 0


def test_move_and_act_frames_wait_for_no_decision() -> None:
    battle = rules.Battle.from_scenario("duel", seed=1)
    for frame_type in (FRAME_TYPES["move"], FRAME_TYPES["act"]):
        frame = frame_type("x", "move", ((0, 0),)) if frame_type.type == "move" else \
            frame_type("x", Action(K.SPEAK))
        with pytest.raises(RuntimeError, match="asks for no decision"):
            frame.legal_actions(battle.state, battle.decision)


def test_unknown_frame_type_and_other_json_version_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown frame type 'walk'"):
        frame_from_dict({"type": "walk"})
    data = json.loads(rules.Battle.from_scenario("duel", seed=1).to_json())
    data["version"] = 1
    with pytest.raises(rules.FrayError, match="version: expected 2, found 1"):
        rules.Battle.from_json(json.dumps(data))


def test_end_turn_is_a_request_on_the_state_that_the_driver_honours() -> None:
    battle = rules.Battle.from_scenario("duel", seed=1)
    owner = battle.decision.actor
    events = battle.apply(Action(K.END_TURN))
    assert battle.state.end_turn_requested is False
    assert isinstance(events[0], rules.TurnEnded) and events[0].actor == owner


def test_one_king_step_table_in_two_explicit_orders() -> None:
    assert sorted(KING_STEPS) == sorted(KING_STEPS_BY_ROW)
    assert len(set(KING_STEPS)) == 8 and (0, 0) not in KING_STEPS
    assert KING_STEPS_BY_ROW == ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0),
                                 (-1, 1), (0, 1), (1, 1))
    assert KING_STEPS[:4] == ((0, -1), (-1, 0), (1, 0), (0, 1))
