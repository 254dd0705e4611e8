"""One dice stream (issue 23): rules._native.Pcg64 draws exactly what numpy does.

fray rolls every die with ``Generator.integers(1, sides + 1)`` (rules/roller.py, one at a
time; rules/dice.py, ``size=count``), breaks initiative ties with ``Generator.random()``
and seeds with ``numpy.random.default_rng(seed)``; saved battles carry
``bit_generator.state``. The native stream must agree draw for draw and state for state.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import Dice
from rules.roller import Roller

native = pytest.importorskip(
    "rules._native", reason="the native engine is not built (no C++ compiler at install)")

#: Dice fray's content rolls, plus d1 (an empty range) and d100.
FRAY_SIDES = np.array([1, 2, 3, 4, 6, 8, 10, 12, 20, 100])
#: Ranges on every path of numpy's bounded draw: 32-bit Lemire, the full 32-bit word,
#: 64-bit Lemire and the full 64-bit word.
WIDE_RANGES = [(0, 2**31 + 7), (0, 2**32 - 1), (0, 2**32), (-5, 2**32 + 9), (0, 2**40 + 3),
               (-(2**63), 2**63 - 1), (-(2**62), 2**62), (7, 8)]
SEEDS = [0, 1, 7, 12345, 2**32 - 1, 2**32, 2**64 + 5, 2**128 + 3, 3**90]


def test_seeding_matches_default_rng() -> None:
    for seed in SEEDS:
        assert native.Pcg64(seed).state == np.random.default_rng(seed).bit_generator.state
    assert native.Pcg64(np.int64(42)).state == np.random.default_rng(42).bit_generator.state


def test_first_draws_of_a_known_seed() -> None:
    """Pinned faces, so a change on either side shows up even if both changed alike."""
    stream = native.Pcg64(7)
    assert [stream.integers(1, 101) for _ in range(10)] == [95, 63, 69, 90, 58, 78, 84, 23, 6, 31]


def test_millions_of_mixed_die_rolls_match_numpy() -> None:
    """Two million dice of every size fray rolls, interleaved, one stream."""
    plan = np.random.default_rng(2024)
    sides = plan.choice(FRAY_SIDES, size=2_000_000)
    ours, theirs = native.Pcg64(99), np.random.default_rng(99)
    got = ours.integers_array(np.ones_like(sides), sides + 1)
    expected = theirs.integers(1, sides + 1)
    assert np.array_equal(got, expected)
    assert got.min() == 1 and got.max() == 100
    assert ours.state == theirs.bit_generator.state


def test_blocks_of_every_draw_kind_interleaved() -> None:
    """Dice, fixed-size rolls (rules.dice.Dice), wide ranges and random() in blocks of
    random lengths, so the 32-bit half-word buffer is often left full across kinds."""
    plan = np.random.default_rng(5)
    ours, theirs = native.Pcg64(2**70 + 1), np.random.default_rng(2**70 + 1)
    drawn = 0
    while drawn < 600_000:
        kind = int(plan.integers(0, 4))
        length = int(plan.integers(1, 40))
        if kind == 0:
            sides = plan.choice(FRAY_SIDES, size=length)
            got = ours.integers_array(np.ones_like(sides), sides + 1)
            assert np.array_equal(got, theirs.integers(1, sides + 1))
        elif kind == 1:
            side = int(plan.choice(FRAY_SIDES))
            got = ours.integers_array(np.ones(length, np.int64), np.full(length, side + 1))
            assert np.array_equal(got, theirs.integers(1, side + 1, size=length))
        elif kind == 2:
            low, high = WIDE_RANGES[int(plan.integers(0, len(WIDE_RANGES)))]
            got = ours.integers_array(np.full(length, low), np.full(length, high))
            assert np.array_equal(got, theirs.integers(low, high, size=length))
        else:
            assert np.array_equal(ours.random_array(length), theirs.random(length))
        drawn += length
    assert ours.state == theirs.bit_generator.state


def test_scalar_calls_match_numpy_scalar_calls() -> None:
    """The calls the Python engine makes, one at a time, as rules/roller.py makes them."""
    plan = np.random.default_rng(11)
    ours, theirs = native.Pcg64(3), np.random.default_rng(3)
    for _ in range(20_000):
        if plan.random() < 0.1:
            assert ours.random() == theirs.random()
        else:
            sides = int(plan.choice(FRAY_SIDES))
            assert ours.die(sides) == int(theirs.integers(1, sides + 1))
            low, high = WIDE_RANGES[int(plan.integers(0, len(WIDE_RANGES)))]
            assert ours.integers(low, high) == int(theirs.integers(low, high))


def test_dice_expressions_roll_alike() -> None:
    """rules.dice.Dice.roll (numpy draws ``size=count`` at once) and the Roller (one die at
    a time) both draw what the native stream draws die by die."""
    dice = Dice.parse("3d6+2d10-1d4+1")
    ours, theirs, roller = native.Pcg64(8), np.random.default_rng(8), Roller(8)
    for _ in range(2_000):
        faces = [ours.die(sides) for _sign, count, sides in dice.terms for _ in range(count)]
        signs = [sign for sign, count, _sides in dice.terms for _ in range(count)]
        total = dice.constant + sum(sign * face for sign, face in zip(signs, faces, strict=True))
        assert dice.roll(theirs) == total
        assert roller.roll(dice) == (total, tuple(faces))
    assert ours.state == theirs.bit_generator.state == roller.state()["bit_generator"]


def test_the_roller_and_the_native_stream_agree() -> None:
    roller, ours = Roller(21), native.Pcg64(21)
    for sides in np.random.default_rng(0).choice(FRAY_SIDES, size=5_000):
        assert roller.die(int(sides)) == ours.die(int(sides))
    assert roller.uniform() == ours.random()
    assert roller.state()["bit_generator"] == ours.state


@pytest.mark.parametrize("odd_draws", [0, 1, 2, 7])
def test_state_round_trips_mid_stream_both_ways(odd_draws: int) -> None:
    """numpy -> native and native -> numpy, with and without a buffered half-word."""
    theirs = np.random.default_rng(77)
    for _ in range(odd_draws):
        theirs.integers(1, 7)
    ours = native.Pcg64.from_state(theirs.bit_generator.state)
    assert ours.state == theirs.bit_generator.state
    assert ours.state["has_uint32"] == odd_draws % 2
    sides = np.random.default_rng(1).choice(FRAY_SIDES, size=1_001)
    assert np.array_equal(ours.integers_array(np.ones_like(sides), sides + 1),
                          theirs.integers(1, sides + 1))
    # and back: numpy continues from the native state
    again = np.random.default_rng(0)
    again.bit_generator.state = ours.state
    assert [int(again.integers(1, 21)) for _ in range(999)] == [ours.die(20) for _ in range(999)]
    assert again.random() == ours.random()
    # the setter, on a stream already in use
    other = native.Pcg64(5)
    other.state = again.bit_generator.state
    assert other.state == again.bit_generator.state
    assert other.die(100) == int(again.integers(1, 101))


def test_a_saved_roller_state_loads_natively() -> None:
    """What Battle.to_json saves (Roller.state()) seeds the native stream."""
    roller = Roller(31)
    for _ in range(3):
        roller.die(6)
    ours = native.Pcg64.from_state(roller.state()["bit_generator"])
    assert [roller.die(12) for _ in range(500)] == [ours.die(12) for _ in range(500)]


def test_copies_and_pickles_continue_identically() -> None:
    ours = native.Pcg64(4)
    ours.die(6)  # leaves a buffered half-word, which the copies must keep
    twins = [copy.copy(ours), copy.deepcopy(ours), pickle.loads(pickle.dumps(ours))]
    expected = [ours.die(100) for _ in range(50)]
    for twin in twins:
        assert [twin.die(100) for _ in range(50)] == expected
        assert twin.state == ours.state
    twins[0].die(100)
    assert twins[0].state != twins[1].state  # independent streams


@pytest.mark.parametrize(("state", "error", "message"), [
    ({"bit_generator": "MT19937", "state": {"state": 1, "inc": 1}, "has_uint32": 0,
      "uinteger": 0}, ValueError, "bit_generator: expected 'PCG64'"),
    ({"bit_generator": "PCG64", "state": {"state": -1, "inc": 1}, "has_uint32": 0,
      "uinteger": 0}, ValueError, "state.state: expected an integer in [0, 2**128)"),
    ({"bit_generator": "PCG64", "state": {"state": 2**128, "inc": 1}, "has_uint32": 0,
      "uinteger": 0}, ValueError, "state.state"),
    ({"bit_generator": "PCG64", "state": {"state": 1}, "has_uint32": 0, "uinteger": 0},
     ValueError, "expected a key 'inc'"),
    ({"bit_generator": "PCG64", "state": {"state": 1, "inc": 1}, "has_uint32": 2,
      "uinteger": 0}, ValueError, "has_uint32"),
    ({"bit_generator": "PCG64", "state": {"state": 1, "inc": 1}, "has_uint32": 0,
      "uinteger": 2**32}, ValueError, "uinteger"),
    ({"bit_generator": "PCG64", "state": {"state": "1", "inc": 1}, "has_uint32": 0,
      "uinteger": 0}, TypeError, "state.state: expected an integer"),
    ([1, 2], TypeError, "expected a dict"),
])
def test_bad_states_are_refused_naming_the_field(state: object, error: type, message: str) -> None:
    stream = native.Pcg64(1)
    before = stream.state
    with pytest.raises(error) as raised:
        stream.state = state
    assert message in str(raised.value)
    assert stream.state == before


def test_bad_bounds_and_seeds_are_refused() -> None:
    with pytest.raises(ValueError, match="expected low < high"):
        native.Pcg64(1).integers(5, 5)
    with pytest.raises(ValueError, match="non-negative"):
        native.Pcg64(-1)
    with pytest.raises(TypeError, match="seed"):
        native.Pcg64("7")
    with pytest.raises(ValueError, match="sides >= 1"):
        native.Pcg64(1).die(0)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**130),
       ranges=st.lists(st.tuples(st.integers(-(2**63), 2**63 - 2), st.integers(1, 2**40)),
                       min_size=1, max_size=60))
def test_any_seed_any_ranges(seed: int, ranges: list[tuple[int, int]]) -> None:
    ours, theirs = native.Pcg64(seed), np.random.default_rng(seed)
    for low, width in ranges:
        high = min(low + width, 2**63 - 1)
        assert ours.integers(low, high) == int(theirs.integers(low, high))
    assert ours.state == theirs.bit_generator.state
