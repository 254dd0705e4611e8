"""The core's shape (issue 7 part 3): one spec row per action kind, typed frames with
their own legal actions and answers, the state apart from the driver, one king-step
table. Exact checks of the tables and whole random battles, nothing timed."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

import pytest

import rules
from rules import Action, ActionKind, DecisionKind, IllegalActionError, actions, effects, legal
from rules.actions import ACTION_SPECS, FIELDS
from rules.frames import FRAME_TYPES, frame_from_dict, frame_to_dict
from rules.grid import KING_STEPS, KING_STEPS_BY_ROW

K = ActionKind
MOVES = {K.MOVE, K.FULL_MOVE, K.DISENGAGE}
ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rules", "env", "agents", "experiments")


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
    with pytest.raises(rules.FrayError, match="version: expected 3, got 1"):
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


# ------------------------------------------------------------------ one home per kind fact
def test_the_derived_kind_sets_are_the_tables_and_say_what_the_sheet_says() -> None:
    assert actions.WALKING_KINDS == (K.MOVE, K.FULL_MOVE, K.DISENGAGE)
    assert {kind: ACTION_SPECS[kind].rate for kind in actions.WALKING_KINDS} == {
        K.MOVE: "half", K.FULL_MOVE: "whole", K.DISENGAGE: "half"}
    assert set(actions.DESTINATION_KINDS) == {*MOVES, K.SHIFT, K.DODGE}
    assert actions.TURN_DESTINATION_KINDS == (K.MOVE, K.FULL_MOVE, K.DISENGAGE, K.SHIFT)
    assert actions.MANOEUVRES == ("grapple", "trip", "disarm")
    assert set(actions.MELEE_MODES) == {"melee", "free", "unarmed", "full_melee", "grapple",
                                        "trip", "disarm"}
    assert set(actions.ATTACK_MODES) - actions.MELEE_MODES == {"missile", "full_missile"}
    assert set(actions.DAMAGING_ATTACKS) == {K.MELEE_ATTACK, K.MISSILE_ATTACK, K.FULL_ATTACK,
                                             K.FREE_ATTACK, K.UNARMED_ATTACK}
    assert actions.attack_mode(K.FULL_ATTACK, "missile") == "full_missile"
    assert actions.attack_mode(K.FULL_ATTACK) == "full_melee"
    assert actions.attack_mode(K.MELEE_ATTACK, "missile") == "melee"  # one mode: always it
    for kind, spec in ACTION_SPECS.items():
        assert (spec.frame is None) == (kind is K.END_TURN or spec.category == "reaction"), kind
        assert spec.frame is None or spec.frame in FRAME_TYPES, kind
        assert (spec.rate is not None) == (spec.frame == "move"), kind
        assert not spec.manoeuvre or spec.attack, kind
        assert {weapon for weapon, _ in spec.attack} <= {"melee", "missile"}, kind


def _kind_member(node: ast.expr) -> str | None:
    """``K.MOVE`` / ``ActionKind.MOVE`` / ``rules.ActionKind.MOVE`` -> "MOVE", else None."""
    if isinstance(node, ast.Attribute) and node.attr in ActionKind.__members__:
        owner = node.value
        name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if name in ("K", "ActionKind"):
            return node.attr
    return None


def _literal_collections(path: Path):
    """(line, members) of each tuple, list or set literal of two or more ActionKind
    members or string constants in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.Tuple, ast.List, ast.Set)) or len(node.elts) < 2:
            continue
        kinds = [_kind_member(element) for element in node.elts]
        if all(kinds):
            yield node.lineno, frozenset(kinds)
        elif all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            yield node.lineno, frozenset(e.value for e in node.elts)


def _derived_sets() -> dict[str, frozenset[str]]:
    """Every kind set the table derives, by member name, by value and as attack modes."""
    families = {
        "WALKING_KINDS": actions.WALKING_KINDS, "DESTINATION_KINDS": actions.DESTINATION_KINDS,
        "TURN_DESTINATION_KINDS": actions.TURN_DESTINATION_KINDS,
        "DAMAGING_ATTACKS": actions.DAMAGING_ATTACKS, "PROVOKING": actions.PROVOKING,
        "MOVE_ACTIONS": actions.MOVE_ACTIONS, "FULL_ACTIONS": actions.FULL_ACTIONS,
        "ATTACK_ACTIONS": actions.ATTACK_ACTIONS, "FREE_ACTIONS": actions.FREE_ACTIONS,
        "REACTIONS": actions.REACTIONS,
        "manoeuvre kinds": [kind for kind, spec in ACTION_SPECS.items() if spec.manoeuvre],
    }
    out: dict[str, frozenset[str]] = {}
    for name, kinds in families.items():
        out[name] = frozenset(kind.name for kind in kinds)
        out[name + " (values)"] = frozenset(kind.value for kind in kinds)
    out["MANOEUVRES"] = frozenset(actions.MANOEUVRES)
    out["MELEE_MODES"] = frozenset(actions.MELEE_MODES)
    out["missile modes"] = frozenset(actions.ATTACK_MODES) - actions.MELEE_MODES
    return out


