"""Mutated saves on both engines (issue 46): saves of several shipped scenarios at several
points of play, each mutated at one place by every class of
``experiments.fuzzing.inputs`` (type swaps, boundary ints, deletes, duplicates,
cross-field swaps), seeded. Both engines must give the same verdict (accepted, or
refused with the same one-line message), an accepted save must satisfy the state
invariants and play on with identical decisions, legal actions and events on both
engines, and never raise half-way through ``apply``."""

from __future__ import annotations

import collections
import random

import pytest

from experiments.fuzzing.inputs import CLASSES, base_saves, check_mutant, mutate
from rules import engine

pytestmark = pytest.mark.skipif(not engine.native_available(),
                                reason="the native engine is not built")

#: Mutants per class and decisions each accepted one is played on: a few seconds.
PER_CLASS = 60
DECISIONS = 12


@pytest.fixture(scope="module")
def saves() -> list[dict]:
    return base_saves(scenarios=("duel", "skirmish", "cavalry", "casters", "horde"),
                      cuts=(0, 9, 40), seed=5)


@pytest.mark.parametrize("kind", CLASSES)
def test_mutated_saves_get_one_verdict_and_accepted_ones_play_alike(
        kind: str, saves: list[dict]) -> None:
    rng = random.Random(f"mutations-{kind}")
    verdicts: collections.Counter[str] = collections.Counter()
    problems = []
    for number in range(PER_CLASS):
        mutant = mutate(rng.choice(saves), kind, rng)
        outcome = check_mutant(mutant.text, seed=number, decisions=DECISIONS)
        verdicts[outcome.verdict] += 1
        if outcome.problem is not None:
            problems.append(f"{kind} at {mutant.path}: {outcome.verdict}: {outcome.problem}")
    assert problems == []
    assert set(verdicts) <= {"accepted", "refused"}
    assert verdicts["refused"] > 0  # the mutations reach the validator


def test_a_worker_that_dies_by_a_signal_is_a_crash_naming_the_signal() -> None:
    """``fray fuzz --inputs`` runs the engines in a child: a segfault there is reported
    (here a child that kills itself with SIGKILL after starting a mutant: a SIGSEGV would
    be reported as an error by the sanitized run's AddressSanitizer), and the next mutant
    gets a new child."""
    import sys

    from experiments.fuzzing.inputs import Worker

    dying = Worker([sys.executable, "-c", "import os, signal, sys; sys.stdin.readline(); "
                    "print('start', flush=True); os.kill(os.getpid(), signal.SIGKILL)"])
    first = dying.check("{}", 0)
    second = dying.check("{}", 1)
    dying.close()
    assert (first.verdict, first.problem) == ("crash", "the process died: signal 9 (SIGKILL)")
    assert second.verdict == "crash"
