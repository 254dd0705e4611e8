"""Dice expressions and d100 success levels: S4, H2, H8, H18 (extra fumble)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.content.schema import SuccessRules
from rules.dice import (
    Dice,
    SuccessLevel,
    d100,
    level_probabilities,
    resistance_chance,
    success_level,
)
from rules.errors import ForcedDiceError
from rules.roller import Roller

F, X, S, P, C = (
    SuccessLevel.FUMBLE,
    SuccessLevel.FAILURE,
    SuccessLevel.SUCCESS,
    SuccessLevel.SPECIAL,
    SuccessLevel.CRITICAL,
)

# H2 written out from RULES.md, independent of the data file.
H2_RULES = SuccessRules(
    critical_divisor=20,
    special_divisor=5,
    success_cap=95,
    auto_success_max=5,
    auto_fail_min=96,
    fumble_divisor=20,
)


def expected_levels(
    critical: int, special: int, success: int, fumble_from: int
) -> list[SuccessLevel]:
    """Levels of rolls 1..100 from the last roll of each band (0 = empty band)."""
    out = []
    for roll in range(1, 101):
        if roll >= fumble_from:
            out.append(F)
        elif roll <= critical:
            out.append(C)
        elif roll <= special:
            out.append(P)
        elif roll <= success:
            out.append(S)
        else:
            out.append(X)
    return out


# (skill, last critical, last special, last success, first fumble); worked by hand from H2.
H2_TABLE = [
    pytest.param(50, 3, 10, 50, 98, id="H2 skill 50: 01-03 crit 04-10 special 11-50 98-00 fumble"),
    pytest.param(0, 1, 1, 5, 96, id="H2 skill 0: 01 crit, 02-05 auto success, 96-00 fumble"),
    pytest.param(5, 1, 1, 5, 96, id="H2 skill 5: 01 crit, 02-05 success, 96-00 fumble"),
    pytest.param(10, 1, 2, 10, 96, id="H2 skill 10: 01 crit, 02 special, fumble 4.5->5"),
    pytest.param(30, 2, 6, 30, 97, id="H2 skill 30: crit 1.5->2, fumble 3.5->4 (97-00)"),
    pytest.param(45, 2, 9, 45, 98, id="H2 skill 45: crit 2.25->2, fumble 2.75->3"),
    pytest.param(70, 4, 14, 70, 99, id="H2 skill 70: crit 3.5->4, fumble 1.5->2 (99-00)"),
    pytest.param(95, 5, 19, 95, 100, id="H2 skill 95: crit 4.75->5, special 19, fumble 00"),
    pytest.param(100, 5, 20, 95, 100, id="H2 skill 100: success capped at 95, 96-99 fail"),
    pytest.param(120, 6, 24, 95, 100, id="H2 skill 120: crit 6, special 24, cap 95"),
    pytest.param(-20, 1, 1, 5, 95, id="H2 skill -20: fumble 6 numbers, 01-05 still succeed"),
]


@pytest.mark.parametrize(("skill", "crit", "special", "success", "fumble_from"), H2_TABLE)
def test_h2_success_levels_exact(
    skill: int, crit: int, special: int, success: int, fumble_from: int
) -> None:
    want = expected_levels(crit, special, success, fumble_from)
    got_explicit = [success_level(r, skill, H2_RULES) for r in range(1, 101)]
    got_shipped = [success_level(r, skill) for r in range(1, 101)]
    assert got_explicit == want
    assert got_shipped == want  # the shipped ruleset.toml holds the H2 numbers


def test_h2_skill_50_worked_example() -> None:
    """H2 / S4: the example of RULES.md, roll by roll at the band edges."""
    cases = {1: C, 3: C, 4: P, 10: P, 11: S, 50: S, 51: X, 97: X, 98: F, 100: F}
    for roll, level in cases.items():
        assert success_level(roll, 50, H2_RULES) is level, roll


@pytest.mark.parametrize("roll", [0, 101, -5])
def test_s4_roll_out_of_range_rejected(roll: int) -> None:
    with pytest.raises(ValueError, match=r"1\.\.100"):
        success_level(roll, 50, H2_RULES)


@pytest.mark.parametrize(
    ("skill", "extra", "crit", "special", "success", "fumble_from"),
    [
        pytest.param(50, 20, 3, 10, 50, 78, id="H18 skill 50 +20%: fumble 78-00"),
        pytest.param(50, 10, 3, 10, 50, 88, id="H18 skill 50 +10%: fumble 88-00"),
        # A widened fumble range overrides plain successes but not specials/criticals.
        pytest.param(90, 30, 5, 18, 90, 70, id="H18 skill 90 +30%: 70-90 become fumbles"),
        # ... and never the automatic successes 01-05.
        pytest.param(10, 100, 1, 2, 5, 6, id="H18 skill 10 +100%: 01-05 keep succeeding"),
    ],
)
def test_h18_extra_fumble_widens_range(
    skill: int, extra: int, crit: int, special: int, success: int, fumble_from: int
) -> None:
    want = expected_levels(crit, special, success, fumble_from)
    got = [success_level(r, skill, H2_RULES, extra_fumble=extra) for r in range(1, 101)]
    assert got == want


skills = st.integers(min_value=-50, max_value=250)
extras = st.integers(min_value=0, max_value=40)


@given(skill=skills, extra=extras)
def test_h2_probabilities_sum_to_one_and_match_counts(skill: int, extra: int) -> None:
    probs = level_probabilities(skill, H2_RULES, extra)
    assert set(probs) == set(SuccessLevel)
    assert sum(probs.values()) == Fraction(1)
    for level, p in probs.items():
        count = sum(success_level(r, skill, H2_RULES, extra) is level for r in range(1, 101))
        assert p == Fraction(count, 100)


@given(skill=skills, extra=extras)
def test_h2_higher_roll_never_better(skill: int, extra: int) -> None:
    levels = [success_level(r, skill, H2_RULES, extra) for r in range(1, 101)]
    assert all(a >= b for a, b in itertools.pairwise(levels))


@given(skill=skills, extra=extras)
def test_h2_automatic_success_and_failure(skill: int, extra: int) -> None:
    """H2: 01-05 always succeed, 96-00 always fail; 00 always fumbles."""
    for roll in range(1, 6):
        assert success_level(roll, skill, H2_RULES, extra).succeeded
    for roll in range(96, 101):
        assert not success_level(roll, skill, H2_RULES, extra).succeeded
    assert success_level(100, skill, H2_RULES, extra) is F
    assert success_level(1, skill, H2_RULES, extra) is C  # critical <= max(1, s/20)


@given(skill=st.integers(min_value=-50, max_value=250))
def test_h2_higher_skill_never_worse(skill: int) -> None:
    for roll in range(1, 101):
        assert success_level(roll, skill + 1, H2_RULES) >= success_level(roll, skill, H2_RULES)


def test_h2_probabilities_skill_50() -> None:
    probs = level_probabilities(50)
    assert probs == {
        C: Fraction(3, 100),
        P: Fraction(7, 100),
        S: Fraction(40, 100),
        X: Fraction(47, 100),
        F: Fraction(3, 100),
    }


def test_success_level_ordering() -> None:
    assert F < X < S < P < C
    assert [lv.succeeded for lv in (F, X, S, P, C)] == [False, False, True, True, True]


# ---------------------------------------------------------------- H8


@pytest.mark.parametrize(
    ("active", "passive", "chance"),
    [
        pytest.param(10, 10, 50, id="H8 equal 50%"),
        pytest.param(12, 10, 60, id="H8 +2 -> 60%"),
        pytest.param(5, 15, 0, id="H8 -10 -> 0%"),
        pytest.param(20, 8, 110, id="H8 +12 -> 110%"),
    ],
)
def test_h8_resistance_chance(active: int, passive: int, chance: int) -> None:
    assert resistance_chance(active, passive) == chance


# ---------------------------------------------------------------- Dice


@pytest.mark.parametrize(
    ("text", "terms", "constant", "lo", "hi"),
    [
        ("1d8+1", ((1, 1, 8),), 1, 2, 9),
        ("2d6", ((1, 2, 6),), 0, 2, 12),
        ("-1d4", ((-1, 1, 4),), 0, -4, -1),
        ("-1d6", ((-1, 1, 6),), 0, -6, -1),
        ("0", (), 0, 0, 0),
        ("d6", ((1, 1, 6),), 0, 1, 6),
        ("1d6+1d4-2", ((1, 1, 6), (1, 1, 4)), -2, 0, 8),
        ("2d6-1d4", ((1, 2, 6), (-1, 1, 4)), 0, -2, 11),
        ("3", (), 3, 3, 3),
        (" 1d3 ", ((1, 1, 3),), 0, 1, 3),
        ("+1d4", ((1, 1, 4),), 0, 1, 4),
    ],
)
def test_dice_parse_valid(
    text: str, terms: tuple[tuple[int, int, int], ...], constant: int, lo: int, hi: int
) -> None:
    dice = Dice.parse(text)
    assert dice.terms == terms
    assert dice.constant == constant
    assert (dice.minimum, dice.maximum) == (lo, hi)
    assert Dice.parse(str(dice)) == dice


@pytest.mark.parametrize(
    "text",
    ["1d8 + one", "1d8 + 1", "1d", "d", "abc", "1d0", "0d6", "1d6+", "++1", "1x6", "1d6 1", "1d6d"],
)
def test_dice_parse_invalid(text: str) -> None:
    with pytest.raises(ValueError, match="expected dice like '1d8\\+1'"):
        Dice.parse(text)


def test_dice_parse_rejects_non_string() -> None:
    with pytest.raises(ValueError, match="got 6"):
        Dice.parse(6)  # type: ignore[arg-type]


def test_dice_str() -> None:
    assert str(Dice.parse("1d8+1")) == "1d8+1"
    assert str(Dice.parse("-1d4")) == "-1d4"
    assert str(Dice.parse("0")) == "0"
    assert str(Dice.parse("2d6-3")) == "2d6-3"


dice_terms = st.lists(
    st.tuples(st.sampled_from([1, -1]), st.integers(1, 5), st.integers(1, 20)), max_size=3
)


@settings(max_examples=200)
@given(terms=dice_terms, constant=st.integers(-10, 10), seed=st.integers(0, 2**32 - 1))
def test_dice_rolls_within_min_max(
    terms: list[tuple[int, int, int]], constant: int, seed: int
) -> None:
    dice = Dice(tuple(terms), constant)
    total = dice.roll(np.random.default_rng(seed))
    assert dice.minimum <= total <= dice.maximum
    total2, faces = dice.rolls(np.random.default_rng(seed))
    assert total2 == total  # same generator state, same dice
    assert len(faces) == sum(count for _, count, _ in terms)
    sides = [s for _, count, s in terms for _ in range(count)]
    assert all(1 <= f <= s for f, s in zip(faces, sides, strict=True))
    assert Dice.parse(str(dice)).maximum == dice.maximum


def test_dice_roll_reaches_both_ends() -> None:
    rng = np.random.default_rng(1)
    dice = Dice.parse("1d4+1")
    seen = {dice.roll(rng) for _ in range(400)}
    assert seen == {2, 3, 4, 5}


def test_s4_d100_range_and_uniformity() -> None:
    rng = np.random.default_rng(7)
    rolls = [d100(rng) for _ in range(20000)]
    assert min(rolls) == 1 and max(rolls) == 100
    counts = np.bincount(rolls, minlength=101)[1:]
    assert counts.min() > 130 and counts.max() < 280  # 200 expected per face


# ---------------------------------------------------------------- forcing dice (rules.roller)
def test_forcing_block_uses_the_faces_in_order() -> None:
    roller = Roller(0)
    with roller.forcing(3, 97, 6):
        assert roller.die(6) == 3
        assert roller.d100() == 97
        assert roller.roll(Dice.parse("1d6+1")) == (7, (6,))
    assert roller.forced == []


def test_faces_left_at_the_end_of_a_forcing_block_are_an_error_and_dropped() -> None:
    roller = Roller(0)
    reference = Roller(0)
    with pytest.raises(ForcedDiceError) as info, roller.forcing(3, 97, 4):
        roller.d100()
    assert str(info.value) == ("2 forced die face(s) left unused at the end of the"
                               " `with dice.forcing(...)` block: [97, 4]")
    assert isinstance(info.value, ValueError) and roller.forced == []
    # a forced face draws nothing from the generator; the next rolls are the seed's own
    assert [roller.d100() for _ in range(5)] == [reference.d100() for _ in range(5)]


def test_an_error_inside_a_forcing_block_drops_its_faces() -> None:
    roller = Roller(0)
    with pytest.raises(KeyError), roller.forcing(3, 97):
        raise KeyError("the test's own failure comes through")
    assert roller.forced == []


def test_a_forced_face_must_fit_its_die_and_be_an_integer() -> None:
    roller = Roller(0)
    roller.force(7)
    with pytest.raises(ForcedDiceError, match="forced face 7 does not fit a d6"):
        roller.die(6)
    for bad in (2.5, "3", True):
        with pytest.raises(ForcedDiceError, match="a forced face is an integer"):
            roller.force(bad)  # type: ignore[arg-type]
    roller.force(np.int64(5))
    assert roller.forced == [5] and type(roller.forced[0]) is int


def test_battle_force_faces_must_all_be_rolled_before_the_first_decision() -> None:
    import rules

    battle = rules.Battle.from_scenario("duel", seed=0, force=(5, 6))  # two initiative d12s
    assert battle.dice.forced == []
    with pytest.raises(ForcedDiceError) as info:
        rules.Battle.from_scenario("duel", seed=0, force=(5, 6, 42))
    assert str(info.value) == ("1 forced die face(s) left unused at the end of"
                               " Battle(force=...): the rolls before the first decision: [42]")


def test_a_face_forced_for_a_move_that_rolls_nothing_is_an_error() -> None:
    import rules

    battle = rules.Battle.from_scenario("duel", seed=0, force=(12, 1))  # hero first
    move = next(a for a in battle.legal_actions() if a.kind is rules.ActionKind.MOVE)
    left = r"1 forced die face\(s\) left unused"
    with pytest.raises(ForcedDiceError, match=left), battle.dice.forcing(50):
        battle.apply(move)  # the duel's first MOVE is out of reach: it rolls no dice
    assert battle.dice.forced == []
