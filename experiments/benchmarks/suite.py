"""``fray bench``: every speed figure in one run, then each speed target next to its
figure with PASS or MISS, grouped by what it measures (rules core, reach graph, envs,
learner, big maps, native engine). MISS means this run's median falls short of the
target on this machine; the output says so in one line (:data:`MISS_MEANS`).

Sections run in order (headless core, reach graph, envs, learner, native engine against
the Python engine); each figure is printed as soon as it is measured, and with ``--json
FILE`` the file is rewritten after every figure, so an interrupted run keeps what it
measured. The header names the machine (core count, load average) and the engine the
other sections run on: on a shared box the min-max ranges show how much the load moved
the medians.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from experiments.benchmarks import decisions, engines, env_steps, reach, training
from experiments.benchmarks.measure import Figure, format_number
from rules import engine as rules_engine

SECTIONS: tuple[tuple[str, Callable[[bool], Iterable[Figure]]], ...] = (
    ("headless rules core (both teams the same agent)", decisions.figures),
    ("reach graph", reach.figures),
    ("envs: random masked actions", env_steps.figures),
    ("learner", training.figures),
    ("native engine against the Python engine (same run)", engines.figures),
)

#: seconds each section took in one `fray bench --quick` on the 2-core machine (shared,
#: load average 12-14, 2026-12-07: torch's learner section suffers most from the load):
#: the progress bar's weights, so its ETA follows the sections' lengths rather than their
#: count (issue 50: counted in sections, it said "2 s" before a 28 s one)
SECTION_SECONDS: dict[str, float] = {
    "headless rules core (both teams the same agent)": 28.0,
    "reach graph": 6.6,
    "envs: random masked actions": 14.3,
    "learner": 326.5,
    "native engine against the Python engine (same run)": 133.4,
}


@dataclass(frozen=True)
class Target:
    """One speed goal: what it measures, the figure it is judged on, whether it is met."""

    area: str  # what it measures: "rules core", "reach graph", "envs", "learner", ...
    label: str
    value: float | None
    unit: str
    goal: str
    met: bool | None  # None: a figure it needs is not available

    @property
    def verdict(self) -> str:
        return "n/a" if self.met is None else "PASS" if self.met else "MISS"

    def to_dict(self) -> dict:
        return {"area": self.area, "label": self.label, "value": self.value, "unit": self.unit,
                "goal": self.goal, "verdict": self.verdict}


def machine() -> dict:
    """What the figures were measured on."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {"cores": os.cpu_count(), "load_average": [round(x, 2) for x in load],
            "engine": rules_engine.describe(),
            "python": platform.python_version(), "platform": platform.platform(),
            "utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M")}


def _median(figs: dict[str, Figure], key: str) -> float | None:
    fig = figs.get(key)
    return None if fig is None else fig.median


def _ratio(figs: dict[str, Figure], top: str, bottom: str) -> float | None:
    a, b = _median(figs, top), _median(figs, bottom)
    return None if a is None or not b else a / b


#: what a MISS means for the user, printed under the targets' heading
MISS_MEANS = ("MISS: this run's median falls short of the target on this machine (load and "
              "cores move it); a goal not reached yet, not a fault: see docs/performance.md")

RULES, REACH, ENVS, LEARNER, BIG, NATIVE = ("rules core", "reach graph", "envs", "learner",
                                            "big maps and crowds", "native engine")
#: the differential fuzzing target: decisions played with no difference between engines
DIFFERENTIAL_DECISIONS = 1_000_000


def _check(area: str, label: str, value: float | None, unit: str, goal: str,
           test: Callable[[float], bool]) -> Target:
    return Target(area, label, value, unit, goal, None if value is None else test(value))


