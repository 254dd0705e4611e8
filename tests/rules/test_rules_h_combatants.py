"""House rules H1-H8 in scripted battles: characteristics, success levels, modified
skills, initiative, hit points, damage, criticals and specials, resistance.

Every test builds a small inline scenario, fixes initiative and every die it needs and
checks the exact outcome: decisions, HP, positions and events.
"""

from __future__ import annotations

import pytest
from builders import kinds, unit
from scripted import (
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
    swordsman,
    turn_of,
    used_up,
)

import rules
from rules import Action
from rules import events as ev


# ================================================================== H1 characteristics
def test_H1_characteristics_and_siz_in_stones() -> None:
    names = set(rules.default_content().ruleset.characteristics.names)
    assert names == {"str", "con", "siz", "int", "pow", "dex", "cha"}
    ropes = [{"item": "rope", "count": 7}]
    b = make([swordsman("a", "party", (1, 1), equipment=ropes),
              swordsman("b", "monsters", (7, 3), equipment=[*ropes, {"item": "rope"}])],
             init=(12, 1))
    a, o = b.combatants["a"], b.combatants["b"]
    assert set(a.characteristics) == names
    # SIZ 10 stones, STR 10: capacity 10 x 20 / 20 = 10 stones; over 5 stones encumbers
    assert a.capacity_stones == pytest.approx(10.0)
    assert a.load_stones == pytest.approx(4.9) and not a.encumbered
    assert (a.mov, a.move_squares) == (10, 5)
    assert o.load_stones == pytest.approx(5.6) and o.encumbered
    assert (o.mov, o.move_squares) == (5, 2)
    assert o.skill("sword") == 25


def test_H1_human_stat_blocks_fit_3d6_and_siz_2d6_plus_6() -> None:
    """Stat blocks carry fixed characteristics; human ones lie inside the H1 rolls."""
    content = rules.default_content()
    ch = content.ruleset.characteristics
    humans = [c for c in content.creatures.values() if c.race == "human"]
    assert humans
    for c in humans:
        chars = dict(c.characteristics)
        assert set(chars) == set(ch.names)
        assert ch.siz_roll.minimum <= chars["siz"] <= ch.siz_roll.maximum
        for name in set(ch.names) - {"siz"}:
            assert ch.default_roll.minimum <= chars[name] <= ch.default_roll.maximum


def test_H1_unknown_characteristic_is_a_scenario_error() -> None:
    with pytest.raises(rules.ScenarioError, match="luck"):
        make([swordsman("a", "party", (1, 1), characteristics={"luck": 10}),
              swordsman("b", "monsters", (7, 3))], init=(12, 1))


def test_H1_rolled_characteristics_are_3d6_and_siz_2d6_plus_6() -> None:
    """A unit with roll_characteristics = true rolls 3d6 each (SIZ 2d6+6), exactly the
    forced faces, with the battle's own dice (same seed, same stats)."""
    text = """
name = "roll"
max_rounds = 3
map = '''
#####
#...#
#####
'''
[[units]]
id = "a"
team = "party"
creature = "human_warrior"
at = [1, 1]
roll_characteristics = true
characteristics = { cha = 18 }
[[units]]
id = "b"
team = "monsters"
creature = "goblin"
at = [3, 1]
"""
    seen = set()
    for seed in range(30):
        c = rules.Battle.from_toml(text, seed=seed).combatants["a"]
        ch = c.characteristics
        assert ch["cha"] == 18  # overrides apply after the roll
        assert all(3 <= ch[k] <= 18 for k in ("str", "con", "int", "pow", "dex"))
        assert 8 <= ch["siz"] <= 18
        assert c.max_hp == -(-ch["siz"] // 2)  # H5 from the rolled SIZ
        seen.add(ch["str"])
    assert len(seen) > 5  # really rolled
    again = rules.Battle.from_toml(text, seed=4).combatants["a"].characteristics
    assert again == rules.Battle.from_toml(text, seed=4).combatants["a"].characteristics


# ================================================================== H2 success levels
@pytest.mark.parametrize(("roll", "level"), [
    (1, "CRITICAL"), (3, "CRITICAL"), (4, "SPECIAL"), (10, "SPECIAL"), (11, "SUCCESS"),
    (50, "SUCCESS"), (51, "FAILURE"), (97, "FAILURE"), (98, "FUMBLE"), (100, "FUMBLE")])
def test_H2_attack_roll_levels_in_battle(roll: int, level: str) -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=30)],
             init=(12, 1))
    b.dice.force(roll)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    rolled = one(events, ev.AttackRolled)
    assert (rolled.chance, rolled.roll, rolled.level) == (50, roll, level)
    expect = rules.Decision(D.PARRY, "b", "a") if level in ("CRITICAL", "SPECIAL", "SUCCESS") \
        else rules.Decision(D.TURN, "a")
    assert b.decision == expect


