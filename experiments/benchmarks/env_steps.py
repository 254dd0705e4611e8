"""Benchmarks of the learning interface: Gymnasium and PettingZoo steps per second with
random masked actions, PettingZoo's ``connect_four_v3`` in the same run as the yardstick,
``gymnasium.vector.AsyncVectorEnv`` scaling, and memory per env.

In the Gymnasium env the learner (team ``monsters``) picks uniformly among the indices its
action mask allows; the opponent agent plays inside ``step`` and its time counts, and so
do the resets between episodes. In the AEC envs (fray's and connect four) every agent
picks uniformly among its mask. Run ``python -m experiments.benchmarks.env_steps`` for the
Gymnasium rows alone, or ``fray bench`` for everything.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable, Iterator

import gymnasium
import numpy as np
from pettingzoo import AECEnv

import env  # importing it registers the fray/ ids
from agents.environments import skirmish_env
from experiments.benchmarks.engines import NOT_BUILT
from experiments.benchmarks.measure import Figure, rate, unavailable
from experiments.heap import freeze_shared

SCENARIOS = ("duel", "skirmish", "horde")
OPPONENTS = ("random", "berserker")


def _allowed(mask: np.ndarray) -> np.ndarray:
    """``mask`` (0/1 of any integer or bool dtype) as a bool array, viewed when it can be:
    numpy's nonzero is several times faster on bool than on int8 (np.flatnonzero of fray's
    1,524-wide int8 mask took 6 µs, its bool view's nonzero 0.8 µs)."""
    return mask.view(np.bool_) if mask.dtype.itemsize == 1 else mask.astype(np.bool_)


def masked_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random index among those ``mask`` allows (one float draw: a
    ``Generator.integers`` call costs 3 µs, more than some env steps)."""
    allowed = _allowed(mask).nonzero()[0]
    return int(allowed[int(rng.random() * len(allowed))])


def masked_choices(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """``masked_choice`` for every row of ``masks`` at once, as a batched policy draws:
    the allowed indices of all rows in one pass over the flat masks, then one uniform
    draw per row among its own."""
    rows, width = masks.shape
    flat = _allowed(masks).ravel().nonzero()[0]  # row-major: row r's indices are contiguous
    counts = np.bincount(flat // width, minlength=rows)
    firsts = np.cumsum(counts) - counts
    picks = firsts + (rng.random(rows) * counts).astype(np.int64)
    return flat[picks] - np.arange(rows) * width


def gym_steps(make: Callable[[], gymnasium.Env], steps: int, seed: int) -> float:
    """Steps/s of ``steps`` random masked steps in a fresh env (resets included)."""
    e = make()
    rng = np.random.default_rng(seed)
    obs, _ = e.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        obs, _, terminated, truncated, _ = e.step(masked_choice(rng, obs["action_mask"]))
        if terminated or truncated:
            obs, _ = e.reset()
    seconds = time.perf_counter() - start
    e.close()
    return steps / seconds


def aec_steps(env: AECEnv, steps: int, seed: int) -> float:
    """Steps/s of ``steps`` AEC steps, every agent random among its mask (resets included;
    a finished agent's ``step(None)`` counts as a step, as PettingZoo's loop makes it)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        if not env.agents:
            env.reset()
            continue
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else masked_choice(rng, obs["action_mask"]))
        done += 1
    return steps / (time.perf_counter() - start)


def gym_figures(steps: int, repeats: int) -> Iterator[Figure]:
    """Gymnasium env steps/s per scenario and opponent."""
    for scenario in SCENARIOS:
        for opponent in OPPONENTS:
            values = [
                gym_steps(
                    lambda scenario=scenario, opponent=opponent: skirmish_env(scenario, opponent),
                    steps,
                    r,
                )
                for r in range(repeats)
            ]
            yield Figure(f"gym.{scenario}.{opponent}",
                         f"gym env {scenario} vs {opponent}: steps/s", "/s", values)


def aec_figures(steps: int, repeats: int) -> Iterator[Figure]:
    """fray's AEC env on skirmish and connect_four_v3 in the same run."""
    yield Figure("aec.skirmish", "pettingzoo AEC skirmish: steps/s", "/s",
                 [aec_steps(env.aec_env(scenario="skirmish"), steps, r)
                  for r in range(repeats)])
    try:  # connect_four_v3's own module (importing pettingzoo.classic.connect_four_v3
        # re-exports this env with a DeprecationWarning about the creation API)
        from pettingzoo.classic.connect_four.connect_four import env as connect_four_v3
    except ImportError as error:  # the pettingzoo[classic] extra (pygame) is missing
        yield unavailable("aec.connect_four", "pettingzoo connect_four_v3: steps/s", "/s",
                          f"n/a ({error}; pip install 'pettingzoo[classic]')")
        return
    yield Figure("aec.connect_four", "pettingzoo connect_four_v3: steps/s", "/s",
                 [aec_steps(connect_four_v3(), steps * 4, r) for r in range(repeats)])


