"""Which engine an env's battles run on (``env.core.env_engine``): the one named (the
``engine`` keyword or ``FRAY_ENGINE``), else the native engine when the whole step can run
there (an opponent factory with a native twin), else the Python engine; both give the
same episodes."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from env.aec import raw_env
from env.skirmish import SkirmishEnv
from rules import engine


def random_opponent(seed: int | None) -> agents.Agent:
    return agents.make("random", seed=seed)

needs_native = pytest.mark.skipif(not engine.native_available(),
                                  reason="the native engine (rules._native) is not built")


def pack_opponent(seed: int | None) -> agents.Agent:
    return agents.make("pack", seed=seed)  # no native form


def test_envs_pick_the_engine_their_step_runs_fastest_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(engine.ENVIRONMENT_VARIABLE, raising=False)
    native_step = "native" if engine.native_available() else "python"
    assert SkirmishEnv("duel", opponent=random_opponent).setup.engine == native_step
    # an agent object (used as given) or an opponent deciding in Python: the Python engine
    assert SkirmishEnv("duel", opponent=random_opponent(0)).setup.engine == "python"
    assert SkirmishEnv("duel", opponent=pack_opponent).setup.engine == "python"
    # the PettingZoo envs: every agent is outside, so the engine's whenever it is built
    assert raw_env(scenario="duel").game.setup.engine == native_step
    monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, "python")
    assert SkirmishEnv("duel", opponent=random_opponent, engine="python").setup.engine == "python"


@needs_native
def test_an_env_on_either_engine_plays_the_same_episode(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(engine.ENVIRONMENT_VARIABLE, raising=False)
    envs = {name: SkirmishEnv("skirmish", opponent=random_opponent, engine=name)
            for name in engine.ENGINES}
    assert envs["native"].setup.engine == "native"
    assert raw_env(scenario="duel", engine="native").game.setup.engine == "native"
    observations = {name: env.reset(seed=5) for name, env in envs.items()}
    rng = np.random.default_rng(0)
    for _ in range(120):
        mask = envs["python"].action_masks()
        assert np.array_equal(mask, envs["native"].action_masks())
        action = int(rng.choice(np.flatnonzero(mask)))
        steps = {name: env.step(action) for name, env in envs.items()}
        (obs_p, reward_p, done_p, cut_p, _), (obs_n, reward_n, done_n, cut_n, _) = (
            steps["python"], steps["native"])
        for key in obs_p:
            assert np.array_equal(obs_p[key], obs_n[key]), key
        assert (reward_p, done_p, cut_p) == (reward_n, done_n, cut_n)
        if done_p or cut_p:
            break
    assert observations["python"][0].keys() == observations["native"][0].keys()
