"""Content loading: the shipped data holds RULES.md's numbers, and bad data is reported
as ``FILE: FIELD: expected X, got Y``."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from rules.content import DATA_DIR, Content, build, default_content, load_content
from rules.content.loader import FILES
from rules.dice import Dice
from rules.errors import ContentError

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


# ---------------------------------------------------------------- malformed content


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A writable copy of the shipped data directory."""
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def edit(directory: Path, file: str, old: str, new: str) -> None:
    """Replace ``old`` (which must occur exactly once) by ``new`` in ``file``."""
    path = directory / file
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {file}"
    path.write_text(text.replace(old, new))


def load_error(directory: Path) -> ContentError:
    with pytest.raises(ContentError) as info:
        load_content(directory)
    return info.value


LONGSWORD = 'damage = "1d8+1"\ndamage_type = "slash"\nap = 12'
GOBLIN_SHIELD = '{ item = "buckler", state = "ready" },\n    { item = "shortsword"'
SKILLS = "'dagger', 'sword'"  # the start of the skill list in an unknown-key message

# (id, file, old text, new text, exact message or None for a TOML syntax error). Each case
# alters one thing in a copy of rules/data.
# fmt: off
MALFORMED = [
    ("bad dice", "weapons.toml", LONGSWORD, LONGSWORD.replace('"1d8+1"', '"1d8 + one"'),
     "weapons.toml: longsword.damage: expected dice like '1d8+1', got '1d8 + one'"),
    ("empty dice", "weapons.toml", LONGSWORD, LONGSWORD.replace('"1d8+1"', '""'),
     "weapons.toml: longsword.damage: expected dice like '1d8+1', got ''"),
    ("dice not a string", "weapons.toml", LONGSWORD, LONGSWORD.replace('"1d8+1"', "6"),
     "weapons.toml: longsword.damage: expected dice like '1d8+1', got 6"),
    ("bad literal", "weapons.toml", LONGSWORD, LONGSWORD.replace('"slash"', '"slice"'),
     "weapons.toml: longsword.damage_type: expected one of 'slash', 'crush', 'impale', got "
     "'slice'"),
    ("bool as int", "weapons.toml", LONGSWORD, LONGSWORD.replace("ap = 12", "ap = true"),
     "weapons.toml: longsword.ap: expected an integer, got True"),
    ("int as bool in nested table", "weapons.toml",
     'poison = { damage = "1d6", snake = true }',
     'poison = { damage = "1d6", snake = 1 }',
     "weapons.toml: snake_bite.poison.snake: expected true or false, got 1"),
    ("missing nested field", "weapons.toml",
     'poison = { damage = "1d6", snake = true }',
     "poison = { snake = true }",
     "weapons.toml: snake_bite.poison.damage: expected a value, got <missing>"),
    ("string for a table", "weapons.toml",
     'poison = { damage = "1d6", snake = true }',
     'poison = "deadly"',
     "weapons.toml: snake_bite.poison: expected a table, got 'deadly'"),
    ("float as int", "weapons.toml", LONGSWORD, LONGSWORD.replace("ap = 12", "ap = 12.5"),
     "weapons.toml: longsword.ap: expected an integer, got 12.5"),
    ("unknown weapon skill", "weapons.toml",
     'skill = "sword"\n' + LONGSWORD,
     'skill = "swords"\n' + LONGSWORD,
     "weapons.toml: longsword.skill: expected a skill defined in ruleset.toml [skills], got "
     "'swords'"),
    ("unknown ammo", "weapons.toml",
     'ammo = "arrow"\nparry = false    # H9',
     'ammo = "arows"\nparry = false    # H9',
     "weapons.toml: short_bow.ammo: expected an ammo id from items.toml, got 'arows'"),
    ("duplicate key", "weapons.toml", "[dagger]\n", "[dagger]\nweight = -1\n",
     None),
    ("negative weight", "weapons.toml", "weight = 0.05\n", "weight = -1\n",
     "weapons.toml: dagger.weight: expected a number >= 0, got -1.0"),
    ("missing field", "races.toml", "mov = 8  # S17\n", "",
     "races.toml: dwarf.mov: expected a value, got <missing>"),
    ("string for an int", "races.toml", "mov = 10  # S17\n", 'mov = "ten"\n',
     "races.toml: human.mov: expected an integer, got 'ten'"),
    ("entry not a table", "races.toml", "[human]\n", "elfish = 3\n\n[human]\n",
     "races.toml: elfish: expected a table, got 3"),
    ("negative MOV", "races.toml", "mov = 6  # S17\n", "mov = -6\n",
     "races.toml: halfling.mov: expected an integer >= 0, got -6"),
    ("unknown race", "creatures.toml",
     'race = "goblin"\ncharacteristics = { str = 9,',
     'race = "gobbo"\ncharacteristics = { str = 9,',
     "creatures.toml: goblin.race: expected a race defined in races.toml, got 'gobbo'"),
    ("unknown equipment", "creatures.toml",
     GOBLIN_SHIELD,
     GOBLIN_SHIELD.replace("buckler", "bucklr"),
     "creatures.toml: goblin.equipment[1].item: expected an id from weapons.toml, armour.toml "
     "or items.toml, got 'bucklr'"),
    ("bad nested equipment state", "creatures.toml",
     GOBLIN_SHIELD,
     GOBLIN_SHIELD.replace('"ready"', '"worn"'),
     "creatures.toml: goblin.equipment[1].state: expected one of 'ready', 'carried', "
     "'sheathed', 'hidden', got 'worn'"),
    ("zero count", "creatures.toml",
     '{ item = "arrow", count = 20 },\n    { item = "dagger"',
     '{ item = "arrow", count = 0 },\n    { item = "dagger"',
     "creatures.toml: human_archer.equipment[1].count: expected an integer >= 1, got 0"),
    ("armour not body", "creatures.toml", 'armour = "chain"', 'armour = "cap"',
     "creatures.toml: human_warrior.armour: expected a body armour id from armour.toml, got 'cap'"),
    ("unknown spell", "creatures.toml", '"thunderbolt"]', '"fireball"]',
     "creatures.toml: human_mage.spells[4]: expected a spell defined in spells.toml, got "
     "'fireball'"),
    ("unknown creature skill", "creatures.toml",
     "{ bite = 50, dodge = 40",
     "{ biting = 50, dodge = 40",
     "creatures.toml: wolf.skills.biting: expected a skill defined in ruleset.toml [skills], "
     "got 'biting'"),
    ("H1 missing characteristic", "creatures.toml", "pow = 8, dex = 14", "dex = 14",
     "creatures.toml: goblin.characteristics.pow: expected a value, got <missing>"),
    ("H1 extra characteristic", "creatures.toml",
     "pow = 8, dex = 14",
     "pow = 8, dex = 14, luck = 3",
     "creatures.toml: goblin.characteristics.luck: expected one of the known keys 'str', "
     "'con', 'siz', 'int', 'pow', 'dex', 'cha', got 'luck'"),
    ("bad armour training", "creatures.toml",
     'armour_training = "moderate"\n\n[human_archer]',
     'armour_training = "medium"\n\n[human_archer]',
     "creatures.toml: human_warrior.armour_training: expected one of 'none', 'light', "
     "'moderate', 'heavy', got 'medium'"),
    ("S20 unknown burden level", "ruleset.toml",
     "[burden.heavy]\nskill_factor = 0.1",
     "[burden.extreme]\nskill_factor = 0.1",
     "ruleset.toml: burden.extreme: expected one of the known keys 'none', 'light', "
     "'moderate', 'heavy', got 'extreme'"),
    ("S20 missing burden level", "ruleset.toml",
     "[burden.heavy]\nskill_factor = 0.1   # S20: Heavy: skills x1/10\n"
        "mov_penalty = 3      # S20: MOV -3\nmagic_fumble = 30    # S20: +30% magic fumble\n",
     "",
     "ruleset.toml: burden.heavy: expected a value, got <missing>"),
    ("string for a float", "ruleset.toml",
     "factor = 0.5                # S19:",
     'factor = "half"  # S19:',
     "ruleset.toml: encumbrance.factor: expected a number, got 'half'"),
    ("nan", "ruleset.toml", "factor = 0.5                # S19:", "factor = nan  # S19:",
     "ruleset.toml: encumbrance.factor: expected a finite number, got nan"),
    ("S18 bad array element", "ruleset.toml",
     "diagonal_costs = [1, 2]",
     'diagonal_costs = [1, "2"]',
     "ruleset.toml: movement.diagonal_costs[1]: expected an integer, got '2'"),
    ("S18 string for an array", "ruleset.toml", "diagonal_costs = [1, 2]", 'diagonal_costs = "1,2"',
     "ruleset.toml: movement.diagonal_costs: expected an array, got '1,2'"),
    ("H2 zero divisor", "ruleset.toml", "critical_divisor = 20", "critical_divisor = 0",
     "ruleset.toml: success.critical_divisor: expected an integer >= 1, got 0"),
    ("H6 table not ascending", "ruleset.toml",
     '{ max = 16, dice = "-1d4" }',
     '{ max = 10, dice = "-1d4" }',
     "ruleset.toml: damage_bonus.table[1].max: expected an integer > 12, got 10"),
    ("H12 reach missing L", "ruleset.toml", "{ S = 1, M = 1, L = 2 }", "{ S = 1, M = 1 }",
     "ruleset.toml: misc.reach_squares.L: expected a value, got <missing>"),
    ("bad skill category", "ruleset.toml",
     '[skills.dagger]\ncategory = "physical"',
     '[skills.dagger]\ncategory = "bodily"',
     "ruleset.toml: skills.dagger.category: expected one of 'physical', 'mental', 'magic', "
     "got 'bodily'"),
    ("S20 unknown impossible skill", "armour.toml", 'impossible = ["bow",', 'impossible = ["bows",',
     "armour.toml: gauntlets.impossible[0]: expected a skill defined in ruleset.toml "
     "[skills], got 'bows'"),
    ("unknown scroll spell", "items.toml", 'spell = "heal"', 'spell = "hael"',
     "items.toml: scroll_of_healing.spell: expected a spell defined in spells.toml, got 'hael'"),
    ("id used twice", "items.toml",
     "[torch]\n",
     '[dagger]\nname = "Dagger"\nkind = "gear"\nweight = 0.1\n\n[torch]\n',
     "items.toml: dagger: expected an id not already used in weapons.toml, got 'dagger'"),
    ("H18 damage spell without dice", "spells.toml", 'dice = "2d6"\n', "",
     "spells.toml: firebolt.dice: expected dice for a damage spell, got <missing>"),
    ("negative creature skill", "creatures.toml",
     "skills = { bite = 50, dodge = 40,", "skills = { bite = 50, dodge = -40,",
     "creatures.toml: wolf.skills.dodge: expected an integer >= 0, got -40"),
    ("H21 more ready than two hands", "creatures.toml", GOBLIN_SHIELD,
     '{ item = "buckler", state = "ready" },\n    { item = "shortsword", state = "ready" },'
     '\n    { item = "shortsword"',
     "creatures.toml: goblin.equipment: expected ready items that fit in 2 hands,"
     " got <spear (1), buckler (1), shortsword (1): 3 hands>"),
    ("body armour as an equipment entry", "creatures.toml", GOBLIN_SHIELD,
     '{ item = "chain" },\n    { item = "shortsword"',
     "creatures.toml: goblin.equipment[1].item: expected a weapon, shield, helmet, gauntlets"
     " or item (body armour goes in armour), got 'chain'"),
    ("H16 nocked spear", "creatures.toml", GOBLIN_SHIELD,
     '{ item = "buckler", state = "ready", nocked = true },\n    { item = "shortsword"',
     "creatures.toml: goblin.equipment[1].nocked: expected true only on a ready bow or sling,"
     " got <buckler, ready>"),
]
# fmt: on


