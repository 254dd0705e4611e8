"""``fray coverage``: regenerate docs/coverage.md."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from experiments import coverage

    path = coverage.write()
    print(f"wrote {path}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("coverage", help="regenerate docs/coverage.md")
    c.set_defaults(func=run)
