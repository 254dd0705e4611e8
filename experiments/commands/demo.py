"""``fray demo``: the main job (for now a watch of the default scenario)."""

from __future__ import annotations

import argparse

from experiments.commands import watch


def add_parser(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser("demo", help="the main job: watch the default scenario")
    watch.add_arguments(d)
    d.set_defaults(func=watch.run, scenario=watch.DEFAULT_SCENARIO)
