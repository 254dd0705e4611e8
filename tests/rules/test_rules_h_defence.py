"""House rules H9-H17 in scripted battles: parry, dodge, fumbles, reach, movement and
provocation, diagonals, prone, missiles, full attack.

Every test builds a small inline scenario, fixes initiative and every die it needs and
checks the exact outcome: decisions, HP, positions and events.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import decline, kinds, unit
from scripted import (
    BIG,
    D,
    K,
    act,
    archer,
    decline_all,
    end_turn,
    hit,
    make,
    next_turn,
    of,
    one,
    squares,
    swordsman,
    used_up,
)

import rules
from rules import Action
from rules import events as ev


# ================================================================== H9 parry
def _parry_duel(**bkw: Any) -> rules.Battle:
    kw: dict[str, Any] = {"hp": 30, "equipment": [{"item": "longsword", "state": "ready"},
                                                   {"item": "buckler", "state": "ready"}]}
    kw.update(bkw)
    return make([swordsman("a", "party", (2, 2),
                           equipment=[{"item": "greatsword", "state": "ready"}]),
                 swordsman("b", "monsters", (3, 2), **kw)], init=(12, 1))


def _parried(b: rules.Battle, attack: int, parry_roll: int, *dice: int,
             item: str = "b.buckler") -> list[ev.Event]:
    b.dice.force(attack)
    out = act(b, K.MELEE_ATTACK, target="b", item="a.greatsword")
    assert b.decision == rules.Decision(D.PARRY, "b", "a")
    assert {a.item for a in b.legal_actions() if a.kind is K.PARRY} == {"b.longsword",
                                                                        "b.buckler"}
    b.dice.force(parry_roll, *dice)
    out += b.apply(Action(K.PARRY, item=item))
    out += decline_all(b)
    return out


def test_H9_parry_success_blocks_ap_and_wears_the_item_when_exceeded() -> None:
    b = _parry_duel()
    events = _parried(b, 30, 30, 6, 5)  # greatsword 2d8 = 11 vs buckler AP 8
    assert one(events, ev.ParryRolled).level == "SUCCESS"
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.parried, dmg.damage, dmg.hp) == (11, 8, 3, 27)
    worn = one(events, ev.ItemWorn)
    assert (worn.item, worn.ap) == ("b.buckler", 7)
    assert b.combatants["b"].item("b.buckler").ap == 7
    used_up(b)


def test_H9_special_parry_blocks_twice_ap_without_wear() -> None:
    b = _parry_duel()
    events = _parried(b, 30, 8, 6, 5)  # special parry blocks up to 16
    assert one(events, ev.ParryRolled).level == "SPECIAL"
    dmg = one(events, ev.DamageDealt)
    assert (dmg.parried, dmg.damage) == (11, 0)
    assert not of(events, ev.ItemWorn)
    assert b.combatants["b"].item("b.buckler").ap == 8


def test_H9_special_parry_exceeded_blocks_twice_ap_and_wears() -> None:
    b = _parry_duel()
    b.combatants["b"].item("b.buckler").ap = 5
    events = _parried(b, 30, 8, 8, 7)  # 15 vs 2 x 5 = 10
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.parried, dmg.damage) == (15, 10, 5)
    assert one(events, ev.ItemWorn).ap == 4


def test_H9_critical_parry_blocks_everything_and_skips_dodge() -> None:
    b = _parry_duel()
    b.combatants["b"].item("b.buckler").ap = 1
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="b", item="a.greatsword")
    b.dice.force(2, 8, 8)  # shield 50: critical <= 3
    events = b.apply(Action(K.PARRY, item="b.buckler"))
    # no DODGE decision follows a critical parry: damage is settled at once
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.parried, dmg.damage) == (16, 16, 0)
    assert not of(events, ev.ItemWorn)
    assert b.decision == rules.Decision(D.TURN, "a")


def test_H9_parrying_item_breaks_at_zero_ap() -> None:
    b = _parry_duel()
    b.combatants["b"].item("b.buckler").ap = 1
    events = _parried(b, 30, 30, 2, 2)  # 4 vs AP 1: blocks 1, wears to 0, breaks
    dmg = one(events, ev.DamageDealt)
    assert (dmg.parried, dmg.damage) == (1, 3)
    assert one(events, ev.ItemBroken).item == "b.buckler"
    assert b.combatants["b"].item("b.buckler") is None
    assert all(g.uid != "b.buckler" for g in b.ground)


def test_H9_only_shields_parry_missiles() -> None:
    b = make([archer("a", "party", (1, 2)),
              swordsman("b", "monsters", (5, 2), hp=20,
                        equipment=[{"item": "longsword", "state": "ready"},
                                   {"item": "buckler", "state": "ready"}]),
              swordsman("c", "monsters", (5, 1), hp=20)], init=(12, 2, 1))
    act(b, K.NOCK_ARROW, item="a.short_bow")
    b.dice.force(30)
    act(b, K.MISSILE_ATTACK, target="b", item="a.short_bow")
    assert b.decision == rules.Decision(D.PARRY, "b", "a")
    assert [a.item for a in b.legal_actions() if a.kind is K.PARRY] == ["b.buckler"]
    decline_all(b)
    # c holds only a sword: no parry decision against an arrow, straight to the dodge
    next_turn(b, "a")
    act(b, K.NOCK_ARROW, item="a.short_bow")
    b.dice.force(30)
    act(b, K.MISSILE_ATTACK, target="c", item="a.short_bow")
    assert b.decision == rules.Decision(D.DODGE, "c", "a")


# ================================================================== H10 dodge
def _dodge_duel(**bkw: Any) -> rules.Battle:
    kw: dict[str, Any] = {"hp": 30, "equipment": []}
    kw.update(bkw)
    return make([swordsman("a", "party", (1, 2), skills={"spear": 50},
                           equipment=[{"item": "long_spear", "state": "ready"}]),
                 swordsman("b", "monsters", (3, 2), **kw)], init=(12, 1))


def test_H10_dodge_squares_are_never_closer_to_the_attacker() -> None:
    b = _dodge_duel()
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="b", item="a.long_spear")
    assert b.decision == rules.Decision(D.DODGE, "b", "a")  # nothing to parry with
    dodge_to = {a.square for a in b.legal_actions() if a.kind is K.DODGE}
    assert dodge_to == {(3, 1), (3, 3), (4, 1), (4, 2), (4, 3), None}  # None: fall prone


@pytest.mark.parametrize(("roll", "level", "dodged", "damage"), [
    (30, "SUCCESS", 10, 1), (6, "SPECIAL", 11, 0), (2, "CRITICAL", 11, 0),
    (50, "FAILURE", 0, 11)])
def test_H10_dodge_reduces_by_10_20_or_negates(roll: int, level: str, dodged: int,
                                               damage: int) -> None:
    b = _dodge_duel(skills={"dodge": 40})
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="b", item="a.long_spear")
    b.dice.force(roll, 10)  # dodge 40: special <= 8, critical <= 2; long spear 10 + 1 = 11
    events = b.apply(Action(K.DODGE, square=(4, 2)))
    d = one(events, ev.DodgeRolled)
    assert (d.level, d.square) == (level, (4, 2))
    dmg = one(events, ev.DamageDealt)
    assert (dmg.dodged, dmg.damage) == (dodged, damage)
    assert b.combatants["b"].position == (4, 2)
    assert b.combatants["b"].shifted_this_round
    used_up(b)


def test_H10_dodge_after_a_parry_reduces_what_is_left() -> None:
    b = _parry_duel()
    b.combatants["b"].item("b.buckler").ap = 3
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="b", item="a.greatsword")
    b.dice.force(30)
    b.apply(Action(K.PARRY, item="b.buckler"))
    assert b.decision == rules.Decision(D.DODGE, "b", "a")
    b.dice.force(30, 8, 7)  # dodge success; greatsword 15: parry 3, dodge 10 -> 2
    events = b.apply(Action(K.DODGE, square=(4, 2)))
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.parried, dmg.dodged, dmg.damage) == (15, 3, 10, 2)
    used_up(b)


def test_H10_dodger_that_cannot_shift_falls_prone() -> None:
    b = make([swordsman("a", "party", (2, 2)),
              swordsman("b", "monsters", (4, 2), hp=20, equipment=[])], init=(1, 12))
    act(b, K.SHIFT, square=(3, 2))  # b spends its Shift for the round
    end_turn(b)
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert b.decision == rules.Decision(D.DODGE, "b", "a")
    assert [a for a in b.legal_actions() if a.kind is K.DODGE] == [Action(K.DODGE)]
    b.dice.force(30, 5)
    events = b.apply(Action(K.DODGE))
    assert one(events, ev.DodgeRolled).square is None
    assert b.combatants["b"].prone and b.combatants["b"].position == (3, 2)
    assert one(events, ev.DamageDealt).damage == 0  # 6 - 10


def test_H10_a_dodge_shift_uses_the_shift_for_the_round() -> None:
    b = _dodge_duel(skills={"dodge": 40})
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="b", item="a.long_spear")
    b.dice.force(30, 1)
    b.apply(Action(K.DODGE, square=(4, 2)))
    end_turn(b)
    assert b.decision == rules.Decision(D.TURN, "b") and b.round == 1
    # S7: the Shift is spent, and a combatant that shifted does not otherwise move
    assert not kinds(b) & {K.SHIFT, K.MOVE, K.FULL_MOVE, K.DISENGAGE}
    next_turn(b, "b")
    assert {K.SHIFT, K.MOVE} <= kinds(b)


# ================================================================== H11 fumbles
def test_H11_fumbled_attack_drops_the_weapon_in_the_attackers_square() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2))],
             init=(12, 1))
    b.dice.force(98)  # sword 50: fumble on 98-00
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.AttackRolled).level == "FUMBLE"
    assert not of(events, ev.DamageDealt)
    moved = one(events, ev.ItemMoved)
    assert (moved.item, moved.state_to, moved.square) == ("a.longsword", "ground", (2, 2))
    assert b.combatants["a"].item("a.longsword") is None
    assert [(g.uid, g.square) for g in b.ground] == [("a.longsword", (2, 2))]
    assert b.decision == rules.Decision(D.TURN, "a")
    assert not b.combatants["a"].threatens


def test_H11_fumbled_throw_drops_the_weapon_in_the_throwers_square() -> None:
    gear = [{"item": "javelin", "state": "ready", "count": 2}]
    b = make([archer("a", "party", (1, 2), equipment=gear),
              swordsman("b", "monsters", (5, 2), hp=20)], init=(12, 1))
    b.dice.force(99)  # throw 50 fumbles on 98-00
    events = act(b, K.MISSILE_ATTACK, target="b", item="a.javelin")
    assert one(events, ev.AttackRolled).level == "FUMBLE"
    assert [(g.item, g.square) for g in b.ground] == [("javelin", (1, 2))]
    assert of(events, ev.ItemMoved)[-1].square == (1, 2)
    assert b.combatants["a"].item("a.javelin").count == 1  # the other one is still in hand


def test_H11_fumbled_parry_lets_the_attack_through_untouched() -> None:
    b = _parry_duel()
    events = _parried(b, 30, 99, 6, 5)  # shield 50 fumbles on 98-00
    assert one(events, ev.ParryRolled).level == "FUMBLE"
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.parried, dmg.damage) == (11, 0, 11)
    assert not of(events, ev.ItemWorn)
    assert b.combatants["b"].item("b.buckler").ap == 8


def test_H11_fumbled_dodge_lets_the_attack_through_untouched() -> None:
    b = _dodge_duel(skills={"dodge": 40})
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="b", item="a.long_spear")
    b.dice.force(98, 10)  # dodge 40 fumbles on 98-00
    events = b.apply(Action(K.DODGE, square=(4, 2)))
    assert one(events, ev.DodgeRolled).level == "FUMBLE"
    dmg = one(events, ev.DamageDealt)
    assert (dmg.dodged, dmg.damage) == (0, 11)


# ================================================================== H12 reach
def test_H12_long_reach_attacks_two_squares_away_medium_only_adjacent() -> None:
    b = make([swordsman("a", "party", (1, 2), skills={"spear": 50},
                        equipment=[{"item": "long_spear", "state": "ready"},
                                   {"item": "longsword", "state": "carried"}]),
              swordsman("b", "monsters", (3, 3)),
              swordsman("c", "monsters", (4, 2))], init=(12, 2, 1))
    targets = {(a.target, a.item) for a in b.legal_actions() if a.kind is K.MELEE_ATTACK}
    assert targets == {("b", "a.long_spear")}  # 2 away diagonally yes, 3 away no
    act(b, K.SHIFT, square=(2, 2))  # "up to 2 squares": adjacent targets too
    targets = {a.target for a in b.legal_actions() if a.kind is K.MELEE_ATTACK}
    assert targets == {"b", "c"}
    b2 = make([swordsman("a", "party", (1, 2)), swordsman("b", "monsters", (3, 3)),
               swordsman("c", "monsters", (2, 3))], init=(12, 2, 1))
    targets = {a.target for a in b2.legal_actions() if a.kind is K.MELEE_ATTACK}
    assert targets == {"c"}  # medium reach: the adjacent diagonal only


def _leave(threat: dict[str, Any], mover_at: tuple[int, int], dest: tuple[int, int],
           setup: Any = None) -> tuple[rules.Battle, list[ev.Event]]:
    """b (first in initiative) walks from ``mover_at`` to ``dest`` past a at (2, 2)."""
    b = make([swordsman("a", "party", (2, 2), **threat),
              swordsman("b", "monsters", mover_at)], init=(1, 12))
    if setup is not None:
        setup(b)
    events = act(b, K.MOVE, square=dest)
    return b, events


@pytest.mark.parametrize(("threat", "mover_at", "provokes"), [
    ({}, (3, 2), True),  # M reach: adjacent
    ({}, (3, 3), True),  # diagonals too
    ({"skills": {"spear": 50}, "equipment": [{"item": "long_spear", "state": "ready"}]},
     (4, 2), True),  # L reach: 2 squares
    ({}, (4, 2), False),  # M reach does not reach 2 squares
    ({"equipment": [{"item": "longsword", "state": "sheathed"}]}, (3, 2), False),
    ({"equipment": [{"item": "short_bow", "state": "ready"}]}, (3, 2), False),
    ({"creature": "wolf"}, (3, 2), True),  # natural weapons count
])
def test_H12_who_threatens(threat: dict[str, Any], mover_at: tuple[int, int],
                           provokes: bool) -> None:
    threat = dict(threat)
    if "creature" in threat:
        b = make([unit("a", "party", threat["creature"], (2, 2)),
                  swordsman("b", "monsters", mover_at)], init=(1, 12))
        events = act(b, K.MOVE, square=(7, 2))
    else:
        b, events = _leave(threat, mover_at, (7, 2))
    assert bool(of(events, ev.Provoked)) is provokes
    expected = rules.Decision(D.FREE_ATTACK, "a", "b") if provokes else \
        rules.Decision(D.TURN, "b")
    assert b.decision == expected


def test_H12_prone_or_out_of_action_enemies_do_not_threaten() -> None:
    def prone(b: rules.Battle) -> None:
        b.combatants["a"].prone = True

    b, events = _leave({}, (3, 2), (7, 2), prone)
    assert not of(events, ev.Provoked) and b.combatants["b"].position == (7, 2)

    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2)),
              swordsman("c", "monsters", (7, 1))], init=(12, 6, 1))
    hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 8)  # 9 damage: b is out
    # b, now out of action, threatens nobody: a walks off without a Free Attack offer
    assert b.combatants["b"].status == "out"
    next_turn(b, "a")
    assert not of(act(b, K.MOVE, square=(5, 3)), ev.Provoked)


def test_H12_walls_block_reach() -> None:
    m = """
