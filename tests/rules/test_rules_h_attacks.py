"""House rules H15-H17 in scripted battles: attacking from and against prone and standing
up, missiles (range, line of sight, nocking a bow, winding a crossbow, throwing one of a
stack) and the Full Attack, the aimed shot included.

Every test builds a small inline scenario, fixes initiative and every die it needs and
checks the exact outcome: decisions, HP, positions and events.
"""

from __future__ import annotations

import pytest
from builders import decline, kinds
from scripted import (
    D,
    K,
    act,
    archer,
    end_turn,
    hit,
    make,
    next_turn,
    of,
    one,
    swordsman,
    used_up,
)

import rules
from rules import Action
from rules import events as ev


# ================================================================== H15 prone
def test_H15_melee_against_prone_target_plus_20_prone_attacker_minus_20() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2))],
             init=(1, 12))
    act(b, K.FALL_PRONE)
    end_turn(b)
    b.dice.force(90)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.AttackRolled).chance == 70
    next_turn(b, "b")  # prone b attacks standing a
    b.dice.force(90)
    events = act(b, K.MELEE_ATTACK, target="a", item="b.longsword")
    assert one(events, ev.AttackRolled).chance == 30


def test_H15_missiles_against_prone_target_minus_20() -> None:
    b = make([archer("a", "party", (1, 2)), swordsman("b", "monsters", (6, 2))],
             init=(1, 12))
    act(b, K.FALL_PRONE)
    end_turn(b)
    act(b, K.NOCK_ARROW, item="a.short_bow")
    b.dice.force(90)
    events = act(b, K.MISSILE_ATTACK, target="b", item="a.short_bow")
    assert one(events, ev.AttackRolled).chance == 30


def test_H15_prone_must_stand_up_before_moving_and_standing_provokes() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2))],
             init=(1, 12))
    act(b, K.FALL_PRONE)
    assert not kinds(b) & {K.MOVE, K.FULL_MOVE, K.DISENGAGE, K.SHIFT}
    assert K.STAND_UP in kinds(b)
    events = act(b, K.STAND_UP)
    assert one(events, ev.Provoked).enemy == "a"
    decline(b)
    assert not b.combatants["b"].prone
    assert K.MOVE in kinds(b) and K.FULL_MOVE not in kinds(b)  # the second MOVE action


# ================================================================== H16 missiles
LONG = "#" * 29 + "\n#" + "." * 27 + "#\n" + "#" * 29 + "\n"


def test_H16_range_long_range_minus_20_and_beyond_impossible() -> None:
    # sling range 12: 12 squares plain, 13-24 at -20, 25 impossible
    b = make([archer("a", "party", (1, 1), weapon="sling", ammo="sling_stone"),
              swordsman("near", "monsters", (13, 1)), swordsman("far", "monsters", (14, 1)),
              swordsman("edge", "monsters", (25, 1)), swordsman("out", "monsters", (26, 1))],
             LONG, init=(12, 4, 3, 2, 1))
    assert K.MISSILE_ATTACK not in kinds(b)  # nothing loaded yet
    act(b, K.NOCK_ARROW, item="a.sling")
    targets = {a.target for a in b.legal_actions() if a.kind is K.MISSILE_ATTACK}
    assert targets == {"near", "far", "edge"}
    b.dice.force(95)
    events = act(b, K.MISSILE_ATTACK, target="far", item="a.sling")
    assert one(events, ev.AttackRolled).chance == 30
    next_turn(b, "a")
    act(b, K.NOCK_ARROW, item="a.sling")
    b.dice.force(95)
    events = act(b, K.MISSILE_ATTACK, target="near", item="a.sling")
    assert one(events, ev.AttackRolled).chance == 50


def test_H16_line_of_sight_blocked_by_walls_and_closed_doors() -> None:
    m = """
#########
#...#...#
#...+...#
#...#...#
#########
"""
    b = make([archer("a", "party", (1, 2)), swordsman("b", "monsters", (6, 2)),
              swordsman("c", "monsters", (6, 3))], m, init=(12, 2, 1))
    act(b, K.NOCK_ARROW, item="a.short_bow")
    assert K.MISSILE_ATTACK not in kinds(b)
    act(b, K.MOVE, square=(2, 2))
    assert K.MISSILE_ATTACK not in kinds(b)
    next_turn(b, "a")
    act(b, K.MOVE, square=(3, 1))
    assert K.MISSILE_ATTACK not in kinds(b)
    b2 = make([archer("a", "party", (3, 2)), swordsman("b", "monsters", (6, 2)),
               swordsman("c", "monsters", (6, 3))], m, init=(12, 2, 1))
    act(b2, K.NOCK_ARROW, item="a.short_bow")
    assert K.MISSILE_ATTACK not in kinds(b2)
    act(b2, K.OPEN_DOOR, square=(4, 2))
    assert {a.target for a in b2.legal_actions() if a.kind is K.MISSILE_ATTACK} == {"b", "c"}


def test_H16_bows_need_a_free_nock_before_each_shot() -> None:
    b = make([archer("a", "party", (1, 2)), swordsman("b", "monsters", (6, 2), hp=30)],
             init=(12, 1))
    assert K.MISSILE_ATTACK not in kinds(b) and K.FULL_ATTACK not in kinds(b)
    events = act(b, K.NOCK_ARROW, item="a.short_bow")
    assert b.combatants["a"].item("a.short_bow").nocked
    assert b.combatants["a"].item("a.arrow").count == 4
    assert not of(events, ev.Provoked)
    assert b.combatants["a"].actions_used == []  # FREE: the budget is untouched
    assert {K.MISSILE_ATTACK, K.FULL_ATTACK, K.FULL_MOVE} <= kinds(b)
    hit(b, K.MISSILE_ATTACK, "b", "a.short_bow", 60)
    assert not b.combatants["a"].item("a.short_bow").nocked
    assert K.NOCK_ARROW not in kinds(b)  # once per turn (H25)
    next_turn(b, "a")
    assert K.MISSILE_ATTACK not in kinds(b) and K.NOCK_ARROW in kinds(b)


