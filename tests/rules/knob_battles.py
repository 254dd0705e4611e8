"""Every numeric knob of rules/data/ruleset.toml, nudged one step, and the seeded battle
that shows it (issue 47: a knob that silently does nothing is a correctness bug).

A *knob* is a number of the shipped ruleset by its dotted path (``defence.parry_wear``,
``skills.dodge.base``, ``misc.reach_squares.L``); a list of numbers (``movement.
diagonal_costs``) or of rows (``damage_bonus.table``) is one knob. :func:`nudged` is its
value one step on. A *showing battle* is a :class:`Showing`: a shipped scenario (or a
scenario of ``experiments.fuzzing.generate``, by its generator seed), a battle seed, and
a number of random-play decisions (``Battle.random_play(seed, decisions)``) after which
the nudged rules' events differ from the shipped rules' events.

The search is offline (``python tests/rules/knob_battles.py`` prints the table that
tests/rules/test_knobs.py hard-codes): on the native engine, every shipped scenario and
16 generated ones, battle seeds 0 and 1, up to 1,000 decisions, one step up then one
step down, the fewest decisions that show it by bisection; the test then checks each
found battle on both engines, so it takes seconds.
"""

from __future__ import annotations

import functools
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import rules
import rules.scenario
from rules.events import event_to_dict

RULESET = Path(rules.__file__).resolve().parent / "data" / "ruleset.toml"
#: The longest battle the search plays (random-play decisions).
MOST_DECISIONS = 1000


@dataclass(frozen=True)
class Showing:
    """A battle that shows a knob: ``scenario`` is a shipped name, or ``generated:K``
    (``experiments.fuzzing.generate.random_scenario`` with ``default_rng(K)``)."""

    scenario: str
    seed: int
    decisions: int
    step: int = 1  # the nudge: one step up (1) or down (-1)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def numeric_knobs() -> dict[str, Any]:
    """Every knob of the shipped ruleset (dotted path -> its value), in file order."""
    found: dict[str, Any] = {}

    def walk(node: dict[str, Any], path: str) -> None:
        for key, value in node.items():
            where = f"{path}.{key}" if path else key
            if isinstance(value, dict):
                walk(value, where)
            elif _number(value) or (isinstance(value, list) and value and (
                    all(_number(v) for v in value)
                    or all(isinstance(v, dict) and any(_number(x) for x in v.values())
                           for v in value))):
                found[where] = value

    walk(tomllib.loads(RULESET.read_text(encoding="utf-8")), "")
    return found


def nudged(value: Any, step: int = 1) -> Any:
    """One step on (``step`` 1) or back (-1): a whole number +-1, a fraction -+0.1 (half
    of it, or half again, at 0.1 or less), a list each number so, a row list each row's
    numbers so (their order kept)."""
    if isinstance(value, list):
        return [nudged(v, step) for v in value]
    if isinstance(value, dict):
        return {k: nudged(v, step) if _number(v) else v for k, v in value.items()}
    if isinstance(value, int):
        return value + step
    if step > 0:
        return round(value - 0.1, 6) if value > 0.1 else value / 2
    return round(value + 0.1, 6) if value > 0.1 else value * 1.5


@functools.cache
def scenario_text(scenario: str) -> str:
    """The TOML text of a showing battle's scenario."""
    if scenario.startswith("generated:"):
        from experiments.fuzzing.generate import random_scenario
        from experiments.fuzzing.generate import scenario_toml as generated_toml

        rng = np.random.default_rng(int(scenario.split(":", 1)[1]))
        return generated_toml(random_scenario(rng, rules.default_content()))
    return rules.scenario.resolve_scenario(scenario).read_text(encoding="utf-8")


def variant_folder(path: str, folder: Path, step: int = 1) -> Path:
    """A content folder: the shipped one with knob ``path`` nudged (``step``)."""
    from experiments.comparison.sweep import base_folder, write_variant

    return write_variant(base_folder(None), folder,
                         {path: nudged(numeric_knobs()[path], step)})


def events_of(text: str, seed: int, decisions: int, content_dir: str | None,
              engine: str) -> list[dict[str, Any]]:
    """The events of ``decisions`` random-play decisions (seed ``seed``) of a battle."""
    battle = rules.Battle.from_toml(text, seed=seed, content_dir=content_dir, engine=engine)
    battle.random_play(seed, decisions)
    return [event_to_dict(event) for event in battle.events]


@functools.cache
def _shipped_rules_events(text: str, seed: int, decisions: int) -> list[dict[str, Any]]:
    return events_of(text, seed, decisions, None, "native")


def search(path: str, folder: Path, scenarios: list[str], seeds: range,
           step: int = 1) -> Showing | None:
    """The first (scenario, seed), then the fewest decisions, whose events the nudge
    changes, on the native engine."""
    content = str(variant_folder(path, folder, step))  # SweepError: the loader refuses it
    for scenario in scenarios:
        text = scenario_text(scenario)
        for seed in seeds:
            try:
                whole = events_of(text, seed, MOST_DECISIONS, content, "native")
            except rules.FrayError:
                continue  # a nudge the scenario's units do not accept
            if whole == _shipped_rules_events(text, seed, MOST_DECISIONS):
                continue
            low, high = 0, MOST_DECISIONS  # the fewest decisions that show it
            while high - low > 1:
                middle = (low + high) // 2
                if events_of(text, seed, middle, content, "native") != _shipped_rules_events(
                        text, seed, middle):
                    high = middle
                else:
                    low = middle
            return Showing(scenario, seed, high, step)
    return None


def main() -> None:
    """Print the table test_knobs.py hard-codes (and the knobs no battle showed)."""
    import tempfile

    start = int(sys.argv[1]) if sys.argv[1:] and sys.argv[1].isdigit() else 0
    wanted = {name for name in sys.argv[1:] if not name.isdigit()}
    scenarios = rules.shipped_scenarios() + [f"generated:{k}" for k in range(16)]
    with tempfile.TemporaryDirectory() as scratch:
        for index, path in enumerate(numeric_knobs()):
            if wanted and path not in wanted:
                continue
            if index < start:
                continue
            found: Any = None
            for step in (1, -1):
                try:
                    found = search(path, Path(scratch) / f"{index}{step}", scenarios,
                                   range(2), step)
                except rules.FrayError as exc:
                    found = f"refused: {exc}"
                if isinstance(found, Showing):
                    break
            print(f"    {path!r}: {found!r},", flush=True)


if __name__ == "__main__":
    main()
