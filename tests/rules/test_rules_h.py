"""House defaults H1-H25 (RULES.md), tested as engine behaviour in scripted battles.

Every test builds a small inline scenario, fixes initiative and every die it needs with
``battle.dice.force`` and checks the exact outcome: decisions, HP, positions and events.
Data values and the H2/H8 tables are covered in test_content.py and test_dice.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from builders import advance_to, decline, kinds, of_type, scenario_toml, unit

import rules
import rules.battle as battle_module
from rules import Action, ActionKind, DecisionKind
from rules import events as ev
from rules.roller import Roller

K = ActionKind
D = DecisionKind

ROOM = """
#########
#.......#
#.......#
#.......#
#########
"""

BIG = """
###########
#.........#
#.........#
#.........#
#.........#
#.........#
#.........#
###########
"""


# ------------------------------------------------------------------ helpers
# builders.py (shared with the S tests) writes the scenarios; ``make`` adds exact
# initiative: the d12 of each unit (in unit order) is forced before the battle starts.
def make(units: Iterable[dict[str, Any]], map_text: str = ROOM, *, init: Iterable[int] = (),
         max_rounds: int = 10, seed: int = 1) -> rules.Battle:
    """A battle whose initiative d12s (one per unit, in unit order) are ``init``."""
    faces = list(init)

    class _Preloaded(Roller):
        def __init__(self, s: int | None = None) -> None:
            super().__init__(s)
            self.forced = list(faces)

    original = battle_module.Roller
    battle_module.Roller = _Preloaded  # type: ignore[misc]
    try:
        text = scenario_toml(map_text.strip() + "\n", list(units), max_rounds)
        b = rules.Battle.from_toml(text, seed=seed)
    finally:
        battle_module.Roller = original  # type: ignore[misc]
    assert b.dice.forced == [], "every initiative face must be used"
    return b


def act(b: rules.Battle, kind: ActionKind, **kw: Any) -> list[ev.Event]:
    """Apply an action that must be legal now."""
    action = Action(kind, **kw)
    assert action in b.legal_actions(), f"{action} not legal for {b.decision}"
    return b.apply(action)


def decline_all(b: rules.Battle) -> list[ev.Event]:
    return decline(b)


def end_turn(b: rules.Battle) -> list[ev.Event]:
    return b.apply(Action(K.END_TURN))


def turn_of(b: rules.Battle, actor: str) -> list[ev.Event]:
    return advance_to(b, actor)


def next_turn(b: rules.Battle, actor: str) -> list[ev.Event]:
    """End the current turn, then play on until ``actor``'s next turn."""
    out = decline(b) + end_turn(b)
    return out + advance_to(b, actor)


def of(events: Iterable[ev.Event], cls: type) -> list[Any]:
    return of_type(events, cls)


def one(events: Iterable[ev.Event], cls: type) -> Any:
    found = of(events, cls)
    assert len(found) == 1, f"expected one {cls.__name__}, got {found}"
    return found[0]


def squares(b: rules.Battle, kind: ActionKind) -> set[tuple[int, int]]:
    return {a.square for a in b.legal_actions() if a.kind is kind and a.square is not None}


def used_up(b: rules.Battle) -> None:
    assert b.dice.forced == [], f"unused forced dice: {b.dice.forced}"


# A plain unarmoured human swordsman: STR 10 + SIZ 10 = 20 -> no damage bonus (H6).
def swordsman(uid: str, team: str, at: tuple[int, int], **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "characteristics": {"str": 10, "con": 10, "siz": 10, "dex": 10},
        "armour": "none",
        "equipment": [{"item": "longsword", "state": "ready"}],
        "skills": {"sword": 50, "dodge": 40, "shield": 50},
    }
    base.update(kw)
    return unit(uid, team, "human_warrior", at, **base)


