"""The target band of a metric (``--target party_win=0.45..0.55``) and the tests against it:
the distance a search minimises and the SPRT of the final evaluation."""

from __future__ import annotations

import math
from dataclasses import dataclass

from experiments.balance.battles import METRICS, Tally, measure
from experiments.comparison.stats import Interval, bernoulli_sprt


class TargetError(ValueError):
    """A ``--target`` that is not METRIC=LOW..HIGH."""


@dataclass(frozen=True)
class Target:
    """A metric and its band ``[low, high]``."""

    metric: str
    low: float
    high: float

    @classmethod
    def parse(cls, text: str) -> Target:
        metric, sep, band = text.partition("=")
        metric = metric.strip()
        low_text, dots, high_text = band.partition("..")
        if not sep or not dots:
            raise TargetError(f"--target {text!r}: expected METRIC=LOW..HIGH (e.g. "
                              f"party_win=0.45..0.55)")
        if metric not in METRICS:
            raise TargetError(f"--target {metric}: expected a metric of {', '.join(METRICS)}")
        try:
            low, high = float(low_text), float(high_text)
        except ValueError:
            raise TargetError(f"--target {text!r}: expected numbers LOW..HIGH, got "
                              f"{band!r}") from None
        if not (math.isfinite(low) and math.isfinite(high)) or low > high:
            raise TargetError(f"--target {metric}: expected finite LOW <= HIGH, got {band}")
        if metric != "rounds" and not (low >= 0 and high <= 1):
            raise TargetError(f"--target {metric}: a rate's band lies in 0..1, got {band}")
        if metric == "rounds" and low < 0:
            raise TargetError(f"--target rounds: expected LOW >= 0, got {band}")
        return cls(metric, low, high)

    @property
    def centre(self) -> float:
        return (self.low + self.high) / 2

    def label(self) -> str:
        return f"{self.metric} in {self.low:g}..{self.high:g}"

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def loss(self, tally: Tally) -> float:
        """What the search minimises: the estimate's distance from the band's centre,
        plus its standard error (an estimate from few battles must be closer to win)."""
        value, (low, high) = measure(tally, self.metric)
        if math.isnan(value):
            return math.inf
        spread = (high - low) / (2 * 1.96) if math.isfinite(high - low) else 0.0
        return abs(value - self.centre) + spread

    def sprt(self, tally: Tally, alpha: float = 0.05, beta: float = 0.05
             ) -> dict[str, object]:
        """Wald's SPRT at each edge of the band, on the battles in play order.

        Rates: at the lower edge H0 p = low - d against H1 p = low + d, at the upper edge
        H0 p = high + d against H1 p = high - d, d a quarter of the band's width (a draw
        counts half). Rounds: a median is at least ``low`` when P(rounds >= low) >= 1/2,
        so the lower edge tests that indicator's p = 0.4 against 0.6 (the upper edge alike
        with rounds <= high). ``in_band`` when both edges accept H1, ``out_of_band`` when
        either accepts H0, else ``undecided``."""
        if self.metric == "rounds":
            lower_values = [1.0 if r >= self.low else 0.0 for r in tally.rounds]
            upper_values = [1.0 if r <= self.high else 0.0 for r in tally.rounds]
            lower = bernoulli_sprt(lower_values, 0.4, 0.6, alpha, beta)
            upper = bernoulli_sprt(upper_values, 0.4, 0.6, alpha, beta)
        else:
            scores = tally.scores(self.metric)
            d = max((self.high - self.low) / 4, 0.005)
            lower = bernoulli_sprt(scores, max(self.low - d, 1e-6), min(self.low + d, 1 - 1e-6),
                                   alpha, beta)
            flipped = [1 - s for s in scores]   # upper edge: P(below) vs 1 - (high +- d)
            upper = bernoulli_sprt(flipped, max(1 - self.high - d, 1e-6),
                                   min(1 - self.high + d, 1 - 1e-6), alpha, beta)
        states = (lower[0], upper[0])
        verdict = ("in_band" if states == ("H1", "H1") else
                   "out_of_band" if "H0" in states else "undecided")
        return {"verdict": verdict, "alpha": alpha, "beta": beta,
                "lower_edge": {"decision": lower[0], "battles": lower[1]},
                "upper_edge": {"decision": upper[0], "battles": upper[1]}}


def interval_inside(interval: Interval, target: Target) -> bool:
    return target.low <= interval[0] and interval[1] <= target.high


def interval_outside(interval: Interval, target: Target) -> bool:
    return interval[1] < target.low or interval[0] > target.high
