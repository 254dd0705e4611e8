"""``fray --version``, ``--help`` and a usage error start fast (issue 50), and so do a
subcommand's ``--help`` and usage errors (``fray tournament --help``, ``fray watch --tail
x``): the command modules import their heavy modules when the command runs.

No timing (the machine is shared): ``python -X importtime`` lists every module a run
imports, or one interpreter runs ``fray CMD --help`` and ``fray CMD --no-such-flag`` for
every command and looks at ``sys.modules`` after each. These must import none of the
heavy libraries, and a start that runs no command at most twice as many modules as
``python -c pass`` on the same interpreter (before issue 50: about 14 times as many,
numpy, scipy, matplotlib and gymnasium among them, 1.75-2.1 s a start; a subcommand's
``--help`` imported numpy and the rules until the cli-fast branch).
"""

from __future__ import annotations

import json
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


#: run in a fresh interpreter: every command's --help and a usage error through fray's main,
#: printing {"CMD OPTION": [heavy modules loaded by then], ...} and the exit codes (the
#: first run with modules is the one that imported them)
_EVERY_COMMAND = """
import contextlib, io, json, sys
from experiments.cli import main
from experiments.commands import COMMANDS
heavy = set(sys.argv[1].split(","))
def loaded():
    return {name for name in sys.modules if name.split(".")[0] in heavy}
before = loaded()
found, codes = {}, {}
for command in COMMANDS:
    for option in ("--help", "--no-such-flag"):
        with contextlib.redirect_stdout(io.StringIO()), \\
                contextlib.redirect_stderr(io.StringIO()) as errors:
            codes[f"{command} {option}"] = [main([command, option]),
                                            errors.getvalue().strip()]
        found[f"{command} {option}"] = sorted(loaded() - before)
print(json.dumps({"heavy": found, "codes": codes}))
"""


def test_every_commands_help_and_usage_error_import_nothing_heavy() -> None:
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _EVERY_COMMAND, ",".join(HEAVY)],
                          capture_output=True, text=True, env=environment, cwd=ROOT,
                          check=True)
    result = json.loads(done.stdout)
    assert len(result["heavy"]) == 2 * len(COMMANDS)
    assert {run: modules for run, modules in result["heavy"].items() if modules} == {}
    for run, (code, errors) in result["codes"].items():
        if run.endswith("--help"):
            assert (code, errors) == (0, ""), run
        else:
            assert code == 2, run
            assert errors.startswith("fray: error: ") and "\n" not in errors, run


@pytest.mark.parametrize("arguments", [["tournament", "--help"], ["tournament", "--bogus"],
                                       ["watch", "duel", "--tail", "x"], ["ladder", "--help"]])
def test_a_subcommands_help_or_usage_error_imports_nothing_heavy(arguments: list[str]
                                                                 ) -> None:
    modules, done = _imports("-m", "experiments.cli", *arguments)
    assert sorted({name for name in modules if name.split(".")[0] in HEAVY}) == []
    if arguments[-1] == "--help":
        assert done.returncode == 0 and done.stdout.startswith(f"usage: fray {arguments[0]}")
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


@pytest.mark.parametrize("module", ["experiments.balance.battles",
                                    "experiments.comparison.runner"])
def test_a_worker_that_plays_battles_does_not_import_scipy(module: str) -> None:
    """A Ray worker imports the module of its task before its first batch (a fixed cost
    of every Ray run, docs/balance.md "Speed"): the battles need no scipy, whose stats
    module alone is about a second of that start."""
    modules, done = _imports("-c", f"import {module}")
    assert done.returncode == 0, done.stderr[-500:]
    assert module in modules
    assert not [name for name in modules if name.split(".")[0] == "scipy"]
