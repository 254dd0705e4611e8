"""``fray --version``, ``--help`` and a usage error start fast (issue 50).

No timing (the machine is shared): ``python -X importtime`` lists every module a run
imports. These must import none of the heavy libraries, and at most twice as many modules
as ``python -c pass`` on the same interpreter (before issue 50: about 14 times as many,
numpy, scipy, matplotlib and gymnasium among them, 1.75-2.1 s a start).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.commands import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "torch", "matplotlib", "gymnasium", "scipy", "networkx", "tqdm", "rules")


def _imports(*arguments: str) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-X", "importtime", *arguments],
                          capture_output=True, text=True, env=environment, cwd=ROOT)
    modules = [line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:") and "|" in line]
    return modules[1:], done  # the first line is the header


@pytest.mark.parametrize("arguments", [["--version"], ["--help"], ["no-such-command"], [],
                                       ["--engine", "python", "--version"]])
def test_a_start_that_runs_no_command_imports_nothing_heavy(arguments: list[str]) -> None:
    baseline, _ = _imports("-c", "pass")
    modules, done = _imports("-m", "experiments.cli", *arguments)
    heavy = sorted({name for name in modules if name.split(".")[0] in HEAVY})
    assert heavy == []
    assert len(modules) <= 2 * len(baseline), (len(modules), len(baseline))
    if arguments[-1:] == ["--version"]:
        assert done.returncode == 0 and done.stdout.startswith("fray ")
        assert "engine: " in done.stdout
    elif arguments == ["--help"]:
        assert done.returncode == 0
        for name, (_, summary) in COMMANDS.items():
            assert name in done.stdout and summary.split()[0] in done.stdout
    else:
        assert done.returncode == 2
        assert done.stderr.strip().splitlines()[-1].startswith("fray: error: ")


def test_every_command_in_the_table_registers_itself_with_its_summary() -> None:
    from experiments.cli import build_parser

    parser = build_parser()
    text = parser.format_help()
    subparsers = next(action for action in parser._actions if action.dest == "command")
    assert sorted(subparsers.choices) == sorted(COMMANDS)
    for summary in (summary for _, summary in COMMANDS.values()):
        assert " ".join(summary.split()[:3]) in " ".join(text.split())


@pytest.mark.parametrize(("argv", "command"), [
    (["--engine", "python", "watch", "duel"], "watch"),
    (["--eng", "python", "watch"], "watch"),
    (["--engine=python", "scenarios"], "scenarios"),
    (["--version"], None),
])
def test_the_command_is_found_past_the_engine_option(argv: list[str], command: str | None
                                                     ) -> None:
    from experiments.cli import command_in

    assert command_in(argv) == command
