"""Policies that play battles: ``agents.make(name, seed=None)`` (DESIGN.md "Public API").

Registered: ``random`` (uniform over the legal actions), ``berserker`` (a melee rusher),
the scripted tactics ``tactician``, ``skirmisher``, ``defender`` and ``pack`` (each
described in its module docstring; every decision sets ``agent.reason``) and ``mcts``
(search on the forward model, :mod:`agents.mcts`). Others register themselves with
:func:`register`; a name ``"prefix:argument"`` (e.g. ``"learned:PATH"``) goes to the
factory registered as ``prefix`` with the argument.

    import agents
    agent = agents.make("berserker", seed=3)
    action = agent.act(battle)          # legal for battle.decision.actor
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import Agent, SeededAgent
from agents.berserker import Berserker
from agents.defender import Defender
from agents.pack import Pack
from agents.per_unit import PerUnit
from agents.random_agent import RandomAgent
from agents.skirmisher import Skirmisher
from agents.spec import parse_spec
from agents.tactician import Tactician

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
    """A new agent by registered name (``"random"``, ``"berserker"``, ...) or by spec,
    ``"name(key=value,...)"`` (:mod:`agents.spec`): the spec's arguments, then
    ``kwargs``, go to the factory. An unknown name or a malformed spec: ValueError."""
    if name in _REGISTRY:
        return _REGISTRY[name](seed=seed, **kwargs)
    if name.rstrip().endswith(")"):
        base, options = parse_spec(name)
        try:
            return make(base, seed=seed, **{**dict(options), **kwargs})
        except TypeError as exc:  # an argument the factory does not take
            raise ValueError(f"agent {name!r}: {exc}") from None
    prefix, sep, arg = name.partition(":")
    if sep and prefix in _REGISTRY:
        return _REGISTRY[prefix](arg, seed=seed, **kwargs)
    raise ValueError(f"unknown agent {name!r}; registered: {', '.join(names())}")


register("random", RandomAgent)
register("berserker", Berserker)
register("tactician", Tactician)
register("skirmisher", Skirmisher)
register("defender", Defender)
register("pack", Pack)
register("per_unit", PerUnit)


def _mcts(seed: int | None = None, **kwargs: Any) -> Agent:
    """``mcts``: imported on first use (it makes its rollout and prior agents by name)."""
    from agents.mcts import MCTS

    return MCTS(seed=seed, **kwargs)


register("mcts", _mcts)


def _learned(spec: str = "", seed: int | None = None, **kwargs: Any) -> Agent:
    """``learned:PATH``: torch is imported only here, when a learned agent is made."""
    from agents.learned import make_learned

    return make_learned(spec, seed=seed, **kwargs)


register("learned", _learned)

__all__ = ["Agent", "Berserker", "Defender", "Pack", "PerUnit", "RandomAgent", "SeededAgent",
           "Skirmisher", "Tactician", "make", "names", "register"]
