"""Benchmark of learning throughput: sb3-contrib MaskablePPO timesteps per second on
``fray/Skirmish-v0`` next to the same learner on sb3-contrib's own
``InvalidActionEnvDiscrete`` (a trivial masked env), so the ratio says how much of the
learner's time the env costs.

Same settings for both: one env, ``n_steps`` rollout, batch 64, ``epochs`` epochs,
a [64, 64] MLP (``MultiInputPolicy`` for fray's Dict observation, ``MlpPolicy`` for the
identity env's Discrete one), Adam with ``fray train``'s options
(``experiments.train.sb3.adam_options``: fused where torch has it), CPU, seed 0. The
yardstick env is ``InvalidActionEnvDiscrete(dim=80, n_invalid_actions=60)``, the size
sb3-contrib's own tests use.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from experiments.benchmarks.engines import NOT_BUILT
from experiments.benchmarks.measure import Figure, unavailable

#: the batched vector env's size in the learner figure (its rollout: n_steps / VECTOR_ENVS
#: steps of each env, the same timesteps per rollout as the one-env figure)
VECTOR_ENVS = 8


def _timesteps_per_s(make_env: Any, policy: str, n_steps: int, epochs: int,
                     rollouts: int) -> float:
    from sb3_contrib import MaskablePPO

    from experiments.train.sb3 import adam_options, quiet_logger

    model = MaskablePPO(policy, make_env(), n_steps=n_steps, batch_size=64, n_epochs=epochs,
                        policy_kwargs={"net_arch": [64, 64], "optimizer_kwargs": adam_options()},
                        device="cpu", seed=0, verbose=0)
    model.set_logger(quiet_logger())
    total = n_steps * model.n_envs * rollouts  # a rollout is n_steps of every env
    start = time.perf_counter()
    model.learn(total_timesteps=total)
    return total / (time.perf_counter() - start)


def figures(quick: bool) -> Iterator[Figure]:
    """MaskablePPO timesteps/s on fray/Skirmish-v0 and on InvalidActionEnvDiscrete."""
    fray_key, fray_label = "ppo.skirmish", "MaskablePPO fray/Skirmish-v0: timesteps/s"
    base_key, base_label = "ppo.invalid_action_env", "MaskablePPO InvalidActionEnvDiscrete: " \
        "timesteps/s"
    try:
        import gymnasium
        from sb3_contrib.common.envs import InvalidActionEnvDiscrete

        import env  # noqa: F401  (registers fray/Skirmish-v0)
    except ImportError as error:  # the rl extra is not installed
        why = f"n/a ({error}; pip install -e '.[rl]')"
        yield unavailable(fray_key, fray_label, "/s", why)
        yield unavailable(base_key, base_label, "/s", why)
        return
    repeats, n_steps, epochs = (2, 128, 1) if quick else (3, 512, 4)
    rollouts = 2
    yield Figure(fray_key, fray_label, "/s", [
        _timesteps_per_s(lambda: gymnasium.make("fray/Skirmish-v0"), "MultiInputPolicy",
                         n_steps, epochs, rollouts) for _ in range(repeats)])
    from env import native

    vector_key = "ppo.vector"
    vector_label = f"MaskablePPO batched vector env ({VECTOR_ENVS} skirmish): timesteps/s"
    if native.available():
        from agents.environments import sb3_vec_env

        yield Figure(vector_key, vector_label, "/s", [
            _timesteps_per_s(lambda: sb3_vec_env(VECTOR_ENVS, scenario="skirmish"),
                             "MultiInputPolicy", n_steps // VECTOR_ENVS, epochs, rollouts)
            for _ in range(repeats)])
    else:
        yield unavailable(vector_key, vector_label, "/s", NOT_BUILT)
    yield from learner_figures(quick)
    yield Figure(base_key, base_label, "/s", [
        _timesteps_per_s(lambda: InvalidActionEnvDiscrete(dim=80, n_invalid_actions=60),
                         "MlpPolicy", n_steps, epochs, rollouts) for _ in range(repeats)])


#: the learner rows' workload: the shipped selector's recipe on skirmish (its four
#: options, the tactician and berserker parties)
LEARNER_SCENARIO = "skirmish"


def learner_figures(quick: bool) -> Iterator[Figure]:
    """Samples/s of ``fray train``'s MaskablePPO selector (16 envs x 128 steps, the
    shipped recipe) and of the batched PPO selector (64 envs x 32 steps) on the same
    scenario and opponents, torch on one thread, in this run (the ratio is the target)."""
    from env import native

    sb3_key, batched_key = "learner.sb3.selector", "learner.batched.selector"
    sb3_label = "fray train MaskablePPO selector (16 x 128): samples/s"
    batched_label = "batched PPO selector (64 x 32): samples/s"
    if not native.available():
        yield unavailable(sb3_key, sb3_label, "/s", NOT_BUILT)
        yield unavailable(batched_key, batched_label, "/s", NOT_BUILT)
        return
    from experiments.train.learner_speed import SELECTOR, batched_speed, sb3_speed

    repeats, samples = (1, 2048) if quick else (3, 4096)
    yield Figure(sb3_key, sb3_label, "/s", [
        sb3_speed(LEARNER_SCENARIO, samples, 16, 128, 1, SELECTOR).samples_per_s
        for _ in range(repeats)])
    yield Figure(batched_key, batched_label, "/s", [
        batched_speed(LEARNER_SCENARIO, samples, 64, 32, 1, SELECTOR).samples_per_s
        for _ in range(repeats)])