def _vector_steps(workers: int, steps: int, seed: int) -> float:
    """Env steps/s (summed over workers) of an AsyncVectorEnv of skirmish envs."""
    vector = gymnasium.vector.AsyncVectorEnv(
        [lambda: gymnasium.make("fray/Skirmish-v0") for _ in range(workers)])
    try:
        rng = np.random.default_rng(seed)
        obs, _ = vector.reset(seed=seed)
        vector.step(np.array([masked_choice(rng, m) for m in obs["action_mask"]]))

        def work() -> float:
            nonlocal obs
            for _ in range(steps):
                actions = np.array([masked_choice(rng, m) for m in obs["action_mask"]])
                obs, *_ = vector.step(actions)  # autoreset: a finished env resets next step
            return steps * workers

        return rate(work, 1)[0]
    finally:
        vector.close()


def vector_figures(steps: int, repeats: int) -> Iterator[Figure]:
    """AsyncVectorEnv env steps/s with 1 and 2 worker processes (skirmish, berserker)."""
    for workers in (1, 2):
        yield Figure(f"vector.{workers}", f"AsyncVectorEnv {workers} worker(s): env steps/s",
                     "/s", [_vector_steps(workers, steps, r) for r in range(repeats)])


#: the batched vector env's size in the issue's target ("64 battles")
BATCH = 64


def batched_steps(count: int, steps: int, seed: int) -> float:
    """Env steps per CPU-second of this process (one core: the batch steps in one thread)
    of the batched native vector env (env/vector.py), ``count`` skirmish battles against
    the berserker, each row's action uniform among its mask (``masked_choices``: drawn
    for every row at once, as a learner's batched policy would); finished battles reset
    inside ``step``."""
    from agents.environments import NamedAgent
    from env.vector import SkirmishVectorEnv

    vector = SkirmishVectorEnv(count, "skirmish", NamedAgent("berserker"), copy=False)
    rng = np.random.default_rng(seed)
    obs, _ = vector.reset(seed=seed)
    start = time.process_time()
    for _ in range(steps):
        obs, *_ = vector.step(masked_choices(rng, obs["action_mask"]))
    seconds = time.process_time() - start
    vector.close()
    return steps * count / seconds


def batched_figures(steps: int, repeats: int) -> Iterator[Figure]:
    """The batched vector env of ``BATCH`` skirmish battles (needs the native engine)."""
    from env import native

    key, label = f"vector.batched.{BATCH}", f"batched vector env {BATCH} battles: steps/CPU-s"
    if not native.available():
        yield unavailable(key, label, "/s", NOT_BUILT)
        return
    yield Figure(key, label, "/s", [batched_steps(BATCH, steps, r) for r in range(repeats)])


def memory_per_env(scenario: str, count: int, repeats: int) -> Figure:
    """KiB held by one reset Gymnasium env (tracemalloc, ``count`` kept alive)."""
    skirmish_env(scenario).reset(seed=0)  # load content and caches first
    out = Figure(f"memory.env.{scenario}", f"memory per env {scenario}", "KiB")
    for r in range(repeats):
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        kept = []
        for i in range(count):
            e = skirmish_env(scenario)
            e.reset(seed=r * count + i)
            kept.append(e)
        out.values.append((tracemalloc.get_traced_memory()[0] - before) / count / 1024)
        tracemalloc.stop()
        del kept
    return out


def figures(quick: bool) -> Iterator[Figure]:
    """Every env figure, quick or full sizes (the shared heap frozen first; the
    AsyncVectorEnv workers are left as a user's program builds them)."""
    freeze_shared(SCENARIOS)
    repeats = 3 if quick else 5
    steps = 150 if quick else 1500
    yield from gym_figures(steps, repeats)
    yield from aec_figures(steps, repeats)
    yield from vector_figures(steps, 1 if quick else 3)
    yield from batched_figures(max(20, steps // 5), repeats)
    for scenario in ("skirmish", "horde"):
        yield memory_per_env(scenario, 3 if quick else 10, repeats)


def main() -> None:
    freeze_shared(SCENARIOS)
    for fig in gym_figures(1000, 3):
        print(f"{fig.label:<44} {fig.median:>10.0f} (min {fig.low:.0f}, max {fig.high:.0f})")


if __name__ == "__main__":
    main()