@pytest.mark.parametrize(("sword", "roll", "level"), [
    (8, 5, "SUCCESS"), (8, 6, "FAILURE"),  # 8 in the dark is 4: 01-05 still succeed
    (240, 95, "SUCCESS"), (240, 96, "FAILURE"), (240, 100, "FUMBLE")])  # 96-00 fail
def test_H2_automatic_success_and_failure_in_battle(sword: int, roll: int, level: str) -> None:
    m = "#####\n#.:.#\n#####\n"
    b = make([swordsman("a", "party", (1, 1), skills={"sword": sword}),
              swordsman("b", "monsters", (2, 1), hp=30)], m, init=(12, 1))
    b.dice.force(roll)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    rolled = one(events, ev.AttackRolled)
    assert (rolled.chance, rolled.level) == (sword // 2, level)


# ================================================================== H3 modified skills
def test_H3_multipliers_multiply_then_round_down_then_points() -> None:
    m = "######\n#.:..#\n######\n"
    b = make([swordsman("b", "monsters", (2, 1)),
              swordsman("a", "party", (1, 1), skills={"sword": 75}, armour="chain",
                        armour_training="light")], m, init=(12, 1))
    a = b.combatants["a"]
    assert a.encumbered  # S20: untrained for moderate armour
    assert a.skill("sword") == 18  # 75 x 1/2 (burden) x 1/2 (encumbered) = 18.75 -> 18
    act(b, K.FALL_PRONE)
    end_turn(b)
    b.dice.force(95)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    # 75 x 1/2 x 1/2 x 1/2 (dark) = 9.375 -> 9, then +20 for the prone target = 29
    assert one(events, ev.AttackRolled).chance == 29


def test_H3_heavy_burden_and_fatigue_multiply_exactly() -> None:
    b = make([swordsman("a", "party", (1, 1), skills={"sword": 60, "spot": 60},
                        armour="plate_mail", armour_training="heavy"),
              swordsman("b", "monsters", (7, 3))], init=(12, 1))
    a = b.combatants["a"]
    assert not a.encumbered
    assert a.skill("sword") == 6  # 60 x 1/10
    a.fatigue_level = 1
    assert a.skill("sword") == 3  # 60 x 1/10 x 1/2, exactly 3 (no float slip to 2)
    assert a.skill("spot") == 30  # not physical: fatigue only


def test_H3_impossible_action_is_not_legal() -> None:
    gear = [{"item": "short_bow", "state": "ready"}, {"item": "arrow", "count": 5},
            {"item": "gauntlets", "state": "ready"}]
    b = make([archer("a", "party", (1, 2), equipment=gear),
              swordsman("b", "monsters", (6, 2))], init=(12, 1))
    assert b.combatants["a"].skill("bow") == 0
    act(b, K.NOCK_ARROW, item="a.short_bow")  # nocking is not shooting
    assert not any(a.item == "a.short_bow" for a in b.legal_actions()
                   if a.kind in (K.MISSILE_ATTACK, K.FULL_ATTACK))
    act(b, K.DROP_ITEM, item="a.gauntlets")  # without the gauntlets the bow works again
    assert Action(K.MISSILE_ATTACK, target="b", item="a.short_bow") in b.legal_actions()


# ================================================================== H4 initiative
def test_H4_dex_bonus_floors_and_adds_to_the_d12() -> None:
    dexes = {"d18": 18, "d13": 13, "d11": 11, "d10": 10, "d9": 9, "d3": 3}
    units = [swordsman(uid, "party" if i % 2 else "monsters", (1 + i, 1),
                       characteristics={"str": 10, "siz": 10, "con": 10, "dex": dex})
             for i, (uid, dex) in enumerate(dexes.items())]
    b = make(units, init=(6,) * 6)
    bonus = {cid: c.dex_bonus for cid, c in b.combatants.items()}
    assert bonus == {"d18": 4, "d13": 1, "d11": 0, "d10": 0, "d9": -1, "d3": -4}
    assert {cid: c.initiative for cid, c in b.combatants.items()} == {
        "d18": 10, "d13": 7, "d11": 6, "d10": 6, "d9": 5, "d3": 2}
    assert b.initiative_order == ["d18", "d13", "d11", "d10", "d9", "d3"]
    start = one(b.events, ev.BattleStarted)
    assert start.initiative == (10, 7, 6, 6, 5, 2)


def test_H4_initiative_ties_go_to_higher_dex() -> None:
    b = make([swordsman("a", "party", (1, 1),
                        characteristics={"str": 10, "siz": 10, "con": 10, "dex": 12}),
              swordsman("b", "monsters", (7, 3),
                        characteristics={"str": 10, "siz": 10, "con": 10, "dex": 13})],
             init=(7, 7))
    assert (b.combatants["a"].initiative, b.combatants["b"].initiative) == (8, 8)
    assert b.initiative_order == ["b", "a"]
    assert b.decision == rules.Decision(D.TURN, "b")


def test_H4_full_ties_are_a_seeded_draw() -> None:
    orders = {}
    for seed in range(12):
        units = [swordsman("a", "party", (1, 1)), swordsman("b", "monsters", (7, 3))]
        first = make(units, init=(5, 5), seed=seed).initiative_order
        again = make(units, init=(5, 5), seed=seed).initiative_order
        assert first == again  # the same seed draws the same order
        orders[seed] = tuple(first)
    assert set(orders.values()) == {("a", "b"), ("b", "a")}


def test_H4_encumbered_halves_the_initiative_total_rounding_down() -> None:
    b = make([swordsman("a", "party", (1, 1), armour="chain", armour_training="none",
                        characteristics={"str": 10, "siz": 10, "con": 10, "dex": 12}),
              swordsman("b", "monsters", (7, 3))], init=(8, 3))
    assert b.combatants["a"].encumbered
    assert b.combatants["a"].initiative == 4  # (8 + 1) x 1/2 = 4.5 -> 4
    assert b.combatants["b"].initiative == 3
    assert b.initiative_order == ["a", "b"]


# ================================================================== H5 hit points
def test_H5_hit_points_are_half_siz_rounded_up() -> None:
    b = make([swordsman("a", "party", (1, 1), characteristics={"siz": 13, "str": 10}),
              swordsman("b", "monsters", (5, 1), characteristics={"siz": 10, "str": 10})],
             init=(12, 1))
    assert (b.combatants["a"].max_hp, b.combatants["a"].hp) == (7, 7)
    assert (b.combatants["b"].max_hp, b.combatants["b"].hp) == (5, 5)


def _three(hp: int = 1, con: int = 5) -> rules.Battle:
    """a (party) next to b (monsters, low HP); c (monsters) far away keeps the battle going."""
    return make([
        swordsman("a", "party", (2, 2)),
        swordsman("b", "monsters", (3, 2), hp=hp,
                  characteristics={"str": 10, "siz": 10, "con": con, "dex": 10}),
        swordsman("c", "monsters", (7, 3)),
    ], init=(12, 6, 1))


def test_H5_zero_hp_is_out_of_action_prone_and_skipped() -> None:
    b = _three(hp=3, con=10)
    # sword 50: 30 succeeds; longsword 1d8+1 with a 2 -> 3 damage -> 0 HP.
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 2)
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.damage, dmg.hp) == (3, 3, 0)
    tgt = b.combatants["b"]
    assert tgt.status == "out" and not tgt.in_action and tgt.prone and not tgt.dead
    assert any(isinstance(e, ev.StatusChanged) and e.actor == "b" and e.status == "out of action"
               for e in events)
    # no actions: nobody may target it with a melee attack, and its turn is skipped
    assert not any(a.target == "b" for a in b.legal_actions() if a.kind is K.MELEE_ATTACK)
    events = end_turn(b)
    assert b.decision == rules.Decision(D.TURN, "c")
    assert not any(isinstance(e, ev.TurnStarted) and e.actor == "b" for e in events)
    used_up(b)


