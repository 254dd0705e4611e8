"""``fray coverage``: regenerate docs/coverage.md (in a checkout of fray)."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from experiments import coverage
    from experiments.commands import UsageError

    needed = [coverage.ROOT / "docs" / "RULES.md", coverage.ROOT / "tests"]
    missing = [path for path in needed if not path.exists()]
    if missing:
        raise UsageError(f"coverage: needs a checkout of fray (git clone, then pip install -e "
                         f".): {missing[0]} is not there (fray is installed at "
                         f"{coverage.ROOT})")
    path = coverage.write(coverage.ROOT)
    print(f"wrote {path}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("coverage")
    c.set_defaults(func=run)
