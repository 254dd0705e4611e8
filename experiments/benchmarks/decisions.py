"""Benchmark of the rules core: random legal play, decisions per second per scenario.

Run ``python -m experiments.benchmarks.decisions`` (or ``fray bench``).
"""

from __future__ import annotations

import time

import numpy as np

import rules


def run(scenarios: list[str] | None = None, battles: int = 20) -> dict[str, dict[str, float]]:
    """Play ``battles`` random battles per scenario; return decisions, seconds, rate."""
    out: dict[str, dict[str, float]] = {}
    for name in scenarios or rules.shipped_scenarios():
        rng = np.random.default_rng(0)
        decisions = 0
        t0 = time.perf_counter()
        for seed in range(battles):
            b = rules.Battle.from_scenario(name, seed=seed)
            while not b.is_over:
                acts = b.legal_actions()
                b.apply(acts[int(rng.integers(len(acts)))])
                decisions += 1
        secs = time.perf_counter() - t0
        out[name] = {"battles": battles, "decisions": decisions, "seconds": secs,
                     "decisions_per_s": decisions / secs}
    return out


def main() -> None:
    for name, fig in run().items():
        print(f"{name:<10} {fig['battles']:>4.0f} battles {fig['decisions']:>8.0f} decisions "
              f"{fig['seconds']:>7.2f} s  {fig['decisions_per_s']:>9.0f} decisions/s")


if __name__ == "__main__":
    main()