def test_H5_out_of_action_takes_no_reactions() -> None:
    b = _three(hp=1, con=10)
    hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 1)
    assert b.combatants["b"].status == "out"
    # a next turn: walking away from b provokes nothing (b threatens nobody)
    next_turn(b, "a")
    events = act(b, K.MOVE, square=(1, 1))
    assert not of(events, ev.Provoked)
    assert b.combatants["a"].position == (1, 1)
    assert b.decision is not None and b.decision.kind is D.TURN


def test_H5_exactly_minus_con_is_out_below_is_dead() -> None:
    b = _three(hp=1, con=5)
    hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 5)  # 6 damage -> -5 HP = -CON
    tgt = b.combatants["b"]
    assert (tgt.hp, tgt.status) == (-5, "out")
    b2 = _three(hp=1, con=5)
    events = hit(b2, K.MELEE_ATTACK, "b", "a.longsword", 30, 6)  # 7 damage -> -6 HP
    tgt = b2.combatants["b"]
    assert (tgt.hp, tgt.status, tgt.dead) == (-6, "dead", True)
    assert [e.status for e in of(events, ev.StatusChanged) if e.actor == "b"][-1] == "dead"


def test_H5_coup_de_grace_kills_out_of_action_target() -> None:
    b = _three(hp=1, con=10)
    hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 1)  # 2 damage -> -1 HP, out
    assert b.combatants["b"].status == "out"
    # a FULL action: not possible after this turn's attack
    assert K.COUP_DE_GRACE not in kinds(b)
    next_turn(b, "a")
    assert b.round == 2
    assert Action(K.COUP_DE_GRACE, target="b") in b.legal_actions()
    events = act(b, K.COUP_DE_GRACE, target="b")
    assert b.combatants["b"].dead
    assert any(isinstance(e, ev.StatusChanged) and e.actor == "b" and e.status == "dead"
               for e in events)
    assert b.combatants["b"].hp == -1  # killed outright, not by damage
    # only out-of-action targets qualify: c is in action and never listed
    next_turn(b, "a")
    assert not any(a.kind is K.COUP_DE_GRACE for a in b.legal_actions())


