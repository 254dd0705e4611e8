"""``fray fuzz --native-loop``: random play inside the native engine (issue 23).

Each battle is played by :meth:`rules.Battle.random_play` in chunks of ``SAMPLE_EVERY``
decisions, all in C++ with the engine's cheap invariants checked as it goes (the bodies
after every event, the bounds after every decision: ``rules/native/invariants.cpp``);
after every chunk the full Python invariants (:func:`experiments.fuzzing.invariants.
check_state`) run on the state, a sample, and at the end a second battle from the same
seed must end in the same JSON (determinism).

The choices are a function of the battle's seed (chunk ``k`` draws from
``numpy.random.default_rng(chunk_seed(seed, k))``), so when anything fails the same
battle is played again by :func:`experiments.fuzzing.fuzz.run` with
:func:`uniform_chooser`, which makes the same choices one decision at a time under every
check of ``fray fuzz``: the failure is then recorded, shrunk and written as any other.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from experiments.fuzzing.fuzz import (
    Case,
    Checks,
    Chooser,
    Failure,
    Outcome,
    exception_failure,
    run,
)
from experiments.fuzzing.invariants import check_state
from experiments.replay import Replay
from rules import Action, Battle
from rules.errors import InvariantViolation

#: decisions played inside the engine between two samples of the full Python invariants
SAMPLE_EVERY = 50
SEEDS = 2**32  # Battle.random_play's seeds are 32-bit


def chunk_seed(seed: int, chunk: int) -> int:
    """The seed of chunk ``chunk`` of the battle seeded ``seed``."""
    return (seed * 1_000_003 + chunk) % SEEDS


def uniform_chooser(seed: int, every: int = SAMPLE_EVERY) -> Chooser:
    """The choices ``play`` makes inside the engine, one decision at a time."""
    state = {"made": 0, "rng": np.random.default_rng(chunk_seed(seed, 0))}

    def choose(battle: Battle, acts: list[Action]) -> tuple[int, str | None]:
        made = state["made"]
        if made and made % every == 0:
            state["rng"] = np.random.default_rng(chunk_seed(seed, made // every))
        state["made"] = made + 1
        return int(state["rng"].integers(0, len(acts))), None

    return choose


def play(case: Case, every: int = SAMPLE_EVERY) -> tuple[Battle, int]:
    """The battle of ``case`` played to the end by the native loop with its checks; the
    battle and the decisions made. Raises what the checks raise."""
    battle = case.battle(engine="native")
    check_state(battle)
    made, chunk = 0, 0
    while not battle.is_over:
        made += battle.random_play(chunk_seed(case.seed, chunk), every, check=True)
        chunk += 1
        check_state(battle)
    return battle, made


def run_native(case: Case, checks: Checks, agents_by_team: Mapping[str, str] | None = None
               ) -> Outcome:
    """One battle of the native loop as an :class:`Outcome` (never raises for a rules
    bug): on a failure, the same battle again under ``fray fuzz``'s checks."""
    try:
        battle, made = play(case)
        again, _ = play(case)
        if again.to_json() != battle.to_json():
            raise InvariantViolation("replay", "the same seed played again ended elsewhere")
    except Exception as exc:  # any failure of the loop: replayed below, step by step
        outcome = run(case, uniform_chooser(case.seed), checks, agents_by_team)
        if outcome.failure is None:  # not seen one decision at a time: report it as is
            failure = (Failure("invariant", exc.name, exc.detail, 0)
                       if isinstance(exc, InvariantViolation) else exception_failure(exc, 0))
            outcome.failure = failure
        return outcome
    outcome = Outcome(battle, Replay.start(battle, dict(agents_by_team or {})))
    outcome.played = made
    return outcome
