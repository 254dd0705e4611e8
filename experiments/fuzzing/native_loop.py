"""``fray fuzz --native-loop``: random play inside the native engine (issue 23).

Each battle is played by :meth:`rules.Battle.random_play` in chunks of ``SAMPLE_EVERY``
decisions, all in C++ with the engine's cheap invariants checked as it goes (the bodies
after every event, the bounds after every decision: ``rules/native/core/invariants.cpp``);
after every chunk the full Python invariants (:func:`experiments.fuzzing.invariants.
check_state`) run on a copy of the state, a sample, and at the end a second battle from
the same seed, played in the engine without that sample, must end in the same state
(determinism).

The sample reads a copy (``Battle.clone``, whose Python mirror is pulled from the engine
when first read), so the battle itself never leaves the engine: no mirror is pulled after
each chunk and pushed back before the next. The second battle never builds a mirror at
all, so it also checks that the first one's copies changed nothing.

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
from rules import Action, Battle, bridge
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


def play(case: Case, every: int = SAMPLE_EVERY, *, checked: bool = True,
         battle: Battle | None = None) -> tuple[Battle, int]:
    """The battle of ``case`` played to the end by the native loop with its checks; the
    battle and the decisions made. ``checked``: the full Python invariants on a copy
    after every chunk. ``battle``: the case's battle, already built on the native engine
    (default: built here). Raises what the checks raise."""
    if battle is None:
        battle = case.battle(engine="native")
    if checked:
        check_copy(battle)
    made, chunk = 0, 0
    while not battle.is_over:
        made += battle.random_play(chunk_seed(case.seed, chunk), every, check=True)
        chunk += 1
        if checked:
            check_copy(battle)
    return battle, made


def check_copy(battle: Battle) -> None:
    """The full Python invariants on a copy of ``battle``: its legal actions listed in the
    engine first (a copy shares them), so the copy's mirror, once read, never goes back."""
    battle.legal_actions()
    check_state(battle.clone())


def same_end(first: Battle, second: Battle) -> bool:
    """Whether two native battles are in the same state with the same event logs:
    ``first.to_dict() == second.to_dict()``, the logs compared as the engine's bytes
    (``event_bytes``: each event's type and fields, names as their text) rather than as
    Python events."""
    def log(battle: Battle) -> bytes:
        if battle.engine == "python":
            raise ValueError("same_end: the battle runs on the Python engine")
        return bridge.engine_parts(battle)[0].event_bytes()

    return (first.to_dict(events=False) == second.to_dict(events=False)
            and log(first) == log(second))


def run_native(case: Case, checks: Checks, agents_by_team: Mapping[str, str] | None = None,
               battle: Battle | None = None) -> Outcome:
    """One battle of the native loop as an :class:`Outcome` (never raises for a rules
    bug): on a failure, the same battle again under ``fray fuzz``'s checks. ``battle``:
    the case's battle on the native engine, if the caller has built it."""
    try:
        battle, made = play(case, battle=battle)
        again, _ = play(case, checked=False)
        if not same_end(again, battle):
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