# ================================================================== H6 damage
def test_H6_damage_is_weapon_dice_plus_damage_bonus_minus_armour() -> None:
    b = make([
        swordsman("a", "party", (2, 2), characteristics={"str": 16, "siz": 14, "con": 10}),
        swordsman("b", "monsters", (3, 2), hp=20, armour="leather", armour_training="light"),
    ], init=(12, 1))
    # STR+SIZ 30 -> +1d4. longsword 1d8+1: d8 5 -> 6, d4 3 -> 9; leather AP 2 -> 7.
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 5, 3)
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.armour, dmg.damage, dmg.hp) == (9, (5, 3), 2, 7, 13)
    assert b.combatants["b"].hp == 13
    used_up(b)


def test_H6_negative_damage_bonus_never_below_zero() -> None:
    b = make([
        unit("a", "party", "human_warrior", (2, 2), armour="none",
             characteristics={"str": 5, "siz": 6, "con": 10, "dex": 10},
             equipment=[{"item": "dagger", "state": "ready"}], skills={"dagger": 50}),
        swordsman("b", "monsters", (3, 2)),
    ], init=(12, 1))
    # STR+SIZ 11 -> -1d6. dagger 1d4+2: d4 1 -> 3, -d6 6 -> -3 -> 0.
    events = hit(b, K.MELEE_ATTACK, "b", "a.dagger", 30, 1, 6)
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.damage, dmg.hp) == (0, 0, 5)
    assert b.combatants["b"].hp == 5
    used_up(b)


def test_H6_armour_can_absorb_everything_but_not_heal() -> None:
    b = make([
        swordsman("a", "party", (2, 2)),
        swordsman("b", "monsters", (3, 2), armour="plate_mail", armour_training="heavy"),
    ], init=(12, 1))
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 2)  # 3 vs AP 7
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.armour, dmg.damage, dmg.hp) == (3, 3, 0, 5)


def test_H6_bows_get_no_damage_bonus() -> None:
    b = make([archer("a", "party", (1, 2)),
              swordsman("b", "monsters", (5, 2), hp=20)], init=(12, 1))
    act(b, K.NOCK_ARROW, item="a.short_bow")
    # short bow 1d6+1: 4 -> 5 and no damage-bonus die although STR+SIZ is 30
    events = hit(b, K.MISSILE_ATTACK, "b", "a.short_bow", 30, 4)
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.damage) == (5, (4,), 5)
    used_up(b)


def test_H6_thrown_weapons_get_the_damage_bonus() -> None:
    b = make([
        archer("a", "party", (1, 2), equipment=[{"item": "javelin", "state": "ready"}]),
        swordsman("b", "monsters", (5, 2), hp=20)], init=(12, 1))
    events = hit(b, K.MISSILE_ATTACK, "b", "a.javelin", 30, 4, 2)  # 1d8 4 + 1d4 2
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.damage) == (6, (4, 2), 6)
    # the javelin lands in the target's square
    assert [(g.uid, g.square) for g in b.ground] == [("a.javelin", (5, 2))]
    used_up(b)


