"""Learner throughput side by side: sb3-contrib's MaskablePPO as ``fray train`` builds it
(the ``fray`` network on the batched native vector env) and the batched PPO
(``experiments/train/batched_ppo.py``), on one scenario, each over the same number of
samples after one warm-up update, one job at a time.

    python -m experiments.train.learner_speed skirmish --samples 8192

Prints one line per learner: samples/s (rollout and update included), the network's
forward FLOPs per sample, the arithmetic rate the run reached (forward FLOPs x (1 +
3 x epochs) per sample: a rollout forward, then forward and backward (about twice the
forward) in every epoch) and that rate as a fraction of two cores' arithmetic: twice a
1024 x 1024 float32 matrix product's rate on one thread, measured in the same run (on a
shared machine two threads measure the other jobs, not the cores).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SELECTOR = ["tactician", "tactician(step_back=true)", "defender", "skirmisher"]
OPPONENTS = ["tactician", "berserker"]


@dataclass
class Measured:
    """One learner's run."""

    label: str
    samples_per_s: float
    flops_per_sample: float  # forward
    epochs: int

    @property
    def flop_rate(self) -> float:
        return self.samples_per_s * self.flops_per_sample * (1 + 3 * self.epochs)


def matmul_rate(threads: int, size: int = 1024, repeats: int = 10) -> float:
    """float32 FLOP/s of a square matrix product on ``threads`` torch threads."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        a = torch.randn(size, size)
        a @ a
        start = time.perf_counter()
        for _ in range(repeats):
            a @ a
        return 2 * size**3 * repeats / (time.perf_counter() - start)
    finally:
        torch.set_num_threads(previous)


def sb3_flops_per_sample(policy: Any) -> float:
    """Forward FLOPs of an sb3 policy per sample (convolutions and linear layers,
    counted by a forward hook on one sample)."""
    import torch
    from torch import nn

    total = 0

    def count(module: Any, inputs: Any, output: Any) -> None:
        nonlocal total
        if isinstance(module, nn.Conv2d):
            total += 2 * output.numel() * module.in_channels * module.kernel_size[0] \
                * module.kernel_size[1] // module.groups
        elif isinstance(module, nn.Linear):
            total += 2 * (output.numel() // module.out_features) * module.in_features \
                * module.out_features

    hooks = [m.register_forward_hook(count) for m in policy.modules()
             if isinstance(m, nn.Conv2d | nn.Linear)]
    try:
        sample = policy.observation_space.sample()
        tensors, _ = policy.obs_to_tensor(sample)
        with torch.no_grad():
            policy.get_distribution(tensors)
            policy.predict_values(tensors)
    finally:
        for hook in hooks:
            hook.remove()
    return float(total)


def sb3_speed(scenario: str, samples: int, envs: int, n_steps: int, threads: int,
              options: list[str] | None = None, policy: str = "fray",
              batch_size: int = 256) -> Measured:
    """MaskablePPO as ``fray train`` builds it, torch on ``threads`` in the update."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from experiments.train.sb3 import TrainConfig, make_vec_env, policy_spec, quiet_logger

    config = TrainConfig(scenario=scenario, out="", opponents=OPPONENTS, envs=envs,
                         n_steps=n_steps, options=options or [], policy=policy,
                         batch_size=batch_size, progress=False)
    vec = make_vec_env(config)
    name, kwargs = policy_spec(policy, scenario, None, options or [], "decision")
    model = MaskablePPO(name, vec, policy_kwargs=kwargs, n_steps=n_steps,
                        batch_size=batch_size, n_epochs=config.n_epochs, seed=0,
                        device="cpu", verbose=0)
    model.set_logger(quiet_logger())

    class Threads(BaseCallback):
        def _on_rollout_start(self) -> None:
            torch.set_num_threads(1)

        def _on_rollout_end(self) -> None:
            torch.set_num_threads(threads)

        def _on_step(self) -> bool:
            return True

    per_update = n_steps * envs
    model.learn(total_timesteps=per_update, callback=Threads())  # warm-up
    start = time.perf_counter()
    model.learn(total_timesteps=max(per_update, samples), callback=Threads(),
                reset_num_timesteps=False)
    rate = max(per_update, samples) / (time.perf_counter() - start)
    vec.close()
    label = (f"sb3 MaskablePPO {'selector' if options else 'actions'} {policy}, {envs} envs "
             f"x {n_steps}, batch {batch_size}, update threads {threads}")
    return Measured(label, rate, sb3_flops_per_sample(model.policy), config.n_epochs)


def batched_speed(scenario: str, samples: int, envs: int, n_steps: int, threads: int,
                  options: list[str] | None = None, minibatch: int = 1024) -> Measured:
    """The batched PPO over the same number of samples (after one warm-up update)."""
    import tempfile

    from experiments.train.batched_ppo import BatchedConfig, train_batched

    per_update = n_steps * envs
    with tempfile.TemporaryDirectory() as out:
        config = BatchedConfig(scenario, out, opponents=OPPONENTS, options=options or [],
                               steps=per_update + max(per_update, samples), envs=envs,
                               n_steps=n_steps, threads=threads, minibatch=minibatch,
                               checkpoint_every=0, progress=False)
        _, warm = train_batched(BatchedConfig(**{**config.__dict__, "steps": per_update}))
        _, figures = train_batched(config)
    # the second run's time less one update's (the warm-up run measured it)
    rate = (figures["steps"] - per_update) / max(1e-9, figures["seconds"] - warm["seconds"])
    label = (f"batched PPO {'selector' if options else 'actions'}, {envs} envs x {n_steps}, "
             f"minibatch {minibatch}, update threads {threads}")
    return Measured(label, rate, figures["flops_per_sample"], config.epochs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", nargs="?", default="skirmish")
    parser.add_argument("--samples", type=int, default=8192)
    parser.add_argument("--only", default=None, help="comma-separated row numbers")
    args = parser.parse_args(argv)
    s = args.samples
    runs = [
        lambda: sb3_speed(args.scenario, s, 16, 128, 2, SELECTOR),
        lambda: sb3_speed(args.scenario, s, 16, 128, 1, SELECTOR),
        lambda: sb3_speed(args.scenario, s, 16, 128, 1),
        lambda: sb3_speed(args.scenario, s, 64, 32, 1),
        lambda: sb3_speed(args.scenario, s, 64, 32, 1, batch_size=1024),
        lambda: sb3_speed(args.scenario, s, 64, 32, 1, policy="mlp", batch_size=1024),
        lambda: batched_speed(args.scenario, s, 64, 32, 1, SELECTOR),
        lambda: batched_speed(args.scenario, s, 64, 32, 1),
        lambda: batched_speed(args.scenario, s, 64, 32, 2),
        lambda: batched_speed(args.scenario, s, 128, 32, 1, minibatch=2048),
    ]
    chosen = ([int(x) for x in args.only.split(",")] if args.only else range(len(runs)))
    one = matmul_rate(1)
    peak = 2 * one
    print(f"float32 matrix product: one thread {one / 1e9:.1f} GFLOP/s, two threads "
          f"{matmul_rate(2) / 1e9:.1f}; two cores' arithmetic taken as {peak / 1e9:.1f}",
          flush=True)
    for number in chosen:
        measured = runs[number]()
        print(f"{number}. {measured.label}: {measured.samples_per_s:,.0f} samples/s, "
              f"{measured.flops_per_sample / 1e6:.2f} MFLOP/sample forward, "
              f"{measured.flop_rate / 1e9:.1f} GFLOP/s = {measured.flop_rate / peak:.1%} "
              f"of two cores", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