#######
#.....#
###.###
#.....#
#######
"""
    b = make([swordsman("a", "party", (1, 1), skills={"spear": 50},
                        equipment=[{"item": "long_spear", "state": "ready"}]),
              swordsman("b", "monsters", (1, 3))], m, init=(12, 1))
    assert not any(a.kind is K.MELEE_ATTACK for a in b.legal_actions())


# ================================================================== H13 movement provokes
def test_H13_free_attack_comes_before_the_mover_leaves_then_the_move_completes() -> None:
    b, events = _leave({}, (3, 2), (6, 2))
    p = one(events, ev.Provoked)
    assert (p.actor, p.enemy) == ("b", "a")
    assert b.decision == rules.Decision(D.FREE_ATTACK, "a", "b")
    assert b.combatants["b"].position == (3, 2)  # still in the square it is leaving
    assert Action(K.FREE_ATTACK, target="b", item="a.longsword") in b.legal_actions()
    b.dice.force(60)  # a misses
    events = b.apply(Action(K.FREE_ATTACK, target="b", item="a.longsword"))
    assert one(events, ev.AttackRolled).mode == "free"
    moved = one(events, ev.Moved)
    assert moved.complete and moved.path[0] == (3, 2) and moved.path[-1] == (6, 2)
    assert b.combatants["b"].position == (6, 2)
    assert b.combatants["a"].free_attack_used
    used_up(b)


def test_H13_each_enemy_provoked_at_most_once_per_action() -> None:
    b, events = _leave({"skills": {"spear": 50},
                        "equipment": [{"item": "long_spear", "state": "ready"}]},
                       (3, 1), (3, 3))
    assert len(of(events, ev.Provoked)) == 1
    events = decline(b)  # a lets b go; b still walks through a's threatened squares
    moved = one(events, ev.Moved)
    assert moved.path == ((3, 1), (3, 2), (3, 3)) and moved.complete
    assert not of(events, ev.Provoked)
    assert b.decision == rules.Decision(D.TURN, "b")


def test_H13_every_threatening_enemy_gets_its_offer_in_initiative_order() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("c", "party", (2, 3)),
              swordsman("b", "monsters", (3, 2))], init=(6, 8, 12))
    events = act(b, K.MOVE, square=(6, 2))
    assert [e.enemy for e in of(events, ev.Provoked)] == ["c", "a"]
    assert b.decision == rules.Decision(D.FREE_ATTACK, "c", "b")
    b.apply(Action(K.DECLINE))
    assert b.decision == rules.Decision(D.FREE_ATTACK, "a", "b")
    events = b.apply(Action(K.DECLINE))
    assert one(events, ev.Moved).complete and b.combatants["b"].position == (6, 2)


def test_H13_mover_knocked_prone_stops_where_it_is() -> None:
    b, _ = _leave({"equipment": [{"item": "mace", "state": "ready"}], "skills": {"mace": 50}},
                  (3, 2), (7, 2))
    b.dice.force(8)  # special crush
    b.apply(Action(K.FREE_ATTACK, target="b", item="a.mace"))
    b.dice.force(1, 99)  # mace 1d8+2 -> 3; knockdown CON 10 vs 3 = 85%: 99 fails
    events = decline(b)
    assert b.combatants["b"].prone
    moved = one(events, ev.Moved)
    assert (moved.path, moved.complete) == (((3, 2),), False)
    assert b.combatants["b"].position == (3, 2)
    assert b.decision == rules.Decision(D.TURN, "b")
    used_up(b)


def test_H13_mover_dropped_out_of_action_stops_where_it_is() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=2),
              swordsman("c", "monsters", (7, 1))], init=(1, 12, 2))
    act(b, K.MOVE, square=(6, 3))
    b.dice.force(30)
    b.apply(Action(K.FREE_ATTACK, target="b", item="a.longsword"))
    b.dice.force(4)  # 5 damage
    events = decline(b)
    assert b.combatants["b"].status == "out"
    moved = one(events, ev.Moved)
    assert (moved.path, moved.complete) == (((3, 2),), False)
    assert b.combatants["b"].position == (3, 2)
    assert b.decision == rules.Decision(D.TURN, "c")


DOOR_MAP = """
#######
#..#..#
#..+..#
#..#..#
#######
"""


def test_H13_closed_doors_and_walls_block_movement_until_opened() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (5, 1))],
             DOOR_MAP, init=(12, 1))
    assert all(sq[0] < 3 for sq in squares(b, K.FULL_MOVE))
    events = act(b, K.OPEN_DOOR, square=(3, 2))
    assert one(events, ev.DoorChanged).open
    assert {(3, 2), (4, 2), (4, 3)} <= squares(b, K.MOVE)
    assert (4, 1) in squares(b, K.MOVE)  # via the door: (3, 2) -> (4, 1) is no corner cut


def test_H13_diagonals_cannot_cut_a_wall_corner() -> None:
    m = """
