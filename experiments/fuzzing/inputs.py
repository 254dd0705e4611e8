"""Hostile saves (issue 46): saved battles mutated the way a fuzzer does, and the checks
both engines must pass on them (``fray fuzz --inputs``, ``tests/hostile``).

:func:`base_saves` plays shipped scenarios with random actions and keeps ``to_dict()``
saves at several points of play (mid-move, mid-attack, between turns, over).
:func:`mutate` changes one place of a save by one of the :data:`CLASSES`:

- ``type``: a value replaced by one of another JSON type (a string, a float, NaN, null,
  a bool, a list, an object);
- ``boundary``: an integer replaced by a boundary (-1, 0, 1, the limits of
  :mod:`rules.limits` and one past, 2**31 - 1, 2**31, -2**31 - 1, 2**63, 10**6, +-1);
- ``delete``: a key of an object or an element of a list removed;
- ``duplicate``: an element of a list repeated, or an object given an unknown key;
- ``swap``: a value replaced by another value of the same JSON type from elsewhere in
  the save (an id for another id, a uid, a square, a level...).

:func:`verdict` loads a mutant on one engine: accepted, or refused with the one-line
``SaveError`` (any other exception is a finding). :func:`check_mutant` loads it on both:
the verdicts must be equal (accepted by both, or refused with the same message), an
accepted save must satisfy the state invariants (``invariants.check_state``) and play on
(random legal actions, seeded) with identical decisions, legal actions and events on both
engines. ``fray fuzz --inputs`` runs :func:`check_mutant` in a worker process per batch
(``python -m experiments.fuzzing.inputs``), so a crash of the native engine (a signal)
is caught and names the mutant that caused it.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import os
import random
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules import Battle, limits
from rules.errors import FrayError, InvariantViolation
from rules.events import event_to_dict

CLASSES = ("type", "boundary", "delete", "duplicate", "swap")
#: Shipped scenarios the saves come from (mounts, casters, doors, many units, fatigue).
SCENARIOS = ("duel", "skirmish", "horde", "cavalry", "casters", "crypt", "long_fight")
#: Where play is cut to take a save: decisions into a battle.
CUTS = (0, 7, 23, 60, 150)
#: Values a type mutation puts in place of any value.
OTHER_TYPES: tuple[Any, ...] = ("x", "", 1.5, math.nan, None, True, False, [], {}, [1, 2])
#: Integers a boundary mutation tries.
BOUNDARIES = (-1, 0, 1, 2, 4, 5, 6, 99, limits.MAX_STAT, limits.MAX_STAT + 1,
              limits.MAX_ROUNDS + 1, 10**6, 2**31 - 1, 2**31, -2**31 - 1, 2**63)
#: A problem's message is cut to this many characters (a legal-action list can be long).
PROBLEM_CHARS = 600
#: Decisions an accepted mutant is played on for.
PLAY_DECISIONS = 30

Place = tuple[str | int, ...]


def base_saves(scenarios: tuple[str, ...] = SCENARIOS, cuts: tuple[int, ...] = CUTS,
               seed: int = 0) -> list[dict[str, Any]]:
    """Saves of each scenario after each number of random decisions in ``cuts`` (and at
    the end when the battle ends before a cut)."""
    out = []
    for number, name in enumerate(scenarios):
        battle = Battle.from_scenario(name, seed=seed + number, engine="python")
        chooser = random.Random(seed * 1000 + number)
        played = 0
        for cut in cuts:
            while played < cut and not battle.is_over:
                battle.apply(chooser.choice(battle.legal_actions()))
                played += 1
            out.append(json.loads(battle.to_json()))
            if battle.is_over:
                break
    return out


def _places(value: Any, path: Place = ()) -> Iterator[tuple[Place, Any]]:
    """Every place of a save (but the scenario text and its events' inner values, which
    are many and alike: the events themselves and their first level are kept)."""
    yield path, value
    if path[:1] == ("scenario",) or (path[:1] == ("events",) and len(path) >= 3):
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _places(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _places(inner, (*path, index))


def _get(data: Any, path: Place) -> Any:
    for key in path:
        data = data[key]
    return data


def _set(data: Any, path: Place, value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


def _kind(value: Any) -> str:
    return "int" if type(value) is int else type(value).__name__


@dataclass
class Mutant:
    """One mutated save: its class, where it was changed and the JSON text."""

    kind: str
    path: str
    text: str


def mutate(save: dict[str, Any], kind: str, rng: random.Random) -> Mutant:
    """``save`` changed at one place by the mutation class ``kind`` (see the module doc)."""
    data = copy.deepcopy(save)
    places = [(path, value) for path, value in _places(data) if path]
    if kind == "boundary":
        places = [(p, v) for p, v in places if type(v) is int] or places
    elif kind in ("delete", "duplicate"):
        places = [(p, v) for p, v in places if isinstance(v, (dict, list)) and v] or places
    path, value = rng.choice(places)
    if kind == "type":
        choices = [other for other in OTHER_TYPES if _kind(other) != _kind(value)]
        _set(data, path, copy.deepcopy(rng.choice(choices)))
    elif kind == "boundary":
        near = [value - 1, value + 1, -value] if type(value) is int else []
        _set(data, path, rng.choice([*BOUNDARIES, *near]))
    elif kind == "delete" and isinstance(value, (dict, list)) and value:
        if isinstance(value, dict):
            del value[rng.choice(list(value))]
        else:
            del value[rng.randrange(len(value))]
    elif kind == "duplicate" and isinstance(value, (dict, list)) and value:
        if isinstance(value, dict):
            value["unexpected"] = copy.deepcopy(next(iter(value.values())))
        else:
            value.insert(rng.randrange(len(value) + 1), copy.deepcopy(rng.choice(value)))
    elif kind == "swap":
        alike = [v for p, v in places if _kind(v) == _kind(value) and v != value
                 and p[:1] != ("events",)]
        if alike:
            _set(data, path, copy.deepcopy(rng.choice(alike)))
    shown = "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path)
    return Mutant(kind, shown.lstrip("."), json.dumps(data, sort_keys=True))


def verdict(text: str, engine: str) -> tuple[str, str]:
    """``("accepted", "")`` or ``("refused", the SaveError or other FrayError line)``;
    any other exception propagates (a finding)."""
    try:
        Battle.from_json(text, engine=engine)
    except FrayError as error:
        return ("refused", f"{type(error).__name__}: {error}")
    return ("accepted", "")


@dataclass
class Outcome:
    """What :func:`check_mutant` found: ``verdict`` (accepted or refused), and
    ``problem`` (None when every check held): a crash, a disagreement, an exception
    at load, a broken invariant or a difference in play."""

    verdict: str
    problem: str | None = None


def check_mutant(text: str, seed: int = 0, decisions: int = PLAY_DECISIONS) -> Outcome:
    """Both engines on one mutated save (see the module doc)."""
    found = {}
    for engine in ("python", "native"):
        try:
            found[engine] = verdict(text, engine)
        except Exception as error:  # a finding, reported, never hidden
            return Outcome("exception", f"{engine}: {type(error).__name__} at load: {error}")
    if found["python"] != found["native"]:
        return Outcome("disagreement", f"python {found['python']}, native {found['native']}")
    if found["python"][0] == "refused":
        return Outcome("refused")
    try:
        return Outcome("accepted", play_both(text, seed, decisions))
    except Exception as error:  # a finding, reported, never hidden
        return Outcome("accepted", f"{type(error).__name__} in play: {error}")


def play_both(text: str, seed: int, decisions: int) -> str | None:
    """An accepted save: its invariants, then ``decisions`` random decisions on both
    engines with identical decisions, legal actions and events (None), or the problem."""
    from experiments.fuzzing.invariants import check_state

    python = Battle.from_json(text, engine="python")
    native = Battle.from_json(text, engine="native")
    try:
        check_state(python)
    except InvariantViolation as error:
        return f"accepted a state breaking {error}"
    chooser = random.Random(seed)
    start = len(python.events)
    for number in range(decisions):
        if python.is_over or native.is_over:
            if python.is_over != native.is_over:
                return f"decision {number}: over on one engine only"
            break
        legal = python.legal_actions()
        if legal != native.legal_actions() or python.decision != native.decision:
            return f"decision {number}: the engines offer different decisions or actions"
        action = chooser.choice(legal)
        try:
            python.apply(action)
        except Exception as error:  # a finding, reported
            return f"decision {number}: python {type(error).__name__}: {error}"
        try:
            native.apply(action)
        except Exception as error:  # a finding, reported
            return f"decision {number}: native {type(error).__name__}: {error}"
        try:
            check_state(python)
        except InvariantViolation as error:
            return f"decision {number}: {error}"
    events = [event_to_dict(e) for e in python.events[start:]]
    if events != [event_to_dict(e) for e in native.events[start:]]:
        return "the engines played different events"
    return None


def worker() -> None:
    """``python -m experiments.fuzzing.inputs``: one JSON line per mutant on stdin
    (``{"text": ..., "seed": ...}``), ``start`` then the outcome line on stdout each, so
    the parent knows which mutant a crash (a signal) stopped at."""
    for line in sys.stdin:
        job = json.loads(line)
        print("start", flush=True)
        outcome = check_mutant(job["text"], job["seed"])
        problem = None if outcome.problem is None else outcome.problem[:PROBLEM_CHARS]
        print(json.dumps({"verdict": outcome.verdict, "problem": problem}), flush=True)


# ------------------------------------------------------------------ fray fuzz --inputs
#: Seconds one mutant may take in the worker before it counts as a hang.
HANG_SECONDS = 120.0


@dataclass
class Tally:
    """Mutants tried per class, their verdicts and the problems found."""

    tried: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    accepted: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    refused: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    problems: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def record(self) -> dict[str, Any]:
        return {"tried": self.tried, "accepted": self.accepted, "refused": self.refused,
                "problems": len(self.problems), "seconds": round(self.seconds, 1)}


class Worker:
    """``python -m experiments.fuzzing.inputs`` as a child process, restarted after a
    crash or a hang."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or [sys.executable, "-m", "experiments.fuzzing.inputs"]
        self.process: subprocess.Popen[bytes] | None = None
        self.pending = b""

    def _start(self) -> subprocess.Popen[bytes]:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, bufsize=0)
            self.pending = b""
        return self.process

    def _line(self, process: subprocess.Popen[bytes], deadline: float) -> bytes | None:
        """The next line of the child (None: it died or the deadline passed)."""
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            ready = select.select([process.stdout], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                return None
            chunk = os.read(process.stdout.fileno(), 65536)  # type: ignore[union-attr]
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line

    def check(self, text: str, seed: int) -> Outcome:
        """:func:`check_mutant` in the child; a signal or a hang is a problem too."""
        process = self._start()
        if process.stdin is None:
            raise RuntimeError("the worker has no stdin")
        # a child that already died is found below, by its exit status
        with contextlib.suppress(BrokenPipeError):
            process.stdin.write((json.dumps({"text": text, "seed": seed}) + "\n").encode())
        deadline = time.monotonic() + HANG_SECONDS
        started = self._line(process, deadline)
        result = self._line(process, deadline) if started is not None else None
        if result is not None:
            found = json.loads(result)
            return Outcome(found["verdict"], found["problem"])
        try:  # the output ended: the child is dying, or it hangs
            process.wait(timeout=max(deadline - time.monotonic(), 0) + 10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return Outcome("hang", f"no verdict within {HANG_SECONDS:.0f} s")
        code = process.returncode
        how = f"signal {-code} ({signal.Signals(-code).name})" if code < 0 else f"exit {code}"
        return Outcome("crash", f"the process died: {how}")

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            self.process.wait(timeout=30)


def campaign(out: Path, *, seconds: float, seed: int = 0, mutants: int | None = None,
             on_mutant: Callable[[Tally], None] | None = None) -> Tally:
    """``fray fuzz --inputs``: mutants of the :func:`base_saves` (round-robin over the
    classes, drawn from ``seed``) checked in a :class:`Worker` until ``seconds`` have
    passed (or ``mutants`` were tried). Each problem is written to
    ``OUT/failures/NN-inputs-<class>-<verdict>.json`` (the mutated save in ``save``),
    the totals to ``OUT/inputs.json``."""
    rng = random.Random(seed)
    saves = base_saves(seed=seed)
    (out / "failures").mkdir(parents=True, exist_ok=True)
    tally = Tally()
    worker = Worker()
    start = time.monotonic()
    number = 0
    try:
        while time.monotonic() - start < seconds and (mutants is None or number < mutants):
            kind = CLASSES[number % len(CLASSES)]
            mutant = mutate(rng.choice(saves), kind, rng)
            outcome = worker.check(mutant.text, number)
            tally.tried[kind] += 1
            if outcome.verdict == "accepted":
                tally.accepted[kind] += 1
            elif outcome.verdict == "refused":
                tally.refused[kind] += 1
            if outcome.problem is not None:
                name = f"{len(tally.problems):02d}-inputs-{kind}-{outcome.verdict}.json"
                found = {"class": kind, "path": mutant.path, "verdict": outcome.verdict,
                         "problem": outcome.problem, "save": mutant.text, "file": name}
                tally.problems.append(found)
                (out / "failures" / name).write_text(json.dumps(found, indent=1) + "\n",
                                                     encoding="utf-8")
            number += 1
            tally.seconds = time.monotonic() - start
            if on_mutant is not None:
                on_mutant(tally)
    finally:
        worker.close()
        tally.seconds = time.monotonic() - start
        (out / "inputs.json").write_text(json.dumps(tally.record(), indent=1) + "\n",
                                         encoding="utf-8")
    return tally


if __name__ == "__main__":
    worker()