@pytest.mark.parametrize(
    ("file", "old", "new", "message"), [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED]
)
def test_malformed_content(data: Path, file: str, old: str, new: str, message: str | None) -> None:
    edit(data, file, old, new)
    err = load_error(data)
    assert err.file == file
    if message is not None:
        assert str(err) == message
    else:
        assert err.field == "toml"


def test_unknown_key_names_key_and_known_keys(data: Path) -> None:
    edit(data, "weapons.toml", LONGSWORD, LONGSWORD + '\ncolour = "red"')
    err = load_error(data)
    assert (err.file, err.field, err.found) == ("weapons.toml", "longsword.colour", "colour")
    assert err.expected.startswith("one of the known keys 'name', 'kind', 'skill', 'damage'")
    assert "'poison'" in err.expected
    assert str(err).startswith("weapons.toml: longsword.colour: expected one of the known keys")
    assert str(err).endswith(", got 'colour'")


def test_unknown_top_level_key_in_ruleset(data: Path) -> None:
    path = data / "ruleset.toml"
    path.write_text("colour = 3\n" + path.read_text())
    err = load_error(data)
    assert (err.file, err.field, err.found) == ("ruleset.toml", "colour", "colour")
    assert "'success'" in err.expected and "'skills'" in err.expected


def test_toml_syntax_error(data: Path) -> None:
    path = data / "spells.toml"
    path.write_text(path.read_text() + "\n[broken\n")
    err = load_error(data)
    assert (err.file, err.field, err.expected) == ("spells.toml", "toml", "valid TOML")
    assert str(err).startswith("spells.toml: toml: expected valid TOML, got <")
    assert "line" in str(err)  # the parser's message, with its position


