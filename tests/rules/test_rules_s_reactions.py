"""The sheet's rules in scripted battles: Free Attacks, provoking actions, shift and
disengage, parry, dodge, fighting defensively, concentration (S5-S11).

Each test builds a small inline scenario, fixes every die it depends on with
``battle.dice.force`` and checks the exact outcome (see sheet.py for the stock units).
"""

from __future__ import annotations

import pytest
from builders import K, advance_to, arena, build, decline, has, kinds, of_type, play, unit
from sheet import (
    ATTACK_KINDS,
    MOVE_KINDS,
    NON_PROVOKING_CASES,
    PROVOKING_CASES,
    D,
    archer,
    decision,
    duel,
    gob,
    hero,
    mage,
    s6_quiet,
    setup_actor,
    turn_of,
)

import rules
from rules import Action
from rules import events as ev


# ====================================================================== S5 free attacks
def test_S5_leaving_a_threatened_square_offers_a_free_attack_before_the_mover_leaves() -> None:
    b = duel(hero_at=(2, 2), gob_at=(3, 2))
    events = play(b, (K.MOVE, {"square": (1, 2)}))
    assert [(e.actor, e.enemy) for e in of_type(events, ev.Provoked)] == [("hero", "gob")]
    assert not of_type(events, ev.Moved)
    assert decision(b) == (D.FREE_ATTACK, "gob", "hero")
    assert b.combatants["hero"].position == (2, 2)
    assert b.legal_actions() == [Action(K.FREE_ATTACK, target="hero", item="gob.spear"),
                                 Action(K.DECLINE)]


def test_S5_free_attack_resolves_before_move_completes() -> None:
    b = duel(hero_at=(2, 2), gob_at=(3, 2), hero_kw={"hp": 20})
    play(b, (K.MOVE, {"square": (1, 2)}))
    b.dice.force(10, 4, 1)  # hit; spear 1d6+1 = 5, bonus -1d4 = -1
    events = play(b, (K.FREE_ATTACK, {"target": "hero"}))
    events += decline(b)  # no parry, no dodge
    names = [type(e).__name__ for e in events]
    assert names.index("AttackRolled") < names.index("DamageDealt") < names.index("Moved")
    (dmg,) = of_type(events, ev.DamageDealt)
    assert (dmg.target, dmg.damage, dmg.hp) == ("hero", 4, 16)
    (att,) = of_type(events, ev.AttackRolled)
    assert (att.attacker, att.mode, att.roll) == ("gob", "free", 10)
    turn_of(b, "hero")
    assert b.combatants["hero"].position == (1, 2)


def test_S5_free_attack_that_drops_the_mover_stops_the_move() -> None:
    b = duel(hero_at=(2, 2), gob_at=(3, 2), hero_kw={"hp": 2})
    play(b, (K.MOVE, {"square": (1, 2)}))
    b.dice.force(10, 4, 1)
    play(b, (K.FREE_ATTACK, {"target": "hero"}))
    events = decline(b)
    h = b.combatants["hero"]
    assert not h.in_action and h.position == (2, 2)
    (moved,) = of_type(events, ev.Moved)
    assert moved.path == ((2, 2),) and not moved.complete


def test_S5_one_free_attack_per_character_per_round() -> None:
    b = duel(hero_at=(2, 2), gob_at=(3, 2))
    play(b, (K.FALL_PRONE, {}), (K.STAND_UP, {}))
    assert decision(b) == (D.FREE_ATTACK, "gob", "hero")
    b.dice.force(96)
    play(b, (K.FREE_ATTACK, {"target": "hero"}))
    turn_of(b, "hero")
    assert b.combatants["gob"].free_attack_used
    events = play(b, (K.SHEATHE_WEAPON, {"item": "hero.medium_shield"}))  # provoking, again
    assert not of_type(events, ev.Provoked)
    turn_of(b, "hero")
    events = play(b, (K.END_TURN, {}), (K.END_TURN, {}))  # gob's turn passes; round 2
    turn_of(b, "hero")
    assert b.round == 2 and not b.combatants["gob"].free_attack_used
    events = play(b, (K.SHEATHE_WEAPON, {"item": "hero.longsword"}))
    assert decision(b) == (D.FREE_ATTACK, "gob", "hero")


