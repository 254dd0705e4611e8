"""The sheet's defence limits and mounting in scripted battles (S8, S9, S10, S13), as
corrected in this round: one dodge attempt per hit for every hit, parries limited per
round (not per turn), Fight Defensively until the fighter's next turn, and a failed
Mount/Dismount when the round is no longer whole.

Each test fixes initiative and every die it depends on and checks decisions, positions,
HP and events exactly (see sheet.py for the stock units).
"""

from __future__ import annotations

import pytest
from builders import K, arena, build, decline, of_type, play, unit
from sheet import D, decision, gob, hero, mage, turn_of

import rules
from rules import Action
from rules import events as ev


def _dodges(b: rules.Battle) -> list[Action]:
    return [a for a in b.legal_actions() if a.kind is K.DODGE]


# ====================================================================== S9 dodge
def test_S9_two_free_attacks_on_one_caster_give_two_dodge_decisions() -> None:
    units = [mage((2, 2), hp=30), gob((3, 2)), gob((1, 2), uid="gob2")]
    b = build(arena(9, 5), units, order=["mage", "gob", "gob2"])
    events = play(b, (K.CAST_SPELL, {"item": "firebolt", "target": "gob"}))
    assert [e.enemy for e in of_type(events, ev.Provoked)] == ["gob", "gob2"]
    b.dice.force(10)  # gob's Free Attack hits
    play(b, (K.FREE_ATTACK, {"target": "mage"}), (K.DECLINE, {}))  # no parry
    assert decision(b) == (D.DODGE, "mage", "gob")
    assert Action(K.DODGE) in _dodges(b) and Action(K.DODGE, square=(2, 1)) in _dodges(b)
    b.dice.force(20, 3, 1)  # dodge 20 vs 30: success; spear 3 + 1 - 1 = 3, all dodged
    events = play(b, (K.DODGE, {"square": (2, 1)}))
    b.dice.force(10)  # gob2's Free Attack hits too: a second hit, a second dodge
    events += play(b, (K.FREE_ATTACK, {"target": "mage"}), (K.DECLINE, {}))
    assert decision(b) == (D.DODGE, "mage", "gob2")
    assert _dodges(b) == [Action(K.DODGE)]  # the Shift is spent: falling prone is left
    b.dice.force(90, 3, 1)  # the dodge fails: 3 damage
    events += play(b, (K.DODGE, {}))
    turn_of(b, "mage")
    dodges = of_type(events, ev.DodgeRolled)
    assert [(d.roll, d.level, d.square, d.disadvantage) for d in dodges] == [
        (20, "SUCCESS", (2, 1), "shift"), (90, "FAILURE", None, "prone")]
    assert [d.damage for d in of_type(events, ev.DamageDealt)] == [0, 3]
    m = b.combatants["mage"]
    assert (m.position, m.prone, m.hp) == ((2, 1), True, 27)
    assert not of_type(events, ev.SpellCast)  # S11: the defences aborted the firebolt


# ====================================================================== S8 parry
def test_S8_parries_are_limited_per_round_not_per_turn() -> None:
    # Fight Defensively's extra parry and the round's parry both answer Free Attacks
    # provoked by one move; the third hit of that turn finds no parry left
    units = [hero((2, 2), hp=30), gob((3, 2)), gob((3, 3), uid="gob2"),
             gob((2, 3), uid="gob3")]
    b = build(arena(9, 5), units, order=["hero", "gob", "gob2", "gob3"])
    play(b, (K.FIGHT_DEFENSIVELY, {}))
    events = play(b, (K.MOVE, {"square": (1, 2)}))
    assert [e.enemy for e in of_type(events, ev.Provoked)] == ["gob", "gob2", "gob3"]
    for enemy in ("gob", "gob2"):
        b.dice.force(10, 90, 1, 1)  # hit; the parry fails; 2 - 1 = 1 damage
        play(b, (K.FREE_ATTACK, {"target": "hero"}))
        assert decision(b) == (D.PARRY, "hero", enemy)
        play(b, (K.PARRY, {"item": "hero.medium_shield"}), (K.DECLINE, {}))
    b.dice.force(10, 1, 1)
    play(b, (K.FREE_ATTACK, {"target": "hero"}))
    assert decision(b) == (D.DODGE, "hero", "gob3")  # no parry for the third hit
    decline(b)
    turn_of(b, "hero")
    h = b.combatants["hero"]
    assert (h.position, h.hp, h.parries_used, h.extra_parries) == ((1, 2), 27, 1, 0)
    assert len(of_type(b.events, ev.ParryRolled)) == 2


