"""Opponent pools: a new opponent for every episode (a small self-play league).

``--opponent tactician,berserker,self`` names the pool. Each episode the wrapper draws
one entry uniformly: an agent name goes to ``agents.make`` (any registered name,
including ``learned:PATH``); ``self`` is a frozen past checkpoint of the learner's own
policy, drawn uniformly among the ``recent`` newest checkpoints in the league folder
(the trainer's checkpoint folder). Until the first checkpoint exists, ``self`` is played
by ``random`` (what an untrained policy is close to). The frozen policy commands the
other team with the same network, seeing the battle from that team's side.

The env needs no hook for this: :class:`SkirmishEnv` makes its opponent from its public
``opponent_source`` (an agent or a factory) on every ``reset``, so the wrapper sets it
just before: a :class:`agents.environments.NamedAgent` for a name, the frozen agent for
``self``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from agents.environments import NamedAgent

SELF = "self"
SELF_FALLBACK = "random"


def parse_pool(text: str) -> list[str]:
    """``"tactician,berserker,self"`` -> the names; every name must be known."""
    import agents
    from agents.spec import split_specs

    names = split_specs(text)
    if not names:
        raise ValueError("--opponent: expected agent names separated by commas, got nothing")
    for name in names:
        if name != SELF:
            agents.make(name, seed=0)  # raises a one-line error for an unknown name
    return names


class OpponentPool:
    """Draws an opponent per episode from named agents and frozen own checkpoints."""

    def __init__(self, names: Sequence[str], league_dir: str | Path | None = None,
                 seed: int | None = None, recent: int = 5) -> None:
        if not names:
            raise ValueError("an opponent pool needs at least one name")
        self.names = list(names)
        self.league_dir = Path(league_dir) if league_dir is not None else None
        self.rng = np.random.default_rng(seed)
        self.recent = recent
        self.counts: Counter[str] = Counter()
        self._frozen: dict[tuple[str, int], Any] = {}

    def snapshots(self) -> list[Path]:
        """The league's checkpoints (their fray model files), oldest first."""
        if self.league_dir is None or not self.league_dir.is_dir():
            return []
        return sorted(self.league_dir.glob("step_*.json"))

    def sample(self) -> tuple[str, Any]:
        """One draw: a label (the pool entry) and the env's opponent (a factory by name,
        or a frozen learned agent)."""
        label = self.names[int(self.rng.integers(len(self.names)))]
        self.counts[label] += 1
        if label != SELF:
            return label, NamedAgent(label)
        snapshots = self.snapshots()[-self.recent:]
        if not snapshots:
            return label, NamedAgent(SELF_FALLBACK)
        path = snapshots[int(self.rng.integers(len(snapshots)))]
        return label, self._frozen_agent(path)

    def _frozen_agent(self, path: Path) -> Any:
        from agents.learned import make_learned

        key = (str(path), path.stat().st_mtime_ns)
        if key not in self._frozen:
            self._frozen[key] = make_learned(str(path), seed=int(self.rng.integers(2**31)))
        return self._frozen[key]


class OpponentPoolWrapper(gym.Wrapper):
    """Sets a fresh opponent from the pool before every reset; ``info["opponent"]``
    names the pool entry of the episode."""

    def __init__(self, env: gym.Env, pool: OpponentPool) -> None:
        super().__init__(env)
        self.pool = pool
        self.current = ""

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        self.current, spec = self.pool.sample()
        self.env.unwrapped.opponent_source = spec
        obs, info = self.env.reset(**kwargs)
        info["opponent"] = self.current
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["opponent"] = self.current
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The wrapped env's mask as bool (sb3-contrib): a selector's, over its options,
        when the env is an :class:`agents.options.OptionsWrapper`."""
        return self.env.get_wrapper_attr("action_masks")()