def test_S5_each_threatening_enemy_gets_its_own_free_attack() -> None:
    b = duel(hero_at=(2, 2), gob_at=(3, 2), extra=[gob((3, 3), uid="gob2")],
             order=("hero",))
    play(b, (K.SHEATHE_WEAPON, {"item": "hero.medium_shield"}))
    assert decision(b) == (D.FREE_ATTACK, "gob", "hero")
    b.dice.force(96)
    play(b, (K.FREE_ATTACK, {"target": "hero"}))
    assert decision(b) == (D.FREE_ATTACK, "gob2", "hero")
    play(b, (K.DECLINE, {}))
    turn_of(b, "hero")
    (item_ev,) = of_type(b.events, ev.ItemMoved)
    assert (item_ev.item, item_ev.state_to) == ("hero.medium_shield", "carried")


def test_S5_no_free_attack_out_of_reach() -> None:
    b = duel(hero_at=(2, 2), gob_at=(4, 2))  # a spear (reach M) threatens adjacent only
    events = play(b, (K.SHEATHE_WEAPON, {"item": "hero.medium_shield"}))
    assert not of_type(events, ev.Provoked)
    turn_of(b, "hero")


# ====================================================================== S6 provoking actions
@pytest.mark.parametrize("case", sorted(PROVOKING_CASES))
def test_S6_provoking_action_gives_adjacent_enemy_a_free_attack(case: str) -> None:
    setup, (kind, fields), actor = PROVOKING_CASES[case]
    b = setup()
    turn_of(b, actor)
    if case.startswith("failed"):
        b.dice.force(99)  # the Ride roll fails
    events = play(b, (kind, fields))
    assert [(e.actor, e.enemy) for e in of_type(events, ev.Provoked)] == [(actor, "gob")]
    assert decision(b) == (D.FREE_ATTACK, "gob", actor)
    assert has(b, K.FREE_ATTACK, target=actor)


@pytest.mark.parametrize("case", sorted(NON_PROVOKING_CASES))
def test_S6_actions_not_on_the_list_do_not_provoke(case: str) -> None:
    actor_unit, action, pre, force = NON_PROVOKING_CASES[case]
    events = s6_quiet(actor_unit, action, pre=pre, force=force)
    assert of_type(events, ev.ActionTaken)
    assert not of_type(events, ev.Provoked)
    assert not [e for e in of_type(events, ev.AttackRolled) if e.mode == "free"]


def test_S6_successful_mount_and_open_door_do_not_provoke() -> None:
    b = setup_actor(hero((2, 2)), extra=[unit("horse", "party", "horse", (1, 2))])
    b.dice.force(5)  # the Ride roll succeeds
    events = play(b, (K.MOUNT, {"target": "horse"}))
    assert not of_type(events, ev.Provoked)
    turn_of(b, "hero")
    assert b.combatants["hero"].riding == "horse"
    rows = ["#######", "#..+..#", "#######"]
    b2 = build(arena(rows=rows), [hero((2, 1)), gob((1, 1))], order=["hero"])
    events = play(b2, (K.OPEN_DOOR, {"square": (3, 1)}))
    assert not of_type(events, ev.Provoked) and of_type(events, ev.DoorChanged)
    turn_of(b2, "hero")


# ====================================================================== S7 shift, disengage
def test_S7_shift_never_provokes_and_rules_out_moving() -> None:
    b = duel(hero_at=(2, 2), gob_at=(3, 2))
    events = play(b, (K.SHIFT, {"square": (1, 2)}))
    assert not of_type(events, ev.Provoked)
    turn_of(b, "hero")
    h = b.combatants["hero"]
    assert h.position == (1, 2) and h.actions_used == [] and h.shifted_this_round
    assert not kinds(b) & (MOVE_KINDS | {K.SHIFT})
    assert K.FIGHT_DEFENSIVELY in kinds(b)  # the ATTACK action is still there


def test_S7_no_shift_after_moving() -> None:
    b = duel(hero_at=(1, 2), gob_at=(6, 2))
    assert has(b, K.SHIFT)
    play(b, (K.MOVE, {"square": (2, 2)}))
    assert not has(b, K.SHIFT)