# ====================================================================== S10 fight defensively
def test_S10_fight_defensively_helps_the_fighter_who_acts_last_in_the_round() -> None:
    units = [hero((2, 2), hp=30), gob((3, 2)), gob((1, 2), uid="gob2")]
    b = build(arena(9, 5), units, order=["gob", "gob2", "hero"])
    play(b, (K.END_TURN, {}), (K.END_TURN, {}), (K.FIGHT_DEFENSIVELY, {}), (K.END_TURN, {}))
    assert b.round == 2 and decision(b) == (D.TURN, "gob", None)
    for enemy in ("gob", "gob2"):  # both before hero's next turn, in the next round
        b.dice.force(10, 90, 1, 1)
        play(b, (K.MELEE_ATTACK, {"target": "hero"}))
        assert decision(b) == (D.PARRY, "hero", enemy)
        play(b, (K.PARRY, {"item": "hero.longsword"}), (K.DECLINE, {}), (K.END_TURN, {}))
    turn_of(b, "hero")
    h = b.combatants["hero"]
    assert [(p.round, p.defender) for p in of_type(b.events, ev.ParryRolled)] == [
        (2, "hero"), (2, "hero")]
    assert (h.hp, h.extra_parries, h.dodge_waived) == (28, 0, False)  # over at its turn


def test_S10_the_next_dodge_pays_no_disadvantage() -> None:
    units = [hero((2, 2), hp=30), gob((3, 2)), gob((1, 2), uid="gob2")]
    b = build(arena(9, 5), units, order=["hero", "gob", "gob2"])
    play(b, (K.FIGHT_DEFENSIVELY, {}), (K.END_TURN, {}))
    b.dice.force(10)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}), (K.DECLINE, {}))
    assert decision(b) == (D.DODGE, "hero", "gob")
    assert _dodges(b) == [Action(K.DODGE)]  # no Shift used, no fall
    b.dice.force(20, 3, 1)  # dodge 20 vs 40: success; 3 damage dodged
    events = play(b, (K.DODGE, {}))
    (dodge,) = of_type(events, ev.DodgeRolled)
    assert (dodge.square, dodge.disadvantage) == (None, "none")
    h = b.combatants["hero"]
    assert (h.position, h.prone, h.shifted_this_round, h.hp) == ((2, 2), False, False, 30)
    assert not of_type(events, ev.StatusChanged)
    play(b, (K.END_TURN, {}))
    b.dice.force(10)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}), (K.DECLINE, {}))
    assert decision(b) == (D.DODGE, "hero", "gob2")  # only the next dodge was free
    assert Action(K.DODGE) in _dodges(b) and len(_dodges(b)) > 1


# ====================================================================== S13 mount/dismount
@pytest.mark.parametrize("kind", [K.MOUNT, K.DISMOUNT])
def test_S13_failure_when_the_round_is_no_longer_whole_provokes_and_ends_the_turn(
        kind: rules.ActionKind) -> None:
    riding = kind is K.DISMOUNT
    units = [hero((2, 2), **({"riding": "horse"} if riding else {})),
             unit("horse", "party", "horse", (2, 2) if riding else (1, 2)), gob((3, 2))]
    b = build(arena(9, 5), units, order=["hero"])
    b.dice.force(96)  # hero attacks first and misses: the round is no longer whole
    play(b, (K.MELEE_ATTACK, {"target": "gob"}))
    b.dice.force(36)  # ride 35: the roll fails
    fields = {"square": (2, 1)} if riding else {"target": "horse"}
    events = play(b, (kind, fields))
    assert of_type(events, ev.SkillRolled)[-1].level == "FAILURE"
    assert decision(b) == (D.FREE_ATTACK, "gob", "hero")  # the failure provokes
    b.dice.force(96)
    events = play(b, (K.FREE_ATTACK, {"target": "hero"}))
    assert "hero" in [e.actor for e in of_type(events, ev.TurnEnded)]
    assert decision(b)[0] is D.TURN and b.current_actor != "hero"  # the turn is over
    h = b.combatants["hero"]
    assert h.position == (2, 2) and h.riding == ("horse" if riding else None)
    assert b.combatants["horse"].ridden_by == ("hero" if riding else None)


def test_S13_failure_with_a_whole_round_takes_it_provokes_then_completes() -> None:
    b = build(arena(9, 5), [hero((2, 2)), unit("horse", "party", "horse", (1, 2)),
                            gob((3, 2))], order=["hero"])
    b.dice.force(36)
    play(b, (K.MOUNT, {"target": "horse"}))
    assert decision(b) == (D.FREE_ATTACK, "gob", "hero")
    b.dice.force(96)
    play(b, (K.FREE_ATTACK, {"target": "hero"}))
    turn_of(b, "hero")  # the turn goes on, with only FREE actions left
    h = b.combatants["hero"]
    assert h.actions_used == ["full"] and h.riding == "horse" and h.position == (1, 2)


def test_S10_H22_a_ridden_mount_fights_defensively_until_its_riders_next_turn() -> None:
    b = build(arena(9, 5), [unit("horse", "party", "horse", (1, 2)), hero((2, 2)),
                            gob((7, 4))], order=["horse", "hero"])
    play(b, (K.FIGHT_DEFENSIVELY, {}), (K.END_TURN, {}))
    b.dice.force(35)  # ride 35: mounted
    play(b, (K.MOUNT, {"target": "horse"}))
    horse = b.combatants["horse"]
    assert horse.ridden_by == "hero" and horse.dodge_waived  # the mount takes no turns
    play(b, (K.END_TURN, {}))
    decline(b)
    while b.current_actor != "hero":
        play(b, (K.END_TURN, {}))
    assert b.round == 2 and (horse.extra_parries, horse.dodge_waived) == (0, False)
