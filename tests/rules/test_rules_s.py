"""The sheet's rules S1-S25 (RULES.md), tested as engine behaviour in scripted battles.

Every test builds a small inline scenario (``builders``), fixes initiative by seed search
and every die it depends on with ``battle.dice.force`` (faces are consumed in the order the
engine rolls them), plays actions and checks the exact outcome: who decides what, the
budget left, positions, HP and events.

Stock units: ``hero`` is a human warrior without armour (MOV 10, 5 squares per MOVE;
sword 75, shield 65, dodge 40, brawl 45; STR 14 + SIZ 13 -> damage bonus 1d4; 7 HP);
``gob`` is a goblin (spear 40, buckler, leather AP 2; STR 9 + SIZ 7 -> damage bonus
-1d4; 4 HP). A goblin's spear hit rolls d100, then 1d6 (spear 1d6+1), then 1d4 (bonus).
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from builders import K, advance_to, arena, build, decline, find, has, kinds, of_type, play, unit

import rules
from rules import Action, DecisionKind, IllegalActionError
from rules import events as ev
from rules.actions import ATTACK_ACTIONS, FREE_ACTIONS, FULL_ACTIONS, MOVE_ACTIONS, category_of
from rules.content import default_content
from rules.roller import Roller

D = DecisionKind
RS = default_content().ruleset

MOVE_KINDS = {K.MOVE, K.FULL_MOVE, K.DISENGAGE}
ATTACK_KINDS = {K.MELEE_ATTACK, K.MISSILE_ATTACK, K.FIGHT_DEFENSIVELY, K.UNARMED_ATTACK,
                K.GRAPPLE, K.TRIP, K.DISARM, K.USE_ITEM}
FULL_KINDS = {K.FULL_MOVE, K.FULL_ATTACK, K.DISENGAGE, K.COUP_DE_GRACE, K.FIRST_AID,
              K.LIGHT_TORCH, K.LOAD_CROSSBOW}


def hero(at: tuple[int, int], uid: str = "hero", **kw: Any) -> dict[str, Any]:
    return unit(uid, "party", "human_warrior", at, **({"armour": "none"} | kw))


def gob(at: tuple[int, int], uid: str = "gob", **kw: Any) -> dict[str, Any]:
    return unit(uid, "monsters", "goblin", at, **kw)


def duel(hero_at=(2, 2), gob_at=(3, 2), order=("hero", "gob"), width=9, height=5,
         hero_kw=None, gob_kw=None, extra=()) -> rules.Battle:
    units = [hero(hero_at, **(hero_kw or {})), gob(gob_at, **(gob_kw or {})), *extra]
    return build(arena(width, height), units, order=list(order))


def decision(b: rules.Battle) -> tuple[D, str, str | None]:
    d = b.decision
    assert d is not None
    return d.kind, d.actor, d.source


def turn_of(b: rules.Battle, actor: str) -> None:
    assert decision(b) == (D.TURN, actor, None)


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
def _archer(at=(2, 2), **kw: Any) -> dict[str, Any]:
    return unit("shooter", "party", "human_archer", at, **kw)


def _mage(at=(2, 2), **kw: Any) -> dict[str, Any]:
    return unit("mage", "party", "human_mage", at, **kw)


def _setup(actor_unit: dict[str, Any], *, order=None, extra=(), pre=()) -> rules.Battle:
    """``actor_unit`` at its square with ``gob`` adjacent on its right; ``pre`` actions
    (none of which may provoke) are played first."""
    x, y = actor_unit["at"]
    units = [actor_unit, gob((x + 1, y)), *extra]
    b = build(arena(9, 5), units, order=list(order or [actor_unit["id"]]))
    for a in pre:
        events = play(b, a)
        assert not of_type(events, ev.Provoked), a
    return b


def _coup_de_grace_setup() -> rules.Battle:
    b = build(arena(9, 5), [hero((2, 2)), gob((3, 2)), gob((2, 3), uid="gob2", hp=1)],
              order=["hero", "gob", "gob2"])
    b.dice.force(10, 1, 1)  # hit gob2: 1d8+1 = 2, +1d4 = 1, leather 2 -> 1 damage
    play(b, (K.MELEE_ATTACK, {"target": "gob2"}))
    decline(b)
    assert b.combatants["gob2"].status == "out"
    play(b, (K.END_TURN, {}))
    advance_to(b, "hero")
    assert b.round == 2
    return b


def _first_aid_setup() -> rules.Battle:
    b = build(arena(9, 5), [hero((2, 2), hp=20), gob((3, 2))], order=["gob", "hero"])
    b.dice.force(10, 4, 1)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}))
    decline(b)
    assert b.combatants["hero"].hp == 16
    play(b, (K.END_TURN, {}))
    advance_to(b, "hero")
    return b


HERO_SWORD_TORCH = {"equipment": [{"item": "longsword", "state": "ready"}, "torch"]}
CROSSBOWMAN = {"equipment": [{"item": "light_crossbow", "state": "ready"},
                             {"item": "bolt", "count": 5}]}

PROVOKING_CASES: dict[str, tuple[Any, Any, str]] = {
    # name: (setup, provoking action (kind, fields), actor)
    "missile": (lambda: _setup(_archer(), pre=[(K.NOCK_ARROW, {"item": "shooter.short_bow"})]),
                (K.MISSILE_ATTACK, {"target": "gob"}), "shooter"),
    "spell_casting": (lambda: _setup(_mage()),
                      (K.CAST_SPELL, {"item": "firebolt", "target": "gob"}), "mage"),
    "use_potion": (lambda: _setup(_mage()),
                   (K.USE_ITEM, {"item": "mage.healing_potion"}), "mage"),
    "use_scroll": (lambda: _setup(_mage()),
                   (K.USE_ITEM, {"item": "mage.scroll_of_healing", "target": "mage"}), "mage"),
    "move": (lambda: _setup(hero((2, 2))), (K.MOVE, {"square": (1, 2)}), "hero"),
    "sheathe": (lambda: _setup(hero((2, 2))),
                (K.SHEATHE_WEAPON, {"item": "hero.longsword"}), "hero"),
    "stand_up": (lambda: _setup(hero((2, 2)), pre=[(K.FALL_PRONE, {})]),
                 (K.STAND_UP, {}), "hero"),
    "pick_up": (lambda: _setup(hero((2, 2)), pre=[(K.DROP_ITEM, {"item": "hero.torch"})]),
                (K.PICK_UP, {"item": "hero.torch"}), "hero"),
    "full_move": (lambda: _setup(hero((2, 2))), (K.FULL_MOVE, {"square": (1, 4)}), "hero"),
    "full_attack": (lambda: _setup(hero((2, 2))), (K.FULL_ATTACK, {"target": "gob"}), "hero"),
    "light_torch": (lambda: _setup(hero((2, 2), **HERO_SWORD_TORCH)),
                    (K.LIGHT_TORCH, {"item": "hero.torch"}), "hero"),
    "coup_de_grace": (_coup_de_grace_setup, (K.COUP_DE_GRACE, {"target": "gob2"}), "hero"),
    "first_aid": (_first_aid_setup, (K.FIRST_AID, {"target": "hero"}), "hero"),
    "load_crossbow": (lambda: _setup(_archer(**CROSSBOWMAN)),
                      (K.LOAD_CROSSBOW, {"item": "shooter.light_crossbow"}), "shooter"),
    "unarmed": (lambda: _setup(hero((2, 2))), (K.UNARMED_ATTACK, {"target": "gob"}), "hero"),
    "grapple": (lambda: _setup(hero((2, 2))), (K.GRAPPLE, {"target": "gob"}), "hero"),
    "trip": (lambda: _setup(hero((2, 2))), (K.TRIP, {"target": "gob"}), "hero"),
    "disarm": (lambda: _setup(hero((2, 2))), (K.DISARM, {"target": "gob"}), "hero"),
    "failed_mount": (lambda: _setup(hero((2, 2)), extra=[unit("horse", "party", "horse",
                                                              (1, 2))]),
                     (K.MOUNT, {"target": "horse"}), "hero"),
    "failed_dismount": (lambda: _setup(hero((2, 2), riding="horse"),
                                       extra=[unit("horse", "party", "horse", (2, 2))]),
                        (K.DISMOUNT, {"square": (2, 1)}), "hero"),
}


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


def _s6_quiet(actor_unit, action, pre=(), force=()) -> list[rules.Event]:
    b = _setup(actor_unit, pre=pre)
    b.dice.force(*force)
    events = play(b, action)
    events += decline(b)  # parries and dodges of the target, if any
    return events


NON_PROVOKING_CASES = {
    "armed_melee": (hero((2, 2)), (K.MELEE_ATTACK, {"target": "gob"}), (), (96,)),
    "fight_defensively": (hero((2, 2)), (K.FIGHT_DEFENSIVELY, {}), (), ()),
    "ready_weapon": (hero((2, 2), equipment=[{"item": "longsword", "state": "ready"},
                                             {"item": "dagger", "state": "sheathed"}]),
                     (K.READY_WEAPON, {"item": "hero.dagger"}), (), ()),
    "quick_spell": (_mage(), (K.CAST_SPELL, {"item": "spark", "target": "gob"}), (), (96,)),
    "shift": (hero((2, 2)), (K.SHIFT, {"square": (1, 2)}), (), ()),
    "disengage": (hero((2, 2)), (K.DISENGAGE, {"square": (1, 2)}), (), ()),
    "drop": (hero((2, 2)), (K.DROP_ITEM, {"item": "hero.torch"}), (), ()),
    "fall_prone": (hero((2, 2)), (K.FALL_PRONE, {}), (), ()),
    "speak": (hero((2, 2)), (K.SPEAK, {}), (), ()),
    "nock": (_archer(), (K.NOCK_ARROW, {"item": "shooter.short_bow"}), (), ()),
    "prepare_components": (_mage(), (K.PREPARE_COMPONENTS, {}), (), ()),
}


@pytest.mark.parametrize("case", sorted(NON_PROVOKING_CASES))
def test_S6_actions_not_on_the_list_do_not_provoke(case: str) -> None:
    actor_unit, action, pre, force = NON_PROVOKING_CASES[case]
    events = _s6_quiet(actor_unit, action, pre=pre, force=force)
    assert of_type(events, ev.ActionTaken)
    assert not of_type(events, ev.Provoked)
    assert not [e for e in of_type(events, ev.AttackRolled) if e.mode == "free"]


def test_S6_successful_mount_and_open_door_do_not_provoke() -> None:
    b = _setup(hero((2, 2)), extra=[unit("horse", "party", "horse", (1, 2))])
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
    assert squares == {(1, 1), (2, 1), (3, 1), (1, 2), (1, 3), (2, 3), (3, 3)}
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


def test_S10_extra_parry_lasts_only_this_round() -> None:
    b = duel(order=("hero", "gob"), hero_kw={"hp": 30})
    play(b, (K.FIGHT_DEFENSIVELY, {}))
    assert b.combatants["hero"].extra_parries == 1
    advance_to(b, "gob")
    play(b, (K.END_TURN, {}))
    turn_of(b, "hero")
    assert b.round == 2 and b.combatants["hero"].extra_parries == 0


# ====================================================================== S11 concentration
def _cast_firebolt_provoked() -> rules.Battle:
    b = _setup(_mage())
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
    b = _setup(_archer(hp=20), pre=[(K.NOCK_ARROW, {"item": "shooter.short_bow"})])
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
    b = build(arena(9, 5), [_mage((2, 2), hp=20), gob((6, 2))], order=["mage", "gob"])
    events = play(b, (K.CAST_SPELL, {"item": "bless", "target": "mage"}))
    assert "casting Bless (1/2)" in [e.what for e in of_type(events, ev.Concentration)]
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
    assert "casting Bless (1/2)" in [e.what for e in of_type(events, ev.Concentration)]


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
    **{name: ((lambda u=u, pre=pre: _setup(u, pre=pre)), action, u["id"])
       for name, (u, action, pre, _f) in NON_PROVOKING_CASES.items()},
    "open_door": ((lambda: build(arena(rows=["#######", "#..+..#", "#######"]),
                                 [hero((2, 1)), gob((5, 1))], order=["hero"])),
                  (K.OPEN_DOOR, {"square": (3, 1)}), "hero"),
    "close_door": ((lambda: build(arena(rows=["#######", "#..'..#", "#######"]),
                                  [hero((2, 1)), gob((5, 1))], order=["hero"])),
                   (K.CLOSE_DOOR, {"square": (3, 1)}), "hero"),
    "mount": ((lambda: _setup(hero((2, 2)), extra=[unit("horse", "party", "horse", (1, 2))])),
              (K.MOUNT, {"target": "horse"}), "hero"),
    "dismount": ((lambda: _setup(hero((2, 2), riding="horse"),
                                 extra=[unit("horse", "party", "horse", (2, 2))])),
                 (K.DISMOUNT, {"square": (2, 1)}), "hero"),
    "sling_stone": ((lambda: _setup(unit("sling", "party", "halfling", (2, 2)))),
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
    b = _setup(_mage(), pre=[(K.PREPARE_COMPONENTS, {})])
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
    assert h.riding == "horse"  # the round was spent getting on (documented choice)


def test_S13_failed_dismount_takes_the_full_round() -> None:
    b = build(arena(9, 5), [hero((2, 2), riding="horse"),
                            unit("horse", "party", "horse", (2, 2)), gob((5, 4))],
              order=["hero"])
    b.dice.force(36)
    play(b, (K.DISMOUNT, {"square": (2, 1)}))
    turn_of(b, "hero")
    h = b.combatants["hero"]
    assert h.actions_used == ["full"] and h.riding is None and h.position == (2, 1)


# ====================================================================== S17 movement rate
def _farthest(b: rules.Battle, kind: K, origin: tuple[int, int]) -> int:
    return max(abs(a.square[0] - origin[0]) for a in b.legal_actions()
               if a.kind is kind and a.square[1] == origin[1])


@pytest.mark.parametrize(("race", "armour", "mov", "squares"), [
    ("human", "none", 10, 5), ("elf", "none", 11, 5), ("dwarf", "none", 8, 4),
    ("halfling", "none", 6, 3), ("goblin", "none", 9, 4),
    ("human", "plate_mail", 7, 3),  # MOV 10 - 3 (heavy burden, S20)
])
def test_S17_a_move_action_covers_half_mov_rounded_down(race, armour, mov, squares) -> None:
    u = hero((1, 1), race=race, armour=armour, armour_training="heavy")
    b = build(arena(25, 1), [u, gob((25, 1))], order=["hero"])
    h = b.combatants["hero"]
    assert (h.mov, h.move_squares) == (mov, squares)
    assert _farthest(b, K.MOVE, (1, 1)) == squares
    assert _farthest(b, K.FULL_MOVE, (1, 1)) == mov


def test_S17_race_table() -> None:
    races = default_content().races
    assert {r: races[r].mov for r in ("human", "elf", "dwarf", "halfling")} == {
        "human": 10, "elf": 11, "dwarf": 8, "halfling": 6}
    assert RS.movement.move_divisor == 2


# ====================================================================== S18 diagonals
def test_S18_alternate_diagonals_cost_one_then_two() -> None:
    b = build(arena(12, 12), [hero((1, 1)), gob((12, 12))], order=["hero"])
    move = {a.square for a in b.legal_actions() if a.kind is K.MOVE}
    full = {a.square for a in b.legal_actions() if a.kind is K.FULL_MOVE}
    assert (4, 4) in move and (5, 5) not in move     # 1+2+1 = 4; +2 = 6 > 5
    assert (5, 4) in move and (3, 6) not in move     # 1+2+1+1 = 5; 1+2+1+1+1 = 6
    assert (8, 8) in full and (9, 9) not in full     # 7 diagonals cost 10; 8 cost 12
    (moved,) = of_type(play(b, (K.MOVE, {"square": (4, 4)})), ev.Moved)
    assert moved.cost == 4 and len(moved.path) == 4


def test_S18_diagonal_count_carries_into_the_next_move_this_round() -> None:
    b = build(arena(12, 12), [hero((1, 1)), gob((12, 12))], order=["hero"])
    (m1,) = of_type(play(b, (K.MOVE, {"square": (2, 2)})), ev.Moved)
    (m2,) = of_type(play(b, (K.MOVE, {"square": (3, 3)})), ev.Moved)
    assert (m1.cost, m2.cost) == (1, 2)  # the round's 2nd diagonal costs 2


# ====================================================================== S19 encumbrance
def _loaded(count: int, seed: int = 0) -> rules.Battle:
    u = hero((1, 1), characteristics={"str": 10, "siz": 10, "dex": 12},
             equipment=[{"item": "longsword", "state": "ready"},
                        {"item": "dagger", "count": count}])
    return build(arena(12, 3), [u, gob((12, 3))], seed=seed)


def test_S19_capacity_is_siz_times_str_plus_10_over_20() -> None:
    b = _loaded(1)
    h = b.combatants["hero"]
    assert h.capacity_stones == 10 * (10 + 10) / 20 == 10.0
    b = build(arena(5, 3), [hero((1, 1), characteristics={"str": 14, "siz": 13}),
                            gob((5, 3))])
    assert b.combatants["hero"].capacity_stones == pytest.approx(13 * 24 / 20)


@pytest.mark.parametrize("seed", range(3))
def test_S19_load_over_half_capacity_halves_mov_initiative_and_dex_skills(seed: int) -> None:
    # longsword 0.15 + daggers 0.05 each: 97 daggers -> 5.0 stones, exactly half: not over
    light = _loaded(97, seed).combatants["hero"]
    assert light.load_stones == pytest.approx(5.0) and not light.encumbered
    assert (light.mov, light.skill("sword"), light.skill("first_aid")) == (10, 75, 30)
    b = _loaded(98, seed)
    h = b.combatants["hero"]
    assert h.load_stones > 5.0 and h.encumbered
    assert (h.mov, h.move_squares) == (5, 2)
    assert h.skill("sword") == 37 and h.skill("dodge") == 20  # DEX-based skills x1/2
    assert h.skill("first_aid") == 30  # a mental skill is not affected
    face = Roller(seed).die(12)
    assert h.initiative == (face + 1) // 2
    if b.decision.actor == "hero":
        assert _farthest(b, K.MOVE, h.position) == 2


# ====================================================================== S20 armour burden
@pytest.mark.parametrize(("armour", "mov", "sword", "fumble"), [
    ("none", 10, 75, 0), ("leather", 9, 75, 10), ("chain", 8, 37, 20),
    ("plate_mail", 7, 7, 30),
])
def test_S20_burden_table(armour: str, mov: int, sword: int, fumble: int) -> None:
    b = build(arena(5, 3), [hero((1, 1), armour=armour, armour_training="heavy"),
                            gob((5, 3))])
    h = b.combatants["hero"]
    assert not h.encumbered
    assert (h.mov, h.skill("sword"), h.magic_fumble) == (mov, sword, fumble)
    assert h.skill("first_aid") == 30  # only physical skills take the burden factor


@pytest.mark.parametrize(("armour", "training", "encumbered", "mov", "sword"), [
    ("chain", "moderate", False, 8, 37), ("chain", "light", True, 4, 18),
    ("leather", "none", True, 4, 37), ("plate_mail", "moderate", True, 3, 3),
])
def test_S20_untrained_for_the_burden_is_encumbered(armour, training, encumbered, mov,
                                                    sword) -> None:
    b = build(arena(5, 3), [hero((1, 1), armour=armour, armour_training=training),
                            gob((5, 3))])
    h = b.combatants["hero"]
    assert (h.encumbered, h.mov, h.skill("sword")) == (encumbered, mov, sword)


def test_S20_full_helm_greatly_disadvantages_listen_and_spot() -> None:
    eq = [{"item": "longsword", "state": "ready"}, {"item": "full_helm", "state": "ready"}]
    b = build(arena(5, 3), [hero((1, 1), equipment=eq), gob((5, 3))])
    h = b.combatants["hero"]
    assert (h.skill("listen"), h.skill("spot"), h.skill("sword")) == (7, 8, 75)


def test_S20_gauntlets_make_shooting_bows_impossible() -> None:
    def shooter(gauntlets: bool) -> rules.Battle:
        eq = [{"item": "short_bow", "state": "ready"}, {"item": "arrow", "count": 5}]
        if gauntlets:
            eq.append({"item": "gauntlets", "state": "ready"})
        b = build(arena(9, 3), [_archer((1, 1), equipment=eq), gob((6, 1))],
                  order=["shooter"])
        play(b, (K.NOCK_ARROW, {"item": "shooter.short_bow"}))
        return b
    assert has(shooter(False), K.MISSILE_ATTACK, target="gob")
    b = shooter(True)
    assert not kinds(b) & {K.MISSILE_ATTACK, K.FULL_ATTACK}
    s = b.combatants["shooter"]
    assert s.skill("bow") == 0 and not s.skill_possible("bow")
    assert not s.skill_possible("lockpicking") and not s.skill_possible("instrument")
    with pytest.raises(IllegalActionError):
        b.apply(Action(K.MISSILE_ATTACK, target="gob", item="shooter.short_bow"))


def test_S20_armour_burden_widens_the_magic_fumble_range() -> None:
    def cast(armour: str) -> str:
        b = _setup(_mage(armour=armour, armour_training="heavy"))
        b.dice.force(80)  # cast 70: plain fumble range 99-00; +20 -> 79-00
        (cast_ev,) = of_type(play(b, (K.CAST_SPELL, {"item": "spark", "target": "gob"})),
                             ev.SpellCast)
        return cast_ev.level
    assert cast("none") == "FAILURE"
    assert cast("leather") == "FAILURE"  # +10: 89-00
    assert cast("chain") == "FUMBLE"


# ====================================================================== S21, S22 fatigue, time
def _long_battle(max_rounds: int = 200) -> rules.Battle:
    return build(arena(9, 5), [hero((1, 1)), gob((9, 5))], order=["hero", "gob"],
                 max_rounds=max_rounds)


def _to_round_end(b: rules.Battle, last_round: int) -> None:
    """END_TURN until ``gob`` (the last to act) has its turn in ``last_round``."""
    while not (b.round == last_round and b.decision.actor == "gob"):
        b.apply(Action(K.END_TURN))


def test_S21_fatigue_check_con_x5_each_exploration_turn() -> None:
    b = _long_battle()
    _to_round_end(b, 50)
    assert not [e for e in b.events if isinstance(e, ev.Resisted)]
    b.dice.force(66, 50)  # hero CON 13 x5 = 65: fails; goblin CON 10 x5 = 50: passes
    events = b.apply(Action(K.END_TURN))
    checks = [(e.actor, e.chance, e.roll, e.success) for e in of_type(events, ev.Resisted)]
    assert checks == [("hero", 65, 66, False), ("gob", 50, 50, True)]
    assert all(e.round == 51 for e in of_type(events, ev.Resisted))
    h, g = b.combatants["hero"], b.combatants["gob"]
    assert (h.fatigue, g.fatigue) == ("fatigued", "fresh")
    # Fatigued: MOV and ALL skills x1/2 (initiative was fixed for this combat, S1)
    assert (h.mov, h.move_squares, h.skill("sword"), h.skill("first_aid")) == (5, 2, 37, 15)
    _to_round_end(b, 100)
    b.dice.force(65, 51)
    b.apply(Action(K.END_TURN))
    assert (h.fatigue, g.fatigue) == ("fatigued", "fatigued")  # a success keeps it
    _to_round_end(b, 150)
    b.dice.force(66, 1)
    b.apply(Action(K.END_TURN))
    assert (h.fatigue, g.fatigue) == ("exhausted", "fatigued")
    # Exhausted: x1/10
    assert (h.mov, h.skill("sword"), h.skill("first_aid")) == (1, 7, 3)


def test_S21_rest_recovers_one_hour_from_fatigued_eight_from_exhausted() -> None:
    b = _long_battle(max_rounds=101)
    _to_round_end(b, 50)
    b.dice.force(66, 51)  # both fail: fatigued
    b.apply(Action(K.END_TURN))
    _to_round_end(b, 100)
    b.dice.force(66, 1)  # the hero fails again: exhausted; the goblin passes
    b.apply(Action(K.END_TURN))
    h, g = b.combatants["hero"], b.combatants["gob"]
    assert (h.fatigue, g.fatigue) == ("exhausted", "fatigued")
    with pytest.raises(IllegalActionError):
        b.rest(300)  # not during the battle
    while not b.is_over:
        b.apply(Action(K.END_TURN))
    assert b.winner is None  # the round limit
    b.rest(299)
    assert (h.fatigue, g.fatigue) == ("exhausted", "fatigued")
    b.rest(300)  # 1 hour
    assert (h.fatigue, g.fatigue) == ("exhausted", "fresh")
    b.rest(2399)
    assert h.fatigue == "exhausted"
    b.rest(2400)  # 8 hours
    assert h.fatigue == "fresh"


def test_S22_an_exploration_turn_is_50_rounds_of_12_seconds() -> None:
    f = RS.fatigue
    assert f.rounds_per_check == 10 * 60 // 12 == 50
    assert f.rest_rounds_fatigued == 60 * 60 // 12
    assert f.rest_rounds_exhausted == 8 * 60 * 60 // 12
    b = _long_battle()
    _to_round_end(b, 101)
    rounds = sorted({e.round for e in b.events if isinstance(e, ev.Resisted)})
    assert rounds == [51, 101]


# ====================================================================== S23 falling
def _fall(force: tuple[int, ...], armour: str = "chain") -> tuple[rules.Battle, ev.Fell]:
    rows = ["#########", "#...2...#", "#.......#", "#########"]  # a 20 ft drop at (4, 1)
    b = build(arena(rows=rows), [hero((1, 1), hp=20, armour=armour), gob((7, 2))],
              order=["hero"])
    assert not has(b, K.MOVE, square=(5, 1))  # no route across the drop
    b.dice.force(*force)
    events = play(b, (K.MOVE, {"square": (4, 1)}))
    (fell,) = of_type(events, ev.Fell)
    return b, fell


def test_S23_d6_per_10_ft_and_armour_does_not_reduce_it() -> None:
    b, fell = _fall((4, 5, 99, 99))  # 2d6 = 9; dodge and jump fail
    h = b.combatants["hero"]
    assert h.armour_points == 5
    assert (fell.depth_ft, fell.rolled, fell.reduced, fell.damage) == (20, 9, 0, 9)
    assert h.hp == 11 and h.prone and h.position == (4, 1)


def test_S23_defence_and_jump_each_take_off_a_d6() -> None:
    # chain (moderate) halves dodge 40 -> 20 and jump 35 -> 17
    b, fell = _fall((6, 6, 20, 4, 17, 3))
    assert (fell.rolled, fell.reduced, fell.damage) == (12, 7, 5)
    assert b.combatants["hero"].hp == 15
    rolls = [(e.skill, e.chance) for e in of_type(b.events, ev.SkillRolled)]
    assert rolls == [("dodge", 20), ("jump", 17)]
    b, fell = _fall((2, 1, 5, 6, 99))  # reductions never take damage below 0
    assert (fell.rolled, fell.reduced, fell.damage) == (3, 6, 0)
    assert b.combatants["hero"].hp == 20


# ====================================================================== S24 poison
def _snake_bite(save_roll: int, armour: str = "full_plate") -> tuple[rules.Battle, list]:
    b = build(arena(9, 5), [hero((2, 2), hp=20, armour=armour, armour_training="heavy"),
                            unit("snake", "monsters", "giant_snake", (3, 2))],
              order=["snake", "hero"])
    b.dice.force(20)  # a plain hit (bite 55: special at 11 or less)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}))
    b.dice.force(2, 2, save_roll, 5)  # bite 1d4 + bonus 1d4 = 4; save; poison 1d6 = 5
    events = decline(b)
    return b, events


def test_S24_poison_save_even_when_armour_absorbs_all_damage_snake_con_x5() -> None:
    b, events = _snake_bite(66)
    (dmg,) = of_type(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.armour, dmg.damage) == (4, 4, 0)
    (save,) = of_type(events, ev.Resisted)
    assert (save.chance, save.roll, save.success) == (13 * 5, 66, False)
    assert b.combatants["hero"].hp == 15
    b, events = _snake_bite(65)
    (save,) = of_type(events, ev.Resisted)
    assert save.success and b.combatants["hero"].hp == 20
    assert b.dice.forced == [5]  # the poison die was not rolled


def test_S24_other_poisons_are_saved_at_con_x10(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(Path(rules.__file__).parent / "data", data)
    with open(data / "weapons.toml", "a", encoding="utf-8") as fh:
        fh.write('\n[poisoned_dagger]\nname = "Poisoned dagger"\nkind = "melee"\n'
                 'skill = "dagger"\ndamage = "1d4"\ndamage_type = "impale"\nap = 6\n'
                 'hands = 1\nweight = 0.05\nreach = "S"\n'
                 'poison = { damage = "1d6", snake = false }\n')
    units = [hero((2, 2), hp=20, armour="plate_mail", armour_training="heavy"),
             gob((3, 2), equipment=[{"item": "poisoned_dagger", "state": "ready"}],
                 skills={"dagger": 40})]
    results = []
    for save_roll in (96, 95):
        b = build(arena(9, 5), units, order=["gob", "hero"], content_dir=str(data))
        b.dice.force(10)
        play(b, (K.MELEE_ATTACK, {"target": "hero"}))
        b.dice.force(4, 1, save_roll, 3)  # 1d4 = 4, bonus -1d4 = 1 -> 3, AP 7 absorbs
        events = decline(b)
        (save,) = of_type(events, ev.Resisted)
        results.append((save.chance, save.success, b.combatants["hero"].hp))
    # CON 13 x10 = 130: only 96-00 fail (H2)
    assert results == [(130, False, 17), (130, True, 20)]


# ====================================================================== S25 sheet figures
def test_S25_mov_10_is_25_ft_per_action_and_50_ft_per_round() -> None:
    feet = RS.movement.square_feet
    assert feet == 5
    b = build(arena(25, 1), [hero((1, 1)), gob((25, 1))], order=["hero"])
    h = b.combatants["hero"]
    assert h.mov == 10
    assert h.move_squares * feet == 25 and h.mov * feet == 50
    assert _farthest(b, K.MOVE, (1, 1)) * feet == 25
    assert _farthest(b, K.FULL_MOVE, (1, 1)) * feet == 50
    events = play(b, (K.MOVE, {"square": (6, 1)}), (K.MOVE, {"square": (11, 1)}))
    assert sum(m.cost for m in of_type(events, ev.Moved)) * feet == 50
    assert not kinds(b) & MOVE_KINDS  # no more in this round
