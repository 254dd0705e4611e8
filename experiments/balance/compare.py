"""The optimiser comparison of docs/balance.md: Optuna (TPE), nevergrad (NGOpt) and plain
grid search on the known-answer duel, against the brute-force truth.

    python -m experiments.balance.compare --out runs/optimisers [--seeds 4]

The knobs: the orc's axe skill 20..90 by 5 (a monotone effect) and a decoy (the warrior's
ride skill, never rolled in a duel), target party_win 0.45..0.55. The truth: every axe
value on ``--truth`` battles of seeds no run uses. A run succeeds when the truth of its
recommended axe value lies in the band. Prints a markdown table (success rate, mean
battles used, mean |truth - 0.5|) per optimiser and budget.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
from pathlib import Path

from experiments.balance.battles import measure
from experiments.balance.evaluation import Evaluator
from experiments.balance.knobs import parse_knobs, scenario_path
from experiments.balance.search import plan, run_balance
from experiments.balance.target import Target
from experiments.comparison.runner import AgentSpec
from experiments.replay import DATA_DIR

KNOBS = ["creatures.orc.skills.axe=20..90:5", "creatures.human_warrior.skills.ride=10..60:10"]
TARGET = "party_win=0.45..0.55"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="runs/optimisers")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--budgets", default="1000,3000")
    parser.add_argument("--truth", type=int, default=2000)
    parser.add_argument("--optimisers", default="optuna,nevergrad,grid")
    args = parser.parse_args()
    out = Path(args.out)
    duel = scenario_path("duel")
    knobs = parse_knobs(KNOBS, DATA_DIR, duel)
    target = Target.parse(TARGET)
    tactician = AgentSpec("tactician")
    truth_run = Evaluator(out / "truth", DATA_DIR, duel, tactician, tactician, 999_999,
                          args.truth, workers=1, progress=False)
    axe = knobs[0]
    truth = {value: measure(truth_run.pooled({axe.key: value}, "final", 1), "party_win")[0]
             for value in axe.values}
    print("truth:", json.dumps(truth))
    rows = []
    for budget in (int(b) for b in args.budgets.split(",")):
        for name in args.optimisers.split(","):
            hits, used, errors = 0, [], []
            for seed in range(args.seeds):
                folder = out / f"{name}-{budget}-{seed}"
                shutil.rmtree(folder, ignore_errors=True)
                steps = plan(budget, knobs)
                run = Evaluator(folder, DATA_DIR, duel, tactician, tactician, seed,
                                steps.batch_size, workers=1, progress=False)
                result = run_balance(run, knobs, target, steps, seed, optimiser=name)
                value = truth[result["recommended"][axe.key]]
                hits += target.contains(value)
                used.append(result["battles_used"])
                errors.append(abs(value - target.centre))
            rows.append(f"| {name} | {budget} | {hits}/{args.seeds} | "
                         f"{statistics.mean(used):.0f} | {statistics.mean(errors):.3f} |")
            print(rows[-1], flush=True)
    in_band = [v for v, p in truth.items() if target.contains(p)]
    grid = len(axe.values) * len(knobs[1].values)
    print(f"\nin band (truth): axe {in_band}; brute-force grid: {grid} settings x "
          f"{args.truth} battles = {grid * args.truth} battles")
    print("| optimiser | budget | truth in band | battles used | mean abs(truth - 0.5) |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
