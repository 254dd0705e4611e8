"""The native engine against the Python engine, measured in the same run (the targets of
issue 23): each figure is taken on both engines in every repeat, the order of the two
alternating between repeats, and the ratio is taken per repeat, so the load of a shared
machine moves both sides of a ratio alike.

- random-vs-random skirmish, the agents in Python (``agents.make("random")`` for both
  teams, as the headless section plays): decisions/s per engine, native / python;
- the random-play loop, ``Battle.random_play``: the uniform policy over the legal actions
  with its own seeded generator, on skirmish and horde; the native engine runs the whole
  loop in C++, the Python engine a Python loop making the same choices;
- ``clone()`` of a skirmish battle after 40 random decisions: µs per clone, python / native;
- the first decision on a generated 300x300 open map (``maps.open_map``, a fresh map
  each run): seconds per engine, native / python (no slower: <= 1.0);
- differential fuzzing: the decisions and differences of a ``fray fuzz --differential``
  run, read from a JSON record when ``fray bench --differential FILE`` names one.

Where the native engine is not built every row is n/a and says so. Run
``python -m experiments.benchmarks.engines [--quick]`` for this section alone.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import agents
import rules
from experiments.benchmarks import engine_agents, maps
from experiments.benchmarks.decisions import play
from experiments.benchmarks.measure import Figure, format_number, per_call_us, unavailable
from experiments.heap import freeze_shared
from rules import engine as engines

ENGINES = ("native", "python")
LOOP_SCENARIOS = ("skirmish", "horde")
NOT_BUILT = "n/a (the native engine is not built here)"
#: the label's note on the random-play loop: the native engine's runs inside the engine
LOOP_NOTE = "Battle.random_play"


def _order(repeat: int) -> tuple[str, str]:
    """Which engine goes first in this repeat: alternating, so neither always warms up."""
    return ENGINES if repeat % 2 == 0 else ENGINES[::-1]


def _paired(key: str, label: str, unit: str, ratio_label: str,
            measure: Callable[[str, int], float], repeats: int,
            python_over_native: bool = False) -> list[Figure]:
    """``measure(engine, repeat)`` on both engines per repeat: a figure per engine and
    their ratio per repeat (native / python, or python / native when asked)."""
    per_engine = {name: Figure(f"{key}.{name}", f"{label}: {name}", unit)
                  for name in ENGINES}
    ratio = Figure(f"{key}.ratio", ratio_label, "x")
    for r in range(repeats):
        for name in _order(r):
            per_engine[name].values.append(measure(name, r))
        native, python = per_engine["native"].values[-1], per_engine["python"].values[-1]
        ratio.values.append(python / native if python_over_native else native / python)
    return [per_engine["native"], per_engine["python"], ratio]


def _skipped(key: str, label: str, unit: str, ratio_label: str) -> list[Figure]:
    return [unavailable(f"{key}.{name}", f"{label}: {name}", unit, NOT_BUILT)
            for name in ENGINES] + [unavailable(f"{key}.ratio", ratio_label, "x", NOT_BUILT)]


def random_battles(scenario: str, battles: int) -> Callable[[str, int], float]:
    """Decisions/s of ``battles`` whole random-vs-random battles (seeds new per repeat)."""
    def measure(engine: str, repeat: int) -> float:
        decisions = 0
        start = time.perf_counter()
        for i in range(battles):
            seed = repeat * battles + i
            battle = rules.Battle.from_scenario(scenario, seed=seed, engine=engine)
            decisions += play(battle, agents.make("random", seed=seed))
        return decisions / (time.perf_counter() - start)
    return measure


def random_loop(scenario: str, decisions: int) -> Callable[[str, int], float]:
    """Decisions/s of ``decisions`` decisions of ``Battle.random_play`` (the uniform
    policy; inside the engine on the native one, a Python loop making the same choices on
    the Python one), a new battle (next seed) each time one ends; the battles are built
    outside the timing."""
    def measure(engine: str, repeat: int) -> float:
        seed, done, seconds = repeat * 1000, 0, 0.0
        while done < decisions:
            battle = rules.Battle.from_scenario(scenario, seed=seed, engine=engine)
            start = time.perf_counter()
            done += battle.random_play(seed, decisions - done)
            seconds += time.perf_counter() - start
            seed += 1
        return done / seconds
    return measure


def clone_cost(scenario: str, decisions: int, calls: int) -> Callable[[str, int], float]:
    """µs per ``clone()`` of a battle ``decisions`` random decisions in (the same seed on
    both engines, so the same state)."""
    battles = {}

    def measure(engine: str, repeat: int) -> float:
        if engine not in battles:
            battle = rules.Battle.from_scenario(scenario, seed=1, engine=engine)
            play(battle, agents.make("random", seed=1), decisions)
            battles[engine] = battle
        return per_call_us(battles[engine].clone, calls, 1)[0]
    return measure


def first_decision(size: int) -> Callable[[str, int], float]:
    """Seconds from ``Battle.from_toml`` of a generated ``size`` x ``size`` open map to
    its first ``legal_actions()``; each engine and repeat gets another map (a pillar
    moved), so nothing cached for an earlier map applies."""
    def measure(engine: str, repeat: int) -> float:
        variant = 1 + 2 * repeat + ENGINES.index(engine)
        text = maps.open_map(size, variant=variant)
        start = time.perf_counter()
        rules.Battle.from_toml(text, seed=repeat, engine=engine).legal_actions()
        return time.perf_counter() - start
    return measure


def differential(record: Path | None) -> list[Figure]:
    """The decisions played and differences found by a differential fuzzing run, read
    from ``record`` (JSON with ``decisions`` and ``differences``); n/a without one."""
    decisions = Figure("engines.differential.decisions",
                       "differential fuzzing: decisions played", "")
    differences = Figure("engines.differential.differences",
                         "differential fuzzing: differences found", "")
    if record is None:
        why = "n/a (no record: fray bench --differential FILE)"
        return [unavailable(f.key, f.label, f.unit, why) for f in (decisions, differences)]
    data = json.loads(record.read_text())
    decisions.values.append(float(data["decisions"]))
    differences.values.append(float(data["differences"]))
    return [decisions, differences]


def read_record(record: Path) -> str | None:
    """Why ``record`` is not a differential fuzzing record (None: it is one)."""
    try:
        data = json.loads(record.read_text())
    except (OSError, ValueError) as error:
        return f"{type(error).__name__}: {error}"
    if not isinstance(data, dict) or not all(
            isinstance(data.get(k), int) and data[k] >= 0 for k in ("decisions", "differences")):
        return 'expected JSON with "decisions" and "differences", counts of 0 or more'
    return None


def figures(quick: bool, record: Path | None = None) -> Iterator[Figure]:
    """Every engine-against-engine figure, quick or full sizes, then the differential
    fuzzing record's."""
    repeats = 3 if quick else 5
    rows: list[tuple[str, str, str, str, Callable[[str, int], float], bool]] = [
        ("engines.random.skirmish", "random-vs-random skirmish decisions/s", "/s",
         "random-vs-random skirmish: native / python", random_battles(
             "skirmish", 1 if quick else 3), False),
        *((f"engines.loop.{s}", f"random play {s} ({LOOP_NOTE}) decisions/s", "/s",
           f"random play {s} ({LOOP_NOTE}): native / python",
           random_loop(s, 2000 if quick else 10000), False) for s in LOOP_SCENARIOS),
        ("engines.clone.skirmish", "clone() skirmish at 40 decisions", "µs",
         "clone() skirmish: python / native", clone_cost(
             "skirmish", 40, 200 if quick else 1000), True),
        ("engines.map300.first_decision_s", "first decision 300x300 open map", "s",
         "first decision 300x300: native / python", first_decision(300), False),
        *engine_agents.rows(quick),
    ]
    available = engines.native_available()
    if available:  # both engines' content and map graphs built, then frozen (heap.py)
        for name in ENGINES:
            for scenario in LOOP_SCENARIOS:
                rules.Battle.from_scenario(scenario, seed=0, engine=name).legal_actions()
        freeze_shared()
    for key, label, unit, ratio_label, measure, inverted in rows:
        if available:
            yield from _paired(key, label, unit, ratio_label, measure, repeats, inverted)
        else:
            yield from _skipped(key, label, unit, ratio_label)
    yield from differential(record)


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    for fig in figures(quick):
        if fig.values:
            print(f"{fig.label:<72} {format_number(fig.median):>10} "
                  f"({format_number(fig.low)} .. {format_number(fig.high)}) {fig.unit}")
        else:
            print(f"{fig.label:<72} {fig.note}")


if __name__ == "__main__":
    main()
