"""House rule H18 in scripted battles: spells (free and attack-action castings, failure,
components, multi-round castings, the armour burden). The other world rules, H19-H25,
are in test_rules_h_world.py.

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
    end_turn,
    hit,
    mage,
    make,
    next_turn,
    of,
    one,
    swordsman,
    turn_of,
    used_up,
)

import rules
from rules import Action
from rules import events as ev


# ================================================================== H18 spells
def test_H18_free_spell_uses_no_action_does_not_provoke_and_costs_its_pp() -> None:
    b = make([mage("m", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=10)],
             init=(12, 1))
    assert b.combatants["m"].power_points == 17
    events = hit(b, K.CAST_SPELL, "b", "spark", 30, 2)  # spark 1d3 -> 2
    assert not of(events, ev.Provoked)
    cast = one(events, ev.SpellCast)
    assert (cast.spell, cast.level, cast.cost, cast.chance) == ("spark", "SUCCESS", 1, 70)
    assert one(events, ev.DamageDealt).hp == 8
    m = b.combatants["m"]
    assert m.power_points == 16 and m.actions_used == []
    assert not any(a.item == "spark" for a in b.legal_actions() if a.kind is K.CAST_SPELL)
    assert Action(K.CAST_SPELL, target="b", item="firebolt") in b.legal_actions()
    used_up(b)


def test_H18_attack_action_spell_provokes_and_spends_the_attack() -> None:
    b = make([mage("m", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=20)],
             init=(12, 1))
    events = act(b, K.CAST_SPELL, target="b", item="firebolt")
    assert one(events, ev.Provoked).enemy == "b"
    b.dice.force(30, 3, 4)  # cast roll, 2d6
    events = decline(b)
    assert one(events, ev.SpellCast).cost == 3
    assert one(events, ev.DamageDealt).hp == 13
    m = b.combatants["m"]
    assert m.power_points == 14 and m.actions_used == ["attack"]
    assert K.MOVE in kinds(b) and K.MELEE_ATTACK not in kinds(b)
    used_up(b)


def test_H18_failed_casting_costs_one_pp_and_has_no_effect() -> None:
    b = make([mage("m", "party", (2, 2)), swordsman("b", "monsters", (6, 2), hp=20)],
             init=(12, 1))
    b.dice.force(80)
    events = act(b, K.CAST_SPELL, target="b", item="firebolt")
    cast = one(events, ev.SpellCast)
    assert (cast.level, cast.cost) == ("FAILURE", 1)
    assert b.combatants["m"].power_points == 16
    assert not of(events, ev.DamageDealt) and b.combatants["b"].hp == 20


def test_H18_components_must_be_prepared_free_before_each_casting() -> None:
    b = make([mage("m", "party", (2, 2)), swordsman("ally", "party", (2, 3), hp=10),
              swordsman("b", "monsters", (7, 1))], init=(12, 6, 1))
    b.combatants["ally"].hp = 3
    assert not any(a.item == "heal" for a in b.legal_actions())
    events = act(b, K.PREPARE_COMPONENTS)
    assert b.combatants["m"].components_ready and b.combatants["m"].actions_used == []
    assert K.PREPARE_COMPONENTS not in kinds(b)
    b.dice.force(30, 4)  # heal 1d6+1 -> 5
    events = act(b, K.CAST_SPELL, target="ally", item="heal")
    assert one(events, ev.SpellCast).cost == 2
    assert b.combatants["ally"].hp == 8
    m = b.combatants["m"]
    assert not m.components_ready and m.actions_used == ["full"]  # heal is a full round
    next_turn(b, "m")
    assert not any(a.item == "heal" for a in b.legal_actions() if a.kind is K.CAST_SPELL)
    used_up(b)


def test_H18_multi_round_spell_takes_its_rounds_and_pp_at_the_end() -> None:
    b = make([mage("m", "party", (2, 2)),
              swordsman("ally", "party", (4, 2), armour="chain", armour_training="moderate"),
              swordsman("b", "monsters", (7, 3))], init=(12, 6, 1))
    events = act(b, K.CAST_SPELL, target="ally", item="bless")
    assert one(events, ev.Concentration).what == "casting bless (1/2)"
    m = b.combatants["m"]
    assert m.power_points == 17 and m.actions_used == ["full"] and not of(events, ev.SpellCast)
    next_turn(b, "m")
    assert Action(K.CAST_SPELL, target="ally", item="bless") in b.legal_actions()
    b.dice.force(30)
    events = act(b, K.CAST_SPELL, target="ally", item="bless")
    assert one(events, ev.SpellCast).cost == 2 and m.power_points == 15
    # H3: +20 points after the chain mail's x1/2: 50 x 1/2 + 20
    assert b.combatants["ally"].skill("sword", b.round) == 45


def test_H18_multi_round_casting_aborted_by_a_defence() -> None:
    b = make([mage("m", "party", (2, 2)), swordsman("ally", "party", (2, 3)),
              swordsman("b", "monsters", (5, 2))], init=(12, 6, 1))
    act(b, K.CAST_SPELL, target="ally", item="bless")
    assert b.combatants["m"].casting is not None
    turn_of(b, "b")
    act(b, K.MOVE, square=(3, 2))
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="m", item="b.longsword")
    assert b.decision == rules.Decision(D.PARRY, "m", "b")
    b.dice.force(90, 1)  # a failed parry is still a defence attempt
    events = b.apply(Action(K.PARRY, item="m.dagger"))
    events += decline(b)
    assert any(isinstance(e, ev.Concentration) and e.what == "multi-round casting aborted"
               for e in events)
    assert b.combatants["m"].casting is None
    next_turn(b, "m")
    events = act(b, K.CAST_SPELL, target="ally", item="bless")
    events += decline(b)  # S6: casting next to b provokes; b lets it go
    assert one(events, ev.Concentration).what == "casting bless (1/2)"  # starts over
    assert b.combatants["m"].power_points == 17


def test_H18_multi_round_spell_cannot_finish_without_its_pp() -> None:
    b = make([mage("m", "party", (2, 2)), swordsman("ally", "party", (2, 3)),
              swordsman("b", "monsters", (7, 2))], init=(12, 6, 1))
    m = b.combatants["m"]
    m.power_points = 2
    act(b, K.CAST_SPELL, target="ally", item="bless")
    next_turn(b, "m")
    assert Action(K.CAST_SPELL, target="ally", item="bless") in b.legal_actions()
    b.dice.force(30, 1)
    act(b, K.CAST_SPELL, target="b", item="spark")  # a free spell spends 1 PP meanwhile
    assert m.power_points == 1
    assert Action(K.CAST_SPELL, target="ally", item="bless") not in b.legal_actions()
    events = end_turn(b)
    assert any(isinstance(e, ev.Concentration) and e.what == "multi-round casting abandoned"
               for e in events)
    assert m.casting is None and m.power_points == 1
    assert not b.combatants["ally"].buffs


@pytest.mark.parametrize(("armour", "level"), [("none", "FAILURE"), ("leather", "FUMBLE")])
def test_H18_armour_burden_widens_the_magic_fumble_range(armour: str, level: str) -> None:
    # cast 70 fumbles on 99-00; light burden adds 10 numbers: 89-00
    b = make([mage("m", "party", (2, 2), armour=armour, armour_training="light"),
              swordsman("b", "monsters", (6, 2))], init=(12, 1))
    b.dice.force(90)
    events = act(b, K.CAST_SPELL, target="b", item="spark")
    assert one(events, ev.SpellCast).level == level
    b2 = make([mage("m", "party", (2, 2), armour=armour, armour_training="light"),
               swordsman("b", "monsters", (6, 2))], init=(12, 1))
    b2.dice.force(88)
    assert one(act(b2, K.CAST_SPELL, target="b", item="spark"), ev.SpellCast).level == "FAILURE"
