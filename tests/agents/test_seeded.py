"""``SeededAgent.below`` draws exactly what ``Generator.integers`` draws (agents/base.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.base import SeededAgent

COUNTS = st.one_of(st.integers(1, 12), st.integers(1, 2**32), st.sampled_from(
    [2**31, 2**31 + 1, 3 * 2**30, 2**32 - 1, 2**32, 2**32 + 1, 2**40]))
# a draw: a count for below / integers, or a 64-bit draw made on the generator itself
DRAWS = st.lists(st.one_of(COUNTS, st.sampled_from(["integers63", "random"])), max_size=60)


def _reference(rng: np.random.Generator, draw: int | str) -> object:
    if draw == "integers63":
        return int(rng.integers(2**63))
    if draw == "random":
        return rng.random()
    return int(rng.integers(draw))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32), draws=DRAWS)
def test_below_is_generator_integers_draw_for_draw(seed: int, draws: list[int | str]) -> None:
    agent, reference = SeededAgent(seed), np.random.default_rng(seed)
    for draw in draws:  # 64-bit draws made on the agent's own generator mix in
        got = _reference(agent.rng, draw) if isinstance(draw, str) else agent.below(draw)
        assert got == _reference(reference, draw)


def test_below_takes_over_a_generator_holding_a_half() -> None:
    """A generator that already drew a 32-bit integer holds the other half of its word;
    ``below`` continues from it, as ``integers`` would."""
    reference, given_rng = np.random.default_rng(9), np.random.default_rng(9)
    assert int(reference.integers(5)) == int(given_rng.integers(5))
    agent = SeededAgent(0)
    agent.rng = given_rng
    assert [agent.below(11) for _ in range(40)] == [int(reference.integers(11))
                                                     for _ in range(40)]


def test_below_with_another_bit_generator_is_numpys() -> None:
    agent = SeededAgent(0)
    agent.rng = np.random.Generator(np.random.MT19937(3))
    reference = np.random.Generator(np.random.MT19937(3))
    assert [agent.below(6) for _ in range(30)] == [int(reference.integers(6))
                                                    for _ in range(30)]


@pytest.mark.parametrize("count", [0, -1])
def test_below_an_empty_range_is_numpys_error(count: int) -> None:
    with pytest.raises(ValueError, match="high <= 0"):
        SeededAgent(0).below(count)


def test_choose_picks_what_integers_picks() -> None:
    options = list(range(7))
    agent, reference = SeededAgent(4), np.random.default_rng(4)
    assert [agent.choose(options) for _ in range(100)] == [
        options[int(reference.integers(7))] for _ in range(100)]
