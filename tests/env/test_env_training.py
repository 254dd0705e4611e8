"""sb3-contrib's MaskablePPO trains on fray/Skirmish-v0 (issue 4): a short smoke run with
the default ``MultiInputPolicy`` straight on the registered env (``fray train`` and its
policy are tested in tests/learned)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import env  # noqa: F401  (registers the ids)


def test_maskable_ppo_trains_on_the_registered_env() -> None:
    # a hard import: the `rl` extra is part of the test install, never skipped silently
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    vec = make_vec_env(lambda: gym.make("fray/Skirmish-v0"), n_envs=2, seed=0)
    model = MaskablePPO("MultiInputPolicy", vec, n_steps=128, batch_size=128, n_epochs=2,
                        policy_kwargs={"net_arch": [64, 64]}, seed=0, device="cpu",
                        verbose=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    # the trained policy acts legally under the mask
    obs = vec.reset()
    for _ in range(50):
        masks = get_action_masks(vec)
        actions, _ = model.predict(obs, action_masks=masks)
        assert all(m[a] for m, a in zip(masks, actions, strict=True))
        obs, _, _, _ = vec.step(actions)
    assert np.isfinite(model.logger.name_to_value.get("train/loss", 0.0))
    vec.close()
