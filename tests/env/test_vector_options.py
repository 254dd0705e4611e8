"""Selector envs on the native path (``agents/options.py``, ``env/vector.py``): the chosen
option's native twin plays the learner's decision inside the engine's step, and the
episodes are the Python options' on the Python engine, step for step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import agents
import rules
from agents.options import OptionSelector, OptionsWrapper, option_twins
from env import native
from env.skirmish import SkirmishEnv

pytestmark = pytest.mark.skipif(not native.available(), reason="the native env is not built")

#: the shipped selector's options, every one with a native twin
OPTIONS = ["tactician", "tactician(step_back=true)", "defender", "skirmisher"]


def tacticians(seed: int | None) -> agents.Agent:
    return agents.make("tactician", seed=seed)


def selector_env(engine: str, option_seed: int) -> OptionsWrapper:
    return OptionsWrapper(SkirmishEnv(scenario="skirmish", opponent=tacticians, engine=engine),
                          OPTIONS, seed=option_seed)


def outcome(step: tuple) -> tuple:
    obs, reward, terminated, truncated, _ = step
    return (reward, terminated, truncated, obs["planes"].tobytes(), obs["units"].tobytes(),
            obs["action_mask"].tobytes())


def test_a_native_selector_env_plays_the_python_options_episodes() -> None:
    python, native_env = selector_env("python", 5), selector_env("native", 5)
    rng = np.random.default_rng(0)
    python.reset(seed=3)
    native_env.reset(seed=3)
    episodes = 0
    for _ in range(500):
        option = int(rng.integers(len(OPTIONS)))
        expected, got = python.step(option), native_env.step(option)
        assert outcome(got) == outcome(expected)
        if got[2] or got[3]:
            episodes += 1
            python.reset()
            native_env.reset()
    assert native_env.unwrapped._core is not None and python.unwrapped._core is None
    assert native_env.selector.twins_for(native_env.unwrapped.battle) is not None
    assert episodes >= 2


def test_the_selector_vector_env_rows_are_selector_envs() -> None:
    from env.vector import SkirmishVectorEnv

    count = 3
    vector = SkirmishVectorEnv(count, "skirmish", tacticians,
                               options=option_twins(OPTIONS, 10, count))
    assert vector.single_action_space.n == len(OPTIONS)
    obs, _ = vector.reset(seed=100)
    singles = [selector_env("python", 10 + row) for row in range(count)]
    for row, single in enumerate(singles):
        first, _ = single.reset(seed=100 + row)
        assert np.array_equal(first["planes"], obs["planes"][row])
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(200):
        chosen = rng.integers(len(OPTIONS), size=count)
        obs, rewards, terminated, truncated, _ = vector.step(chosen)
        assert vector.action_masks().all() and vector.action_masks().shape == (count, len(OPTIONS))
        for row, single in enumerate(singles):
            step = single.step(int(chosen[row]))
            assert (step[1], step[2], step[3]) == (rewards[row], terminated[row], truncated[row])
            if step[2] or step[3]:
                ended += 1
                step = (single.reset()[0], *step[1:])
            assert np.array_equal(step[0]["planes"], obs["planes"][row])
            assert np.array_equal(step[0]["action_mask"], obs["action_mask"][row])
    assert ended >= 2
    with pytest.raises(ValueError, match="not in the action space"):
        vector.step(np.full(count, len(OPTIONS)))


def test_options_without_native_twins_are_refused_by_the_vector_env() -> None:
    from agents.environments import skirmish_vector_env
    from env.vector import SkirmishVectorEnv

    with pytest.raises(TypeError, match="every option needs a native twin"):
        option_twins(["tactician", "mcts"], 0, 2)
    with pytest.raises(TypeError, match="expected native agents"):
        SkirmishVectorEnv(2, "skirmish", tacticians, options=[OPTIONS, OPTIONS])
    with pytest.raises(ValueError, match="expected 2 rows"):
        SkirmishVectorEnv(2, "skirmish", tacticians, options=option_twins(OPTIONS, 0, 1))
    # by name: the batched env when every option has a twin, else selector envs one by one
    batched = skirmish_vector_env(2, "duel", "berserker", options=OPTIONS, option_seed=3)
    assert isinstance(batched, SkirmishVectorEnv) and batched.single_action_space.n == 4
    one_by_one = skirmish_vector_env(2, "duel", "berserker", options=["tactician", "mcts"])
    assert not isinstance(one_by_one, SkirmishVectorEnv)
    assert one_by_one.single_action_space.n == 2


def test_a_selector_keeps_to_the_engine_of_its_first_battle() -> None:
    selector = OptionSelector(OPTIONS, seed=2)
    native_battle = rules.Battle.from_scenario("duel", seed=1, engine="native")
    selector.choose(native_battle, 0)
    assert selector.twins_for(native_battle) is not None
    with pytest.raises(ValueError, match="play on the native engine"):
        selector.choose(rules.Battle.from_scenario("duel", seed=1, engine="python"), 0)
    python_first = OptionSelector(OPTIONS, seed=2)
    python_first.choose(rules.Battle.from_scenario("duel", seed=1, engine="python"), 0)
    assert python_first.twins_for(native_battle) is None  # Python agents from then on
    assert OptionSelector(OPTIONS, seed=2, hold="turn").native_twins() is None


def test_fray_train_steps_selector_envs_in_one_batch(tmp_path: Path) -> None:
    from experiments.train.sb3 import TrainConfig, batched_vec_env

    config = TrainConfig(scenario="duel", opponents=["berserker"], envs=2, options=OPTIONS,
                         out=str(tmp_path))
    vec = batched_vec_env(config)
    assert vec is not None and vec.action_space.n == len(OPTIONS)
    held = TrainConfig(scenario="duel", opponents=["berserker"], envs=2, options=OPTIONS,
                       option_hold="turn", out=str(tmp_path))
    assert batched_vec_env(held) is None
    vec.close()
