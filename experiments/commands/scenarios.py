"""``fray scenarios``: list the shipped scenarios."""

from __future__ import annotations

import argparse

import rules


def run(args: argparse.Namespace) -> int:
    for name in rules.shipped_scenarios():
        sc = rules.load_scenario(name, rules.default_content())
        print(f"{name:<12} {len(sc.units):>3} units  {sc.grid.width}x{sc.grid.height}  "
              f"{sc.description}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("scenarios")
    s.set_defaults(func=run)