#####
#...#
#.#.#
#...#
#####
"""
    b = make([swordsman("a", "party", (1, 2)), swordsman("b", "monsters", (3, 3))], m,
             init=(12, 1))
    events = act(b, K.MOVE, square=(2, 1))
    moved = one(events, ev.Moved)
    assert moved.path == ((1, 2), (1, 1), (2, 1)) and moved.cost == 2


CORRIDOR = """
#########
#.......#
#########
"""


def test_H13_allies_may_be_passed_but_not_ended_on() -> None:
    b = make([swordsman("a", "party", (1, 1)), swordsman("ally", "party", (2, 1)),
              swordsman("z", "monsters", (7, 1))], CORRIDOR, init=(12, 6, 1))
    dests = squares(b, K.MOVE)
    assert (2, 1) not in dests and {(3, 1), (4, 1), (5, 1)} <= dests
    events = act(b, K.MOVE, square=(4, 1))
    assert one(events, ev.Moved).path == ((1, 1), (2, 1), (3, 1), (4, 1))


def test_H13_enemies_block() -> None:
    b = make([swordsman("a", "party", (1, 1)), swordsman("z", "monsters", (3, 1))],
             CORRIDOR, init=(12, 1))
    assert squares(b, K.FULL_MOVE) == {(2, 1)}


def test_H13_difficult_terrain_costs_double() -> None:
    m = """
