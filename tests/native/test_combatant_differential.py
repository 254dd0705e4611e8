"""The engine's state on the native engine (rules/native/core/content.cpp, combatant.cpp through
rules/bridge/combatants.py) against the Python reference (rules/combatant.py): every field and
every derived value of every combatant, exactly (S17, S19-S21, H3-H6, H12).

Where: at every decision of seeded random play (uniform over ``battle.legal_actions()``)
on every shipped scenario, again on a variant of the content (ruleset numbers changed in
a copied data directory), and on Hypothesis-generated combatants (characteristics,
inventory, armour, training, fatigue, buffs, status). Compared: ``Roster.fields(i)`` with
``Combatant.to_dict()``; ``Roster.derived(i)`` with ``glue.combatants.derived_values`` (float
for float, bit for bit); every ruleset skill with and without ``current_round``,
``factor`` and ``points``. Python's ``round(x, 9)`` (load_stones) is checked against
``python_round`` on its own, exact decimal ties included.
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules
import rules.engine
from rules.combatant import Combatant, ItemInstance
from rules.content import default_content
from rules.scenario import shipped_scenarios

_MISSING = rules.engine.missing_native("Roster", "the engine state")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)
native = rules.engine.native_module()

from rules.bridge import combatants as native_state  # noqa: E402  (needs the module checked above)
from tests.native.glue.combatants import derived_values, skill_values  # noqa: E402

#: Random-play battles per shipped scenario, and the decisions played in each at most.
SEEDS = (1, 2)
MAX_DECISIONS = 70
#: (current_round offset from the battle's round or None, factor, points) per skill check.
SKILL_QUERIES = ((None, 1.0, 0), (0, 1.0, 0), (0, 0.5, -10), (-3, 0.1, 7), (None, 1 / 3, 0))


def same(actual: Any, expected: Any) -> bool:
    """Equal, floats bit for bit (float.hex tells -0.0 and 0.0 apart)."""
    if isinstance(expected, float):
        return isinstance(actual, float) and actual.hex() == expected.hex()
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and actual.keys() == expected.keys()
                and all(same(actual[key], value) for key, value in expected.items()))
    if isinstance(expected, (list, tuple)):
        return (type(actual) is type(expected) and len(actual) == len(expected)
                and all(same(a, e) for a, e in zip(actual, expected, strict=True)))
    return type(actual) is type(expected) and actual == expected


def check_combatant(roster: Any, index: int, combatant: Combatant, current_round: int,
                    where: str) -> None:
    assert same(roster.fields(index), combatant.to_dict()), f"{where}: fields"
    expected = derived_values(combatant)
    actual = roster.derived(index)
    for key, value in expected.items():
        assert same(actual[key], value), f"{where}: {key}: {actual[key]!r} != {value!r}"
    assert actual.keys() == expected.keys(), f"{where}: derived keys"
    for offset, factor, points in SKILL_QUERIES:
        round_asked = None if offset is None else current_round + offset
        assert same(roster.skills(index, round_asked, factor, points),
                    skill_values(combatant, round_asked, factor, points)), (
            f"{where}: skills({round_asked}, {factor}, {points})")


def play_and_check(battle: rules.Battle, seed: int, where: str) -> int:
    """Random play, checking every combatant at every decision; the combatants checked
    (a combatant's Python answers are computed once per distinct state and round)."""
    chooser = random.Random(seed)
    compiled = native_state.compile_content(battle.state.content)
    seen: set[tuple[str, int]] = set()
    checked = 0
    for decision in range(MAX_DECISIONS):
        combatants = list(battle.state.combatants.values())
        roster = native_state.native_roster(combatants, compiled)
        assert roster.ids()[:len(combatants)] == [c.id for c in combatants]
        for index, combatant in enumerate(combatants):
            key = (json.dumps(combatant.to_dict(), sort_keys=True), battle.round)
            if key in seen:  # the same state checked already: the native answers only
                assert same(roster.fields(index), combatant.to_dict())
                continue
            seen.add(key)
            check_combatant(roster, index, combatant, battle.round,
                            f"{where} decision {decision} {combatant.id}")
            checked += 1
        if battle.is_over:
            break
        battle.apply(chooser.choice(battle.legal_actions()))
    return checked


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("scenario", shipped_scenarios())
def test_every_combatant_at_every_decision(scenario: str, seed: int) -> None:
    battle = rules.Battle.from_scenario(scenario, seed=seed, engine="python")
    assert play_and_check(battle, seed, f"{scenario} seed {seed}") > 0


#: A ruleset variant: heavier encumbrance, harsher fatigue and burden, longer reach, a
#: higher MOV floor, another DEX bonus divisor.
VARIANT = (
    (r"threshold_fraction = 0\.5", "threshold_fraction = 0.2"),
    (r"(\[encumbrance\][^\[]*?)factor = 0\.5", r"\1factor = 0.3"),
    (r"fatigued_factor = 0\.5", "fatigued_factor = 0.3"),
    (r"(\[burden\.light\]\s*skill_factor = )1\.0", r"\g<1>0.7"),
    (r"reach_squares = \{ S = 1, M = 1, L = 2 \}", "reach_squares = { S = 0, M = 1, L = 3 }"),
    (r"min_mov = 1", "min_mov = 3"),
    (r"dex_bonus_divisor = 2", "dex_bonus_divisor = 3"),
)


@pytest.fixture(scope="module")
def variant_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    content = tmp_path_factory.mktemp("variant") / "data"
    shutil.copytree(Path(rules.__file__).parent / "data", content)
    ruleset = content / "ruleset.toml"
    text = ruleset.read_text()
    for pattern, replacement in VARIANT:
        text, count = re.subn(pattern, replacement, text, count=1)
        assert count == 1, f"the variant's pattern {pattern!r} is not in ruleset.toml"
    ruleset.write_text(text)
    return content


@pytest.mark.parametrize("scenario", ["skirmish", "cavalry", "horde", "casters"])
def test_a_content_variant(scenario: str, variant_dir: Path) -> None:
    battle = rules.Battle.from_scenario(scenario, seed=3, content_dir=str(variant_dir),
                                        engine="python")
    assert battle.state.content.ruleset.movement.min_mov == 3
    assert play_and_check(battle, 3, f"{scenario} (variant)") > 0


# ---------------------------------------------------------------- Hypothesis

_CONTENT = default_content()
_EQUIPMENT = sorted({*_CONTENT.weapons, *_CONTENT.armour, *_CONTENT.items})
_BODY_ARMOUR = sorted(aid for aid, a in _CONTENT.armour.items() if a.slot == "body")
_SKILLS = sorted(_CONTENT.ruleset.skills)
_BURDENS = ["none", "light", "moderate", "heavy"]


def _base_combatant() -> Combatant:
    battle = rules.Battle.from_scenario("skirmish", seed=1, engine="python")
    return next(iter(battle.state.combatants.values()))


_BASE = _base_combatant()

items = st.builds(
    lambda number, item, state, count, ap: ItemInstance(
        uid=f"x.{number}", item=item, state=state, count=count, ap=ap),
    st.integers(0, 10_000), st.sampled_from(_EQUIPMENT),
    st.sampled_from(["ready", "carried", "sheathed", "hidden"]), st.integers(1, 40),
    st.none() | st.integers(0, 20))


@st.composite
def combatants(draw: st.DrawFn) -> Combatant:
    combatant = _BASE.copy()
    for name in ("str", "siz", "dex", "con"):
        combatant.characteristics[name] = draw(st.integers(0, 45))
    combatant.base_skills = draw(st.dictionaries(st.sampled_from(_SKILLS), st.integers(0, 150)))
    combatant.armour = draw(st.none() | st.sampled_from(_BODY_ARMOUR))
    combatant.armour_training = draw(st.sampled_from(_BURDENS))
    combatant.fatigue_level = draw(st.integers(0, 2))
    combatant.status = draw(st.sampled_from(["active", "out", "dead"]))
    combatant.prone = draw(st.booleans())
    inventory = draw(st.lists(items, max_size=8, unique_by=lambda inst: inst.uid))
    combatant.inventory = inventory
    combatant.buffs = draw(st.lists(st.tuples(st.integers(-20, 30), st.integers(0, 12)),
                                    max_size=3))
    combatant.grappled_by = draw(st.none() | st.sampled_from(["warrior", "someone_else"]))
    return combatant


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(combatants(), st.none() | st.integers(0, 15), st.floats(0, 2) | st.sampled_from(
    [1.0, 0.5, 0.1, 1 / 3, 0.7]), st.integers(-30, 30))
def test_generated_combatants(combatant: Combatant, current_round: int | None, factor: float,
                              points: int) -> None:
    roster = native_state.native_combatant(combatant)
    check_combatant(roster, 0, combatant, current_round or 0, "generated")
    assert same(roster.skills(0, current_round, factor, points),
                skill_values(combatant, current_round, factor, points))
    for name in ("not_a_ruleset_skill", "sword"):  # a name outside the ruleset: physical, 0
        assert roster.skill(0, name, current_round, factor, points) == combatant.skill(
            name, current_round, factor, points)


def test_the_compiled_tables_keep_python_order() -> None:
    compiled = native_state.compile_content(_CONTENT)
    assert native_state.compile_content(_CONTENT) is compiled  # cached per Content
    assert compiled.names("skills") == list(_CONTENT.ruleset.skills)
    assert compiled.names("weapons") == list(_CONTENT.weapons)
    assert compiled.names("armour") == list(_CONTENT.armour)
    assert compiled.names("items") == list(_CONTENT.items)
    assert compiled.names("characteristics") == list(_CONTENT.ruleset.characteristics.names)
    assert compiled.names("creatures") == list(_CONTENT.creatures)


def test_unknown_ids_are_errors() -> None:
    combatant = _BASE.copy()
    combatant.inventory = [ItemInstance(uid="x", item="no_such_thing", state="ready")]
    with pytest.raises(ValueError, match="no_such_thing"):
        native_state.native_combatant(combatant)
    combatant = _BASE.copy()
    combatant.status = "asleep"
    with pytest.raises(ValueError, match="status"):
        native_state.native_combatant(combatant)


# ---------------------------------------------------------------- round(x, 9)


def _same_round(x: float, ndigits: int) -> None:
    assert native.python_round(x, ndigits).hex() == round(x, ndigits).hex(), (x, ndigits)


def test_python_round_on_exact_ties() -> None:
    # x * 10**n ends in exactly .5 only for odd multiples of 2**-(n + 1): ties to even
    for ndigits in (0, 1, 3, 9):
        step = 2.0 ** -(ndigits + 1)
        for whole in (0, 1, 2, 7, 1023):
            for odd in range(1, min(2 ** (ndigits + 1), 2048), 2):
                for sign in (1, -1):
                    _same_round(sign * (whole + odd * step), ndigits)
    assert native.python_round(0.0009765625, 9) == 0.000976562  # ties to even
    assert native.python_round(0.0029296875, 9) == 0.002929688


def test_python_round_on_special_values() -> None:
    for x in (0.0, -0.0, float("inf"), float("-inf"), 1e308, -1e-300, 5e-324, 0.5, 2.5):
        for ndigits in (0, 9, 17, 400):
            _same_round(x, ndigits)
    nan = native.python_round(float("nan"), 9)
    assert nan != nan


def test_python_round_on_many_floats() -> None:
    chooser = random.Random(23)
    for _ in range(50_000):
        mantissa = chooser.random() * chooser.choice((1, -1))
        _same_round(mantissa * 10.0 ** chooser.randint(-12, 20), chooser.randint(0, 20))
        _same_round(struct.unpack("<d", struct.pack("<Q", chooser.getrandbits(64)))[0], 9)


def test_python_round_on_sums_of_decimal_weights() -> None:
    chooser = random.Random(24)
    for _ in range(50_000):
        total = 0.0
        for _ in range(chooser.randint(1, 12)):  # as load_stones sums them
            total += chooser.randint(0, 400) / 100 * chooser.randint(1, 40)
        _same_round(total, 9)


def test_python_round_near_halves_and_tiny_negatives() -> None:
    # the native fast path decides away from a half; next to one it takes the exact path
    chooser = random.Random(25)
    for _ in range(20_000):
        ndigits = chooser.randint(0, 15)
        x = (chooser.randint(0, 10**6) + 0.5) / 10.0**ndigits
        for _ in range(chooser.randint(0, 40)):
            x = math.nextafter(x, chooser.choice((0.0, math.inf)))
        _same_round(x, ndigits)
        _same_round(-x, ndigits)
    for x in (-1e-12, -4e-10, -1e-300, 1e-12):
        _same_round(x, 9)


#: carried things with decimal weights, whose sums carry float noise (0.1 * 3 is
#: 0.30000000000000004): the loads the rounding in load_stones decides
_LIGHT_ITEMS = ("sling_stone", "arrow", "bolt", "bandages", "torch", "shortsword", "club",
                "greatsword")


def test_encumbered_at_the_limit() -> None:
    # S19: encumbered when the load is over half the capacity. The native engine compares
    # the unrounded sum away from the limit and load_stones' rounded one next to it
    # (combatant.cpp Combatant::encumbered): every load here lands on, or a noise away
    # from, a limit SIZ x (STR + 10) / 40 of some characteristics.
    limits: dict[float, tuple[int, int]] = {}
    for siz in range(1, 46):
        for strength in range(0, 46):
            limits.setdefault(round(siz * (strength + 10) / 40, 9), (siz, strength))
    checked = on_the_limit = 0
    for item in _LIGHT_ITEMS:
        weight = _CONTENT.weight_of(item)
        for count in range(1, 120):
            for extra in (None, "dagger"):
                combatant = _BASE.copy()
                combatant.armour = None
                combatant.armour_training = "heavy"
                combatant.inventory = [ItemInstance(uid="load", item=item, state="carried",
                                                    count=count)]
                load = weight * count
                if extra is not None:
                    combatant.inventory.append(ItemInstance(uid="extra", item=extra,
                                                            state="carried"))
                    load += _CONTENT.weight_of(extra)
                pair = limits.get(round(load, 9))
                if pair is None:
                    continue
                combatant.characteristics["siz"], combatant.characteristics["str"] = pair
                on_the_limit += combatant.load_stones == round(load, 9) != load
                actual = native_state.native_combatant(combatant).derived(0)["encumbered"]
                assert actual == combatant.encumbered, (item, count, extra, pair)
                checked += 1
    assert checked > 200 and on_the_limit > 20, (checked, on_the_limit)