def test_S7_shift_once_per_round_a_later_dodge_cannot_shift() -> None:
    b = duel(hero_at=(1, 2), gob_at=(3, 2))
    play(b, (K.SHIFT, {"square": (2, 2)}), (K.END_TURN, {}))
    b.dice.force(10)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}), (K.DECLINE, {}))  # hit; no parry
    assert decision(b) == (D.DODGE, "hero", "gob")
    assert b.legal_actions() == [Action(K.DODGE), Action(K.DECLINE)]  # prone only
    decline(b)
    play(b, (K.END_TURN, {}))
    turn_of(b, "hero")
    assert b.round == 2 and has(b, K.SHIFT)


def test_S7_disengage_never_provokes_and_covers_one_normal_move() -> None:
    b = duel(hero_at=(2, 2), gob_at=(3, 2), extra=[gob((3, 3), uid="gob2")],
             order=("hero",), width=11)
    disengage = {a.square for a in b.legal_actions() if a.kind is K.DISENGAGE}
    move = {a.square for a in b.legal_actions() if a.kind is K.MOVE}
    assert disengage == move and (2, 5) in disengage and (7, 1) in disengage
    assert (8, 1) not in disengage
    events = play(b, (K.DISENGAGE, {"square": (7, 1)}))
    assert not of_type(events, ev.Provoked)
    turn_of(b, "hero")
    (moved,) = of_type(events, ev.Moved)
    assert moved.complete and moved.path[0] == (2, 2) and moved.path[-1] == (7, 1)
    assert b.combatants["hero"].actions_used == ["full"]


# ====================================================================== S8 parry
def test_S8_parry_is_offered_after_a_hit_only() -> None:
    b = duel(order=("gob", "hero"))
    b.dice.force(96)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}))
    turn_of(b, "gob")  # a miss: nothing to parry
    b = duel(order=("gob", "hero"))
    b.dice.force(10)
    events = play(b, (K.MELEE_ATTACK, {"target": "hero"}))
    assert of_type(events, ev.AttackRolled)[0].level == "SUCCESS"
    assert not of_type(events, ev.DamageDealt)
    assert decision(b) == (D.PARRY, "hero", "gob")
    assert b.legal_actions() == [Action(K.PARRY, item="hero.longsword"),
                                 Action(K.PARRY, item="hero.medium_shield"),
                                 Action(K.DECLINE)]


def test_S8_one_parry_per_hit_with_weapon_or_shield_skill() -> None:
    b = duel(order=("gob", "hero"), hero_kw={"hp": 20})
    b.dice.force(10, 30)  # hit; shield parry 30 vs 65 -> success
    events = play(b, (K.MELEE_ATTACK, {"target": "hero"}),
                  (K.PARRY, {"item": "hero.medium_shield"}))
    (parry,) = of_type(events, ev.ParryRolled)
    assert (parry.chance, parry.roll, parry.level) == (65, 30, "SUCCESS")
    assert decision(b) == (D.DODGE, "hero", "gob")  # no second parry of this hit
    b.dice.force(6, 4)
    (dmg,) = of_type(decline(b), ev.DamageDealt)
    assert (dmg.rolled, dmg.parried, dmg.damage) == (7 - 4, 3, 0)


def test_S8_one_parry_per_round() -> None:
    b = build(arena(9, 5), [hero((2, 2), hp=30), gob((3, 2)), gob((1, 2), uid="gob2")],
              order=["gob", "gob2", "hero"])
    b.dice.force(10, 90, 1, 1)  # hit, parry fails, 2 - 1 = 1 damage
    play(b, (K.MELEE_ATTACK, {"target": "hero"}), (K.PARRY, {"item": "hero.longsword"}))
    decline(b)
    play(b, (K.END_TURN, {}))
    b.dice.force(10)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}))
    assert decision(b) == (D.DODGE, "hero", "gob2")  # the parry of the round is spent
    b.dice.force(1, 1)
    decline(b)
    advance_to(b, "gob")
    assert b.round == 2
    b.dice.force(10)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}))
    assert decision(b) == (D.PARRY, "hero", "gob")  # a new round, a new parry


