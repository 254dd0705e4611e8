"""The ``fray`` command line: one subcommand per job (DESIGN.md "Experiments").

Each subcommand lives in its own module under :mod:`experiments.commands` and exposes
``add_parser(subparsers)``, which registers the subcommand and sets ``func`` (a function
of the parsed arguments returning the exit code). Modules are discovered by name, so a
new subcommand is one new file.

    fray demo                      # the main job
    fray watch duel --seed 3 --party berserker --monsters random
    fray scenarios
    fray bench [--quick]
    fray coverage                  # regenerate docs/coverage.md

Errors a user can cause (a bad name, a bad file, a bad number) print one line
``fray: error: ...`` on stderr and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

import rules
from experiments import commands
from experiments.commands import UsageError as UsageError
from experiments.commands.watch import DEFAULT_SCENARIO, play_battle
from rules.engine import ENGINES, ENVIRONMENT_VARIABLE
from rules.engine import describe as describe_engine

__all__ = ["DEFAULT_SCENARIO", "UsageError", "build_parser", "main", "play_battle"]


USAGE = """fray: scripted and learned agents fight tactical battles by a d100 ruleset.

examples:
  fray demo                                   # the main job: a small tactic comparison
  fray watch duel --seed 3 --party tactician --monsters berserker
  fray tournament --agents random,tactician --scenarios duel --battles 20 --out runs/t
  fray fuzz --seconds 60 --out fuzz-out       # invariant checks, shrunk failures
  fray replay FILE --html battle.html         # verify a replay, write the viewer page
  fray train duel --opponent tactician --steps 20000 --out runs/duel

Each subcommand has --help with an example. Errors print one line and exit 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but every error is one line and exit 2 (argparse prints usage too)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"fray: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _version() -> str:
    try:
        return version("fray")
    except PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``: fray's version and the engine (after any ``--engine`` before it)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        engine = getattr(namespace, "engine", None)
        if engine is not None:
            os.environ[ENVIRONMENT_VARIABLE] = engine
        print(f"fray {_version()}, engine: {describe_engine()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fray", description=USAGE,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="print fray's version and the engine battles run on, then exit")
    parser.add_argument("--engine", choices=ENGINES, default=None,
                        help="the rules engine battles run on (default: $FRAY_ENGINE, else "
                        "native when built); sets FRAY_ENGINE for the command and its "
                        "worker processes")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for info in sorted(
        pkgutil.iter_modules(commands.__path__), key=lambda module_info: module_info.name
    ):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"experiments.commands.{info.name}")
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fray`` with ``argv``; the exit code (2 for any error a user can cause)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0)
    if args.engine is not None:
        os.environ[ENVIRONMENT_VARIABLE] = args.engine
    try:
        return int(args.func(args))
    except (rules.FrayError, UsageError, FileNotFoundError, ValueError) as exc:
        print(f"fray: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fray: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
