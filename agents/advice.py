"""Advice: an observation key naming what a scripted *advisor* would do now.

A residual policy (Silver et al. 2018, "Residual Policy Learning"; Johannink et al.
2019) starts from a good controller and learns corrections to it. Here the controller is
a scripted agent (the tactician by default): ``advice`` is the index, in the env's action
codec, of the advisor's action for the current decision, and the ``fray-spatial`` policy
adds a learned weight times its one-hot to the logits (``agents/spatial.py``). With the
initial weight large the untrained policy *is* the advisor, so PPO starts at its level
and only has to learn where to deviate from it, instead of first re-learning it by
cloning.

- ``advice``: ``Discrete(n + 1)``; ``n`` means no advice (the battle is over).
- :class:`AdviceWrapper` adds it to :class:`env.SkirmishEnv`'s observations;
  ``learned:PATH`` computes it the same way (:func:`advice_index`) when its model was
  trained with it, so a model never plays without the advice it learned with.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rules import Battle

ADVICE_KEY = "advice"


def advice_space(n_actions: int) -> spaces.Discrete:
    """The ``advice`` key's space: an action index, or ``n_actions`` for none."""
    return spaces.Discrete(n_actions + 1)


def advice_index(battle: Battle, codec: Any, advisor: Any) -> int:
    """The codec index of ``advisor.act(battle)`` (``codec.n`` when nothing is to decide).

    The advisor decides on the battle itself, as any agent does (agents never change
    the battle they are shown)."""
    decision = battle.decision
    if decision is None or battle.is_over:
        return int(codec.n)
    index = codec.encode(battle, decision.actor, advisor.act(battle))
    if index is None:  # pragma: no cover - every legal action has an index (codec tests)
        raise ValueError(f"the advisor's action has no index in {codec.n} actions")
    return int(index)


class AdviceWrapper(gym.ObservationWrapper):
    """Adds ``advice`` (``advisor``'s action index now) to a fray env's observations.

    ``advisor``: an agent name for :func:`agents.make` (seeded with ``seed``).
    """

    def __init__(self, env: gym.Env, advisor: str = "tactician", seed: int = 0) -> None:
        super().__init__(env)
        from agents.factory import make

        self.advisor_name = advisor
        self.advisor = make(advisor, seed=seed)
        base = env.observation_space
        n = int(env.action_space.n)
        self.observation_space = spaces.Dict({**base.spaces, ADVICE_KEY: advice_space(n)})

    def observation(self, observation: dict[str, np.ndarray]) -> dict[str, Any]:
        inner = self.env.unwrapped
        return {**observation,
                ADVICE_KEY: advice_index(inner.battle, inner.codec, self.advisor)}

    def action_masks(self) -> np.ndarray:
        return self.env.get_wrapper_attr("action_masks")()
