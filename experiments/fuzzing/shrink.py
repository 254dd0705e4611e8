"""Shrinking a fuzz failure to a minimal reproduction.

A run is a scenario plus a list of choices (indices into ``legal_actions()``, taken
modulo its length, see :mod:`experiments.fuzzing.fuzz`), so any edited list is still a valid run.
A candidate is *interesting* when re-running it under the same checks fails with the same
signature (kind, invariant or exception type, and the frame that raised). Passes, repeated
until none helps or the budget is spent:

1. the shortest prefix: the choices up to the failing action;
2. delta debugging over the choices (remove chunks of half, a quarter, ... one choice);
3. random choice lists half as long (in a long battle any edit changes the later dice,
   so a fresh short run that fails the same way is often quicker to find);
4. simpler choices (each one replaced by 0, the first legal action);
5. fewer units (drop one unit at a time, keeping two teams; a dropped mount's rider
   stands on its own);
6. a smaller map (crop a row or column at an edge that no unit stands on).

A smaller scenario rolls other dice (initiative is rolled per unit), so for passes 5 and
6 a candidate scenario is tried with the current choices and then with a few random
choice lists; passes 1-4 then shrink the new choices again.

Passes 5 and 6 edit the scenario's TOML data (experiments.fuzzing.generate), so they apply to
shipped scenarios too, not only generated ones.

The run that replays choices is pluggable (``shrink(..., runner=)``, :data:`Runner`): the
checked run of :mod:`experiments.fuzzing.fuzz` by default, the two-engine run of
:mod:`experiments.fuzzing.differential` for a difference between the engines.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

import rules
from experiments.fuzzing.fuzz import Case, Checks, Failure, Outcome, run_choices
from experiments.fuzzing.generate import map_rows, scenario_data, scenario_toml

#: failures found by the JSON copies
COPY_FAILURES = {"json-copy", "json-roundtrip"}
#: what replays a list of choices under checks: ``fuzz.run_choices`` or
#: ``differential.run_choices``
Runner = Callable[[Case, Sequence[int], Checks], Outcome]


@dataclass
class Shrunk:
    """The smallest reproduction found, and how many runs it took."""

    case: Case
    choices: list[int]
    outcome: Outcome
    checks: Checks
    tests: int
    original_choices: int


def checks_for(failure: Failure, checks: Checks) -> Checks:
    """The checks to shrink with: the state invariants and extras always, and of the
    expensive checks only the one that failed: clones at their original sampling (so the
    first run reproduces the failure exactly; copies that share state interact), JSON
    copies at every decision (a JSON failure is a property of one state).

    A difference between the engines is shrunk by comparing ``to_json()`` at every
    decision for a JSON difference (it then shows at the earliest state), else not at all
    (comparing it can only find an earlier difference, never lose this one)."""
    if checks.differential:
        return replace(checks, json_every=1 if failure.name == "json" else 0)
    return replace(checks, mask=checks.mask and failure.name == "mask",
                   clone_every=checks.clone_every if failure.name == "clone" else 0,
                   json_every=1 if failure.name in COPY_FAILURES else 0,
                   replay=checks.replay and failure.name == "replay")


class _Budget:
    """Runs left: a number of runs and a deadline, whichever comes first."""

    def __init__(self, seconds: float, max_tests: int) -> None:
        self.deadline = time.monotonic() + seconds
        self.max_tests = max_tests
        self.tests = 0

    @property
    def spent(self) -> bool:
        return self.tests >= self.max_tests or time.monotonic() > self.deadline


def shrink(case: Case, choices: list[int], failure: Failure, checks: Checks, *,
           seconds: float = 30.0, max_tests: int = 5000,
           runner: Runner = run_choices) -> Shrunk | None:
    """Shrink a failing run; None when the failure does not reproduce from its choices
    (an agent's own crash, or a check that depends on sampling). ``runner`` replays a
    candidate (the run that found the failure: checked, or on both engines)."""
    checks = checks_for(failure, checks)
    budget = _Budget(seconds, max_tests)
    target = failure.signature

    def attempt(candidate_case: Case, candidate: list[int]) -> Outcome | None:
        budget.tests += 1
        try:
            outcome = runner(candidate_case, candidate, checks)
        except rules.ScenarioError:  # an edit made the scenario invalid
            return None
        if outcome.failure is not None and outcome.failure.signature == target:
            return outcome
        return None

    first = attempt(case, list(choices[:failure.step]))
    if first is None:
        return None
    best = Shrunk(case, list(first.choices), first, checks, 1, len(choices))

    def accept(outcome: Outcome, new_case: Case) -> None:
        best.case, best.choices, best.outcome = new_case, list(outcome.choices), outcome

    changed = True
    while changed and not budget.spent:
        changed = False
        for one_pass in (_delete_chunks, _random_shorter, _zero_choices, _drop_units,
                         _crop_map):
            if budget.spent:
                break
            if one_pass(best, attempt, accept, budget):
                changed = True
    best.tests = budget.tests
    return best


Attempt = Callable[[Case, list[int]], Outcome | None]
Accept = Callable[[Outcome, Case], None]


def _delete_chunks(best: Shrunk, attempt: Attempt, accept: Accept, budget: _Budget) -> bool:
    """ddmin-style: remove runs of choices, halving the run length down to one."""
    improved = False
    chunk = max(1, len(best.choices) // 2)
    while chunk >= 1 and not budget.spent:
        start = 0
        while start < len(best.choices) and not budget.spent:
            candidate = best.choices[:start] + best.choices[start + chunk:]
            outcome = attempt(best.case, candidate)
            if outcome is not None and len(outcome.choices) < len(best.choices):
                accept(outcome, best.case)
                improved = True
            else:
                start += chunk
        chunk //= 2
    return improved


def _random_shorter(best: Shrunk, attempt: Attempt, accept: Accept, budget: _Budget,
                    tries: int = 12) -> bool:
    """Random choice lists half as long: in a long battle every edit changes the later
    dice, so a fresh short run that fails the same way is often the quicker way down."""
    improved = False
    rng = np.random.default_rng(len(best.choices) + 7)
    for _ in range(tries):
        length = len(best.choices) // 2
        if length < 2 or budget.spent:
            break
        candidate = [int(x) for x in rng.integers(0, 1 << 16, size=length)]
        outcome = attempt(best.case, candidate)
        if outcome is not None and len(outcome.choices) < len(best.choices):
            accept(outcome, best.case)
            improved = True
    return improved


def _zero_choices(best: Shrunk, attempt: Attempt, accept: Accept, budget: _Budget) -> bool:
    """Replace each choice by 0 (the first legal action) where the failure stays."""
    improved = False
    for i in range(len(best.choices)):
        if budget.spent:
            break
        if i >= len(best.choices) or best.choices[i] == 0:
            continue
        candidate = [*best.choices[:i], 0, *best.choices[i + 1:]]
        outcome = attempt(best.case, candidate)
        if outcome is not None and len(outcome.choices) <= len(best.choices):
            accept(outcome, best.case)
            improved = True
    return improved


def _with_data(case: Case, data: dict[str, Any]) -> Case:
    return replace(case, text=scenario_toml(data))


def _drop_units(best: Shrunk, attempt: Attempt, accept: Accept, budget: _Budget) -> bool:
    """Remove one unit at a time (two teams must stay)."""
    improved = False
    index = len(scenario_data(best.case.text)["units"]) - 1
    while index >= 0 and not budget.spent:
        data = scenario_data(best.case.text)
        units = data["units"]
        if index >= len(units):
            index -= 1
            continue
        gone = units.pop(index)
        for unit in units:
            if unit.get("riding") == gone["id"]:
                del unit["riding"]
        if len({u["team"] for u in units}) >= 2:
            outcome = _retry(_with_data(best.case, data), best, attempt, budget)
            if outcome is not None:
                accept(outcome, _with_data(best.case, data))
                improved = True
        index -= 1
    return improved


def _retry(case: Case, best: Shrunk, attempt: Attempt, budget: _Budget,
           tries: int = 6) -> Outcome | None:
    """A smaller scenario draws other dice (initiative is rolled per unit), so the old
    choices rarely fail the same way: try them, then a few random choice lists."""
    outcome = attempt(case, best.choices)
    rng = np.random.default_rng(len(best.choices))
    length = 3 * len(best.choices) + 20
    for _ in range(tries):
        if outcome is not None or budget.spent:
            break
        outcome = attempt(case, [int(x) for x in rng.integers(0, 1 << 16, size=length)])
    return outcome


def _crop_map(best: Shrunk, attempt: Attempt, accept: Accept, budget: _Budget) -> bool:
    """Crop a row or column at an edge of the map where no unit stands."""
    improved = True
    any_change = False
    while improved and not budget.spent:
        improved = False
        for side in ("top", "bottom", "left", "right"):
            data = _cropped(scenario_data(best.case.text), side)
            if data is None or budget.spent:
                continue
            candidate_case = _with_data(best.case, data)
            outcome = _retry(candidate_case, best, attempt, budget)
            if outcome is not None:
                accept(outcome, candidate_case)
                improved = any_change = True
    return any_change


def _cropped(data: dict[str, Any], side: str) -> dict[str, Any] | None:
    """The data with one edge row/column removed (units moved along), or None."""
    rows = map_rows(data)
    width, height = len(rows[0]), len(rows)
    if (side in ("top", "bottom") and height <= 1) or (side in ("left", "right")
                                                        and width <= 1):
        return None
    edge = {"top": (1, 0, lambda column, row: row == 0),
            "bottom": (0, 0, lambda column, row: row == height - 1),
            "left": (0, 1, lambda column, row: column == 0),
            "right": (0, 0, lambda column, row: column == width - 1)}
    shift_y, shift_x, on_edge = edge[side]
    if any(on_edge(*u["at"]) for u in data["units"]):
        return None
    if side == "top":
        rows = rows[1:]
    elif side == "bottom":
        rows = rows[:-1]
    elif side == "left":
        rows = [r[1:] for r in rows]
    else:
        rows = [r[:-1] for r in rows]
    data["map"] = "\n".join(rows) + "\n"
    for unit in data["units"]:
        unit["at"] = [unit["at"][0] - shift_x, unit["at"][1] - shift_y]
    return data
