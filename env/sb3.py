"""stable-baselines3's ``VecEnv`` over the batched native vector env.

``FrayVecEnv(SkirmishVectorEnv(...))`` (or, with the opponent by name,
``agents.environments.sb3_vec_env(num_envs, scenario=..., opponent="berserker")``) is
what sb3-contrib's ``MaskablePPO`` trains on: one native call steps every battle, and
``env_method("action_masks")`` (what ``sb3_contrib.common.maskable.utils.get_action_masks``
asks) hands out the masks the step already wrote, with no per-env round trip. Finished
battles are replaced in the same step (sb3's convention, the vector env's ``SAME_STEP``);
their last observation is in ``infos[i]["terminal_observation"]`` and
``infos[i]["TimeLimit.truncated"]`` says the round limit ended them.

Needs the ``rl`` extra (stable-baselines3); this module imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from env.vector import SkirmishVectorEnv


class FrayVecEnv(VecEnv):
    """sb3's ``VecEnv`` protocol over a :class:`env.vector.SkirmishVectorEnv`."""

    def __init__(self, vector: SkirmishVectorEnv) -> None:
        self.vector = vector
        super().__init__(vector.num_envs, vector.single_observation_space,
                         vector.single_action_space)
        self._actions: np.ndarray | None = None
        self._seeds: list[int | None] = [None] * vector.num_envs

    # ------------------------------------------------------------ VecEnv
    def reset(self) -> dict[str, np.ndarray]:
        seeds = self._seeds
        self._seeds = [None] * self.num_envs
        observations, _ = self.vector.reset(seed=seeds)
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, list[dict]]:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        observations, rewards, terminated, truncated, infos = self.vector.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            out[i]["terminal_observation"] = infos["final_obs"][i]
            out[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            out[i]["winner"] = infos["final_info"]["winner"][i]
            out[i]["opponent"] = infos["final_info"]["opponent"][i]
        for i in np.flatnonzero(infos["illegal_action"]):
            out[i]["illegal_action"] = True
        return observations, rewards.astype(np.float32), dones, out

    def action_masks(self) -> np.ndarray:
        """The masks as bool, one row per env."""
        return self.vector.action_masks()

    def close(self) -> None:
        self.vector.close()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        return self._seeds

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "action_masks":
            return [self.action_masks] * len(self._indices(indices))
        value = getattr(self.vector, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.vector, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.vector.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self.vector, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self.vector, attr_name)

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices if isinstance(indices, Iterable) else [indices])
