"""The agent protocol (DESIGN.md "Public API"): ``agent.act(battle)`` returns a legal action
for ``battle.decision.actor``."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from rules import Action, Battle, Decision


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(battle) -> rules.Action``, legal for the current decision."""

    def act(self, battle: Battle) -> Action: ...


class SeededAgent:
    """Base class for agents that draw random numbers: one ``numpy`` generator, seeded."""

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, battle: Battle) -> Action:  # pragma: no cover - abstract
        raise NotImplementedError

    def choose(self, options: list[Action]) -> Action:
        """One of ``options``, uniformly at random."""
        return options[int(self.rng.integers(len(options)))]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


def decision_of(battle: Battle) -> Decision:
    """The pending decision; raises if the battle has none (it is over)."""
    if battle.decision is None:
        raise ValueError("the battle is over: there is no decision to act on")
    return battle.decision


def legal_for(battle: Battle) -> list[Action]:
    """The legal actions now; raises if the battle has no pending decision."""
    decision_of(battle)
    return battle.legal_actions()
