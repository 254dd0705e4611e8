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
