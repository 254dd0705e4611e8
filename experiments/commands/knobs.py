"""``fray knobs SCENARIO``: every numeric knob of the ruleset and of the scenario's
creatures nudged one step each way, sorted by its effect (experiments/balance/nudge.py)."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from experiments.paths import output_file

EXAMPLE = """example:
  fray knobs duel --party tactician --monsters tactician --battles 400
  fray knobs my_scenario.toml --content-dir my_content --only creatures.hobgoblin \
      --json knobs.json

One step is a tenth of the value (at least 1 for whole numbers). Every nudge plays the same
seeds as the scenario as shipped; effects are paired differences with 95% intervals."""


def run(args: argparse.Namespace) -> int:
    from experiments.balance.evaluation import Evaluator
    from experiments.balance.knobs import scenario_path
    from experiments.balance.nudge import knobs_table, nudge_all, numeric_knobs
    from experiments.commands import UsageError
    from experiments.comparison.runner import AgentSpec
    from experiments.comparison.sweep import base_folder
    from rules.limits import MAX_BALANCE_BATTLES, MAX_SEED

    if not 1 <= args.battles <= MAX_BALANCE_BATTLES:
        raise UsageError(f"--battles: expected a whole number 1..{MAX_BALANCE_BATTLES}, got "
                         f"{args.battles}")
    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"--seed: expected a whole number 0..{MAX_SEED}, got {args.seed}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: expected a whole number >= 1, got {args.workers}")
    base = base_folder(args.content_dir)
    if not base.is_dir():
        raise UsageError(f"--content-dir {base}: expected a folder of content TOML files")
    scenario = scenario_path(args.scenario)
    party, monsters = AgentSpec.parse(args.party), AgentSpec.parse(args.monsters)
    party.make(seed=0)
    monsters.make(seed=0)
    with tempfile.TemporaryDirectory(prefix="fray-knobs-") as folder:
        evaluator = Evaluator(Path(folder), base, scenario, party, monsters, args.seed,
                              args.battles, backend=args.backend, workers=args.workers,
                              progress=not args.quiet)
        try:
            knobs = numeric_knobs(base, scenario, args.only)
            if not knobs:
                raise UsageError(f"--only {args.only}: no numeric knob of the ruleset or "
                                 f"the scenario's creatures starts so")
            rows = nudge_all(evaluator, knobs)
        finally:
            evaluator.close()
    print(knobs_table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("knobs",
                       description="Nudge every numeric value of the ruleset and of the "
                       "scenario's creatures one step each way and measure its effect on "
                       "the party's win rate and the battle's length, on common seeds.",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("scenario", metavar="SCENARIO", help="a shipped scenario or a .toml path")
    s.add_argument("--party", default="tactician", help="the party's agent (tactician)")
    s.add_argument("--monsters", default="tactician", help="the monsters' agent (tactician)")
    s.add_argument("--battles", type=int, default=400,
                   help="battles per nudge, the same seeds for all (default 400)")
    s.add_argument("--seed", type=int, default=0, help="seed of the battles (default 0)")
    s.add_argument("--content-dir", default=None, help="content folder (default rules/data)")
    s.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes (default) or Ray tasks")
    s.add_argument("--workers", type=int, default=None, help="parallel workers")
    s.add_argument("--only", default="", metavar="PREFIX",
                   help="only the knobs whose key starts so (creatures.orc, ruleset.defence)")
    s.add_argument("--json", default=None, type=output_file, metavar="FILE",
                   help="also write the rows as JSON")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=run)
