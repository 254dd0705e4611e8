"""House rules H9-H11 in scripted battles: parry, dodge and fumbles (of attacks, throws,
parries and dodges).

Every test builds a small inline scenario, fixes initiative and every die it needs and
checks the exact outcome: decisions, HP, positions and events.

The other house rules of this group are split by concept: reach, movement and diagonals
(H12-H14) in test_rules_h_movement.py; prone, missiles and full attack (H15-H17) in
test_rules_h_attacks.py; the dodger's choices and the other corrected rules in
test_rules_h_defence_choices.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import kinds
from scripted import (
    D,
    K,
    act,
    archer,
    decline_all,
    end_turn,
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