def test_not_utf8(data: Path) -> None:
    (data / "races.toml").write_bytes(b'[human]\nname = "\xff"\nmov = 10\n')
    err = load_error(data)
    assert (err.file, err.field, err.expected) == ("races.toml", "toml", "UTF-8 text")
    assert str(err) == ("races.toml: toml: expected UTF-8 text,"
                        " got <byte 0xff at offset 16, not UTF-8>")


def test_a_byte_order_mark_loads(data: Path) -> None:
    path = data / "races.toml"
    path.write_bytes(path.read_text(encoding="utf-8").encode("utf-8-sig"))
    assert load_content(data) == default_content()


def test_missing_file(data: Path) -> None:
    (data / "items.toml").unlink()
    err = load_error(data)
    assert (err.file, err.field, err.found) == ("items.toml", "file", "<missing>")


def test_s23_unknown_reduction_skill(data: Path) -> None:
    edit(data, "ruleset.toml", '["jump", "acrobatics"]', '["jump", "tumble"]')
    err = load_error(data)
    assert (err.file, err.field, err.found) == (
        "ruleset.toml",
        "falling.reduction_skills[1]",
        "tumble",
    )


def test_content_error_is_value_error(data: Path) -> None:
    edit(data, "races.toml", "mov = 10  # S17\n", "mov = 10.0\n")
    with pytest.raises(ValueError, match=r"^races.toml: human.mov: expected an integer, got 10.0$"):
        load_content(data)


