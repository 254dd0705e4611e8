"""Statistics for tournaments, comparisons and sweeps.

- :func:`wilson_interval`: a binomial proportion's Wilson score interval (scipy.stats).
- :func:`mean_interval`: a mean with its Student-t interval.
- :func:`median_interval`: a median with its order-statistic (binomial) interval.
- :func:`two_proportion_test`: do two win rates differ (pooled z-test, two-sided p)?
- :func:`plackett_luce_ratings`: openskill's Plackett-Luce ratings of a battle sequence,
  with percentile intervals from a bootstrap over battles.
- :func:`nash_average`: Balduzzi et al. (2018) Nash averaging over an antisymmetric
  matchup matrix: the maximum-entropy Nash equilibrium of the zero-sum meta-game and each
  agent's payoff against it. A redundant copy of an agent shares its equilibrium mass
  and leaves every Nash-averaged skill unchanged (exactly so when the equilibrium is
  unique, as for generic matrices; exact ties can make it non-unique).
- :func:`bernoulli_sprt`: Wald's sequential probability ratio test of p0 against p1 on
  a sequence of (possibly fractional) Bernoulli outcomes.
- :class:`Sprt`: a generalised sequential probability ratio test on pairs of battles with
  swapped sides (the pentanomial model of chess engines' test frameworks, fishtest), with
  the normal approximation of the log-likelihood ratio.

scipy is imported inside the functions that use it: a worker process that only plays
battles (a Ray worker importing :mod:`experiments.balance.battles`, say) does not pay
scipy.stats' import, about a second of its start.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Interval = tuple[float, float]


def wilson_interval(successes: float, trials: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval of ``successes / trials``; (0, 1) when there are no trials.
    ``successes`` may count halves (a draw as half a win): the same score formula."""
    from scipy import stats as sps
    if trials == 0:
        return (0.0, 1.0)
    if successes != int(successes):
        z = float(sps.norm.ppf((1 + confidence) / 2))
        rate = successes / trials
        centre = (rate + z * z / (2 * trials)) / (1 + z * z / trials)
        half = z / (1 + z * z / trials) * math.sqrt(
            rate * (1 - rate) / trials + z * z / (4 * trials * trials))
        return (max(0.0, centre - half), min(1.0, centre + half))
    successes = int(successes)
    ci = sps.binomtest(successes, trials).proportion_ci(confidence_level=confidence,
                                                        method="wilson")
    return (float(ci.low), float(ci.high))


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, Interval]:
    """The mean and its Student-t interval (the mean itself twice for < 2 values)."""
    from scipy import stats as sps
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (math.nan, (math.nan, math.nan))
    mean = float(data.mean())
    if data.size < 2 or float(data.std()) == 0.0:
        return (mean, (mean, mean))
    half = float(sps.sem(data) * sps.t.ppf((1 + confidence) / 2, data.size - 1))
    return (mean, (mean - half, mean + half))


def median_interval(values: Sequence[float],
                    confidence: float = 0.95) -> tuple[float, Interval]:
    """The median and its distribution-free interval: the order statistics whose ranks
    the binomial(n, 1/2) quantiles give (nan and (nan, nan) for no values)."""
    from scipy import stats as sps
    data = np.sort(np.asarray(values, dtype=float))
    n = data.size
    if n == 0:
        return (math.nan, (math.nan, math.nan))
    median = float(np.median(data))
    tail = (1 - confidence) / 2
    low_rank = int(sps.binom.ppf(tail, n, 0.5))            # 0-based: the (k+1)-th smallest
    high_rank = int(sps.binom.ppf(1 - tail, n, 0.5))
    low = float(data[max(0, min(n - 1, low_rank - 1 if low_rank > 0 else 0))])
    high = float(data[max(0, min(n - 1, high_rank))])
    return (median, (min(low, median), max(high, median)))


def two_proportion_test(successes_a: int, trials_a: int, successes_b: int,
                        trials_b: int) -> float:
    """Two-sided p-value of the pooled two-proportion z-test (1.0 if undefined)."""
    from scipy import stats as sps
    if trials_a == 0 or trials_b == 0:
        return 1.0
    pooled = (successes_a + successes_b) / (trials_a + trials_b)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / trials_a + 1 / trials_b))
    if spread == 0:
        return 1.0
    z = (successes_a / trials_a - successes_b / trials_b) / spread
    return float(2 * sps.norm.sf(abs(z)))


def sign_test(only_first: int, only_second: int) -> float:
    """Two-sided p-value of the paired sign test: of the pairs (battles of one seed) that
    only one of two agents won, ``only_first`` went to the first (1.0 with none)."""
    from scipy import stats as sps
    discordant = only_first + only_second
    if discordant == 0:
        return 1.0
    return float(sps.binomtest(only_first, discordant).pvalue)


