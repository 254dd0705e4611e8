"""The registered Gymnasium ids, composed: a fray env whose opponent is named.

``env`` translates battles to arrays and never imports ``agents`` (docs/architecture.md):
:class:`env.SkirmishEnv` takes its opponent as an agent or a factory ``factory(seed) ->
agent``. Names belong to ``agents``, so this module is where a name becomes a factory.
``env/__init__.py`` registers every ``fray/...-v0`` id with the entry point
``agents.environments:skirmish_env`` (a string: Gymnasium imports this module only when
an id is made), so the documented usage keeps working:

    gymnasium.make("env:fray/Skirmish-v0", opponent="berserker")
    gymnasium.make("fray/Duel-v0", opponent="mcts(iterations=16)", team="party")

An unknown name fails here, when the env is made, in one line listing the agents.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import agents
import rules
from agents.base import Agent
from env.core import OpponentSource
from env.skirmish import SkirmishEnv

DEFAULT_OPPONENT = "berserker"


@dataclass(frozen=True)
class NamedAgent:
    """A factory of agents by name or spec: ``NamedAgent("tactician")(seed)`` is
    ``agents.make("tactician", seed=seed)`` (picklable, so vector envs can carry it)."""

    name: str

    def __call__(self, seed: int | None = None) -> Agent:
        return agents.make(self.name, seed=seed)


def opponent_factory(opponent: str | OpponentSource) -> OpponentSource:
    """An env's ``opponent=``: a name or spec becomes a :class:`NamedAgent` (checked now:
    an unknown name is a one-line ValueError listing the registered agents, a
    model that cannot load one naming the file); an agent
    or a factory is passed on as given."""
    if not isinstance(opponent, str):
        return opponent
    try:
        agents.make(opponent, seed=0)
    except (ValueError, rules.FrayError) as exc:
        raise ValueError(f"opponent: {exc}") from None
    return NamedAgent(opponent)


def skirmish_env(scenario: str | Path | None = None,
                 opponent: str | OpponentSource = DEFAULT_OPPONENT,
                 **kwargs: Any) -> SkirmishEnv:
    """:class:`env.SkirmishEnv` with ``opponent`` a name, a spec, an agent or a factory
    (default ``"berserker"``); the other keyword arguments are the env's."""
    return SkirmishEnv(scenario, opponent_factory(opponent), **kwargs)


#: what ``gymnasium.make`` reads from an entry point (the render modes it may ask for)
skirmish_env.metadata = SkirmishEnv.metadata  # type: ignore[attr-defined]
