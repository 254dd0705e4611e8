"""One module per ``fray`` subcommand; each defines ``add_parser(subparsers)``.

:data:`COMMANDS` is the one list of subcommands: name -> (module, one-line summary).
``fray`` imports a command's module only when that command runs (or its ``--help`` is
asked for), so ``fray --version``, ``fray --help`` and a usage error start in a tenth
of a second without numpy, torch or matplotlib (issue 50; tests/experiments/test_cli_startup.py).

To add a subcommand: write ``experiments/commands/NAME.py`` with ``add_parser(sub)``
(which calls ``sub.add_parser("NAME", ...)`` and sets ``func``) and add one line here,
``"NAME": ("experiments.commands.NAME", "what it does, for fray --help")``. Keep the
module's top-level imports light (argparse, pathlib, ``experiments.paths``; no ``rules``,
``agents``, numpy or a job module): import the heavy ones inside the function that runs
the command, so ``fray NAME --help`` and its usage errors stay fast too (an option's
``type=``, ``choices=`` or default from a light module, or checked at run time with a
UsageError). tests/experiments/test_cli_startup.py checks both for every command here.
"""

from __future__ import annotations

#: every subcommand: name -> (module defining add_parser, summary shown by ``fray --help``)
COMMANDS: dict[str, tuple[str, str]] = {
    "az-train": ("experiments.commands.az_train",
                 "expert iteration: train the az agent's network on its own search"),
    "balance": ("experiments.commands.balance",
                "find the setting that puts a metric in a band"),
    "bench": ("experiments.commands.bench",
              "print speed figures and the speed targets (PASS or MISS)"),
    "compare": ("experiments.commands.compare",
                "SPRT: is agent A better, worse or equal to B?"),
    "coverage": ("experiments.commands.coverage", "regenerate docs/coverage.md"),
    "demo": ("experiments.commands.demo",
             "the main job: a small tactic comparison on skirmish"),
    "exploits": ("experiments.commands.exploits",
                 "restricted-play analysis: what each action is worth"),
    "fuzz": ("experiments.commands.fuzz", "fuzz the rules with invariant checks"),
    "golden": ("experiments.commands.golden", "compare or re-record the golden playthroughs"),
    "headroom": ("experiments.commands.headroom",
                 "how much one-step search over a base agent can gain"),
    "inspect": ("experiments.commands.inspect",
                "derived values of every combatant of a scenario"),
    "knobs": ("experiments.commands.knobs",
              "nudge every numeric knob one step; sorted effects"),
    "ladder": ("experiments.commands.ladder", "skill ladder: win rates vs fixed opponents"),
    "odds": ("experiments.commands.odds",
             "exact attack odds table for one attacker and target"),
    "replay": ("experiments.commands.replay", "re-simulate and verify a replay file, show it"),
    "scenarios": ("experiments.commands.scenarios", "list the shipped scenarios and their balance"),
    "sweep": ("experiments.commands.sweep", "rerun a tournament per ruleset.toml variant"),
    "tournament": ("experiments.commands.tournament", "round robin over agents x scenarios"),
    "train": ("experiments.commands.train",
              "train a team's policy with MaskablePPO or RLlib"),
    "watch": ("experiments.commands.watch", "watch one battle between two agents"),
}


class UsageError(Exception):
    """A bad argument found after parsing (an unknown agent, a negative seed...): its home
    below every command (experiments.cli re-exports it), so no command imports the CLI."""
