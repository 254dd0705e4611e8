"""experiments.comparison.stats: intervals against textbook values, Nash averaging's invariance to
redundant agents, the SPRT's bounds and decisions, openskill ratings."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.comparison import stats


def test_wilson_interval_matches_the_textbook_value_for_7_of_10() -> None:
    # Wilson 95%: (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), z = 1.95996
    low, high = stats.wilson_interval(7, 10)
    assert low == pytest.approx(0.39678, abs=1e-5)
    assert high == pytest.approx(0.89221, abs=1e-5)


def test_wilson_interval_at_the_edges() -> None:
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)
    low, high = stats.wilson_interval(20, 20)
    assert high == pytest.approx(1.0)
    assert low == pytest.approx(20 / (20 + 1.959964 ** 2), abs=1e-5)   # n / (n + z^2)


def test_mean_interval_is_the_student_t_interval() -> None:
    mean, (low, high) = stats.mean_interval([1, 2, 3])
    half = 4.302653 / math.sqrt(3)          # t(0.975, 2) * sd 1 / sqrt(3)
    assert mean == 2
    assert (low, high) == pytest.approx((2 - half, 2 + half), abs=1e-5)
    assert stats.mean_interval([5, 5]) == (5.0, (5.0, 5.0))


def test_two_proportion_test_of_45_and_55_percent() -> None:
    # pooled 0.5, se = sqrt(0.25 * 2/100), z = -1.4142, two-sided p = 0.1573
    assert stats.two_proportion_test(45, 100, 55, 100) == pytest.approx(0.1573, abs=1e-4)
    assert stats.two_proportion_test(3, 10, 3, 10) == pytest.approx(1.0)
    assert stats.two_proportion_test(0, 0, 1, 2) == 1.0


ROCK_PAPER_SCISSORS = np.array([[0, -0.5, 0.5], [0.5, 0, -0.5], [-0.5, 0.5, 0]])


def test_nash_average_of_rock_paper_scissors_is_uniform_and_flat() -> None:
    nash = stats.nash_average(["rock", "paper", "scissors"], ROCK_PAPER_SCISSORS)
    assert nash.mass == pytest.approx((1 / 3, 1 / 3, 1 / 3), abs=1e-6)
    assert nash.skill == pytest.approx((0, 0, 0), abs=1e-6)


def test_a_copy_of_rock_shares_its_mass_and_changes_no_skill() -> None:
    copied = np.array([[0, 0, -0.5, 0.5], [0, 0, -0.5, 0.5],
                       [0.5, 0.5, 0, -0.5], [-0.5, -0.5, 0.5, 0]])
    nash = stats.nash_average(["rock", "rock2", "paper", "scissors"], copied)
    assert nash.mass[0] + nash.mass[1] == pytest.approx(1 / 3, abs=1e-5)
    assert nash.mass[0] == pytest.approx(nash.mass[1], abs=1e-5)   # maximum entropy
    assert nash.skill == pytest.approx((0, 0, 0, 0), abs=1e-5)


def test_a_dominated_agent_gets_no_mass_and_its_payoff_against_the_mix() -> None:
    payoff = np.array([[0, 0.4], [-0.4, 0]])
    nash = stats.nash_average(["strong", "weak"], payoff)
    assert nash.mass == pytest.approx((1, 0), abs=1e-6)
    assert nash.skill == pytest.approx((0, -0.4), abs=1e-6)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_duplicating_any_agent_leaves_every_nash_skill_unchanged(seed: int,
                                                                 copied: int) -> None:
    # a generic matrix (continuous random entries) has a unique equilibrium; exact ties
    # can make it non-unique, and then no selection is invariant (see nash_average)
    n = 4
    upper = np.triu(np.random.default_rng(seed).uniform(-0.5, 0.5, (n, n)), 1)
    matrix = upper - upper.T
    names = [f"a{i}" for i in range(n)]
    before = stats.nash_average(names, matrix)
    order = [*range(n), copied]
    after = stats.nash_average([*names, "copy"], matrix[np.ix_(order, order)])
    assert after.skill[:n] == pytest.approx(before.skill, abs=1e-4)
    assert after.skill[n] == pytest.approx(before.skill[copied], abs=1e-4)
    assert after.mass[copied] + after.mass[n] == pytest.approx(before.mass[copied], abs=1e-4)


def test_nash_average_rejects_a_matrix_of_the_wrong_shape() -> None:
    with pytest.raises(ValueError, match="expected a 2x2 matrix"):
        stats.nash_average(["a", "b"], np.zeros((3, 3)))


def test_elo_and_score_are_inverse_logistic() -> None:
    assert stats.elo_to_score(0) == 0.5
    assert stats.elo_to_score(400) == pytest.approx(10 / 11)
    assert stats.score_to_elo(10 / 11) == pytest.approx(400)
    assert stats.score_to_elo(stats.elo_to_score(-123)) == pytest.approx(-123)
    assert stats.score_to_elo(1.0) == math.inf and stats.score_to_elo(0.0) == -math.inf


def test_sprt_bounds_are_walds() -> None:
    low, high = stats.Sprt(0, 50, alpha=0.05, beta=0.05).bounds
    assert low == pytest.approx(math.log(0.05 / 0.95))
    assert high == pytest.approx(math.log(0.95 / 0.05))


def test_sprt_accepts_h1_for_a_clear_winner_and_h0_for_equals() -> None:
    winner = stats.Sprt(0, 50)
    while winner.state == "continue":
        winner.add_pair(2.0 if winner.pairs % 5 else 1.0)
    assert winner.state == "H1"
    assert winner.pairs < 20
    equal = stats.Sprt(0, 50)
    scores = [1.0, 0.5, 1.5, 1.0]
    while equal.state == "continue":
        equal.add_pair(scores[equal.pairs % len(scores)])
    assert equal.state == "H0"


def test_sprt_is_symmetric_in_the_sign_of_the_hypotheses() -> None:
    up, down = stats.Sprt(0, 40), stats.Sprt(0, -40)
    for score in (2.0, 1.5, 0.5, 2.0, 1.0):
        up.add_pair(score)
        down.add_pair(2.0 - score)
    assert up.llr == pytest.approx(down.llr)


def test_sprt_rejects_a_pair_score_outside_0_to_2() -> None:
    with pytest.raises(ValueError, match="expected 0 to 2"):
        stats.Sprt(0, 50).add_pair(2.5)


def test_plackett_luce_ranks_the_winner_first_with_intervals_around_mu() -> None:
    games = [("a", "b", 0.0)] + [("a", "b", 1.0), ("b", "c", 1.0)] * 6 + [("a", "b", 0.0)]
    ratings = {r.agent: r for r in stats.plackett_luce_ratings(games, ["a", "b", "c"],
                                                               resamples=30, seed=1)}
    assert ratings["a"].mu > ratings["b"].mu > ratings["c"].mu
    for rating in ratings.values():
        assert rating.low <= rating.mu <= rating.high
    again = stats.plackett_luce_ratings(games, ["a", "b", "c"], resamples=30, seed=1)
    assert [r.low for r in again] == [ratings[n].low for n in "abc"]


def test_draws_only_leave_the_ratings_equal() -> None:
    ratings = stats.plackett_luce_ratings([("a", "b", 0.5)] * 5, ["a", "b"], resamples=5)
    assert ratings[0].mu == pytest.approx(ratings[1].mu)
