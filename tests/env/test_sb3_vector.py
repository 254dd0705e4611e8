"""sb3-contrib's MaskablePPO trains on the batched vector env through env.sb3.FrayVecEnv."""

from __future__ import annotations

import numpy as np
import pytest

from env import native

pytestmark = pytest.mark.skipif(not native.available(), reason="the native env is not built")
sb3_contrib = pytest.importorskip("sb3_contrib")


def test_maskable_ppo_trains_on_the_vector_env() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from agents.environments import sb3_vec_env

    vec = sb3_vec_env(4, scenario="duel", damage_reward=0.5)
    assert is_masking_supported(vec)
    vec.seed(7)
    obs = vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (4, vec.action_space.n) and masks.any(axis=1).all()
    assert np.array_equal(masks, obs["action_mask"].astype(bool))
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", vec, n_steps=32, batch_size=64,
                                    n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    # the trained policy acts inside the masks
    obs = vec.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(vec), deterministic=True)
    assert all(obs["action_mask"][i, action] for i, action in enumerate(actions))
    vec.close()


def test_episodes_end_with_terminal_observations() -> None:
    from agents.environments import sb3_vec_env

    vec = sb3_vec_env(2, scenario="duel")
    vec.seed(1)
    obs = vec.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        actions = np.array([int(np.flatnonzero(row)[rng.integers(row.sum())])
                            for row in obs["action_mask"]])
        vec.step_async(actions)
        obs, rewards, dones, infos = vec.step_wait()
        for i in np.flatnonzero(dones):
            ended += 1
            assert set(infos[i]["terminal_observation"]) == set(obs)
            assert rewards[i] in (-1.0, 0.0, 1.0) or infos[i]["TimeLimit.truncated"]
    assert ended > 0