#########
#.~~....#
#########
"""
    b = make([swordsman("a", "party", (1, 1)), swordsman("z", "monsters", (7, 1))], m,
             init=(12, 1))
    assert squares(b, K.MOVE) == {(2, 1), (3, 1), (4, 1)}  # 2 + 2 + 1 = 5
    assert squares(b, K.SHIFT) == set()  # choice: no 5 ft step into difficult terrain
    events = act(b, K.MOVE, square=(4, 1))
    assert one(events, ev.Moved).cost == 5
    flat = make([swordsman("a", "party", (1, 1)), swordsman("z", "monsters", (7, 1))],
                CORRIDOR, init=(12, 1))
    assert squares(flat, K.MOVE) == {(2, 1), (3, 1), (4, 1), (5, 1), (6, 1)}


# ================================================================== H14 diagonal count
def test_H14_diagonal_count_carries_across_two_moves_and_resets_each_round() -> None:
    b = make([swordsman("a", "party", (1, 1)), swordsman("z", "monsters", (9, 6))], BIG,
             init=(12, 1))
    # fresh count: 3 diagonals (1 + 2 + 1) and one straight step = 5 squares' budget
    assert (5, 4) in squares(b, K.MOVE)
    events = act(b, K.MOVE, square=(2, 2))  # one diagonal, cost 1
    assert one(events, ev.Moved).cost == 1
    # the next diagonal costs 2: (2, 2) -> (6, 5) would be 2 + 1 + 2 + 1 = 6
    assert (6, 5) not in squares(b, K.MOVE)
    assert (6, 4) in squares(b, K.MOVE)  # 2 + 1 + 2 = 5
    events = act(b, K.MOVE, square=(4, 4))
    assert one(events, ev.Moved).cost == 3  # 2 + 1
    next_turn(b, "a")  # a new round: the count starts again
    assert b.combatants["a"].diagonal_parity == 0
    assert (8, 7 - 1) in squares(b, K.MOVE)  # (4, 4) -> (8, 6): 1 + 2 + 1 + 1


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


