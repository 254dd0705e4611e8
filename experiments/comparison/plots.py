"""Plots of tournaments and sweeps (matplotlib, Agg backend: files only, no window).

- :func:`matchup_heatmap`: row agent's score rate against each column agent (and
  the number of battles behind each cell).
- :func:`ratings_plot`: Plackett-Luce mu per agent with its bootstrap interval.
- :func:`rounds_histogram`: battle length (rounds) per pairing.
- :func:`sweep_plot`: win rate per variant with Wilson intervals, and mean rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from experiments.comparison.stats import Rating


def _save(figure: Any, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def matchup_heatmap(agents: Sequence[str], matrix: Sequence[Sequence[float | None]],
                    path: Path, title: str = "Matchups",
                    battles: Sequence[Sequence[int]] | None = None) -> Path:
    """A heatmap of score rates (row against column), each cell annotated with its rate
    and, given ``battles`` (same shape), how many battles it holds."""
    values = np.array([[np.nan if v is None else v for v in row] for row in matrix],
                      dtype=float)
    size = max(4.0, 1.1 * len(agents) + 2)
    figure, axes = plt.subplots(figsize=(size + 1, size))
    image = axes.imshow(values, cmap="RdBu", vmin=0, vmax=1)
    axes.set_xticks(range(len(agents)), labels=agents, rotation=30, ha="right")
    axes.set_yticks(range(len(agents)), labels=agents)
    axes.set_xlabel("opponent")
    axes.set_ylabel("agent")
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            if not np.isnan(value):
                text = f"{value:.2f}" if battles is None else f"{value:.2f}\nn={battles[i][j]}"
                axes.text(j, i, text, ha="center", va="center",
                          color="white" if abs(value - 0.5) > 0.3 else "black")
    figure.colorbar(image, ax=axes, label="score rate (win 1, draw 1/2)")
    axes.set_title(title)
    return _save(figure, path)


def ratings_plot(ratings: Sequence[Rating], path: Path, title: str = "Ratings") -> Path:
    """Plackett-Luce mu per agent (strongest on top) with its 95% bootstrap interval."""
    ordered = sorted(ratings, key=lambda rating: rating.mu)
    figure, axes = plt.subplots(figsize=(6.5, 1.2 + 0.5 * len(ordered)))
    mus = np.array([r.mu for r in ordered])
    errors = np.array([[r.mu - r.low for r in ordered], [r.high - r.mu for r in ordered]])
    axes.errorbar(mus, range(len(ordered)), xerr=np.clip(errors, 0, None), fmt="o",
                  capsize=4, label="mu with 95% bootstrap interval")
    axes.set_yticks(range(len(ordered)), labels=[r.agent for r in ordered])
    axes.set_xlabel("openskill Plackett-Luce rating (mu)")
    axes.set_ylabel("agent")
    axes.legend(loc="lower right")
    axes.set_title(title)
    return _save(figure, path)


def rounds_histogram(records: Sequence[dict[str, Any]], path: Path,
                     title: str = "Battle length") -> Path:
    """Histogram of rounds per battle, one series per pairing."""
    by_pairing: dict[str, list[int]] = {}
    for record in records:
        pairing = " v ".join(record.get("pairing") or record["agents"].values())
        by_pairing.setdefault(pairing, []).append(record["rounds"])
    figure, axes = plt.subplots(figsize=(7, 4))
    top = max((r for values in by_pairing.values() for r in values), default=1)
    bins = np.arange(0.5, top + 1.5, max(1, (top + 1) // 30))
    for pairing, values in by_pairing.items():
        axes.hist(values, bins=bins, histtype="step", linewidth=1.5, label=pairing)
    axes.set_xlabel("rounds")
    axes.set_ylabel("battles")
    axes.legend(fontsize="small")
    axes.set_title(title)
    return _save(figure, path)


def sweep_plot(variants: Sequence[str], series: dict[str, list[tuple[float, float, float]]],
               rounds: list[tuple[float, float, float]], path: Path,
               title: str = "Rule sweep") -> Path:
    """Win rate per variant and subject with intervals (left), mean rounds (right).

    ``series``: subject -> one (rate, low, high) per variant; ``rounds``: one
    (mean, low, high) per variant.
    """
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    x = np.arange(len(variants))
    offset = np.linspace(-0.15, 0.15, max(1, len(series)))
    for shift, (subject, values) in zip(offset, series.items(), strict=False):
        rate = np.array([v[0] for v in values])
        error = np.array([[v[0] - v[1] for v in values], [v[2] - v[0] for v in values]])
        left.errorbar(x + shift, rate, yerr=np.clip(error, 0, None), fmt="o-", capsize=4,
                      label=subject)
    left.set_ylim(0, 1)
    left.set_ylabel("win rate (Wilson 95% interval)")
    left.set_title("Win rate per variant")
    mean = np.array([v[0] for v in rounds])
    error = np.array([[v[0] - v[1] for v in rounds], [v[2] - v[0] for v in rounds]])
    right.errorbar(x, mean, yerr=np.clip(error, 0, None), fmt="s-", capsize=4,
                   color="tab:gray", label="mean rounds (t 95% interval)")
    right.set_ylabel("rounds per battle")
    right.set_title("Battle length per variant")
    for axes in (left, right):
        axes.set_xticks(x, labels=variants, rotation=20, ha="right", fontsize="small")
        axes.set_xlabel("variant")
        axes.legend(fontsize="small")
    figure.suptitle(title)
    return _save(figure, path)