def test_H16_crossbows_need_a_full_round_wind_load_after_each_shot() -> None:
    b = make([archer("a", "party", (1, 2), weapon="light_crossbow", ammo="bolt"),
              swordsman("b", "monsters", (6, 2), hp=30)], init=(12, 1))
    assert K.MISSILE_ATTACK not in kinds(b)
    events = act(b, K.LOAD_CROSSBOW, item="a.light_crossbow")
    assert b.combatants["a"].item("a.light_crossbow").loaded
    assert b.combatants["a"].item("a.bolt").count == 4
    assert b.combatants["a"].actions_used == ["full"]
    assert K.MISSILE_ATTACK not in kinds(b) and K.MOVE not in kinds(b)
    assert not of(events, ev.Provoked)  # nobody in reach
    next_turn(b, "a")
    hit(b, K.MISSILE_ATTACK, "b", "a.light_crossbow", 60)
    assert not b.combatants["a"].item("a.light_crossbow").loaded
    next_turn(b, "a")
    assert K.MISSILE_ATTACK not in kinds(b) and K.LOAD_CROSSBOW in kinds(b)


def test_H16_winding_a_crossbow_next_to_an_enemy_provokes() -> None:
    b = make([archer("a", "party", (2, 2), weapon="light_crossbow", ammo="bolt"),
              swordsman("b", "monsters", (3, 2))], init=(12, 1))
    events = act(b, K.LOAD_CROSSBOW, item="a.light_crossbow")
    assert one(events, ev.Provoked).enemy == "b"
    assert b.decision == rules.Decision(D.FREE_ATTACK, "b", "a")


def test_H16_throwing_one_weapon_of_a_stack_keeps_the_rest_in_hand() -> None:
    gear = [{"item": "javelin", "state": "ready", "count": 2}]
    b = make([archer("a", "party", (1, 2), equipment=gear),
              swordsman("b", "monsters", (5, 2), hp=20)], init=(12, 1))
    a = b.combatants["a"]
    assert a.load_stones == pytest.approx(0.2)
    events = hit(b, K.MISSILE_ATTACK, "b", "a.javelin", 60)
    moved = one(events, ev.ItemMoved)
    assert (moved.state_to, moved.square) == ("ground", (5, 2))
    held = a.item("a.javelin")
    assert held is not None and (held.count, held.state) == (1, "ready")
    assert a.load_stones == pytest.approx(0.1)
    assert [(g.item, g.count, g.square) for g in b.ground] == [("javelin", 1, (5, 2))]
    assert b.ground[0].uid != "a.javelin"
    next_turn(b, "a")
    assert Action(K.MISSILE_ATTACK, target="b", item="a.javelin") in b.legal_actions()


# ================================================================== H17 full attack
def test_H17_full_attack_is_one_melee_attack_at_plus_20() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=20)],
             init=(12, 1))
    events = act(b, K.FULL_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.Provoked).enemy == "b"  # S6: Full Attack provokes
    b.dice.force(95)  # b lets it go; a's blow misses
    events = decline(b)
    rolled = one(events, ev.AttackRolled)
    assert (rolled.attacker, rolled.mode, rolled.chance) == ("a", "full_melee", 70)
    assert b.combatants["a"].actions_used == ["full"]
    assert not kinds(b) & {K.MELEE_ATTACK, K.MOVE, K.FULL_ATTACK}  # one attack only
    used_up(b)


def _aimed(dodge: bool) -> list[ev.Event]:
    b = make([archer("a", "party", (2, 2), hp=20),
              swordsman("b", "monsters", (3, 2)), swordsman("c", "monsters", (7, 2))],
             init=(12, 2, 1))
    act(b, K.NOCK_ARROW, item="a.short_bow")
    events = act(b, K.FULL_ATTACK, target="c", item="a.short_bow")
    assert b.decision == rules.Decision(D.FREE_ATTACK, "b", "a")
    b.dice.force(30)
    events += b.apply(Action(K.FREE_ATTACK, target="a", item="b.longsword"))
    assert b.decision == rules.Decision(D.DODGE, "a", "b")  # a bow cannot parry
    # dodge roll (if any), longsword damage die, then the shot itself (a miss)
    b.dice.force(*((20, 1, 95) if dodge else (1, 95)))
    events += b.apply(Action(K.DODGE, square=(1, 2)) if dodge else Action(K.DECLINE))
    events += decline(b)
    used_up(b)
    return events


def test_H17_aimed_shot_keeps_plus_20_if_the_shooter_does_not_defend() -> None:
    shot = [e for e in of(_aimed(False), ev.AttackRolled) if e.attacker == "a"]
    assert [(e.mode, e.chance) for e in shot] == [("full_missile", 70)]


def test_H17_aimed_shot_loses_plus_20_if_the_shooter_dodges_its_free_attack() -> None:
    events = _aimed(True)
    assert any(isinstance(e, ev.Concentration) and e.what == "aim negated" for e in events)
    shot = [e for e in of(events, ev.AttackRolled) if e.attacker == "a"]
    assert [(e.mode, e.chance) for e in shot] == [("full_missile", 50)]


