"""``fray bench [--quick]``: speed figures (see experiments/benchmarks)."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from experiments.benchmarks import decisions, env_steps, reach

    print("== reach graph (30x30, budget 10) ==")
    for key, value in reach.run(repeats=50 if args.quick else 200).items():
        print(f"  {key:<32} {value:>12.2f}")
    print("== rules core: random legal play ==")
    for name, fig in decisions.run(battles=3 if args.quick else 20).items():
        print(f"  {name:<10} {fig['decisions']:>8.0f} decisions  "
              f"{fig['decisions_per_s']:>9.0f} decisions/s")
    print("== env: random masked actions (learner = monsters) ==")
    for row in env_steps.run(steps=500 if args.quick else 3000):
        print(f"  {row['scenario']:<10} {row['opponent']:<14} "
              f"{row['steps_per_s']:>9.0f} steps/s")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    b = sub.add_parser("bench", help="print speed figures")
    b.add_argument("--quick", action="store_true", help="fewer repeats")
    b.set_defaults(func=run)
