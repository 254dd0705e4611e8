"""The agents' registry: names -> factories and their option tables (:func:`register`,
:func:`names`, :func:`option_table`). Below every agent module: it imports none of them
(agents/__init__.py registers the shipped ones), so an agent that makes others by name
(:mod:`agents.factory`) imports no circle (issue 47)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.base import Agent
    from agents.spec import Option, TableSource

Factory = Callable[..., "Agent"]
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