def hit(b: rules.Battle, kind: ActionKind, target: str, item: str | None, *dice: int,
        **kw: Any) -> list[ev.Event]:
    """The turn owner attacks; the target declines every defence; ``dice`` are forced."""
    b.dice.force(*dice)
    out = act(b, kind, target=target, item=item, **kw)
    out += decline_all(b)
    return out


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
    b = make([_archer("a", "party", (1, 2), equipment=gear),
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


def _archer(uid: str, team: str, at: tuple[int, int], weapon: str = "short_bow",
            ammo: str = "arrow", **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "characteristics": {"str": 16, "siz": 14, "con": 10, "dex": 10},
        "armour": "none",
        "equipment": [{"item": weapon, "state": "ready"}, {"item": ammo, "count": 5}],
        "skills": {"bow": 50, "crossbow": 50, "sling": 50, "throw": 50, "dodge": 30},
    }
    base.update(kw)
    return unit(uid, team, "human_archer", at, **base)


def test_H6_bows_get_no_damage_bonus() -> None:
    b = make([_archer("a", "party", (1, 2)),
              swordsman("b", "monsters", (5, 2), hp=20)], init=(12, 1))
    act(b, K.NOCK_ARROW, item="a.short_bow")
    # short bow 1d6+1: 4 -> 5 and no damage-bonus die although STR+SIZ is 30
    events = hit(b, K.MISSILE_ATTACK, "b", "a.short_bow", 30, 4)
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.damage) == (5, (4,), 5)
    used_up(b)


def test_H6_thrown_weapons_get_the_damage_bonus() -> None:
    b = make([
        _archer("a", "party", (1, 2), equipment=[{"item": "javelin", "state": "ready"}]),
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
    b = make([_archer("a", "party", (1, 2)),
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
    assert dodge_to == {(3, 1), (3, 3), (4, 1), (4, 2), (4, 3)}


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
    b = make([_archer("a", "party", (1, 2), equipment=gear),
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
    b = make([_archer("a", "party", (1, 2)), swordsman("b", "monsters", (6, 2))],
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
    b = make([_archer("a", "party", (1, 1), weapon="sling", ammo="sling_stone"),
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
    b = make([_archer("a", "party", (1, 2)), swordsman("b", "monsters", (6, 2)),
              swordsman("c", "monsters", (6, 3))], m, init=(12, 2, 1))
    act(b, K.NOCK_ARROW, item="a.short_bow")
    assert K.MISSILE_ATTACK not in kinds(b)
    act(b, K.MOVE, square=(2, 2))
    assert K.MISSILE_ATTACK not in kinds(b)
    next_turn(b, "a")
    act(b, K.MOVE, square=(3, 1))
    assert K.MISSILE_ATTACK not in kinds(b)
    b2 = make([_archer("a", "party", (3, 2)), swordsman("b", "monsters", (6, 2)),
               swordsman("c", "monsters", (6, 3))], m, init=(12, 2, 1))
    act(b2, K.NOCK_ARROW, item="a.short_bow")
    assert K.MISSILE_ATTACK not in kinds(b2)
    act(b2, K.OPEN_DOOR, square=(4, 2))
    assert {a.target for a in b2.legal_actions() if a.kind is K.MISSILE_ATTACK} == {"b", "c"}


def test_H16_bows_need_a_free_nock_before_each_shot() -> None:
    b = make([_archer("a", "party", (1, 2)), swordsman("b", "monsters", (6, 2), hp=30)],
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
    b = make([_archer("a", "party", (1, 2), weapon="light_crossbow", ammo="bolt"),
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
    b = make([_archer("a", "party", (2, 2), weapon="light_crossbow", ammo="bolt"),
              swordsman("b", "monsters", (3, 2))], init=(12, 1))
    events = act(b, K.LOAD_CROSSBOW, item="a.light_crossbow")
    assert one(events, ev.Provoked).enemy == "b"
    assert b.decision == rules.Decision(D.FREE_ATTACK, "b", "a")


def test_H16_throwing_one_weapon_of_a_stack_keeps_the_rest_in_hand() -> None:
    gear = [{"item": "javelin", "state": "ready", "count": 2}]
    b = make([_archer("a", "party", (1, 2), equipment=gear),
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
    b = make([_archer("a", "party", (2, 2), hp=20),
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


# ================================================================== H18 spells
def mage(uid: str, team: str, at: tuple[int, int], **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"characteristics": {"str": 10, "con": 10, "siz": 10, "dex": 10},
                            "skills": {"cast": 70, "dagger": 50, "dodge": 30}}
    base.update(kw)
    return unit(uid, team, "human_mage", at, **base)


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
    assert one(events, ev.Concentration).what == "casting Bless (1/2)"
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
    assert one(events, ev.Concentration).what == "casting Bless (1/2)"  # starts over
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


# ================================================================== H19 unarmed, manoeuvres
def _brawlers() -> rules.Battle:
    return make([swordsman("a", "party", (2, 2), equipment=[],
                           characteristics={"str": 16, "siz": 14, "con": 10, "dex": 10},
                           skills={"brawl": 50, "grapple": 50, "sword": 50}),
                 swordsman("b", "monsters", (3, 2), hp=20)], init=(12, 1))


def test_H19_unarmed_attack_is_d3_plus_damage_bonus_and_provokes() -> None:
    b = _brawlers()
    events = hit(b, K.UNARMED_ATTACK, "b", None, 30, 2, 3)  # d3 2 + d4 3
    assert one(events, ev.Provoked).enemy == "b"
    assert one(events, ev.AttackRolled).mode == "unarmed"
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.damage) == (5, (2, 3), 5)
    used_up(b)


@pytest.mark.parametrize(("resist_roll", "held"), [(80, True), (81, False)])
def test_H19_grapple_attack_roll_then_str_vs_str(resist_roll: int, held: bool) -> None:
    b = _brawlers()
    events = hit(b, K.GRAPPLE, "b", None, 30, resist_roll)
    assert one(events, ev.AttackRolled).weapon == "grapple"
    res = one(events, ev.Resisted)
    assert (res.chance, res.success) == (80, held)  # 50 + 5 x (16 - 10)
    assert (b.combatants["b"].grappled_by == "a") is held
    next_turn(b, "b")
    assert (K.MOVE in kinds(b)) is not held
    used_up(b)


def test_H19_grappled_combatant_breaks_free_with_its_own_grapple() -> None:
    b = _brawlers()
    hit(b, K.GRAPPLE, "b", None, 30, 50)
    assert b.combatants["b"].grappled_by == "a"
    next_turn(b, "b")
    assert not kinds(b) & {K.MOVE, K.SHIFT, K.FULL_MOVE, K.DISENGAGE}
    # b's grapple 35 (stat block) rolls 20; STR 10 vs 16 -> 20%: 15 succeeds
    events = hit(b, K.GRAPPLE, "a", None, 20, 15)
    assert one(events, ev.Resisted).chance == 20
    assert b.combatants["b"].grappled_by is None
    assert K.MOVE in kinds(b)
    used_up(b)


def test_H19_failed_grapple_attack_roll_skips_the_resistance_roll() -> None:
    b = _brawlers()
    events = hit(b, K.GRAPPLE, "b", None, 60)
    assert not of(events, ev.Resisted) and b.combatants["b"].grappled_by is None
    used_up(b)


@pytest.mark.parametrize(("resist_roll", "prone"), [(80, True), (81, False)])
def test_H19_trip_is_str_vs_dex(resist_roll: int, prone: bool) -> None:
    b = _brawlers()
    b.combatants["b"].characteristics["dex"] = 10
    events = hit(b, K.TRIP, "b", None, 30, resist_roll)
    res = one(events, ev.Resisted)
    assert (res.purpose, res.chance) == ("trip (STR vs DEX)", 80)
    assert b.combatants["b"].prone is prone
    used_up(b)


def test_H19_disarm_drops_the_targets_weapon_in_its_square() -> None:
    b = make([swordsman("a", "party", (2, 2),
                        characteristics={"str": 16, "siz": 14, "con": 10, "dex": 10}),
              swordsman("b", "monsters", (3, 2))], init=(12, 1))
    events = hit(b, K.DISARM, "b", None, 30, 50)
    assert one(events, ev.AttackRolled).weapon == "sword"  # with the attacker's weapon skill
    assert one(events, ev.Resisted).chance == 80
    assert b.combatants["b"].item("b.longsword") is None
    assert [(g.uid, g.square) for g in b.ground] == [("b.longsword", (3, 2))]
    assert not b.combatants["b"].threatens
    used_up(b)


# ================================================================== H20 first aid
def test_H20_first_aid_is_full_adjacent_and_heals_1d3() -> None:
    b = make([swordsman("a", "party", (2, 2), skills={"first_aid": 50}),
              swordsman("near", "party", (3, 3), hp=10), swordsman("far", "party", (4, 2)),
              swordsman("z", "monsters", (7, 1))], init=(12, 6, 5, 1))
    b.combatants["near"].hp = 4
    b.combatants["far"].hp = 1
    targets = {a.target for a in b.legal_actions() if a.kind is K.FIRST_AID}
    assert targets == {"near"}  # far is 2 squares away; a itself is unhurt
    b.dice.force(30, 3)
    events = act(b, K.FIRST_AID, target="near")
    assert one(events, ev.SkillRolled).skill == "first_aid"
    assert b.combatants["near"].hp == 7 and b.combatants["a"].actions_used == ["full"]
    next_turn(b, "a")
    b.dice.force(60)  # a failure heals nothing
    act(b, K.FIRST_AID, target="near")
    assert b.combatants["near"].hp == 7
    used_up(b)


def test_H20_first_aid_never_heals_above_maximum() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("near", "party", (3, 2), hp=10),
              swordsman("z", "monsters", (7, 1))], init=(12, 6, 1))
    b.combatants["near"].hp = 9
    b.dice.force(10, 3)
    events = act(b, K.FIRST_AID, target="near")
    assert one(events, ev.HitPointsChanged).amount == 1 and b.combatants["near"].hp == 10


# ================================================================== H21 items
def test_H21_items_weigh_in_stones_and_count_towards_encumbrance() -> None:
    gear = [{"item": "longsword", "state": "ready"}, {"item": "rope", "count": 3}]
    b = make([swordsman("a", "party", (1, 1), equipment=gear, armour="leather",
                        armour_training="light"),
              swordsman("z", "monsters", (7, 3))], init=(12, 1))
    a = b.combatants["a"]
    assert a.load_stones == pytest.approx(0.15 + 3 * 0.7 + 0.7)
    events = act(b, K.DROP_ITEM, item="a.rope")
    assert one(events, ev.ItemMoved).state_to == "ground"
    assert a.load_stones == pytest.approx(0.15 + 0.7)  # the whole stack of 3 left


def test_H21_hands_limit_what_can_be_readied() -> None:
    gear = [{"item": "longsword", "state": "ready"}, {"item": "buckler", "state": "ready"},
            {"item": "greatsword", "state": "sheathed"}, {"item": "dagger", "state": "sheathed"}]
    b = make([swordsman("a", "party", (1, 1), equipment=gear),
              swordsman("z", "monsters", (7, 3))], init=(12, 1))
    assert not any(a.kind is K.READY_WEAPON for a in b.legal_actions())  # both hands full
    act(b, K.DROP_ITEM, item="a.buckler")
    ready = {a.item for a in b.legal_actions() if a.kind is K.READY_WEAPON}
    assert ready == {"a.dagger"}  # one free hand: not the two-handed greatsword
    act(b, K.SHEATHE_WEAPON, item="a.longsword")
    assert b.combatants["a"].item("a.longsword").state == "sheathed"
    ready = {a.item for a in b.legal_actions() if a.kind is K.READY_WEAPON}
    assert ready == {"a.dagger", "a.greatsword", "a.longsword"}
    events = act(b, K.READY_WEAPON, item="a.greatsword")
    moved = one(events, ev.ItemMoved)
    assert (moved.state_from, moved.state_to) == ("sheathed", "ready")
    assert b.combatants["a"].hands_used() == 2


def test_H21_drop_is_free_once_per_turn_and_lies_in_the_square() -> None:
    b = make([swordsman("a", "party", (2, 2), equipment=[
        {"item": "longsword", "state": "ready"}, {"item": "dagger", "state": "sheathed"}]),
        swordsman("b", "monsters", (3, 2))], init=(12, 1))
    events = act(b, K.DROP_ITEM, item="a.dagger")
    assert not of(events, ev.Provoked)  # a FREE action does not provoke
    assert [(g.uid, g.state, g.square) for g in b.ground] == [("a.dagger", "ground", (2, 2))]
    a = b.combatants["a"]
    assert a.actions_used == [] and K.DROP_ITEM not in kinds(b)
    assert {K.MELEE_ATTACK, K.MOVE, K.FULL_ATTACK} <= kinds(b)


def test_H21_pick_up_is_a_move_action_and_provokes() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=20)],
             init=(12, 1))
    hit(b, K.MELEE_ATTACK, "b", "a.longsword", 99)  # fumble: the sword is on the ground
    next_turn(b, "a")
    assert Action(K.PICK_UP, item="a.longsword") in b.legal_actions()
    events = act(b, K.PICK_UP, item="a.longsword")
    assert one(events, ev.Provoked).enemy == "b"
    assert b.combatants["a"].item("a.longsword") is None  # not yet: the Free Attack first
    events = decline(b)
    moved = one(events, ev.ItemMoved)
    assert (moved.item, moved.state_from, moved.state_to) == ("a.longsword", "ground", "ready")
    assert b.ground == [] and b.combatants["a"].actions_used == ["move"]
    assert K.MELEE_ATTACK in kinds(b)


# ================================================================== H22 mounts
def _riders() -> rules.Battle:
    return make([swordsman("r", "party", (1, 1), riding="h", skills={"ride": 60}),
                 unit("h", "party", "horse", (1, 1)),
                 swordsman("z", "monsters", (9, 6))], BIG, init=(10, 12, 1))


def test_H22_rider_shares_the_square_and_moves_with_the_mounts_mov() -> None:
    b = _riders()
    r, h = b.combatants["r"], b.combatants["h"]
    assert r.position == h.position == (1, 1) and r.riding == "h" and h.ridden_by == "r"
    assert h.move_squares == 6 and r.move_squares == 5
    dests = squares(b, K.MOVE)
    assert (7, 1) in dests and (8, 1) not in dests  # the horse's 6, not the rider's 5
    events = act(b, K.MOVE, square=(7, 1))
    assert one(events, ev.Moved).actor == "r"
    assert r.position == h.position == (7, 1)


def test_H22_ridden_mount_takes_no_turns() -> None:
    b = _riders()
    assert b.initiative_order[0] == "h"  # highest initiative, yet never a turn
    assert b.decision == rules.Decision(D.TURN, "r")
    seen = []
    for _ in range(6):
        d = b.decision
        assert d is not None
        seen.append(d.actor)
        end_turn(b)
    assert "h" not in seen and set(seen) == {"r", "z"}
    assert not any(isinstance(e, ev.TurnStarted) and e.actor == "h" for e in b.events)


def test_H22_dismounted_mount_takes_turns_again() -> None:
    b = _riders()
    b.dice.force(30)  # Ride 60
    act(b, K.DISMOUNT, square=(2, 1))
    assert b.combatants["r"].riding is None and b.combatants["h"].ridden_by is None
    assert b.combatants["r"].position == (2, 1) and b.combatants["h"].position == (1, 1)
    next_turn(b, "h")
    assert b.round == 2


# ================================================================== H23 light
DARK = """
#########
#:::::::#
#:::::::#
#:::::::#
#:::::::#
#:::::::#
#########
"""


def test_H23_attacks_against_a_target_in_the_dark_are_halved() -> None:
    b = make([swordsman("a", "party", (1, 1)), swordsman("b", "monsters", (2, 1))], DARK,
             init=(12, 1))
    b.dice.force(95)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.AttackRolled).chance == 25
    # the attacker's own square does not matter, only the target's
    m = "#####\n#.:.#\n#####\n"
    b = make([swordsman("a", "party", (2, 1)), swordsman("b", "monsters", (3, 1))], m,
             init=(12, 1))
    b.dice.force(95)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.AttackRolled).chance == 50


@pytest.mark.parametrize(("torch_at", "chance"), [
    ((6, 1), 50),  # 4 squares straight: lit
    ((5, 3), 50),  # (3, 2) away: within a radius of 4
    ((5, 4), 25),  # (3, 3) away: outside a radius of 4 (Euclidean, documented choice)
])
def test_H23_a_lit_torch_lights_a_radius_of_4(torch_at: tuple[int, int], chance: int) -> None:
    b = make([swordsman("t", "party", torch_at, equipment=[{"item": "torch"}]),
              swordsman("a", "party", (1, 1)), swordsman("b", "monsters", (2, 1))], DARK,
             init=(12, 6, 1))
    events = act(b, K.LIGHT_TORCH, item="t.torch")
    torch = b.combatants["t"].item("t.torch")
    assert torch.lit and torch.state == "ready" and one(events, ev.ItemMoved).state_to == "ready"
    turn_of(b, "a")
    b.dice.force(95)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.AttackRolled).chance == chance


def test_H23_a_dropped_lit_torch_still_lights_its_square() -> None:
    b = make([swordsman("t", "party", (4, 1), equipment=[{"item": "torch"}]),
              swordsman("a", "party", (1, 1)), swordsman("b", "monsters", (2, 1))], DARK,
             init=(12, 6, 1))
    act(b, K.LIGHT_TORCH, item="t.torch")
    next_turn(b, "t")
    act(b, K.DROP_ITEM, item="t.torch")
    act(b, K.MOVE, square=(7, 5))
    turn_of(b, "a")
    b.dice.force(95)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.AttackRolled).chance == 50


# ================================================================== H24 speak
def test_H24_speak_is_free_once_per_turn_with_only_a_log_event() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2))],
             init=(12, 1))
    before = b.clone()
    legal_before = set(b.legal_actions())
    events = act(b, K.SPEAK)
    assert [type(e) for e in events] == [ev.ActionTaken, ev.Spoke]
    assert events[1].actor == "a"
    assert set(b.legal_actions()) == legal_before - {Action(K.SPEAK)}
    for cid, c in b.combatants.items():
        o = before.combatants[cid]
        assert (c.position, c.hp, c.actions_used, c.prone, c.inventory) == \
            (o.position, o.hp, o.actions_used, o.prone, o.inventory)
    next_turn(b, "b")
    assert K.SPEAK in kinds(b)


# ================================================================== H25 ending
def test_H25_battle_ends_when_a_team_has_nobody_in_action() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=2)],
             init=(12, 1))
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 4)
    end = one(events, ev.BattleEnded)
    assert (end.winner, b.winner, b.is_over) == ("party", "party", True)
    assert b.decision is None and b.legal_actions() == []
    with pytest.raises(rules.IllegalActionError):
        b.apply(Action(K.END_TURN))