def test_no_second_list_of_a_kind_set_outside_the_table() -> None:
    """A literal tuple, list or set (of ActionKind members, their names or values, or
    attack modes) equal to a set ``rules.actions`` derives from ``ACTION_SPECS`` is a
    second home for that fact: derive it instead."""
    derived = _derived_sets()
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "rules" / "actions.py":
                continue
            for line, members in _literal_collections(path):
                found += [f"{path.relative_to(ROOT)}:{line} repeats {name}"
                          for name, derived_set in derived.items() if members == derived_set]
    assert found == []


def test_the_second_list_check_finds_a_second_list(tmp_path: Path) -> None:
    source = tmp_path / "copy.py"
    source.write_text("MOVES = {K.MOVE, K.FULL_MOVE, ActionKind.DISENGAGE}\n"
                      "NAMES = ('MOVE', 'FULL_MOVE', 'DISENGAGE', 'SHIFT')\n"
                      "MODES = ('missile', 'full_missile')\n")
    derived = _derived_sets()
    hits = {name for _, members in _literal_collections(source)
            for name, derived_set in derived.items() if members == derived_set}
    assert hits == {"WALKING_KINDS", "TURN_DESTINATION_KINDS", "missile modes"}


# ------------------------------------------------------------------ one glyph table
def test_one_glyph_table_that_the_legend_and_the_viewer_read() -> None:
    import re

    from rules.grid import DEFAULT_DROP, GLYPHS, LEGEND, parse_map

    assert {glyph: spec.meaning for glyph, spec in GLYPHS.items()} == LEGEND
    assert GLYPHS["_"].drop_ft == DEFAULT_DROP and GLYPHS["3"].to_dict(10)["drop"] == 30
    assert GLYPHS["_"].to_dict(20)["drop"] == 20
    row = "".join(GLYPHS)
    grid = parse_map(row, source="test", drop_depth_ft=20)
    assert grid.to_text(drop_depth_ft=20) == row.replace("2", "_") + "\n"  # the default
    for x, spec in enumerate(GLYPHS.values()):
        square = (x, 0)
        assert grid.is_wall(square) == spec.wall
        assert grid.is_difficult(square) == spec.difficult and grid.is_dark(square) == spec.dark
        assert grid.doors.get(square) == (None if spec.door is None else spec.door == "open")
    viewer = ROOT / "experiments" / "viewer"
    for script in viewer.glob("*.js"):
        glyph_tests = re.findall(r"""===\s*["'][#+'~:;_.]["']""", script.read_text())
        assert glyph_tests == [], script.name  # the page reads D.map.legend instead


# ------------------------------------------------------------------ frames, budget
def test_every_frame_leaves_the_stack_through_one_pop() -> None:
    pops = [(path.name, number) for path in sorted((ROOT / "rules").rglob("*.py"))
            for number, line in enumerate(path.read_text().splitlines(), 1)
            if "stack.pop(" in line]
    assert [name for name, _ in pops] == ["attack_frame.py"]  # pop_frame only
    assert set(FRAME_TYPES) == {"move", "act", "ride", "offer", "attack"}
    assert {ACTION_SPECS[kind].frame for kind in (K.MOUNT, K.DISMOUNT)} == {"ride"}


def test_the_budget_rules_live_in_one_module() -> None:
    from rules import budget

    for name in ("can_spend", "free_left", "spell_category"):
        assert getattr(legal, name) is getattr(budget, name)  # legal reads them there
    defined = {path.name for path in sorted((ROOT / "rules").rglob("*.py"))
               if any(f"def {name}(" in path.read_text()
                      for name in ("can_spend", "free_left", "spell_category", "pay"))}
    assert defined == {"budget.py"}