# ====================================================================== S9 dodge
def test_S9_dodge_with_heroic_defence_shifts_back_one_square() -> None:
    b = duel(order=("gob", "hero"), hero_kw={"hp": 20})
    b.dice.force(10)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}), (K.DECLINE, {}))
    assert decision(b) == (D.DODGE, "hero", "gob")
    squares = {a.square for a in b.legal_actions() if a.kind is K.DODGE}
    # the dodger chooses: a shift back (not closer to the goblin) or falling prone (None)
    assert squares == {(1, 1), (2, 1), (3, 1), (1, 2), (1, 3), (2, 3), (3, 3), None}
    b.dice.force(20, 6, 2)  # dodge 20 vs 40 -> success (-10); damage 7 - 2 = 5
    events = play(b, (K.DODGE, {"square": (1, 2)}))
    (dodge,) = of_type(events, ev.DodgeRolled)
    assert (dodge.chance, dodge.roll, dodge.level, dodge.square) == (40, 20, "SUCCESS", (1, 2))
    (dmg,) = of_type(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dodged, dmg.damage) == (5, 5, 0)
    h = b.combatants["hero"]
    assert h.position == (1, 2) and h.shifted_this_round and not h.prone
    turn_of(b, "gob")  # one dodge per hit: the attack is over


def test_S9_dodge_by_falling_prone_when_no_shift_is_possible() -> None:
    rows = ["#####", "#...#", "#####"]  # a corridor: the goblin fills the only square
    b = build(arena(rows=rows), [hero((1, 1), hp=20), gob((2, 1))], order=["gob", "hero"])
    # hero at (1, 1) has no free square: (2, 1) is the goblin
    b.dice.force(10)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}), (K.DECLINE, {}))
    assert b.legal_actions() == [Action(K.DODGE), Action(K.DECLINE)]
    b.dice.force(90, 3, 1)  # the dodge fails; 4 - 1 = 3 damage
    events = play(b, (K.DODGE, {}))
    assert of_type(events, ev.DodgeRolled)[0].square is None
    h = b.combatants["hero"]
    assert h.prone and h.position == (1, 1) and h.hp == 17


# ====================================================================== S10 fight defensively
def test_S10_fight_defensively_gives_one_extra_parry_without_penalty() -> None:
    units = [hero((2, 2), hp=40), gob((3, 2)), gob((1, 2), uid="gob2"),
             gob((2, 3), uid="gob3")]
    b = build(arena(9, 5), units, order=["hero", "gob", "gob2", "gob3"])
    play(b, (K.FIGHT_DEFENSIVELY, {}))
    h = b.combatants["hero"]
    assert h.actions_used == ["attack"] and not kinds(b) & ATTACK_KINDS
    play(b, (K.END_TURN, {}))
    chances = []
    for g in ("gob", "gob2"):
        turn_of(b, g)
        b.dice.force(10, 90)  # hit; the parry fails
        events = play(b, (K.MELEE_ATTACK, {"target": "hero"}),
                      (K.PARRY, {"item": "hero.medium_shield"}))
        chances += [p.chance for p in of_type(events, ev.ParryRolled)]
        b.dice.force(1, 1)
        decline(b)
        play(b, (K.END_TURN, {}))
    assert chances == [65, 65]  # no penalty on either parry
    turn_of(b, "gob3")
    b.dice.force(10)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}))
    assert decision(b) == (D.DODGE, "hero", "gob3")  # only one extra parry


def test_S10_extra_parry_ends_at_the_start_of_the_fighters_next_turn() -> None:
    b = duel(order=("hero", "gob"), hero_kw={"hp": 30})
    play(b, (K.FIGHT_DEFENSIVELY, {}))
    h = b.combatants["hero"]
    assert (h.extra_parries, h.dodge_waived) == (1, True)
    advance_to(b, "gob")
    play(b, (K.END_TURN, {}))
    turn_of(b, "hero")
    assert b.round == 2 and (h.extra_parries, h.dodge_waived) == (0, False)


# ====================================================================== S11 concentration
def _cast_firebolt_provoked() -> rules.Battle:
    b = setup_actor(mage())
    play(b, (K.CAST_SPELL, {"item": "firebolt", "target": "gob"}))
    b.dice.force(10)  # the free attack hits
    play(b, (K.FREE_ATTACK, {"target": "mage"}))
    assert decision(b) == (D.PARRY, "mage", "gob")
    return b