def targets(figs: dict[str, Figure], units: dict[str, int]) -> list[Target]:
    """Every speed target, judged on the medians of this run, in the order printed."""
    growth = units["horde"] / units["duel"]
    slowdown = _ratio(figs, "headless.random.duel.decisions_per_s",
                      "headless.random.horde.decisions_per_s")
    return [
        _check(RULES, "headless random skirmish: battles/s", _median(
            figs, "headless.random.skirmish.battles_per_s"), "/s", ">= 50",
            lambda value: value >= 50),
        _check(RULES, "  the same per CPU-second (this process's CPU time)", _median(
            figs, "headless.random.skirmish.battles_per_cpu_s"), "/s", ">= 50",
            lambda value: value >= 50),
        _check(RULES, "clone() skirmish", _median(figs, "clone.skirmish"), "µs", "< 100",
               lambda value: value < 100),
        _check(RULES, f"decisions/s duel / horde (units grow {growth:.0f}x)", slowdown, "x",
               f"< {growth:.0f}", lambda value: value < growth),
        _check(REACH, "reach cached query", _median(figs, "reach.cached_us"), "µs", "< 20",
               lambda value: value < 20),
        _check(REACH, "reach cold query / scipy dijkstra", _ratio(
            figs, "reach.cold_us", "reach.scipy_us"), "x", "<= 5", lambda value: value <= 5),
        _check(ENVS, "gym env skirmish (berserker) / connect_four_v3", _ratio(
            figs, "gym.skirmish.berserker", "aec.connect_four"), "x", ">= 3",
            lambda value: value >= 3),
        _check(ENVS, f"batched vector env {env_steps.BATCH} battles per core / connect_four_v3",
               _ratio(figs, f"vector.batched.{env_steps.BATCH}", "aec.connect_four"), "x",
               ">= 30", lambda value: value >= 30),
        _check(ENVS, "AsyncVectorEnv 2 workers / 1 worker", _ratio(
            figs, "vector.2", "vector.1"), "x", ">= 1.7", lambda value: value >= 1.7),
        _check(LEARNER, "MaskablePPO skirmish / InvalidActionEnvDiscrete", _ratio(
            figs, "ppo.skirmish", "ppo.invalid_action_env"), "x", ">= 0.7",
            lambda value: value >= 0.7),
        _check(LEARNER, "MaskablePPO batched vector env / InvalidActionEnvDiscrete", _ratio(
            figs, "ppo.vector", "ppo.invalid_action_env"), "x", ">= 0.9",
            lambda value: value >= 0.9),
        _check(LEARNER, "batched PPO selector / fray train's MaskablePPO selector", _ratio(
            figs, "learner.batched.selector", "learner.sb3.selector"), "x", ">= 5",
            lambda value: value >= 5),
        _check(BIG, "first decision 300x300: time", _median(figs, "map300.first_decision_s"),
               "s", "< 2", lambda value: value < 2),
        _check(BIG, "first decision 300x300: memory", _median(
            figs, "map300.first_decision_mib"), "MiB", "< 200", lambda value: value < 200),
        _check(BIG, "20v20 on 40x40: p99 decision", _median(figs, "crowd.p99_ms"), "ms",
               "< 5", lambda value: value < 5),
        _check(BIG, "  the same in CPU time (this process's)", _median(
            figs, "crowd.p99_cpu_ms"), "ms", "< 5", lambda value: value < 5),
        *native_targets(figs),
    ]


def native_targets(figs: dict[str, Figure]) -> list[Target]:
    """The native engine's targets (issue 23), each a ratio of two engines in this run."""
    differences = _median(figs, "engines.differential.differences")
    fuzzed = _median(figs, "engines.differential.decisions")
    return [
        _check(NATIVE, "random skirmish, agents in Python: native / python",
               _median(figs, "engines.random.skirmish.ratio"), "x", ">= 10",
               lambda value: value >= 10),
        *(_check(NATIVE, f"random play {s} ({engines.LOOP_NOTE}): native / python",
                 _median(figs, f"engines.loop.{s}.ratio"), "x", ">= 100",
                 lambda value: value >= 100)
          for s in engines.LOOP_SCENARIOS),
        _check(NATIVE, "clone() mid-skirmish: python / native", _median(
            figs, "engines.clone.skirmish.ratio"), "x", ">= 10", lambda value: value >= 10),
        _check(NATIVE, "first decision 300x300: native / python", _median(
            figs, "engines.map300.first_decision_s.ratio"), "x", "<= 1.0",
            lambda value: value <= 1.0),
        _check(NATIVE, "MCTS iterations/s, native rollouts / python", _median(
            figs, "engines.mcts.skirmish.ratio"), "x", ">= 20", lambda value: value >= 20),
        _check(NATIVE, "tactician-vs-tactician skirmish battles/s: native / python", _median(
            figs, "engines.tactician.skirmish.ratio"), "x", ">= 50", lambda value: value >= 50),
        _check(NATIVE, "fray fuzz decisions/s: native / python", _median(
            figs, "engines.fuzz.ratio"), "x", ">= 20", lambda value: value >= 20),
        _check(NATIVE, "differential fuzzing: decisions with 0 differences", fuzzed, "",
               f">= {DIFFERENTIAL_DECISIONS:,}",
               lambda value: value >= DIFFERENTIAL_DECISIONS and differences == 0),
    ]


