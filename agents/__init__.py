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

from typing import Any

from agents.base import Agent, SeededAgent
from agents.berserker import Berserker
from agents.defender import Defender
from agents.factory import make
from agents.pack import Pack
from agents.per_unit import PerUnit
from agents.random_agent import RandomAgent
from agents.registry import _OPTIONS as _OPTIONS
from agents.registry import _REGISTRY as _REGISTRY
from agents.registry import Factory as Factory
from agents.registry import names, register
from agents.registry import option_table as option_table
from agents.skirmisher import Skirmisher
from agents.spec import Option
from agents.tactician import Tactician

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