def test_H25_round_limit_is_a_draw() -> None:
    b = make([swordsman("a", "party", (1, 1)), swordsman("b", "monsters", (7, 3))],
             init=(12, 1), max_rounds=2)
    for _ in range(3):
        end_turn(b)
    assert not b.is_over and b.round == 2
    events = end_turn(b)
    end = one(events, ev.BattleEnded)
    assert (end.winner, b.winner, b.is_over, b.round) == (None, None, True, 2)
    assert "round limit" in end.reason


FREE_KINDS = (K.SHIFT, K.DROP_ITEM, K.FALL_PRONE, K.PREPARE_COMPONENTS, K.NOCK_ARROW,
              K.SPEAK)


def test_H25_every_free_action_is_once_per_turn() -> None:
    b = make([mage("m", "party", (2, 2), equipment=[
        {"item": "short_bow", "state": "ready"}, {"item": "arrow", "count": 3},
        {"item": "dagger"}, {"item": "torch"}]), swordsman("z", "monsters", (7, 3))],
        init=(12, 1))
    plays = [Action(K.PREPARE_COMPONENTS), Action(K.NOCK_ARROW, item="m.short_bow"),
             Action(K.SPEAK), Action(K.DROP_ITEM, item="m.torch"),
             Action(K.CAST_SPELL, target="z", item="spark"),
             Action(K.SHIFT, square=(3, 2)), Action(K.FALL_PRONE)]
    b.dice.force(80)  # the spark misses
    for a in plays:
        assert a.kind in kinds(b), a
        b.apply(a)
        assert a.kind not in kinds(b) or a.kind is K.CAST_SPELL, a
    assert not any(a.kind is K.CAST_SPELL and a.item == "spark" for a in b.legal_actions())
    assert not kinds(b) & set(FREE_KINDS)
    assert b.combatants["m"].actions_used == []
    next_turn(b, "m")
    assert {K.DROP_ITEM, K.SPEAK} <= kinds(b)


def test_H25_random_play_always_ends() -> None:
    import random

    for seed in range(6):
        b = make([swordsman("a", "party", (1, 1)), mage("m", "party", (1, 3)),
                  swordsman("b", "monsters", (7, 1)), _archer("c", "monsters", (7, 3))],
                 init=(), max_rounds=4, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not b.is_over:
            b.apply(rng.choice(b.legal_actions()))
            steps += 1
            assert steps < 3000
        assert b.round <= 4 and b.decision is None


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