def figure_line(fig: Figure) -> str:
    """One table row: label, median, (min .. max) and unit, or the note."""
    if not fig.values:
        return f"  {fig.label:<56} {fig.note}"
    spread = f"({format_number(fig.low)} .. {format_number(fig.high)})"
    return f"  {fig.label:<56} {format_number(fig.median):>10} {spread:<24} {fig.unit}"


def target_line(target: Target) -> str:
    value = "n/a" if target.value is None else format_number(target.value)
    return (f"  {target.label:<56} {value:>10} {target.unit:<4} "
            f"target {target.goal:<7} {target.verdict}")


def run(quick: bool, out: TextIO, json_path: Path | None = None,
        differential: Path | None = None) -> list[Target]:
    """Measure everything, print as it goes to ``out``; the targets, judged.
    ``differential``: a differential fuzzing record (:func:`engines.differential`)."""
    info = machine()
    repeats = 3 if quick else 5
    load = " ".join(f"{x:.1f}" for x in info["load_average"])
    print(f"fray bench{' --quick' if quick else ''}: {info['cores']} cores, load average "
          f"{load}, Python {info['python']}, {info['utc']} UTC, engine {info['engine']}",
          file=out)
    print(f"medians over {repeats} repeats (min .. max; the tactician, AsyncVectorEnv and "
          "MaskablePPO rows over fewer); n/a rows could not be measured here and say why",
          file=out)
    figs: dict[str, Figure] = {}
    record: dict = {"machine": info, "quick": quick, "figures": [], "targets": []}

    def save() -> None:
        if json_path is not None:
            json_path.write_text(json.dumps(record, indent=1, ensure_ascii=False))

    # the bar in estimated seconds (SECTION_SECONDS), the running section named
    bar = tqdm(total=sum(SECTION_SECONDS.values()), desc="fray bench", smoothing=0,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix} "
                          "[{elapsed}<{remaining}]")
    for title, section in SECTIONS:
        bar.set_postfix_str(title, refresh=True)
        print(f"== {title} ==", file=out, flush=True)
        measured = (engines.figures(quick, differential) if section is engines.figures
                    else section(quick))
        for fig in measured:
            figs[fig.key] = fig
            record["figures"].append(fig.to_dict())
            print(figure_line(fig), file=out, flush=True)
            save()
        bar.update(SECTION_SECONDS[title])
    bar.close()
    units = {name: decisions.unit_count(name) for name in ("duel", "horde")}
    print("== ratios ==", file=out)
    for label, top, bottom in _RATIOS:
        value = _ratio(figs, top, bottom)
        print(f"  {label:<56} {format_number(value):>10} x", file=out)
    judged = targets(figs, units)
    met = sum(t.met is True for t in judged)
    print(f"== speed targets: {met} of {len(judged)} met in this run ==", file=out)
    print(MISS_MEANS, file=out)
    area = None
    for t in judged:
        if t.area != area:
            area = t.area
            print(f" {area}:", file=out)
        print(target_line(t), file=out)
    record["targets"] = [t.to_dict() for t in judged]
    save()
    return judged


_RATIOS = (
    ("gym env skirmish (random) / connect_four_v3", "gym.skirmish.random",
     "aec.connect_four"),
    ("pettingzoo AEC skirmish / connect_four_v3", "aec.skirmish", "aec.connect_four"),
    ("reach cold with threats / scipy dijkstra", "reach.cold_threats_us", "reach.scipy_us"),
)

