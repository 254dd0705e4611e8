"""``agents.make``: a new agent by registered name or spec (:mod:`agents.registry`,
:mod:`agents.spec`); what agents that make other agents by name import."""

from __future__ import annotations

from typing import Any

from agents import registry
from agents.base import Agent
from agents.spec import check_options, parse_spec, spec_label


def make(name: str, seed: int | None = None, **kwargs: Any) -> Agent:
    """A new agent by registered name (``"random"``, ``"berserker"``, ...) or by spec,
    ``"name(key=value,...)"`` (:mod:`agents.spec`): the spec's arguments, then
    ``kwargs``, go to the factory. An unknown name or a malformed spec: ValueError."""
    spec = None
    if name not in registry._REGISTRY and ("(" in name or ")" in name):
        spec = name
        name, options = parse_spec(name)
        kwargs = {**dict(options), **kwargs}
    key, argument = name, None
    if name not in registry._REGISTRY:
        prefix, sep, argument = name.partition(":")
        if not sep or prefix not in registry._REGISTRY:
            raise ValueError(f"unknown agent {name!r}; registered: "
                             f"{', '.join(registry.names())}")
        key = prefix
    table = registry.option_table(key)
    if table is not None:
        kwargs = check_options(key, table, kwargs, spec or _label(name, kwargs))
    factory = registry._REGISTRY[key]
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
