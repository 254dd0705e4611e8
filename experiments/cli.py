"""The ``fray`` command line: one subcommand per job (DESIGN.md "Experiments").

Each subcommand lives in its own module under :mod:`experiments.commands` and exposes
``add_parser(subparsers)``, which registers the subcommand and sets ``func`` (a function
of the parsed arguments returning the exit code). ``experiments.commands.COMMANDS`` lists
them (name -> module, summary); only the module of the command that runs is imported, so
``fray --version``, ``--help`` and a usage error start fast (issue 50). Adding a
subcommand is one new file and one line in that table.

    fray demo                      # the main job
    fray watch duel --seed 3 --party berserker --monsters random
    fray scenarios
    fray bench [--quick]
    fray coverage                  # regenerate docs/coverage.md

Errors a user can cause (a bad name, a bad file, a bad number, an output path that is
a file) print one line ``fray: error: ...`` on stderr and exit 2, never a traceback.
Ctrl-C, SIGINT or SIGTERM stop a command within a second or two, its worker processes
killed (:mod:`experiments.workers`), with one line ``fray: interrupted``; output closed
early (``fray scenarios | head -1``) ends quietly.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from experiments.commands import COMMANDS
from experiments.commands import UsageError as UsageError

if TYPE_CHECKING:
    from experiments.commands.watch import DEFAULT_SCENARIO, play_battle

__all__ = ["DEFAULT_SCENARIO", "UsageError", "build_parser", "main", "play_battle"]


def __getattr__(name: str) -> Any:
    """``DEFAULT_SCENARIO`` and ``play_battle`` (from ``fray watch``), imported on use."""
    if name in ("DEFAULT_SCENARIO", "play_battle"):
        from experiments.commands import watch

        return getattr(watch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fray")
    except PackageNotFoundError:
        return "unknown"


def engine_module() -> ModuleType:
    """``rules.engine`` (the engine names, ``FRAY_ENGINE``, ``describe``) without importing
    the ``rules`` package and its numpy: the file loaded on its own when ``rules`` is not
    imported yet (it then finds the native module by its file, rules/engine.py)."""
    loaded = sys.modules.get("rules.engine")
    if loaded is not None:
        return loaded
    package = importlib.util.find_spec("rules")
    if package is None or package.origin is None:
        return importlib.import_module("rules.engine")
    spec = importlib.util.spec_from_file_location(
        "fray_cli_engine", Path(package.origin).with_name("engine.py"))
    if spec is None or spec.loader is None:
        return importlib.import_module("rules.engine")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules.setdefault("fray_cli_engine", module)
    return module


class _VersionAction(argparse.Action):
    """``--version``: fray's version and the engine (after any ``--engine`` before it)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        engine = engine_module()
        if getattr(namespace, "engine", None) is not None:
            os.environ[engine.ENVIRONMENT_VARIABLE] = namespace.engine
        print(f"fray {_version()}, engine: {engine.describe()}")
        parser.exit()


class _Summarised:
    """The subparsers as a command module sees them: its ``add_parser`` gets the table's
    summary as ``help`` (COMMANDS is the one home of the summaries)."""

    def __init__(self, sub: argparse._SubParsersAction, summary: str) -> None:
        self._sub = sub
        self._summary = summary

    def add_parser(self, name: str, **options: Any) -> argparse.ArgumentParser:
        options.setdefault("help", self._summary)
        return self._sub.add_parser(name, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sub, name)


def command_in(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (its first word that is no option), or None."""
    words = iter(argv)
    for word in words:
        if len(word) > 2 and "--engine".startswith(word):  # --engine VALUE (or --eng VALUE)
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def build_parser(commands: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """``fray``'s parser: ``commands`` (default: all) with their own options, the others
    by name and summary only (their modules are not imported)."""
    engine = engine_module()
    parser = _Parser(prog="fray", description=USAGE,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="print fray's version and the engine battles run on, then exit")
    parser.add_argument("--engine", choices=engine.ENGINES, default=None,
                        help="the rules engine battles run on (default: $FRAY_ENGINE, else "
                        "native when built); sets FRAY_ENGINE for the command and its "
                        "worker processes")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    chosen = set(COMMANDS) if commands is None else set(commands)
    for name, (module_name, summary) in COMMANDS.items():
        if name in chosen:
            importlib.import_module(module_name).add_parser(_Summarised(sub, summary))
        else:
            sub.add_parser(name, help=summary)
    return parser


def _user_errors() -> tuple[type[BaseException], ...]:
    """Exceptions a user can cause: one line, exit 2 (rules is imported by then)."""
    from rules.errors import FrayError

    return (FrayError, UsageError, FileNotFoundError, NotADirectoryError,
            IsADirectoryError, PermissionError, ValueError)


def _interrupted(signum: int) -> int:
    from experiments.workers import stop_children

    stop_children()
    print("fray: interrupted", file=sys.stderr)
    return 128 + signum


def _output_closed() -> int:
    """``fray scenarios | head -1``: the reader left; stop quietly (Python's advice: point
    stdout at devnull so the interpreter's final flush does not fail again)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 128 + signal.SIGPIPE


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fray`` with ``argv``; the exit code (2 for any error a user can cause)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = command_in(argv)
    try:
        args = build_parser([command] if command in COMMANDS else []).parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0)
    if args.engine is not None:
        os.environ[engine_module().ENVIRONMENT_VARIABLE] = args.engine
    from experiments.workers import interrupt_on_terminate

    terminated: list[int] = []
    try:
        with interrupt_on_terminate(terminated):
            return int(args.func(args))
    except KeyboardInterrupt:
        return _interrupted(terminated[0] if terminated else signal.SIGINT)
    except BrokenPipeError:
        return _output_closed()
    except Exception as exc:
        if not isinstance(exc, _user_errors()):
            raise
        print(f"fray: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    # `python -m experiments.cli`: run the imported module's main, so UsageError raised by
    # the commands (experiments.cli.UsageError) is the class main catches
    from experiments.cli import main as imported_main

    sys.exit(imported_main())
