"""Differential fuzzing (issue 23): one battle played on both engines, compared after
every decision.

:func:`run` builds the :class:`~experiments.fuzzing.fuzz.Case` twice, on the Python
engine (the reference) and on the native one, lets the chooser pick on the Python battle
(agents, recorded actions or choices, as :func:`experiments.fuzzing.fuzz.run`), applies the
same action to both and compares, before the first action and after every one:

1. what each engine raised (``exception``: one engine raises and the other does not, or
   they raise differently; both raising the same is an ordinary ``exception`` finding);
2. the new events, as ``rules.events.event_to_dict`` dicts (``events``);
3. the decision, ``is_over`` and the winner (``decision``);
4. ``legal_actions()``: the same actions in the same order (``legal``);
5. the whole state but the event log (``state``: ``Battle.to_dict(events=False)``, whose
   events were compared one by one as they came), at every decision;
6. ``to_json()`` (``json``), the whole text, every ``Checks.json_every`` decisions (the
   default of :func:`differential_checks`: every 100th; 1: every decision; 0: only at
   the end) and always at the end. It is O(events): at every decision of a long battle
   it would cost ten times the rest, and items 2 and 5 already cover what it holds.

The first difference is a :class:`~experiments.fuzzing.fuzz.Failure` of kind
``differential`` named after what differed, whose message names the first differing
element (event or action index, JSON key path) with both values. The outcome carries the
Python battle and its replay, so shrinking (``shrink.shrink(..., runner=run_choices)``),
writing and ``fray replay`` (``experiments.fuzzing.reproduce``, which sees
``Checks.differential``) work as for any finding.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

from experiments.fuzzing.fuzz import (
    Case,
    Checks,
    Chooser,
    Failure,
    Outcome,
    choice_chooser,
    choose_next,
    exception_failure,
)
from experiments.replay import Replay
from rules import Battle, engine
from rules.events import event_to_dict

__all__ = ["DifferenceFound", "differential_checks", "first_difference", "run",
           "run_choices"]

#: characters of one value shown in a difference's message
SHOWN = 160
Result = TypeVar("Result")


class DifferenceFound(Exception):
    """The engines disagree: ``name`` is what differed, ``detail`` the first element."""

    def __init__(self, name: str, detail: str, where: str = "") -> None:
        super().__init__(f"{name}: {detail}")
        self.name, self.detail, self.where = name, detail, where


class NativeUnavailable(RuntimeError):
    """The native engine is not built here, so there is nothing to compare."""


#: How often a differential run compares the whole to_json() text by default.
JSON_EVERY = 100


def differential_checks(json_every: int = JSON_EVERY) -> Checks:
    """The settings of a differential run (the invariant checks are off: ``fray fuzz``
    without ``--differential`` runs them)."""
    return Checks(mask=False, clone_every=0, json_every=json_every, replay=False,
                  every_event=False, differential=True)


# ---------------------------------------------------------------- comparing
def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


def first_difference(python: Any, native: Any, path: str = "") -> str | None:
    """The first place two JSON values differ, as ``path: python X, native Y`` (keys in
    sorted order, list items by index), or None when they are equal."""
    if isinstance(python, dict) and isinstance(native, dict):
        for key in sorted(set(python) | set(native), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in native:
                return f"{where}: only the python engine has it ({_shown(python[key])})"
            if key not in python:
                return f"{where}: only the native engine has it ({_shown(native[key])})"
            found = first_difference(python[key], native[key], where)
            if found is not None:
                return found
        return None
    if isinstance(python, list) and isinstance(native, list):
        for index, (left, right) in enumerate(zip(python, native, strict=False)):
            found = first_difference(left, right, f"{path}[{index}]")
            if found is not None:
                return found
        if len(python) != len(native):
            return (f"{path or 'top'}: length python {len(python)}, native {len(native)}")
        return None
    if python == native and type(python) is type(native):
        return None
    return f"{path or 'top'}: python {_shown(python)}, native {_shown(native)}"


def _first_in_lists(what: str, python: Sequence[Any], native: Sequence[Any],
                    offset: int = 0, text: Callable[[Any], str] = repr) -> str:
    """The first differing item of two lists (``what`` N: both values, N counted from
    ``offset``), else where the shorter one ends."""
    for index, (left, right) in enumerate(zip(python, native, strict=False)):
        if left != right:
            return (f"{what} {offset + index}: python {_shown(text(left))}, "
                    f"native {_shown(text(right))}")
    shorter = min(len(python), len(native))
    longer, engine_name = (python, "python") if len(python) > shorter else (native, "native")
    return (f"{what} {offset + shorter}: only the {engine_name} engine has it "
            f"({_shown(text(longer[shorter]))}; {len(python)} vs {len(native)} {what}s"
            f"{f' from {what} {offset}' if offset else ''})")


def _both(what: str, python_call: Callable[[], Result],
          native_call: Callable[[], Result]) -> tuple[Result, Result]:
    """Both engines' answers; raises :class:`DifferenceFound` ``exception`` when only one
    raises or they raise differently, and the exception itself when both raise alike."""
    python_error = native_error = None
    try:
        python_result = python_call()
    except Exception as exc:  # compared with the native engine's below
        python_error = exc
    try:
        native_result = native_call()
    except Exception as exc:  # compared with the Python engine's below
        native_error = exc
    if python_error is None and native_error is None:
        return python_result, native_result
    if (python_error is not None and native_error is not None
            and type(python_error) is type(native_error)
            and str(python_error) == str(native_error)):
        raise python_error  # both engines fail alike: an ordinary finding, not a difference
    side, raised = (("native", native_error) if native_error is not None
                    else ("python", python_error))
    where = exception_failure(raised, 0).where if raised is not None else ""
    raise DifferenceFound("exception", f"{what}: python {_described(python_error)}; "
                          f"native {_described(native_error)}", f"{side} {where}")


def _described(error: BaseException | None) -> str:
    if error is None:
        return "raises nothing"
    first = str(error).splitlines()[0] if str(error) else ""
    return f"raises {type(error).__name__}: {_shown(first)}"


class _Pair:
    """The two battles and what has been compared of them so far."""

    def __init__(self, python: Battle, native: Battle, json_every: int) -> None:
        self.python, self.native = python, native
        self.json_every = json_every
        self.events_seen = 0
        self.json_step = -1  # the step whose JSON was compared last

    def compare(self, step: int) -> list[Any]:
        """Compare everything after ``step`` actions; returns the Python legal actions."""
        python, native = self.python, self.native
        start = self.events_seen
        new_python = [event_to_dict(e) for e in python.events[start:]]
        new_native = [event_to_dict(e) for e in native.events[start:]]
        if new_python != new_native:
            raise DifferenceFound("events", _first_in_lists("event", new_python, new_native,
                                                            start))
        self.events_seen = len(python.events)
        states = ((python.decision, python.is_over, python.winner),
                  (native.decision, native.is_over, native.winner))
        if states[0] != states[1]:
            raise DifferenceFound("decision", "(decision, is_over, winner): python "
                                  f"{_shown(states[0])}, native {_shown(states[1])}")
        legal_python, legal_native = _both("legal_actions()", python.legal_actions,
                                           native.legal_actions)
        if legal_python != legal_native:
            raise DifferenceFound("legal", _first_in_lists("action", legal_python,
                                                           legal_native, text=str))
        state_python, state_native = _both("to_dict(events=False)",
                                           partial(python.to_dict, events=False),
                                           partial(native.to_dict, events=False))
        if state_python != state_native:
            found = first_difference(state_python, state_native)
            raise DifferenceFound("state", found or "the states differ")
        if self.json_every and step % self.json_every == 0:
            self.compare_json(step)
        return legal_python

    def compare_json(self, step: int) -> None:
        if step == self.json_step:
            return
        self.json_step = step
        text_python, text_native = _both("to_json()", self.python.to_json,
                                         self.native.to_json)
        if text_python != text_native:
            found = first_difference(json.loads(text_python), json.loads(text_native))
            raise DifferenceFound("json", found or "the JSON texts differ")


# ---------------------------------------------------------------- running one battle
def run(case: Case, chooser: Chooser, checks: Checks,
        agents_by_team: Mapping[str, str] | None = None) -> Outcome:
    """Play one battle on both engines (``chooser`` picks on the Python one); the
    outcome's battle and replay are the Python engine's, its failure the first difference
    (or an exception both engines raise alike). Never raises for a rules bug; raises
    :class:`NativeUnavailable` when the native engine is not built."""
    if not engine.native_available():
        raise NativeUnavailable("the native engine (rules._native) is not built here")
    python = case.battle(engine="python")
    native = case.battle(engine="native")
    names = dict(agents_by_team or {})
    replay = Replay.start(python, {t: names.get(t, "choices") for t in python.scenario.teams})
    outcome = Outcome(python, replay)
    pair = _Pair(python, native, checks.json_every)
    step = 0
    try:
        acts = pair.compare(step)
        while not python.is_over:
            chosen = choose_next(outcome, chooser, acts)
            if chosen is None:
                if outcome.failure is not None:
                    return _finish(outcome)
                break
            action, reason = chosen
            step += 1
            _both(f"apply({action})", partial(python.apply, action, reason=reason),
                  partial(native.apply, action, reason=reason))
            acts = pair.compare(step)
        pair.compare_json(step)  # the end state, whatever the sampling
    except DifferenceFound as found:
        outcome.failure = Failure("differential", found.name, found.detail, step,
                                  found.where)
    except Exception as exc:  # both engines crash alike: a rules bug, reported as data
        outcome.failure = exception_failure(exc, step)
    return _finish(outcome)


def _finish(outcome: Outcome) -> Outcome:
    outcome.replay.finish(outcome.battle)
    return outcome


def run_choices(case: Case, choices: Sequence[int], checks: Checks) -> Outcome:
    """Replay a list of choices on both engines (the shrinker's ``runner``)."""
    return run(case, choice_chooser(choices), checks)
