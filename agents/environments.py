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
from functools import partial
from pathlib import Path
from typing import Any

from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv

import agents
import rules
from agents.base import Agent
from env import native
from env.core import OpponentSource
from env.skirmish import SkirmishEnv
from env.vector import SkirmishVectorEnv
from rules import bridge

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


def skirmish_vector_env(num_envs: int = 8, scenario: str | Path | None = None,
                        opponent: str | OpponentSource = DEFAULT_OPPONENT,
                        **kwargs: Any) -> VectorEnv:
    """``gymnasium.make_vec("fray/...", num_envs=N)``: the batched native vector env
    (:class:`env.vector.SkirmishVectorEnv`) when the native engine is built and the
    opponent has a native form; otherwise (or with ``engine="python"``, or a single-env
    option such as ``render_mode``) a ``SyncVectorEnv`` of ``SkirmishEnv`` with the same
    ``SAME_STEP`` autoreset, so the same code runs everywhere. ``options`` (agent specs)
    and ``option_seed``: a batch of selector envs (``agents/options.py``), row ``i`` as
    ``OptionsWrapper(env, options, seed=option_seed + i)``."""
    from agents.options import OptionsWrapper, option_twin_rows

    options = kwargs.pop("options", None)
    option_seed = int(kwargs.pop("option_seed", 0))
    source = opponent_factory(opponent)
    batched = {"team", "illegal_penalty", "damage_reward", "flat_obs", "content_dir", "copy"}
    engine = kwargs.get("engine")
    probe = source(0) if not hasattr(source, "act") or isinstance(source, type) else source
    if (set(kwargs) - {"engine"} <= batched and engine in (None, "native") and native.available()
            and bridge.twin_of(probe) is not None):
        twins = None if options is None else option_twin_rows(options, option_seed,
                                                               int(num_envs))
        if options is None or twins is not None:
            kwargs.pop("engine", None)
            return SkirmishVectorEnv(num_envs, scenario, source, options=twins, **kwargs)
    kwargs.pop("copy", None)

    def make(row: int) -> Any:
        made = skirmish_env(scenario, opponent, **kwargs)
        return made if options is None else OptionsWrapper(made, options, seed=option_seed + row)
    return SyncVectorEnv([partial(make, row) for row in range(int(num_envs))],
                         autoreset_mode=AutoresetMode.SAME_STEP)


def sb3_vec_env(num_envs: int, opponent: str | OpponentSource = DEFAULT_OPPONENT,
                **kwargs: Any) -> Any:
    """stable-baselines3's ``VecEnv`` over the batched native vector env
    (:class:`env.sb3.FrayVecEnv`), the opponent by name or factory; the other keyword
    arguments are :class:`env.vector.SkirmishVectorEnv`'s."""
    from env.sb3 import FrayVecEnv

    return FrayVecEnv(SkirmishVectorEnv(num_envs, opponent=opponent_factory(opponent), **kwargs))
