"""``fray golden [--update] [SCENARIO ...]``: compare (or re-record) the golden
playthroughs in tests/golden/ (see :mod:`experiments.golden`)."""

from __future__ import annotations

import argparse
from pathlib import Path

EXAMPLE = """examples:
  fray golden                 # re-play every shipped scenario, print the first difference
  fray golden duel crypt      # only these scenarios
  fray golden --update        # re-record, then commit the diff with a message saying why

exit status: 0 when every playthrough matches, 1 when one differs, 2 for a bad argument."""


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    import rules
    from experiments import golden
    from experiments.commands import UsageError

    shipped = rules.shipped_scenarios()
    unknown = [s for s in args.scenarios if s not in shipped]
    if unknown:
        raise UsageError(f"unknown scenario {unknown[0]!r}; shipped: {', '.join(shipped)}")
    directory = golden.GOLDEN_DIR if args.dir is None else Path(args.dir)
    scenarios = args.scenarios or shipped
    differing = 0
    for scenario in tqdm(scenarios, desc="golden", unit="scenario", leave=False):
        if args.update:
            changed = golden.update(scenario, directory)
            tqdm.write(f"{scenario}: {'re-recorded' if changed else 'unchanged'} "
                       f"({golden.path_for(scenario, directory)})")
            continue
        try:
            difference = golden.check(scenario, directory)
        except golden.GoldenError as exc:
            difference = str(exc)
        if difference is None:
            tqdm.write(f"{scenario}: matches")
        else:
            differing += 1
            tqdm.write(f"{scenario}: {difference}")
    if not args.update and not args.scenarios:
        stale = sorted(set(golden.recorded_scenarios(directory)) - set(shipped))
        for name in stale:
            differing += 1
            print(f"{name}: a golden file for a scenario that is not shipped; delete it")
    if differing:
        print(f"{differing} of {len(scenarios)} playthroughs differ; if the change is "
              "intended, run `fray golden --update` and commit the diff")
    return 1 if differing else 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("golden", description="Re-play each shipped scenario's recorded battle "
                       "(tests/golden/) and compare every event line, or re-record them.",
                       epilog=EXAMPLE,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                   help="shipped scenarios to check (default: all)")
    c.add_argument("--update", action="store_true", help="re-record the golden files")
    c.add_argument("--dir", default=None,
                   help="folder of golden files (default: tests/golden)")
    c.set_defaults(func=run)
