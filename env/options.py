"""Options: a selector env whose actions are scripted agents, not rules actions.

A selector policy picks, at each of its team's decisions, which of ``K`` scripted
*options* (agent specs: ``tactician``, ``tactician(step_back=true)``, ``defender``, ...)
plays it; the chosen option's action is what the battle sees. It is the options
framework of Sutton, Precup and Singh (1999) with one-decision options, and it is a
far smaller problem for PPO than the env's ~1,000 actions: the policy only learns which
behaviour suits each unit and moment, and every action it can take is one a script
found sensible.

- the action space is ``Discrete(K)``; every option is always legal (each plays a legal
  action of any decision), so :meth:`OptionsWrapper.action_masks` is all ones;
- the observation is the wrapped env's, unchanged (it names the deciding unit);
- ``learned:PATH`` plays a selector model the same way (:class:`OptionSelector`), so a
  model never plays without the options it learned with.

The options are made once per env with their own seeds and keep no state across a
switch: they read the battle they are shown, as every agent does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rules import Action, Battle


class OptionSelector:
    """``K`` scripted agents, each asked only when chosen."""

    def __init__(self, options: Sequence[str], seed: int | None = 0) -> None:
        import agents

        if len(options) < 2:
            raise ValueError(f"--options: expected at least two agents, got {list(options)}")
        self.names = [str(o) for o in options]
        base = 0 if seed is None else int(seed)
        self.agents = [agents.make(name, seed=base * 31 + k)
                       for k, name in enumerate(self.names)]

    def __len__(self) -> int:
        return len(self.agents)

    def action(self, battle: Battle, option: int) -> Action:
        """Option ``option``'s action for ``battle.decision`` (a legal action)."""
        if not 0 <= option < len(self.agents):
            raise ValueError(f"option {option} is not one of 0..{len(self.agents) - 1}")
        return self.agents[option].act(battle)


class OptionsWrapper(gym.Wrapper):
    """A fray env (:class:`env.SkirmishEnv`, possibly wrapped) whose action picks an option.

    ``options``: agent specs for :func:`agents.make`, seeded from ``seed``."""

    def __init__(self, env: gym.Env, options: Sequence[str], seed: int = 0) -> None:
        super().__init__(env)
        self.selector = OptionSelector(options, seed=seed)
        self.option_names = self.selector.names
        self.action_space = spaces.Discrete(len(self.selector))

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        inner = self.env.unwrapped
        battle = inner.battle
        if battle is None or battle.decision is None:
            raise RuntimeError("call reset() before step()")
        chosen = self.selector.action(battle, int(np.asarray(action).item()))
        index = inner.codec.encode(battle, battle.decision.actor, chosen)
        if index is None:  # pragma: no cover - every legal action has an index (codec tests)
            raise ValueError("the option's action has no index in the env's codec")
        return self.env.step(index)

    def action_masks(self) -> np.ndarray:
        """Every option, always (sb3-contrib MaskablePPO)."""
        return np.ones(len(self.selector), dtype=bool)