def test_S11_parry_while_casting_aborts_the_spell() -> None:
    b = _cast_firebolt_provoked()
    b.dice.force(90)  # dagger parry 90 vs 35: the attempt alone aborts the spell
    events = play(b, (K.PARRY, {"item": "mage.dagger"}))
    b.dice.force(3, 2)  # 4 - 2 = 2 damage
    events += decline(b)
    turn_of(b, "mage")
    assert "casting aborted" in [e.what for e in of_type(events, ev.Concentration)]
    assert not of_type(events, ev.SpellCast)
    m = b.combatants["mage"]
    assert m.power_points == 17 and m.actions_used == ["attack"]
    assert b.combatants["gob"].hp == 4


def test_S11_dodge_while_casting_aborts_the_spell() -> None:
    b = _cast_firebolt_provoked()
    play(b, (K.DECLINE, {}))
    b.dice.force(90, 3, 2)  # the dodge fails; still aborts
    events = play(b, (K.DODGE, {"square": (1, 2)}))
    assert not of_type(events, ev.SpellCast)
    assert "casting aborted" in [e.what for e in of_type(events, ev.Concentration)]


def test_S11_no_defence_no_abort() -> None:
    b = _cast_firebolt_provoked()
    b.dice.force(3, 2, 20, 3, 3)  # 2 damage to the mage; cast 20 vs 70; firebolt 6
    events = decline(b)
    (cast,) = of_type(events, ev.SpellCast)
    assert (cast.spell, cast.level, cast.cost) == ("firebolt", "SUCCESS", 3)
    assert b.combatants["mage"].power_points == 14
    (_, spell_dmg) = of_type(events, ev.DamageDealt)
    assert (spell_dmg.target, spell_dmg.rolled) == ("gob", 6)


def _aimed_shot(dodge: bool) -> ev.AttackRolled:
    b = setup_actor(archer(hp=20), pre=[(K.NOCK_ARROW, {"item": "shooter.short_bow"})])
    play(b, (K.FULL_ATTACK, {"target": "gob"}))
    b.dice.force(10)
    play(b, (K.FREE_ATTACK, {"target": "shooter"}))
    assert decision(b) == (D.DODGE, "shooter", "gob")  # a bow cannot parry
    if dodge:
        b.dice.force(90, 3, 2, 96)  # dodge fails; 2 damage; the shot misses
        events = play(b, (K.DODGE, {"square": (1, 2)}))
    else:
        b.dice.force(3, 2, 96)
        events = decline(b)
    assert ("aim negated" in [e.what for e in of_type(events, ev.Concentration)]) == dodge
    (shot,) = [e for e in of_type(events, ev.AttackRolled) if e.attacker == "shooter"]
    return shot


def test_S11_dodge_while_aiming_negates_the_aim() -> None:
    assert _aimed_shot(dodge=False).chance == 65 + 20
    assert _aimed_shot(dodge=True).chance == 65


def test_S11_defence_aborts_a_multi_round_casting() -> None:
    b = build(arena(9, 5), [mage((2, 2), hp=20), gob((6, 2))], order=["mage", "gob"])
    events = play(b, (K.CAST_SPELL, {"item": "bless", "target": "mage"}))
    assert "casting bless (1/2)" in [e.what for e in of_type(events, ev.Concentration)]
    assert b.combatants["mage"].casting is not None
    play(b, (K.END_TURN, {}), (K.MOVE, {"square": (3, 2)}))
    b.dice.force(10, 90, 1, 1)  # hit; the parry fails; 1 damage
    events = play(b, (K.MELEE_ATTACK, {"target": "mage"}), (K.PARRY, {"item": "mage.dagger"}))
    events += decline(b)
    assert "multi-round casting aborted" in [e.what for e in of_type(events, ev.Concentration)]
    assert b.combatants["mage"].casting is None
    advance_to(b, "mage")
    assert b.round == 2
    events = play(b, (K.CAST_SPELL, {"item": "bless", "target": "mage"}))
    events += decline(b)  # the goblin, now adjacent, lets the casting go
    assert "casting bless (1/2)" in [e.what for e in of_type(events, ev.Concentration)]


