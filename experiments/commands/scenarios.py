"""``fray scenarios``: list the shipped scenarios with their measured balance (tactician
against tactician); ``--measure`` replays that measurement and stores it."""

from __future__ import annotations

import argparse

EXAMPLE = """example:
  fray scenarios
  fray scenarios --measure --battles 4000 --seed 2048   # docs/balance.md's measurement

party win: tactician against tactician, sides as shipped, the party's score rate (a draw
counts half) with its Wilson 95% interval, from experiments/balance/scenario_balance.json"""


def run(args: argparse.Namespace) -> int:
    import rules
    from experiments.balance.fairness import (
        balance_column,
        measure_scenarios,
        store_table,
        stored_table,
    )
    from experiments.commands import UsageError

    names = rules.shipped_scenarios()
    if args.measure:
        if args.battles < 1:
            raise UsageError(f"--battles: expected a whole number >= 1, got {args.battles}")
        if args.seed < 0:
            raise UsageError(f"--seed: expected a whole number >= 0, got {args.seed}")
        path = store_table(measure_scenarios(names, args.battles, args.seed,
                                             workers=args.workers))
        print(f"stored {path}")
    table = stored_table()
    print(f"{'name':<14} {'units':>5}  {'map':<7} {'party win [95% CI]':<19} description")
    for name in names:
        sc = rules.load_scenario(name, rules.default_content())
        print(f"{name:<14} {len(sc.units):>5}  {f'{sc.grid.width}x{sc.grid.height}':<7} "
              f"{balance_column(name, table):<19} {sc.description}")
    if table["scenarios"]:
        print(f"party win: {table['agents']}, {table['battles']} battles each (seed "
              f"{table['seed']}); {table['metric']}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("scenarios",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("--measure", action="store_true",
                   help="replay the tactician-v-tactician measurement and store it")
    s.add_argument("--battles", type=int, default=4000,
                   help="battles per scenario with --measure (default 4000)")
    s.add_argument("--seed", type=int, default=2048, help="seed with --measure (2048)")
    s.add_argument("--workers", type=int, default=None, help="parallel workers")
    s.set_defaults(func=run)
