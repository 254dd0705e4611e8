"""Policies that play battles: ``agents.make(name, seed=None)`` (DESIGN.md "Public API").

Registered now: ``random`` (uniform over the legal actions) and ``berserker`` (a melee
rusher). Others register themselves with :func:`register`; a name ``"prefix:argument"``
(e.g. ``"learned:PATH"``) goes to the factory registered as ``prefix`` with the argument.

    import agents
    agent = agents.make("berserker", seed=3)
    action = agent.act(battle)          # legal for battle.decision.actor
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import Agent, SeededAgent
from agents.berserker import Berserker
from agents.random_agent import RandomAgent

Factory = Callable[..., Agent]
_REGISTRY: dict[str, Factory] = {}


def register(name: str, factory: Factory, *, replace: bool = False) -> None:
    """Make ``agents.make(name, seed=...)`` call ``factory(seed=...)``; a factory for a
    ``prefix:argument`` name is called as ``factory(argument, seed=...)``."""
    if name in _REGISTRY and not replace:
        raise ValueError(f"agent {name!r} is already registered")
    _REGISTRY[name] = factory


def names() -> list[str]:
    """The registered agent names, sorted."""
    return sorted(_REGISTRY)


def make(name: str, seed: int | None = None, **kwargs: Any) -> Agent:
    """A new agent by registered name (``"random"``, ``"berserker"``, ...)."""
    if name in _REGISTRY:
        return _REGISTRY[name](seed=seed, **kwargs)
    prefix, sep, arg = name.partition(":")
    if sep and prefix in _REGISTRY:
        return _REGISTRY[prefix](arg, seed=seed, **kwargs)
    raise ValueError(f"unknown agent {name!r}; registered: {', '.join(names())}")


register("random", RandomAgent)
register("berserker", Berserker)

__all__ = ["Agent", "Berserker", "RandomAgent", "SeededAgent", "make", "names", "register"]
