"""The evaluation ``fray train`` ends with (``--final-eval-battles N``, default 200).

The final model and the tactician, commanding the trained team, play the same battles
(seeds ``FINAL_SEED`` .. ``FINAL_SEED + N - 1`` of :func:`experiments.train.evaluation.evaluate`,
fixed here before any run) against every party the run trained with (its named
opponents; ``self`` left out) and against the parties it never saw (``HELD_OUT`` less
those: the overfitting check). Each row has both win rates with Wilson 95% intervals
and the exact paired sign test on the battles only one of the two won
(``final_eval.csv``). ``learning_curves.png`` plots the in-training evaluations
(``eval.csv``, ``--eval-every``) with their intervals and the final rows.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from experiments.train.evaluation import evaluate, paired

#: the first battle seed of every final evaluation (no training run plays these seeds)
FINAL_SEED = 10**7
#: the parties a run is also checked against when it did not train with them
HELD_OUT = ("skirmisher", "defender", "pack")
#: what the learned team is compared with on the same battles
BASELINE = "tactician"
FIELDS = ("party", "seen", "battles", "seed_first", "model_wins", "model_rate",
          "model_low", "model_high", "baseline", "baseline_wins", "baseline_rate",
          "baseline_low", "baseline_high", "only_model", "only_baseline", "sign_test_p")


def final_evaluation(scenario: str, team: str, model: str, trained: Sequence[str],
                     battles: int, out: str | Path, workers: int = 1,
                     progress: bool = False, log: Path | None = None
                     ) -> list[dict[str, Any]]:
    """Evaluate ``model`` (an agent spec) and :data:`BASELINE` on the same battles
    against every trained and held-out party; write ``final_eval.csv`` in ``out``. With
    ``log`` (``fray train``'s ``evaluation.jsonl``) finished chunks are read back from it
    and new ones appended (:func:`experiments.train.evaluation.evaluate`)."""
    from experiments.train.opponents import SELF

    parties = [(name, True) for name in dict.fromkeys(trained) if name != SELF]
    parties += [(name, False) for name in HELD_OUT if name not in trained]
    rows = []
    for party, seen in parties:
        mine = evaluate(scenario, team, model, party, battles, FINAL_SEED, workers, progress,
                        log=log)
        base = evaluate(scenario, team, BASELINE, party, battles, FINAL_SEED, workers,
                        progress, log=log)
        only_model, only_baseline, p = paired(mine, base, team)
        (model_low, model_high), (base_low, base_high) = mine.interval(), base.interval()
        rows.append({"party": party, "seen": seen, "battles": battles,
                     "seed_first": FINAL_SEED, "model_wins": mine.wins,
                     "model_rate": round(mine.rate, 4), "model_low": round(model_low, 4),
                     "model_high": round(model_high, 4), "baseline": BASELINE,
                     "baseline_wins": base.wins, "baseline_rate": round(base.rate, 4),
                     "baseline_low": round(base_low, 4), "baseline_high": round(base_high, 4),
                     "only_model": only_model, "only_baseline": only_baseline,
                     "sign_test_p": round(p, 6)})
    path = Path(out) / "final_eval.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    return rows


def report(scenario: str, team: str, final: Path, trained: Sequence[str], battles: int,
           out: str | Path, progress: bool = False, log: Path | None = None
           ) -> list[dict[str, Any]]:
    """A run's ending: :func:`final_evaluation` of its final checkpoint ``final``
    (``learned:FINAL``; ``step_<N>.json``), each row printed, and
    :func:`learning_curves`."""
    from tqdm import tqdm

    rows = final_evaluation(scenario, team, f"learned:{final}", trained, battles, out,
                            progress=progress, log=log)
    for row in rows:
        tqdm.write(f"final: vs {row['party']}{'' if row['seen'] else ' (held out)'}: "
                   f"{row['model_rate']:.3f} [{row['model_low']:.3f}, {row['model_high']:.3f}]"
                   f", {row['baseline']} {row['baseline_rate']:.3f}; paired "
                   f"{row['only_model']} to {row['only_baseline']}, sign test p = "
                   f"{row['sign_test_p']:.3g}")
    learning_curves(out, rows, int(Path(final).stem.split("_")[-1]))
    return rows


def learning_curves(out: str | Path, final: Sequence[dict[str, Any]], final_step: int
                    ) -> Path:
    """``learning_curves.png`` in ``out``: win rate against each party over the steps
    (``eval.csv``'s rows, Wilson intervals as error bars) and the final evaluation's
    rows at ``final_step`` (the tactician's rate beside them, dashed); with the batched
    learner's ``progress.csv``, the training episodes' win rate over the whole pool (the
    last 200 episodes after each update) as a grey line."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    curves: dict[str, list[tuple[int, float, float, float]]] = {}
    eval_file = Path(out) / "eval.csv"
    if eval_file.is_file():
        with eval_file.open() as handle:
            for row in csv.DictReader(handle):
                curves.setdefault(row["opponent"], []).append(
                    (int(row["step"]), float(row["win_rate"]), float(row["wilson_low"]),
                     float(row["wilson_high"])))
    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    progress = Path(out) / "progress.csv"  # the batched learner's, one row per update
    if progress.is_file():
        with progress.open() as handle:
            rows = [row for row in csv.DictReader(handle) if "recent_win_rate" in row]
        if rows:
            axes.plot([int(row["step"]) for row in rows],
                      [float(row["recent_win_rate"]) for row in rows], color="0.6",
                      linewidth=0.8, label="training episodes, whole pool (last 200)")
    for index, row in enumerate(final):
        party = row["party"]
        color = f"C{index % 10}"
        points = [*curves.get(party, []), (final_step, row["model_rate"], row["model_low"],
                                           row["model_high"])]
        steps = [p[0] for p in points]
        rates = [p[1] for p in points]
        errors = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
        label = f"vs {party}" + ("" if row["seen"] else " (held out)")
        axes.errorbar(steps, rates, yerr=errors, marker="o", capsize=3, color=color,
                      label=label)
        axes.axhline(row["baseline_rate"], color=color, linestyle="--", linewidth=0.8)
    axes.set_xlabel("environment steps")
    axes.set_ylabel("win rate (Wilson 95%)")
    axes.set_ylim(0, 1)
    axes.set_title("win rate of the learned team; dashed: the tactician in its place")
    axes.legend(fontsize=8)
    figure.tight_layout()
    path = Path(out) / "learning_curves.png"
    figure.savefig(path, dpi=100)
    pyplot.close(figure)
    return path
