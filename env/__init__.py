"""The learning interface: Gymnasium and PettingZoo envs over :mod:`rules` battles.

Importing ``env`` registers Gymnasium ids in the ``fray/`` namespace:

- ``fray/Skirmish-v0``: any scenario (``scenario=``, default the shipped ``skirmish``),
  ``opponent=`` (an ``agents`` name or spec, an agent, or a factory ``(seed) -> agent``;
  default ``"berserker"``), ``team=`` (default ``"monsters"``);
- one id per shipped scenario, ``fray/<Name>-v0`` (``fray/Duel-v0``, ``fray/Horde-v0``,
  ``fray/SnakePit-v0``, ...), the same env with that scenario preset.

``gymnasium.make("env:fray/Skirmish-v0")`` imports this module first, so it works with no
import. The ids' entry point is ``agents.environments:skirmish_env``, a string that
Gymnasium imports only when an id is made: it resolves opponent names with
``agents.make`` and passes :class:`SkirmishEnv` a factory, so ``env`` itself never
imports ``agents`` (docs/architecture.md).

PettingZoo: ``env.aec_env(scenario=...)`` (wrapped), ``env.raw_env(...)`` (unwrapped), and
``env.parallel_env(...)``; ``env.env`` is an alias of ``aec_env`` (the PettingZoo module
convention).
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

import rules
from env.aec import FrayAECEnv, FrayParallelEnv, aec_env, parallel_env, raw_env
from env.core import default_scenario
from env.skirmish import SkirmishEnv
from env.spaces import ActionCodec, EncodingError

env = aec_env

#: resolves ``opponent=`` names (``agents`` may import ``env``; ``env`` never imports ``agents``)
ENTRY_POINT = "agents.environments:skirmish_env"
#: ``gymnasium.make_vec``'s: the batched native vector env (env/vector.py)
VECTOR_ENTRY_POINT = "agents.environments:skirmish_vector_env"


def env_id(scenario: str) -> str:
    """The Gymnasium id of a shipped scenario: ``snake_pit`` -> ``fray/SnakePit-v0``."""
    return "fray/" + "".join(p.capitalize() for p in scenario.split("_")) + "-v0"


def registered_ids() -> list[str]:
    """Every id this package registers (the generic one first)."""
    ids = ["fray/Skirmish-v0"]
    for name in rules.shipped_scenarios():
        if env_id(name) not in ids:
            ids.append(env_id(name))
    return ids


def _register_all() -> None:
    if "fray/Skirmish-v0" not in registry:
        register(id="fray/Skirmish-v0", entry_point=ENTRY_POINT,
                 vector_entry_point=VECTOR_ENTRY_POINT, kwargs={"scenario": default_scenario()})
    for name in rules.shipped_scenarios():
        gid = env_id(name)
        if gid not in registry:
            register(id=gid, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT,
                     kwargs={"scenario": name})


_register_all()

__all__ = [
    "ActionCodec",
    "EncodingError",
    "FrayAECEnv",
    "FrayParallelEnv",
    "SkirmishEnv",
    "aec_env",
    "env",
    "env_id",
    "parallel_env",
    "raw_env",
    "registered_ids",
]
