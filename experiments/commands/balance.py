"""``fray balance SCENARIO --knob ... --target ...``: the setting that puts a metric in a
band, how sure we are, and which knobs matter (experiments/balance/, docs/balance.md)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from experiments.paths import output_folder

EXAMPLE = """example:
  fray balance duel --knob creatures.orc.skills.axe=30..90:5 \\
      --knob creatures.orc.characteristics.con=10..18 \\
      --target party_win=0.45..0.55 --party tactician --monsters tactician \\
      --budget 20000 --seed 1 --out runs/duel-fair
  fray balance ... --out runs/duel-fair --resume      # continue a killed run
  fray balance ... --backend ray [--address HOST:PORT]

KEY: ruleset.PATH, creatures.ID.PATH (weapons., armour., items., races., spells.),
scenario.PATH, scenario.units.UNIT.FIELD (=a|b choices; .present=true|false).
METRIC: party_win (a draw counts half), monsters_win (draws half), rounds (median),
draws. Writes DIR/balance.json, DIR/report.html, DIR/recommended.png, DIR/effects.png,
DIR/batches.jsonl (the checkpoint) and DIR/settings/ID/ (the recommended setting's
files)."""

DEFAULT_BUDGET = 20_000


def run(args: argparse.Namespace) -> int:
    from experiments.balance.evaluation import Evaluator, check_run_folder
    from experiments.balance.knobs import parse_knobs, scenario_path
    from experiments.balance.report import summary_text, write_report
    from experiments.balance.search import plan, run_balance
    from experiments.balance.target import Target
    from experiments.commands import UsageError
    from experiments.commands.tournament import check_run_options
    from experiments.comparison.runner import AgentSpec
    from experiments.comparison.sweep import base_folder
    from rules.limits import MAX_BALANCE_BATTLES, MAX_SEED

    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"--seed: expected a whole number 0..{MAX_SEED}, got {args.seed}")
    if not 1 <= args.budget <= MAX_BALANCE_BATTLES:
        raise UsageError(f"--budget: expected a whole number 1..{MAX_BALANCE_BATTLES}, got "
                         f"{args.budget}")
    check_run_options(args)  # --workers, --backend, --address: tournament's checks
    base = base_folder(args.content_dir)
    if not base.is_dir():
        raise UsageError(f"--content-dir {base}: expected a folder of content TOML files")
    scenario = scenario_path(args.scenario)
    knobs = parse_knobs(args.knob, base, scenario)
    target = Target.parse(args.target)
    party, monsters = AgentSpec.parse(args.party), AgentSpec.parse(args.monsters)
    party.make(seed=0)
    monsters.make(seed=0)
    steps = plan(args.budget, knobs)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: expected a folder, found a file")
    check_run_folder(out, {"scenario": args.scenario, "knobs": list(args.knob),
                           "target": args.target, "party": party.label,
                           "monsters": monsters.label, "budget": args.budget,
                           "seed": args.seed, "content_dir": str(base)}, args.resume)
    evaluator = Evaluator(out, base, scenario, party, monsters, args.seed, steps.batch_size,
                          backend=args.backend, workers=args.workers, address=args.address,
                          progress=not args.quiet, budget=steps.battles)
    try:
        result = run_balance(evaluator, knobs, target, steps, args.seed)
        evaluator.files(result["recommended"])   # DIR/settings/ID: its files, to copy
    finally:
        evaluator.close()
    command = "fray " + " ".join(shlex.quote(a) for a in sys.argv[1:]) \
        if Path(sys.argv[0]).name in ("fray", "cli.py", "__main__.py") else \
        f"fray balance {args.scenario} ..."
    page = write_report(out, result, command)
    print(summary_text(result))
    print(f"report: {page}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("balance",
                       description="Search knobs of the content and the scenario for a "
                       "setting whose metric (party_win, monsters_win, rounds, draws) lies "
                       "in a band, with in-engine battles on common seeds, independent "
                       "repeats and a final evaluation on fresh seeds (Wilson interval, "
                       "SPRT). docs/balance.md explains the method.",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("scenario", metavar="SCENARIO", help="a shipped scenario or a .toml path")
    s.add_argument("--knob", action="append", required=True,
                   metavar="KEY=LOW..HIGH[:STEP]|KEY=a|b", help="a knob (repeat for more)")
    s.add_argument("--target", required=True, metavar="METRIC=LOW..HIGH",
                   help="the band: party_win, monsters_win, rounds or draws")
    s.add_argument("--party", required=True, help="the party's agent spec")
    s.add_argument("--monsters", required=True, help="the monsters' agent spec")
    s.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                   help=f"battles to spend in all (default {DEFAULT_BUDGET})")
    s.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    s.add_argument("--out", default="balance-out", type=output_folder,
                   help="output folder (default balance-out)")
    s.add_argument("--resume", action="store_true", help="continue the run in --out")
    s.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes (default) or Ray tasks")
    s.add_argument("--address", default=None,
                   help="Ray cluster address (with --backend ray; default: start one)")
    s.add_argument("--workers", type=int, default=None,
                   help="parallel workers (default: all cores)")
    s.add_argument("--content-dir", default=None,
                   help="the content folder to start from (default: the shipped rules/data)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=run)
