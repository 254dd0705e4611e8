"""``fray inspect SCENARIO``: every combatant's derived values and the map's legend."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    import rules
    from experiments.commands import UsageError
    from experiments.comparison import report

    if args.seed < 0:
        raise UsageError(f"--seed: expected a whole number >= 0, got {args.seed}")
    battle = rules.Battle.from_scenario(args.scenario, seed=args.seed,
                                        content_dir=args.content_dir)
    print(report.inspect_text(battle), end="")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    i = sub.add_parser("inspect", description="Print the map with a legend of its glyphs and every "
                       "combatant's derived values: MOV, move squares, capacity, load, "
                       "skills after burden, HP, weapons with reach and range. "
                       "Example: fray inspect crypt")
    i.add_argument("scenario", help="shipped scenario name or a .toml path")
    i.add_argument("--seed", type=int, default=1,
                   help="battle seed (initiative and rolled characteristics)")
    i.add_argument("--content-dir", default=None, help="a folder of content TOML")
    i.set_defaults(func=run)
