"""Content loading: the shipped data holds RULES.md's numbers (bad data and the generic
builder's errors are in test_content_errors.py)."""

from __future__ import annotations

from typing import Any

import pytest

from rules.content import DATA_DIR, Content, default_content, load_content
from rules.content.loader import FILES
from rules.dice import Dice

# ---------------------------------------------------------------- shipped content


def test_shipped_content_loads() -> None:
    content = default_content()
    assert isinstance(content, Content)
    assert default_content() is content  # cached
    assert load_content() == content
    assert load_content(DATA_DIR) == content
    assert {p.name for p in DATA_DIR.glob("*.toml")} == set(FILES)


def _get(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[part] if isinstance(obj, dict) else getattr(obj, part)
    return obj


# (attribute path in Ruleset, value) with the rule each number implements.
RULESET_NUMBERS = [
    pytest.param("success.critical_divisor", 20, id="H2 critical <= s/20"),
    pytest.param("success.special_divisor", 5, id="H2 special <= s/5"),
    pytest.param("success.success_cap", 95, id="H2 success <= min(s, 95)"),
    pytest.param("success.auto_success_max", 5, id="H2 01-05 always succeed"),
    pytest.param("success.auto_fail_min", 96, id="H2 96-00 always fail"),
    pytest.param("success.fumble_divisor", 20, id="H2 fumble top (100-s)/20"),
    pytest.param(
        "characteristics.names",
        ("str", "con", "siz", "int", "pow", "dex", "cha"),
        id="H1 STR CON SIZ INT POW DEX CHA",
    ),
    pytest.param("characteristics.default_roll", Dice.parse("3d6"), id="H1 humans 3d6"),
    pytest.param("characteristics.siz_roll", Dice.parse("2d6+6"), id="H1 SIZ 2d6+6"),
    pytest.param("hit_points.formula", "siz_half", id="H5 HP ceil(SIZ/2)"),
    pytest.param("hit_points.out_of_action_at", 0, id="H5 out of action at 0 HP"),
    pytest.param("initiative.die", Dice.parse("1d12"), id="S1 initiative d12"),
    pytest.param("initiative.dex_bonus_base", 10, id="H4 DEX bonus (DEX-10)"),
    pytest.param("initiative.dex_bonus_divisor", 2, id="H4 DEX bonus /2"),
    pytest.param("initiative.impaired_factor", 0.5, id="H4 impaired initiative x1/2"),
    pytest.param("movement.move_divisor", 2, id="S17 move action floor(MOV/2)"),
    pytest.param("movement.diagonal_costs", (1, 2), id="S18 diagonals 1, 2, 1, ..."),
    pytest.param("movement.difficult_multiplier", 2, id="H13 difficult terrain x2"),
    pytest.param("movement.square_feet", 5, id="S25 square 5 ft"),
    pytest.param("movement.min_mov", 1, id="S20 house MOV never below 1"),
    pytest.param("encumbrance.str_offset", 10, id="S19 capacity SIZ x (STR+10)"),
    pytest.param("encumbrance.divisor", 20, id="S19 capacity / 20"),
    pytest.param("encumbrance.threshold_fraction", 0.5, id="S19 over half capacity"),
    pytest.param("encumbrance.factor", 0.5, id="S19 encumbered x1/2"),
    pytest.param("fatigue.con_multiplier", 5, id="S21 CONx5 roll"),
    pytest.param("fatigue.rounds_per_check", 50, id="S21 S22 exploration turn 50 rounds"),
    pytest.param("fatigue.fatigued_factor", 0.5, id="S21 fatigued x1/2"),
    pytest.param("fatigue.exhausted_factor", 0.1, id="S21 exhausted x1/10"),
    pytest.param("fatigue.rest_rounds_fatigued", 300, id="S21 1 hour rest 300 rounds"),
    pytest.param("fatigue.rest_rounds_exhausted", 2400, id="S21 8 hours rest 2400 rounds"),
    pytest.param("damage_bonus.step", 16, id="H6 each further 16"),
    pytest.param("damage_bonus.extra", Dice.parse("1d6"), id="H6 each further 16 +1d6"),
    pytest.param("modifiers.prone_target_melee", 20, id="H15 melee vs prone +20"),
    pytest.param("modifiers.prone_attacker_melee", -20, id="H15 prone attacker -20"),
    pytest.param("modifiers.prone_target_missile", -20, id="H15 missile vs prone -20"),
    pytest.param("modifiers.long_range", -20, id="H16 long range -20"),
    pytest.param("modifiers.long_range_factor", 2, id="H16 up to 2 x range"),
    pytest.param("modifiers.full_attack", 20, id="H17 full attack +20"),
    pytest.param("modifiers.dark_factor", 0.5, id="H23 dark x1/2"),
    pytest.param("defence.parry_special_factor", 2, id="H9 special parry 2 x AP"),
    pytest.param("defence.parry_wear", 1, id="H9 parrying item loses 1 AP"),
    pytest.param("defence.dodge_success_reduction", 10, id="H10 dodge success -10"),
    pytest.param("defence.dodge_special_reduction", 20, id="H10 dodge special -20"),
    pytest.param("defence.parries_per_round", 1, id="S8 one parry per round"),
    pytest.param("defence.fight_defensively_extra_parries", 1, id="S10 one extra parry"),
    pytest.param("resistance.base", 50, id="H8 resistance 50%"),
    pytest.param("resistance.step", 5, id="H8 resistance +5 per point"),
    pytest.param("poison.con_multiplier", 10, id="S24 poison CONx10"),
    pytest.param("poison.snake_con_multiplier", 5, id="S24 snake poison CONx5"),
    pytest.param("falling.die", Dice.parse("1d6"), id="S23 falling d6"),
    pytest.param("falling.feet_per_die", 10, id="S23 per 10 ft"),
    pytest.param("falling.skill_reduction", Dice.parse("1d6"), id="S23 Jump reduces a d6"),
    pytest.param("falling.reduction_skills", ("jump", "acrobatics"), id="S23 Jump/Acrobatics"),
    pytest.param("misc.bleed_per_round", 1, id="H7 bleed 1 HP per round"),
    pytest.param("misc.first_aid_heal", Dice.parse("1d3"), id="H20 first aid 1d3"),
    pytest.param("misc.unarmed_damage", Dice.parse("1d3"), id="H19 unarmed d3"),
    pytest.param("misc.torch_radius", 4, id="H23 torch radius 4"),
    pytest.param("misc.free_actions_per_turn", 1, id="H25 free actions once per turn"),
    pytest.param("misc.reach_squares", {"S": 1, "M": 1, "L": 2}, id="H12 reach S1 M1 L2"),
    pytest.param("misc.damage_bonus_applies_to", ("melee", "thrown"), id="H6 melee+thrown"),
    pytest.param("misc.default_drop_depth_ft", 10, id="S23 house drop 10 ft"),
]


@pytest.mark.parametrize(("path", "value"), RULESET_NUMBERS)
def test_ruleset_number_matches_rules(path: str, value: object) -> None:
    assert _get(default_content().ruleset, path) == value


@pytest.mark.parametrize(
    ("burden", "factor", "mov", "fumble"),
    [
        pytest.param("none", 1.0, 0, 0, id="S20 none x1 -0 +0%"),
        pytest.param("light", 1.0, 1, 10, id="S20 light x1 -1 +10%"),
        pytest.param("moderate", 0.5, 2, 20, id="S20 moderate x1/2 -2 +20%"),
        pytest.param("heavy", 0.1, 3, 30, id="S20 heavy x1/10 -3 +30%"),
    ],
)
def test_s20_burden_table(burden: str, factor: float, mov: int, fumble: int) -> None:
    row = default_content().ruleset.burden[burden]
    assert (row.skill_factor, row.mov_penalty, row.magic_fumble) == (factor, mov, fumble)
    assert list(default_content().ruleset.burden) == ["none", "light", "moderate", "heavy"]


@pytest.mark.parametrize(
    ("race", "mov"),
    [
        pytest.param("human", 10, id="S17 human MOV 10"),
        pytest.param("elf", 11, id="S17 elf MOV 11"),
        pytest.param("dwarf", 8, id="S17 dwarf MOV 8"),
        pytest.param("halfling", 6, id="S17 halfling MOV 6"),
        pytest.param("wolf", 12, id="S17 house wolf MOV 12"),
        pytest.param("horse", 12, id="S17 house horse MOV 12"),
    ],
)
def test_s17_race_mov(race: str, mov: int) -> None:
    assert default_content().races[race].mov == mov


def test_h6_damage_bonus_table() -> None:
    table = default_content().ruleset.damage_bonus.table
    rows = [(row.max, str(row.dice)) for row in table]
    assert rows == [(12, "-1d6"), (16, "-1d4"), (24, "0"), (32, "1d4"), (40, "1d6"), (56, "2d6")]


def test_s20_helmets_and_gauntlets() -> None:
    armour = default_content().armour
    for helm in ("full_helm", "great_helm"):
        assert set(armour[helm].skill_factors) == {"listen", "spot"}
        assert all(f < 0.5 for f in armour[helm].skill_factors.values())
    assert set(armour["gauntlets"].impossible) == {"bow", "lockpicking", "instrument"}
    assert armour["cap"].skill_factors == {}


def test_shipped_content_covers_the_rules() -> None:
    c = default_content()
    assert c.weapons["long_spear"].reach == "L"  # H12
    assert c.weapons["fist"].natural and c.weapons["fist"].skill == "brawl"  # H19
    assert c.weapons["snake_bite"].poison is not None and c.weapons["snake_bite"].poison.snake
    assert c.weapons["longbow"].reload == "nock" and not c.weapons["longbow"].parry  # H16 H9
    assert c.weapons["heavy_crossbow"].reload == "wind"  # H16 / S14
    assert c.weapons["javelin"].thrown  # H6
    assert c.creatures["horse"].mount  # H22
    assert c.creatures["giant_snake"].snake  # S24
    assert {s.casting for s in c.spells.values()} == {"free", "attack", "full", "rounds"}  # H18
    assert any(
        e.state == "hidden" and c.kind_of(e.item) == "weapon"
        for cr in c.creatures.values()
        for e in cr.equipment
    )  # S12: a hidden weapon for the Sleight rule
    assert c.ruleset.skills["dodge"].category == "physical"  # S9 Heroic Defence
    assert c.ruleset.skills["cast"].category == "magic"  # H18


_RANK = {"none": 0, "light": 1, "moderate": 2, "heavy": 3}


@pytest.mark.parametrize("cid", sorted(default_content().creatures))
def test_shipped_creature_is_consistent(cid: str) -> None:
    """S19/S20: shipped stat blocks are trained for their armour and not overloaded."""
    c = default_content()
    cr = c.creatures[cid]
    assert list(cr.characteristics) == list(c.ruleset.characteristics.names)  # H1
    burden = c.armour[cr.armour].burden if cr.armour else "none"
    assert _RANK[cr.armour_training] >= _RANK[burden]
    load = sum(c.weight_of(e.item) * e.count for e in cr.equipment)
    load += c.armour[cr.armour].weight if cr.armour else 0.0
    ch = cr.characteristics
    enc = c.ruleset.encumbrance
    capacity = ch["siz"] * (ch["str"] + enc.str_offset) / enc.divisor
    assert load <= capacity * enc.threshold_fraction
    hands = 0
    for e in cr.equipment:
        if e.state != "ready":
            continue
        kind = c.kind_of(e.item)
        if kind == "weapon":
            hands += 0 if c.weapons[e.item].natural else c.weapons[e.item].hands
        else:
            hands += c.armour[e.item].hands if kind == "armour" else c.items[e.item].hands
    assert hands <= 2
    assert any(e.state == "ready" and c.kind_of(e.item) == "weapon" for e in cr.equipment)


def test_S22_round_and_exploration_turn_in_data() -> None:
    t = default_content().ruleset.time
    assert (t.seconds_per_round, t.exploration_turn_seconds) == (12, 600)
    assert default_content().ruleset.fatigue.rounds_per_check * t.seconds_per_round == 600
