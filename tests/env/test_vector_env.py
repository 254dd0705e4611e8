"""The batched vector env (env/vector.py): row i is SkirmishEnv seeded seed + i, stepped
with the same actions, autoreset included; make_vec builds it; masks never all False."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import env  # noqa: F401  (registers the ids)
from env import native
from env.vector import SkirmishVectorEnv

pytestmark = pytest.mark.skipif(not native.available(), reason="the native env is not built")


def _masked_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([int(np.flatnonzero(row)[rng.integers(row.sum())]) for row in masks])


@pytest.mark.parametrize(("scenario", "opponent"), [("skirmish", "berserker"), ("duel", "random")])
def test_rows_equal_single_envs(scenario: str, opponent: str) -> None:
    count, seed = 3, 11
    vector = gymnasium.make_vec("fray/Skirmish-v0", num_envs=count, scenario=scenario,
                                opponent=opponent, damage_reward=0.5)
    singles = [gymnasium.make("fray/Skirmish-v0", scenario=scenario, opponent=opponent,
                              engine="native", damage_reward=0.5).unwrapped
               for _ in range(count)]
    obs, _ = vector.reset(seed=seed)
    single_obs = [single.reset(seed=seed + i)[0] for i, single in enumerate(singles)]
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(250):
        for i in range(count):
            for key, value in single_obs[i].items():
                assert obs[key][i].tobytes() == value.tobytes(), key
        assert (vector.action_masks().any(axis=1)).all()
        actions = _masked_actions(obs["action_mask"], rng)
        obs, rewards, terminated, truncated, infos = vector.step(actions)
        for i, single in enumerate(singles):
            got, reward, term, trunc, _ = single.step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (reward, term, trunc)
            if term or trunc:
                finished += 1
                assert infos["_final_obs"][i]
                for key, value in got.items():
                    assert infos["final_obs"][i][key].tobytes() == value.tobytes(), key
                got, _ = single.reset()
            single_obs[i] = got
    assert finished >= 2
    vector.close()


def test_make_vec_gives_the_batched_env_and_declares_autoreset() -> None:
    vector = gymnasium.make_vec("fray/Duel-v0", num_envs=2)
    assert isinstance(vector.unwrapped, SkirmishVectorEnv)
    assert vector.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, _ = vector.reset(seed=0)
    assert vector.observation_space.contains(obs)
    with pytest.raises(ValueError, match="not in the action space"):
        vector.step(np.array([10**6, 0]))
    with pytest.raises(ValueError, match="2 integers"):
        vector.step(np.array([0]))


def test_illegal_index_is_a_penalised_no_op() -> None:
    vector = SkirmishVectorEnv(2, scenario="duel", opponent=_berserker())
    obs, _ = vector.reset(seed=3)
    illegal = [int(np.flatnonzero(row == 0)[0]) for row in obs["action_mask"]]
    after, rewards, _, _, infos = vector.step(np.array(illegal))
    assert infos["illegal_action"].all() and (rewards == -0.1).all()
    for key, value in obs.items():
        assert after[key].tobytes() == value.tobytes()


def test_an_opponent_without_native_form_is_refused() -> None:
    from agents.environments import NamedAgent

    vector = SkirmishVectorEnv(1, scenario="duel", opponent=NamedAgent("pack"))
    with pytest.raises(TypeError, match="no native form"):
        vector.reset(seed=0)


def _berserker():
    from agents.environments import NamedAgent

    return NamedAgent("berserker")
