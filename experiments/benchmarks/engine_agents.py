"""The native engine against the Python engine where the agents think (issue 24), each
measured on both engines in the same run (``engines._paired``):

- tactician-vs-tactician skirmish battles/s through ``experiments.replay.play`` (what
  ``fray tournament`` plays): on the native engine the whole battle runs in the engine
  when the tactician has a native form;
- MCTS iterations/s (the default search: tactician rollouts and prior) on one decision
  of a skirmish 20 decisions in: on the native engine its rounds run in the engine;
- ``fray fuzz`` decisions/s: the Python engine's fuzzer (every check after every
  decision) against ``fray fuzz --native-loop`` (random battles in the engine with its
  cheap invariants after every event and decision, the full Python ones on a copy every
  50 decisions, each battle played again without them for determinism).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import agents
import rules
from rules import DecisionKind
from rules import engine as engines


@contextmanager
def engine_named(engine: str) -> Iterator[None]:
    """``$FRAY_ENGINE`` set to ``engine`` inside the block (what ``fray --engine`` does)."""
    previous = os.environ.get(engines.ENVIRONMENT_VARIABLE)
    os.environ[engines.ENVIRONMENT_VARIABLE] = engine
    try:
        yield
    finally:
        if previous is None:
            del os.environ[engines.ENVIRONMENT_VARIABLE]
        else:
            os.environ[engines.ENVIRONMENT_VARIABLE] = previous


def tactician_battles(scenario: str, battles: int) -> Callable[[str, int], float]:
    """Battles/s of ``battles`` tactician-vs-tactician battles (``replay.play``, compact)."""
    from experiments import replay

    def measure(engine: str, repeat: int) -> float:
        start = time.perf_counter()
        with engine_named(engine):
            for i in range(battles):
                replay.play(scenario, repeat * battles + i,
                            {"party": "tactician", "monsters": "tactician"}, events=False)
        return battles / (time.perf_counter() - start)
    return measure


def mcts_iterations(scenario: str, decisions: int) -> Callable[[str, int], float]:
    """Iterations/s of the default MCTS deciding ``decisions`` times at one state of
    ``scenario`` (the first turn with at least 8 legal actions from 20 random decisions
    in)."""
    def measure(engine: str, repeat: int) -> float:
        battle = rules.Battle.from_scenario(scenario, seed=repeat, engine=engine)
        battle.random_play(repeat, 20)
        while battle.decision is not None and (battle.decision.kind is not DecisionKind.TURN
                                               or len(battle.legal_actions()) < 8):
            battle.random_play(repeat, 1)  # on to a turn with choices to search
        search = agents.make("mcts", seed=repeat)
        done = 0
        start = time.perf_counter()
        for _ in range(decisions):
            search.act(battle)
            done += search.last_iterations
        return done / (time.perf_counter() - start)
    return measure


def fuzz_rate(seconds: float) -> Callable[[str, int], float]:
    """Decisions/s of a ``seconds`` fuzzing campaign: ``fray fuzz`` on the Python engine,
    ``fray fuzz --native-loop`` on the native one."""
    from experiments.fuzzing.fuzz_campaign import campaign

    def measure(engine: str, repeat: int) -> float:
        with tempfile.TemporaryDirectory() as folder, engine_named(engine):
            summary = campaign(Path(folder), seconds=seconds, seed=repeat,
                               native_loop=engine == "native")
        return summary.decisions / summary.seconds
    return measure


def rows(quick: bool) -> list[tuple[str, str, str, str, Callable[[str, int], float], bool]]:
    """``engines.figures``' rows for the thinking agents."""
    return [
        ("engines.tactician.skirmish", "tactician-vs-tactician skirmish battles/s", "/s",
         "tactician battles skirmish: native / python",
         tactician_battles("skirmish", 1 if quick else 12), False),
        ("engines.mcts.skirmish", "MCTS iterations/s (tactician rollouts)", "/s",
         "MCTS iterations skirmish: native / python",
         mcts_iterations("skirmish", 1 if quick else 3), False),
        ("engines.fuzz", "fray fuzz decisions/s (native: --native-loop)", "/s",
         "fray fuzz decisions: native / python", fuzz_rate(3 if quick else 20), False),
    ]