def test_altered_copy_still_loads_unchanged(data: Path) -> None:
    assert load_content(data) == default_content()


# ---------------------------------------------------------------- the generic builder


@dataclasses.dataclass(frozen=True)
class _Probe:
    pair: tuple[int, str]
    maybe: float | None = None
    table: dict[str, tuple[bool, ...]] = dataclasses.field(default_factory=dict)


def test_build_generic_types() -> None:
    got = build(_Probe, {"pair": [1, "a"], "maybe": 2, "table": {"x": [True]}}, "probe.toml")
    assert got == _Probe((1, "a"), 2.0, {"x": (True,)})
    assert isinstance(got.maybe, float)
    assert build(_Probe, {"pair": [1, "a"]}, "probe.toml") == _Probe((1, "a"))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"pair": [1]}, "probe.toml: p.pair: expected an array of 2 values, got [1]"),
        ({"pair": [1, 2]}, "probe.toml: p.pair[1]: expected a string, got 2"),
        ({"pair": [1, "a"], "maybe": True}, "probe.toml: p.maybe: expected a number, got True"),
        (
            {"pair": [1, "a"], "table": {"x": [1]}},
            "probe.toml: p.table.x[0]: expected true or false, got 1",
        ),
        ({"pair": [1, "a"], "table": []}, "probe.toml: p.table: expected a table, got []"),
        ([1], "probe.toml: p: expected a table, got [1]"),
        ({"pair": {"a": 1}}, "probe.toml: p.pair: expected an array, got <table>"),
    ],
)
def test_build_generic_errors(value: object, message: str) -> None:
    with pytest.raises(ContentError) as info:
        build(_Probe, value, "probe.toml", "p")
    assert str(info.value) == message


def test_S22_round_and_exploration_turn_in_data() -> None:
    t = default_content().ruleset.time
    assert (t.seconds_per_round, t.exploration_turn_seconds) == (12, 600)
    assert default_content().ruleset.fatigue.rounds_per_check * t.seconds_per_round == 600


def test_S22_time_must_agree_with_fatigue_rounds(data: Path) -> None:
    edit(data, "ruleset.toml", "seconds_per_round = 12", "seconds_per_round = 6")
    err = load_error(data)
    assert str(err) == (
        "ruleset.toml: time.exploration_turn_seconds: expected fatigue.rounds_per_check x "
        "time.seconds_per_round (50 x 6 = 300), got 600")
