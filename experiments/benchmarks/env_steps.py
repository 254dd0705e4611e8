"""Benchmark of the Gymnasium env: env steps per second with random masked actions.

Run ``python -m experiments.benchmarks.env_steps`` (``--steps N``, ``--scenario NAME``
repeatable, ``--opponent NAME`` repeatable). The learner (team ``monsters``) picks
uniformly among the indices its action mask allows; the opponent agent plays inside
``step`` and its time counts. Episodes reset as they end (reset time counts too). For
scale, ``engine`` is the rules core alone: decisions per second of uniform random play
on ``legal_actions()`` for both teams, with no env around it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

import env  # noqa: F401  (registers the ids)
import rules
from env.skirmish import SkirmishEnv

DEFAULT_SCENARIOS = ("skirmish", "horde")
DEFAULT_OPPONENTS = ("berserker", "random")


def env_steps_per_second(scenario: str, opponent: str, steps: int, seed: int = 0) -> dict:
    """Steps/s of ``SkirmishEnv(scenario, opponent)`` under random masked actions."""
    e = SkirmishEnv(scenario=scenario, opponent=opponent)
    rng = np.random.default_rng(seed)
    obs, _ = e.reset(seed=seed)
    episodes = 0
    t0 = time.perf_counter()
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, _, terminated, truncated, _ = e.step(action)
        if terminated or truncated:
            episodes += 1
            obs, _ = e.reset()
    elapsed = time.perf_counter() - t0
    return {"scenario": scenario, "opponent": opponent, "steps": steps,
            "episodes": episodes, "seconds": elapsed, "steps_per_s": steps / elapsed,
            "actions": e.action_space.n}


def engine_decisions_per_second(scenario: str, decisions: int, seed: int = 0) -> float:
    """Decisions/s of the bare rules core under uniform random play."""
    rng = np.random.default_rng(seed)
    b = rules.Battle.from_scenario(scenario, seed=seed)
    t0 = time.perf_counter()
    for _ in range(decisions):
        if b.is_over:
            b = rules.Battle.from_scenario(scenario, seed=int(rng.integers(2**31)))
        acts = b.legal_actions()
        b.apply(acts[int(rng.integers(len(acts)))])
    return decisions / (time.perf_counter() - t0)


def run(scenarios: Sequence[str] = DEFAULT_SCENARIOS,
        opponents: Sequence[str] = DEFAULT_OPPONENTS, steps: int = 3000,
        seed: int = 0) -> list[dict]:
    """One row per (scenario, opponent) plus the engine figure per scenario."""
    rows = []
    for scenario in scenarios:
        for opponent in opponents:
            rows.append(env_steps_per_second(scenario, opponent, steps, seed))
        rows.append({"scenario": scenario, "opponent": "(engine only)", "steps": steps,
                     "steps_per_s": engine_decisions_per_second(scenario, steps, seed)})
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--scenario", action="append", dest="scenarios")
    parser.add_argument("--opponent", action="append", dest="opponents")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = run(args.scenarios or DEFAULT_SCENARIOS, args.opponents or DEFAULT_OPPONENTS,
               args.steps, args.seed)
    print(f"{'scenario':<12} {'opponent':<14} {'steps/s':>9} {'episodes':>9} {'n':>6}")
    for r in rows:
        print(f"{r['scenario']:<12} {r['opponent']:<14} {r['steps_per_s']:>9.0f} "
              f"{r.get('episodes', ''):>9} {r.get('actions', ''):>6}")


if __name__ == "__main__":
    main()
