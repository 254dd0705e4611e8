"""Content loading: bad data is reported as ``FILE: FIELD: expected X, got Y``, by the
loader and by the generic builder (the shipped data's numbers are in test_content.py)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from rules.content import DATA_DIR, build, default_content, load_content
from rules.errors import ContentError

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


def test_S22_time_must_agree_with_fatigue_rounds(data: Path) -> None:
    edit(data, "ruleset.toml", "seconds_per_round = 12", "seconds_per_round = 6")
    err = load_error(data)
    assert str(err) == (
        "ruleset.toml: time.exploration_turn_seconds: expected fatigue.rounds_per_check x "
        "time.seconds_per_round (50 x 6 = 300), got 600")