# ---------------------------------------------------------------- ratings


@dataclass(frozen=True)
class Rating:
    """One agent's Plackett-Luce rating: mu, sigma and a bootstrap interval of mu."""

    agent: str
    mu: float
    sigma: float
    low: float
    high: float


Game = tuple[str, str, float]   # (agent a, agent b, score of a: 1, 0.5 or 0)


def _rate(games: Sequence[Game], agent_names: Sequence[str]) -> dict[str, tuple[float, float]]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in agent_names}
    for a, b, score in games:
        if a == b:
            continue
        ranks = [0, 1] if score > 0.5 else [1, 0] if score < 0.5 else [0, 0]
        [[ratings[a]], [ratings[b]]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
    return {name: (r.mu, r.sigma) for name, r in ratings.items()}


def plackett_luce_ratings(games: Sequence[Game], agent_names: Sequence[str], *,
                          resamples: int = 100, orders: int = 20, seed: int = 0,
                          confidence: float = 0.95) -> list[Rating]:
    """Ratings of ``games`` with a bootstrap interval of each agent's mu.

    An online rating depends on the order of the games (a schedule plays one pairing
    after another), so mu and sigma are averaged over ``orders`` random orders of the
    games, and the bootstrap draws the games with replacement, in random order,
    ``resamples`` times.
    """
    rng = np.random.default_rng(seed)
    runs = [_rate([games[i] for i in rng.permutation(len(games))], agent_names)
            for _ in range(max(1, orders))]
    point = {name: (float(np.mean([run[name][0] for run in runs])),
                    float(np.mean([run[name][1] for run in runs]))) for name in agent_names}
    draws: dict[str, list[float]] = {name: [] for name in agent_names}
    for _ in range(resamples if games else 0):
        picked = rng.integers(len(games), size=len(games))
        sample = _rate([games[i] for i in picked], agent_names)
        for name in agent_names:
            draws[name].append(sample[name][0])
    tail = (1 - confidence) / 2 * 100
    out = []
    for name in agent_names:
        mu, sigma = point[name]
        low, high = (np.percentile(draws[name], [tail, 100 - tail]) if draws[name]
                     else (mu - 2 * sigma, mu + 2 * sigma))
        out.append(Rating(name, mu, sigma, float(low), float(high)))
    return out


# ---------------------------------------------------------------- Nash averaging


@dataclass(frozen=True)
class NashAverage:
    """The maximum-entropy Nash equilibrium (mass per agent) and Nash-averaged skills."""

    agents: tuple[str, ...]
    mass: tuple[float, ...]
    skill: tuple[float, ...]


def nash_average(agent_names: Sequence[str], payoff: np.ndarray) -> NashAverage:
    """Nash averaging of an antisymmetric ``payoff`` (row's score rate minus 0.5).

    The equilibrium ``p`` of the symmetric zero-sum game satisfies ``p @ payoff >= 0``;
    among those the one of maximum entropy is taken (SLSQP from the linear program's
    solution). Skill of agent i = ``(payoff @ p)[i]``: 0 on the equilibrium's support,
    negative for agents the equilibrium mix beats.
    """
    matrix = np.asarray(payoff, dtype=float)
    n = len(agent_names)
    if matrix.shape != (n, n):
        raise ValueError(f"payoff: expected a {n}x{n} matrix, got {matrix.shape}")
    matrix = (matrix - matrix.T) / 2  # exactly antisymmetric
    start = _equilibrium_lp(matrix)
    best = _max_entropy(matrix, start)
    skill = matrix @ best
    return NashAverage(tuple(agent_names), tuple(float(m) for m in best),
                       tuple(float(s) for s in skill))


def _equilibrium_lp(matrix: np.ndarray) -> np.ndarray:
    """One equilibrium: maximise v subject to p @ matrix >= v, p a distribution."""
    from scipy import optimize
    n = matrix.shape[0]
    cost = np.zeros(n + 1)
    cost[-1] = -1.0
    upper = np.hstack([-matrix.T, np.ones((n, 1))])   # v - (p @ M)_j <= 0
    equal = np.hstack([np.ones((1, n)), np.zeros((1, 1))])
    result = optimize.linprog(cost, A_ub=upper, b_ub=np.zeros(n), A_eq=equal, b_eq=[1.0],
                              bounds=[(0, 1)] * n + [(None, None)], method="highs")
    if not result.success:
        return np.full(n, 1.0 / n)
    return np.clip(result.x[:n], 0, 1) / np.clip(result.x[:n], 0, 1).sum()


def _max_entropy(matrix: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The maximum-entropy distribution with ``p @ matrix >= 0`` (``start`` if it fails)."""
    from scipy import optimize
    n = matrix.shape[0]
    tolerance = 1e-9

    def negative_entropy(probabilities: np.ndarray) -> float:
        q = np.clip(probabilities, 1e-12, 1)
        return float(np.sum(q * np.log(q)))

    constraints = [
        {"type": "eq", "fun": lambda probabilities: np.sum(probabilities) - 1.0},
        {"type": "ineq", "fun": lambda probabilities: probabilities @ matrix + tolerance},
    ]
    result = optimize.minimize(negative_entropy, start, method="SLSQP",
                               bounds=[(0, 1)] * n, constraints=constraints,
                               options={"ftol": 1e-12, "maxiter": 500})
    if not result.success or np.min(result.x @ matrix) < -1e-6:
        return start
    best = np.clip(result.x, 0, 1)
    best[best < 1e-7] = 0.0
    return best / best.sum()


# ---------------------------------------------------------------- SPRT


def elo_to_score(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + 10 ** (-elo / 400))


def score_to_elo(score: float) -> float:
    """The Elo difference of an expected score (-inf at 0 and below, +inf at 1 and above)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)   # a pair's total score (0..2) over 2


@dataclass
class Sprt:
    """GSPRT of H0: Elo = ``elo0`` against H1: Elo = ``elo1`` on pairs of battles.

    Each pair is the same seed played with the sides swapped; its score (0, 0.5, 1, 1.5
    or 2 for agent A) is one pentanomial outcome. The log-likelihood ratio is the normal
    approximation of fishtest: ``N (s1 - s0) (2 m - s0 - s1) / (2 var)`` with the mean
    ``m`` and variance ``var`` of the pair score (half a pseudo-pair spread over the
    outcomes keeps the variance above zero when every pair ends alike).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    counts: list[float] | None = None

    def __post_init__(self) -> None:
        if self.counts is None:
            self.counts = [0.0] * len(PAIR_SCORES)

    @property
    def bounds(self) -> Interval:
        """(lower, upper): accept H0 at or below lower, H1 at or above upper."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def add_pair(self, total_score: float) -> None:
        """Record one pair: agent A's total score over its two battles (0 to 2)."""
        index = round(total_score * 2)
        if not 0 <= index < len(PAIR_SCORES):
            raise ValueError(f"pair score: expected 0 to 2 in halves, got {total_score}")
        self.counts[index] += 1

    @property
    def pairs(self) -> int:
        return int(sum(self.counts))

    def _moments(self) -> tuple[float, float, float]:
        prior = 0.5 / len(PAIR_SCORES)
        weights = np.asarray(self.counts) + prior
        total = float(weights.sum())
        scores = np.asarray(PAIR_SCORES)
        mean = float(weights @ scores / total)
        variance = float(weights @ (scores - mean) ** 2 / total)
        return total, mean, variance

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 against H0 so far."""
        if self.pairs == 0:
            return 0.0
        _, mean, variance = self._moments()
        s0, s1 = elo_to_score(self.elo0), elo_to_score(self.elo1)
        return self.pairs * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

    @property
    def state(self) -> str:
        """``"H1"``, ``"H0"`` or ``"continue"``."""
        lower, upper = self.bounds
        value = self.llr
        return "H1" if value >= upper else "H0" if value <= lower else "continue"

    def elo_estimate(self, confidence: float = 0.95) -> tuple[float, Interval]:
        """Agent A's Elo advantage from the mean pair score, with a normal interval."""
        from scipy import stats as sps
        total, mean, variance = self._moments()
        half = sps.norm.ppf((1 + confidence) / 2) * math.sqrt(variance / max(total, 1))
        return (score_to_elo(mean),
                (score_to_elo(mean - half), score_to_elo(mean + half)))


def bernoulli_sprt(values: Sequence[float], p0: float, p1: float, alpha: float = 0.05,
                   beta: float = 0.05) -> tuple[str, int]:
    """Wald's SPRT of H0: p = ``p0`` against H1: p = ``p1`` over ``values`` in order (each
    in 0..1; a half counts half, as a draw's score): (``"H1"``, ``"H0"`` or
    ``"continue"``, the observations it took to decide, or all of them)."""
    if not (0 < p0 < 1 and 0 < p1 < 1) or p0 == p1:
        raise ValueError(f"bernoulli_sprt: expected distinct p0, p1 in (0, 1), got {p0}, {p1}")
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    win, loss = math.log(p1 / p0), math.log((1 - p1) / (1 - p0))
    llr = 0.0
    for count, value in enumerate(values, start=1):
        llr += value * win + (1 - value) * loss
        if llr >= upper:
            return ("H1", count)
        if llr <= lower:
            return ("H0", count)
    return ("continue", len(values))
