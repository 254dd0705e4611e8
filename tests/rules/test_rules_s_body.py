"""The sheet's rules in scripted battles: movement rate, diagonals, encumbrance, armour
burden, fatigue and time, falling, poison, sheet figures (S17-S25).

Each test builds a small inline scenario, fixes every die it depends on with
``battle.dice.force`` and checks the exact outcome (see sheet.py for the stock units).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from builders import K, arena, build, decline, has, kinds, of_type, play, unit
from sheet import MOVE_KINDS, RS, archer, gob, hero, mage, setup_actor

import rules
from rules import Action, IllegalActionError
from rules import events as ev
from rules.content import default_content
from rules.roller import Roller


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
        b = build(arena(9, 3), [archer((1, 1), equipment=eq), gob((6, 1))],
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
        b = setup_actor(mage(armour=armour, armour_training="heavy"))
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
