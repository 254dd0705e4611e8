"""The sheet's rules in scripted battles: initiative, the round budget, attack timing,
attack rolls and the action categories (S1-S4, S12-S16).

Each test builds a small inline scenario, fixes every die it depends on with
``battle.dice.force`` and checks the exact outcome (see sheet.py for the stock units).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from builders import K, arena, build, decline, find, has, kinds, of_type, play, unit
from sheet import (
    ATTACK_KINDS,
    FULL_KINDS,
    MOVE_KINDS,
    NON_PROVOKING_CASES,
    PROVOKING_CASES,
    D,
    decision,
    duel,
    gob,
    hero,
    mage,
    setup_actor,
    turn_of,
)

import rules
from rules import Action, IllegalActionError
from rules import events as ev
from rules.actions import ATTACK_ACTIONS, FREE_ACTIONS, FULL_ACTIONS, MOVE_ACTIONS, category_of
from rules.roller import Roller


# ====================================================================== S1 initiative
@pytest.mark.parametrize("seed", range(8))
def test_S1_initiative_is_d12_plus_dex_bonus_sorted_highest_first(seed: int) -> None:
    units = [hero((1, 1), characteristics={"dex": 12}),             # bonus +1
             gob((7, 1), characteristics={"dex": 17}),              # bonus +3
             gob((7, 3), uid="gob2", characteristics={"dex": 5}),   # bonus -3
             hero((1, 3), uid="ally", characteristics={"dex": 10})]  # bonus 0
    b = build(arena(9, 5), units, seed=seed)
    # replay the engine's draws: per unit in scenario order, a d12 then a tie-break draw
    r = Roller(seed)
    expected, keys = {}, {}
    for u in units:
        face = r.die(12)
        dex = u["characteristics"]["dex"]
        expected[u["id"]] = face + math.floor((dex - 10) / 2)
        keys[u["id"]] = (-expected[u["id"]], -dex, r.uniform())
    assert {cid: c.initiative for cid, c in b.combatants.items()} == expected
    assert b.initiative_order == sorted(expected, key=keys.__getitem__)
    inits = [b.combatants[i].initiative for i in b.initiative_order]
    assert inits == sorted(inits, reverse=True)
    started = of_type(b.events, ev.BattleStarted)
    assert len(started) == 1 and started[0].order == tuple(b.initiative_order)
    assert started[0].initiative == tuple(inits)
    turn_of(b, b.initiative_order[0])


def test_S1_ties_in_total_go_to_higher_dex() -> None:
    # d12 + bonus ties: a DEX 13 (+1) on 5 ties a DEX 12 (+1) on 5; higher DEX goes first
    for seed in range(300):
        b = build(arena(9, 5), [hero((1, 1), characteristics={"dex": 12}),
                                gob((7, 1), characteristics={"dex": 13})], seed=seed)
        h, g = b.combatants["hero"], b.combatants["gob"]
        if h.initiative == g.initiative:
            assert b.initiative_order == ["gob", "hero"]
            return
    pytest.fail("no tie found")


def test_S1_order_holds_for_the_whole_combat_and_each_acts_all_at_once() -> None:
    units = [hero((1, 1)), gob((7, 1)), gob((7, 3), uid="gob2"), hero((1, 3), uid="ally")]
    b = build(arena(9, 5), units, seed=3)
    order = list(b.initiative_order)
    inits = {cid: c.initiative for cid, c in b.combatants.items()}
    for _ in range(4):  # four full rounds of everyone speaking, then ending the turn
        for cid in order:
            turn_of(b, cid)
            play(b, (K.SPEAK, {}))
            turn_of(b, cid)  # still the same combatant's turn: all its actions at once
            play(b, (K.END_TURN, {}))
    per_round: dict[int, list[str]] = {}
    for e in of_type(b.events, ev.TurnStarted):
        per_round.setdefault(e.round, []).append(e.actor)
    assert per_round == {1: order, 2: order, 3: order, 4: order, 5: [order[0]]}
    assert b.initiative_order == order
    assert {cid: c.initiative for cid, c in b.combatants.items()} == inits
    assert len(of_type(b.events, ev.BattleStarted)) == 1


# ====================================================================== S2 round budget
def test_S2_move_then_attack_uses_the_round_budget() -> None:
    b = duel(hero_at=(1, 2), gob_at=(5, 2))
    play(b, (K.MOVE, {"square": (4, 2)}))
    h = b.combatants["hero"]
    assert h.actions_used == ["move"]
    assert has(b, K.MELEE_ATTACK, target="gob") and has(b, K.MOVE)
    assert not kinds(b) & {K.FULL_MOVE, K.FULL_ATTACK, K.DISENGAGE}
    b.dice.force(96)  # a miss
    play(b, (K.MELEE_ATTACK, {"target": "gob"}))
    turn_of(b, "hero")
    assert h.actions_used == ["move", "attack"]
    assert not kinds(b) & (MOVE_KINDS | ATTACK_KINDS | FULL_KINDS)
    assert {K.END_TURN, K.SPEAK} <= kinds(b)
    with pytest.raises(IllegalActionError):
        b.apply(Action(K.MOVE, square=(3, 2)))
    assert h.position == (4, 2) and h.actions_used == ["move", "attack"]


def test_S2_attack_then_move_either_order() -> None:
    b = duel(hero_at=(2, 2), gob_at=(3, 2))
    b.dice.force(96)
    play(b, (K.MELEE_ATTACK, {"target": "gob"}))
    h = b.combatants["hero"]
    assert h.actions_used == ["attack"]
    assert has(b, K.MOVE, square=(1, 2))
    assert not kinds(b) & (ATTACK_KINDS | FULL_KINDS)
    play(b, (K.MOVE, {"square": (1, 2)}))
    assert decision(b) == (D.FREE_ATTACK, "gob", "hero")
    decline(b)
    turn_of(b, "hero")
    assert h.position == (1, 2) and h.actions_used == ["attack", "move"]
    assert not kinds(b) & (MOVE_KINDS | ATTACK_KINDS | FULL_KINDS)


def test_S2_two_move_actions_in_place_of_the_attack() -> None:
    b = duel(hero_at=(1, 1), gob_at=(9, 5), width=11)
    play(b, (K.MOVE, {"square": (6, 1)}))
    assert has(b, K.MOVE, square=(11, 1))
    play(b, (K.MOVE, {"square": (11, 1)}))
    h = b.combatants["hero"]
    assert h.position == (11, 1) and h.actions_used == ["move", "move"]
    assert not kinds(b) & (MOVE_KINDS | ATTACK_KINDS | FULL_KINDS)


def test_S2_full_action_only_with_nothing_used() -> None:
    b = duel(hero_at=(2, 2), gob_at=(3, 2))
    assert {K.FULL_MOVE, K.DISENGAGE, K.FULL_ATTACK} <= kinds(b)
    play(b, (K.SPEAK, {}))  # FREE actions do not spend the budget
    assert {K.FULL_MOVE, K.DISENGAGE, K.FULL_ATTACK} <= kinds(b)
    b2 = b.clone()
    play(b, (K.FIGHT_DEFENSIVELY, {}))  # an ATTACK action
    assert not kinds(b) & FULL_KINDS
    b2.dice.force(96)
    play(b2, (K.FULL_ATTACK, {"target": "gob"}))
    decline(b2)  # a Full Attack provokes (S6)
    h = b2.combatants["hero"]
    turn_of(b2, "hero")
    assert h.actions_used == ["full"]
    assert not kinds(b2) & (MOVE_KINDS | ATTACK_KINDS | FULL_KINDS)
    assert K.END_TURN in kinds(b2) and K.SPEAK not in kinds(b2)  # SPEAK used this turn


def test_S2_free_actions_stay_available_after_the_budget_is_spent() -> None:
    b = duel(hero_at=(1, 2), gob_at=(9, 2))
    play(b, (K.MOVE, {"square": (6, 2)}), (K.MOVE, {"square": (3, 2)}))
    turn_of(b, "hero")
    assert {K.SPEAK, K.FALL_PRONE, K.DROP_ITEM} <= kinds(b)
    play(b, (K.SPEAK, {}))
    assert b.combatants["hero"].actions_used == ["move", "move"]


# ====================================================================== S3 attack timing
def test_S3_an_attack_never_splits_one_move() -> None:
    # hero walks 1 of its 5 squares, attacks; the rest of that move is gone
    b = duel(hero_at=(1, 2), gob_at=(3, 2))
    ev1 = play(b, (K.MOVE, {"square": (2, 2)}))
    moved = of_type(ev1, ev.Moved)
    assert [m.path for m in moved] == [((1, 2), (2, 2))] and moved[0].complete
    b.dice.force(96)
    play(b, (K.MELEE_ATTACK, {"target": "gob"}))
    assert not kinds(b) & MOVE_KINDS
    assert b.combatants["hero"].position == (2, 2)


def test_S3_a_move_is_one_action_with_only_reactions_inside_it() -> None:
    # moving away from two goblins: inside the move only the goblins' reactions are
    # decided; the mover's next TURN decision comes once the whole path is walked
    b = duel(hero_at=(2, 2), gob_at=(3, 2),
             extra=[gob((3, 3), uid="gob2")], order=("hero",))
    play(b, (K.MOVE, {"square": (2, 5)}))
    seen = []
    while b.decision.kind is not D.TURN:
        seen.append(decision(b)[:2])
        assert b.combatants["hero"].position == (2, 2)
        b.apply(Action(K.DECLINE))
    assert seen == [(D.FREE_ATTACK, "gob"), (D.FREE_ATTACK, "gob2")]
    turn_of(b, "hero")
    assert b.combatants["hero"].position == (2, 5)
    assert b.combatants["hero"].actions_used == ["move"]
    assert has(b, K.MOVE) and not has(b, K.MELEE_ATTACK)  # nobody in reach now


def test_S3_attack_before_or_after_the_move() -> None:
    b = duel(hero_at=(1, 2), gob_at=(4, 2))
    play(b, (K.MOVE, {"square": (3, 2)}))
    assert has(b, K.MELEE_ATTACK, target="gob")
    b2 = duel(hero_at=(3, 2), gob_at=(4, 2))
    assert has(b2, K.MELEE_ATTACK, target="gob") and has(b2, K.MOVE)


# ====================================================================== S4 attacks
@pytest.mark.parametrize(("roll", "level"), [
    (1, "CRITICAL"), (4, "CRITICAL"), (5, "SPECIAL"), (15, "SPECIAL"), (16, "SUCCESS"),
    (75, "SUCCESS"), (76, "FAILURE"), (99, "FAILURE"), (100, "FUMBLE"),
])
def test_S4_d100_roll_under_with_enhanced_low_rolls(roll: int, level: str) -> None:
    b = duel()
    b.dice.force(roll)
    events = play(b, (K.MELEE_ATTACK, {"target": "gob"}))
    (att,) = of_type(events, ev.AttackRolled)
    assert (att.roll, att.chance, att.level) == (roll, 75, level)
    if level in ("FAILURE", "FUMBLE"):
        turn_of(b, "hero")
    else:
        assert decision(b) == (D.PARRY, "gob", "hero")


def test_S4_critical_hit_gives_maximum_damage_ignoring_armour() -> None:
    b = duel(gob_kw={"hp": 30})
    b.dice.force(3, 2)  # a critical (75 / 20 -> 4); damage bonus 1d4 -> 2
    play(b, (K.MELEE_ATTACK, {"target": "gob"}))
    events = decline(b)
    (dmg,) = of_type(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.armour, dmg.damage, dmg.hp) == (9 + 2, 0, 11, 19)
    b2 = duel(gob_kw={"hp": 30})
    b2.dice.force(20, 8, 2)  # a plain success: 1d8+1 = 9, +2, minus leather AP 2
    play(b2, (K.MELEE_ATTACK, {"target": "gob"}))
    (dmg2,) = of_type(decline(b2), ev.DamageDealt)
    assert (dmg2.rolled, dmg2.armour, dmg2.damage) == (11, 2, 9)


# ====================================================================== S12-S16 categories
def test_S12_S14_S15_S16_category_tables_match_the_sheet() -> None:
    sheet = {
        "move": {K.MOVE, K.READY_WEAPON, K.SHEATHE_WEAPON, K.STAND_UP, K.OPEN_DOOR,
                 K.CLOSE_DOOR, K.MOUNT, K.DISMOUNT, K.PICK_UP},
        "full": {K.FULL_MOVE, K.FULL_ATTACK, K.DISENGAGE, K.LIGHT_TORCH, K.COUP_DE_GRACE,
                 K.FIRST_AID, K.LOAD_CROSSBOW},
        "attack": {K.MELEE_ATTACK, K.MISSILE_ATTACK, K.USE_ITEM, K.FIGHT_DEFENSIVELY,
                   K.UNARMED_ATTACK, K.GRAPPLE, K.TRIP, K.DISARM},
        "free": {K.SHIFT, K.DROP_ITEM, K.FALL_PRONE, K.PREPARE_COMPONENTS, K.NOCK_ARROW,
                 K.SPEAK},
    }
    tables = {"move": MOVE_ACTIONS, "full": FULL_ACTIONS, "attack": ATTACK_ACTIONS,
              "free": FREE_ACTIONS}
    assert tables == sheet
    for slot, members in sheet.items():
        assert {category_of(k) for k in members} == {slot}
    # Parry and Dodge are FREE on the sheet; here they are reactions outside the budget
    assert {category_of(k) for k in (K.PARRY, K.DODGE, K.FREE_ATTACK)} == {"reaction"}


ALL_CASES: dict[str, tuple[Any, tuple[K, dict[str, Any]], str]] = {
    **PROVOKING_CASES,
    **{name: ((lambda u=u, pre=pre: setup_actor(u, pre=pre)), action, u["id"])
       for name, (u, action, pre, _f) in NON_PROVOKING_CASES.items()},
    "open_door": ((lambda: build(arena(rows=["#######", "#..+..#", "#######"]),
                                 [hero((2, 1)), gob((5, 1))], order=["hero"])),
                  (K.OPEN_DOOR, {"square": (3, 1)}), "hero"),
    "close_door": ((lambda: build(arena(rows=["#######", "#..'..#", "#######"]),
                                  [hero((2, 1)), gob((5, 1))], order=["hero"])),
                   (K.CLOSE_DOOR, {"square": (3, 1)}), "hero"),
    "mount": ((lambda: setup_actor(hero((2, 2)), extra=[unit("horse", "party", "horse", (1, 2))])),
              (K.MOUNT, {"target": "horse"}), "hero"),
    "dismount": ((lambda: setup_actor(hero((2, 2), riding="horse"),
                                 extra=[unit("horse", "party", "horse", (2, 2))])),
                 (K.DISMOUNT, {"square": (2, 1)}), "hero"),
    "sling_stone": ((lambda: setup_actor(unit("sling", "party", "halfling", (2, 2)))),
                    (K.NOCK_ARROW, {"item": "sling.sling"}), "sling"),
}

EXPECTED_SLOT = {
    "missile": "attack", "spell_casting": "attack", "use_potion": "attack",
    "use_scroll": "attack", "unarmed": "attack", "grapple": "attack", "trip": "attack",
    "disarm": "attack", "armed_melee": "attack", "fight_defensively": "attack",
    "move": "move", "sheathe": "move", "stand_up": "move", "pick_up": "move",
    "ready_weapon": "move", "open_door": "move", "close_door": "move", "mount": "move",
    "dismount": "move",
    "full_move": "full", "full_attack": "full", "light_torch": "full",
    "coup_de_grace": "full", "first_aid": "full", "load_crossbow": "full",
    "disengage": "full", "failed_mount": "full", "failed_dismount": "full",
    "quick_spell": "free", "shift": "free", "drop": "free", "fall_prone": "free",
    "speak": "free", "nock": "free", "prepare_components": "free", "sling_stone": "free",
}


ROLLED_ATTACKS = {K.MELEE_ATTACK, K.MISSILE_ATTACK, K.FULL_ATTACK, K.UNARMED_ATTACK,
                  K.GRAPPLE, K.TRIP, K.DISARM, K.CAST_SPELL}


def _slot_used(case: str) -> tuple[rules.Battle, rules.Combatant, Action]:
    setup, (kind, fields), actor = ALL_CASES[case]
    b = setup()
    turn_of(b, actor)
    action = find(b, kind, **fields)
    if kind in (K.MOUNT, K.DISMOUNT):  # the Ride roll fails only in the failed_* cases
        b.dice.force(99 if case.startswith("failed") else 5)
    elif kind in ROLLED_ATTACKS:
        b.dice.force(96)  # a miss: nothing to react to
    play(b, action)
    decline(b)  # Free Attacks provoked, if any
    turn_of(b, actor)
    assert not b.dice.forced
    return b, b.combatants[actor], action


def _cases(slot: str) -> list[str]:
    return sorted(c for c, s in EXPECTED_SLOT.items() if s == slot)


@pytest.mark.parametrize("case", _cases("move"))
def test_S12_move_actions_use_the_move_slot(case: str) -> None:
    b, c, _ = _slot_used(case)
    assert c.actions_used == ["move"]
    assert K.FIGHT_DEFENSIVELY in kinds(b)  # the ATTACK action is left ...
    assert not kinds(b) & FULL_KINDS  # ... but no FULL action


@pytest.mark.parametrize("case", _cases("full"))
def test_S14_full_actions_take_the_whole_round(case: str) -> None:
    b, c, _ = _slot_used(case)
    assert c.actions_used == ["full"]
    assert not kinds(b) & (MOVE_KINDS | ATTACK_KINDS | FULL_KINDS | MOVE_ACTIONS)


@pytest.mark.parametrize("case", _cases("attack"))
def test_S15_attack_actions_use_the_attack_slot(case: str) -> None:
    b, c, _ = _slot_used(case)
    assert c.actions_used == ["attack"]
    assert not kinds(b) & (ATTACK_KINDS | FULL_KINDS)
    assert not c.prone and c.grappled_by is None
    assert has(b, K.MOVE)  # the MOVE action is left


@pytest.mark.parametrize("case", _cases("free"))
def test_S16_free_actions_spend_no_budget(case: str) -> None:
    b, c, action = _slot_used(case)
    assert c.actions_used == [] and action.kind.value in c.free_used
    assert K.FIGHT_DEFENSIVELY in kinds(b)  # the whole budget is left
    assert action not in b.legal_actions()  # H25: once per turn


def test_S16_parry_and_dodge_spend_no_budget_even_on_own_turn() -> None:
    b = duel(hero_kw={"hp": 20})
    play(b, (K.SHEATHE_WEAPON, {"item": "hero.medium_shield"}))
    b.dice.force(10, 90, 90, 1, 1)  # hit; parry fails; dodge fails; 1 damage
    play(b, (K.FREE_ATTACK, {"target": "hero"}), (K.PARRY, {"item": "hero.longsword"}),
         (K.DODGE, {"square": (1, 1)}))
    turn_of(b, "hero")
    h = b.combatants["hero"]
    assert h.actions_used == ["move"] and h.hp == 19 and h.position == (1, 1)
    assert K.FIGHT_DEFENSIVELY in kinds(b)


def test_S7_S9_a_mover_cannot_dodge_by_shifting_mid_move_it_falls_prone() -> None:
    # S7: no Shift in a round the character otherwise moves, so a dodge inside its own
    # move must be the fall prone, which ends the move (H13)
    b = duel(hero_kw={"hp": 20})
    play(b, (K.MOVE, {"square": (1, 2)}))
    b.dice.force(10)
    play(b, (K.FREE_ATTACK, {"target": "hero"}), (K.DECLINE, {}))
    assert decision(b) == (D.DODGE, "hero", "gob")
    assert b.legal_actions() == [Action(K.DODGE), Action(K.DECLINE)]
    b.dice.force(90, 1, 1)
    events = play(b, (K.DODGE, {}))
    turn_of(b, "hero")
    h = b.combatants["hero"]
    assert h.prone and h.position == (2, 2) and not h.shifted_this_round
    (moved,) = of_type(events, ev.Moved)
    assert not moved.complete


@pytest.mark.parametrize(("spell", "slot", "provokes"), [
    ("spark", "free", False), ("firebolt", "attack", True), ("heal", "full", True),
    ("bless", "full", True),
])
def test_S15_spell_casting_time_sets_the_slot_and_quick_spells_do_not_provoke(
        spell: str, slot: str, provokes: bool) -> None:
    b = setup_actor(mage(), pre=[(K.PREPARE_COMPONENTS, {})])
    target = "gob" if spell in ("spark", "firebolt") else "mage"
    b.dice.force(96, 96)
    events = play(b, (K.CAST_SPELL, {"item": spell, "target": target}))
    assert bool(of_type(events, ev.Provoked)) == provokes
    decline(b)
    m = b.combatants["mage"]
    assert m.actions_used == ([] if slot == "free" else [slot])


def test_S12_drawing_a_hidden_weapon_needs_a_sleight_roll() -> None:
    def setup() -> rules.Battle:
        return build(arena(9, 5), [unit("hob", "party", "halfling", (1, 1)), gob((7, 4))],
                     order=["hob"])
    b = setup()
    b.dice.force(56)  # sleight 55: fails
    events = play(b, (K.READY_WEAPON, {"item": "hob.dagger"}))
    (roll,) = of_type(events, ev.SkillRolled)
    assert (roll.skill, roll.chance, roll.roll) == ("sleight", 55, 56)
    h = b.combatants["hob"]
    assert h.item("hob.dagger").state == "hidden" and h.actions_used == ["move"]
    b = setup()
    b.dice.force(55)
    play(b, (K.READY_WEAPON, {"item": "hob.dagger"}))
    assert b.combatants["hob"].item("hob.dagger").state == "ready"
    b = setup()  # a sheathed weapon needs no roll
    events = play(b, (K.READY_WEAPON, {"item": "hob.shortsword"}))
    assert not of_type(events, ev.SkillRolled)
    assert b.combatants["hob"].item("hob.shortsword").state == "ready"


# ====================================================================== S13 mount
def _mount_battle() -> rules.Battle:
    return build(arena(9, 5), [hero((2, 2)), unit("horse", "party", "horse", (1, 2)),
                               gob((3, 2))], order=["hero"])


def test_S13_mount_needs_a_ride_roll_success_is_a_move_action() -> None:
    b = _mount_battle()
    b.dice.force(35)  # ride 35
    events = play(b, (K.MOUNT, {"target": "horse"}))
    (roll,) = of_type(events, ev.SkillRolled)
    assert (roll.skill, roll.chance, roll.level) == ("ride", 35, "SUCCESS")
    assert not of_type(events, ev.Provoked)
    turn_of(b, "hero")
    h = b.combatants["hero"]
    assert h.riding == "horse" and h.position == (1, 2) and h.actions_used == ["move"]
    assert b.combatants["horse"].ridden_by == "hero"


def test_S13_failed_mount_takes_the_full_round_and_provokes() -> None:
    b = _mount_battle()
    b.dice.force(36)
    events = play(b, (K.MOUNT, {"target": "horse"}))
    assert of_type(events, ev.SkillRolled)[0].level == "FAILURE"
    assert decision(b) == (D.FREE_ATTACK, "gob", "hero")
    assert b.combatants["hero"].riding is None  # not yet on the horse
    b.dice.force(96)
    play(b, (K.FREE_ATTACK, {"target": "hero"}))
    turn_of(b, "hero")
    h = b.combatants["hero"]
    assert h.actions_used == ["full"]
    assert not kinds(b) & (MOVE_KINDS | ATTACK_KINDS | FULL_KINDS | MOVE_ACTIONS)
    assert h.riding == "horse"  # S13: a whole round was spent getting on


def test_S13_failed_dismount_takes_the_full_round() -> None:
    b = build(arena(9, 5), [hero((2, 2), riding="horse"),
                            unit("horse", "party", "horse", (2, 2)), gob((5, 4))],
              order=["hero"])
    b.dice.force(36)
    play(b, (K.DISMOUNT, {"square": (2, 1)}))
    turn_of(b, "hero")
    h = b.combatants["hero"]
    assert h.actions_used == ["full"] and h.riding is None and h.position == (2, 1)