# ================================================================== H7 critical and special
def test_H7_critical_is_max_weapon_damage_plus_rolled_bonus_ignoring_armour() -> None:
    b = make([
        swordsman("a", "party", (2, 2), characteristics={"str": 16, "siz": 14, "con": 10}),
        swordsman("b", "monsters", (3, 2), hp=20, armour="chain", armour_training="moderate"),
    ], init=(12, 1))
    # sword 50: critical <= 3. longsword max 9, +1d4 rolled 3, chain AP 5 ignored.
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 2, 3)
    assert one(events, ev.AttackRolled).level == "CRITICAL"
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.armour, dmg.damage, dmg.hp) == (12, (3,), 0, 12, 8)
    used_up(b)


def test_H7_special_slash_bleeds_each_round_until_first_aid() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=10)],
             init=(12, 1))
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 8, 3)  # special; 1d8+1 -> 4
    assert one(events, ev.AttackRolled).level == "SPECIAL"
    assert one(events, ev.DamageDealt).hp == 6
    tgt = b.combatants["b"]
    assert tgt.bleeding
    events = end_turn(b)  # b's turn, round 1: no bleeding yet
    assert tgt.hp == 6
    events = end_turn(b)  # round 2 starts: bleed 1
    bleed = [e for e in of(events, ev.HitPointsChanged) if e.cause == "bleeding"]
    assert [(e.actor, e.amount, e.hp) for e in bleed] == [("b", -1, 5)]
    turn_of(b, "b")
    # H20: First Aid (FULL, on itself here) success heals 1d3 and stops the bleeding
    b.dice.force(10, 2)
    events = act(b, K.FIRST_AID, target="b")
    assert b.decision == rules.Decision(D.FREE_ATTACK, "a", "b")  # S6: First Aid provokes
    events += decline_all(b)
    assert not tgt.bleeding and tgt.hp == 7
    assert one(events, ev.HitPointsChanged).amount == 2
    events = end_turn(b)  # round 3: no more bleeding
    assert b.round == 3 and tgt.hp == 7
    assert not [e for e in of(events, ev.HitPointsChanged) if e.cause == "bleeding"]
    used_up(b)


def test_H7_special_slash_fully_stopped_by_armour_does_not_bleed() -> None:
    """Choice: special effects need damage through armour."""
    b = make([swordsman("a", "party", (2, 2)),
              swordsman("b", "monsters", (3, 2), armour="chain", armour_training="moderate")],
             init=(12, 1))
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 8, 3)  # 4 vs AP 5
    assert one(events, ev.DamageDealt).damage == 0
    assert not b.combatants["b"].bleeding


def test_H7_special_impale_rolls_weapon_dice_twice() -> None:
    b = make([swordsman("a", "party", (2, 2),
                        equipment=[{"item": "shortsword", "state": "ready"}]),
              swordsman("b", "monsters", (3, 2), hp=20)], init=(12, 1))
    events = hit(b, K.MELEE_ATTACK, "b", "a.shortsword", 8, 3, 4)  # (3+1) + (4+1)
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.damage, dmg.hp) == (9, (3, 4), 9, 11)
    assert not b.combatants["b"].bleeding
    used_up(b)


@pytest.mark.parametrize(("resist_roll", "prone"), [(80, True), (70, False)])
def test_H7_special_crush_con_vs_damage_or_prone(resist_roll: int, prone: bool) -> None:
    b = make([swordsman("a", "party", (2, 2), equipment=[{"item": "mace", "state": "ready"}],
                        skills={"mace": 50}),
              swordsman("b", "monsters", (3, 2), hp=20)], init=(12, 1))
    # mace 1d8+2: 4 -> 6 damage; CON 10 vs 6 -> 50 + 5 x 4 = 70%
    events = hit(b, K.MELEE_ATTACK, "b", "a.mace", 8, 4, resist_roll)
    assert one(events, ev.DamageDealt).damage == 6
    res = one(events, ev.Resisted)
    assert (res.actor, res.chance, res.roll, res.success) == ("b", 70, resist_roll, not prone)
    assert b.combatants["b"].prone is prone
    used_up(b)


# ================================================================== H8 resistance
@pytest.mark.parametrize(("roll", "prone"), [(35, True), (36, False)])
def test_H8_resistance_is_50_plus_5_per_point_of_difference(roll: int, prone: bool) -> None:
    b = make([swordsman("a", "party", (2, 2), equipment=[], skills={"brawl": 50},
                        characteristics={"str": 12, "siz": 10, "con": 10, "dex": 10}),
              swordsman("b", "monsters", (3, 2),
                        characteristics={"str": 10, "siz": 10, "con": 10, "dex": 15})],
             init=(12, 1))
    events = hit(b, K.TRIP, "b", None, 30, roll)
    res = one(events, ev.Resisted)
    assert (res.actor, res.chance, res.roll, res.success) == ("a", 35, roll, prone)
    assert b.combatants["b"].prone is prone


