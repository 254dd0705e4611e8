"""Policies that play battles: ``agents.make(name, seed=None)`` (DESIGN.md "Public API").

Registered: ``random`` (uniform over the legal actions), ``berserker`` (a melee rusher),
the scripted tactics ``tactician``, ``skirmisher``, ``defender`` and ``pack`` (each
described in its module docstring; every decision sets ``agent.reason``) and ``mcts``
(search on the forward model, :mod:`agents.mcts`) and ``az`` (search guided by a
policy/value network, :mod:`agents.az`). Others register themselves with
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
from agents.spec import Option, TableSource, check_options, parse_spec, spec_label
from agents.tactician import Tactician

Factory = Callable[..., Agent]
_REGISTRY: dict[str, Factory] = {}
_OPTIONS: dict[str, TableSource] = {}


def register(name: str, factory: Factory, *, replace: bool = False,
             options: TableSource = None) -> None:
    """Make ``agents.make(name, seed=...)`` call ``factory(seed=...)``; a factory for a
    ``prefix:argument`` name is called as ``factory(argument, seed=...)``. ``options`` is
    the agent's option table (:class:`agents.spec.Option`; or a function returning it, so
    that the module is imported on first use); by default the factory's ``OPTIONS``. An
    agent without a table gets its options unchecked."""
    if name in _REGISTRY and not replace:
        raise ValueError(f"agent {name!r} is already registered")
    _REGISTRY[name] = factory
    _OPTIONS[name] = options if options is not None else getattr(factory, "OPTIONS", None)


def option_table(name: str) -> tuple[Option, ...] | None:
    """The option table of registered agent ``name`` (None: it declares none)."""
    source = _OPTIONS.get(name)
    return tuple(source() if callable(source) else source) if source is not None else None


def names() -> list[str]:
    """The registered agent names, sorted."""
    return sorted(_REGISTRY)


def make(name: str, seed: int | None = None, **kwargs: Any) -> Agent:
    """A new agent by registered name (``"random"``, ``"berserker"``, ...) or by spec,
    ``"name(key=value,...)"`` (:mod:`agents.spec`): the spec's arguments, then
    ``kwargs``, go to the factory. An unknown name or a malformed spec: ValueError."""
    spec = None
    if name not in _REGISTRY and ("(" in name or ")" in name):
        spec = name
        name, options = parse_spec(name)
        kwargs = {**dict(options), **kwargs}
    key, argument = name, None
    if name not in _REGISTRY:
        prefix, sep, argument = name.partition(":")
        if not sep or prefix not in _REGISTRY:
            raise ValueError(f"unknown agent {name!r}; registered: {', '.join(names())}")
        key = prefix
    table = option_table(key)
    if table is not None:
        kwargs = check_options(key, table, kwargs, spec or _label(name, kwargs))
    factory = _REGISTRY[key]
    try:
        if argument is None:
            return factory(seed=seed, **kwargs)
        return factory(argument, seed=seed, **kwargs)
    except TypeError as exc:  # an agent without a table, given an option it does not take
        if table is not None or not kwargs:
            raise
        raise ValueError(f"agent {spec or _label(name, kwargs)!r}: {exc}") from None


def _label(name: str, kwargs: dict[str, Any]) -> str:
    return spec_label(name, kwargs.items())


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


def _mcts_options() -> tuple[Option, ...]:
    from agents.mcts import MCTS

    return MCTS.OPTIONS


register("mcts", _mcts, options=_mcts_options)


def _learned(spec: str = "", seed: int | None = None, **kwargs: Any) -> Agent:
    """``learned:PATH``: torch is imported only here, when a learned agent is made."""
    from agents.learned import make_learned

    return make_learned(spec, seed=seed, **kwargs)


def _learned_options() -> tuple[Option, ...]:
    from agents.learned import LearnedAgent

    return LearnedAgent.OPTIONS


register("learned", _learned, options=_learned_options)


def _az(seed: int | None = None, **kwargs: Any) -> Agent:
    """``az``: search guided by a policy/value network; torch is imported on first use."""
    from agents.az import AZ

    return AZ(seed=seed, **kwargs)


def _az_options() -> tuple[Option, ...]:
    from agents.az import AZ

    return AZ.OPTIONS


register("az", _az, options=_az_options)

__all__ = ["Agent", "Berserker", "Defender", "Pack", "PerUnit", "RandomAgent", "SeededAgent",
           "Skirmisher", "Tactician", "make", "names", "register"]
