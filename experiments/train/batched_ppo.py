"""A batched PPO in plain torch over the native vector env (``fray train --learner
batched``).

stable-baselines3's MaskablePPO spends most of ``fray train``'s time outside the
arithmetic that learning needs: a rollout buffer of per-key numpy arrays copied to
torch every minibatch, a masked ``Categorical`` rebuilt per call, 256-sample
minibatches (docs/training.md, "A learner that keeps up", has the profile). This learner
is the same algorithm (clipped PPO with GAE, advantage normalisation per minibatch,
value loss, entropy bonus, gradient clipping) written for the batched native vector env
(:class:`env.vector.SkirmishVectorEnv` with ``copy=False``):

- rollouts go straight from the env's batch arrays into preallocated torch tensors
  (``T x E`` samples: ``n_steps`` steps of ``envs`` battles);
- the policy is :class:`agents.policy_value.PolicyValueNet` (convolutions at stride 2
  from the first layer, one linear per unit, two hidden layers of 128): about a
  quarter of the ``fray`` extractor's FLOPs per sample;
- masked log-probabilities are one ``masked_fill`` + ``log_softmax`` over the batch;
- the update runs ``epochs`` passes of ``minibatch``-sample minibatches with torch on
  ``threads`` threads (default one: on the shared two-core machine two threads ran the
  update 5-6 times slower, docs/training.md), collecting on one.

A selector (``options``: agent specs with native twins) trains on the vector env's
option rows, as ``fray train --options`` does; the network's actions are then the
options. Checkpoints are :func:`agents.policy_value.save_network` files
(``checkpoints/step_<N>.json`` + ``.pt``); ``az(path=..., iterations=0)`` plays one
(its most probable legal action, no search).
"""

from __future__ import annotations

import contextlib
import csv
import json
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from agents.policy_value import (
    NetworkShape,
    PolicyValueNet,
    load_network,
    masked_log_probabilities,
    save_network,
)
from experiments.train.stopping import COLLECTING, stop_on_terminate

MASKED = -1e9  # the logit of an illegal index (finite, so 0 * log p stays 0)


@dataclass
class BatchedConfig:
    """Settings of one batched PPO run."""

    scenario: str
    out: str
    team: str = "monsters"
    opponents: list[str] = field(default_factory=lambda: ["berserker"])
    options: list[str] = field(default_factory=list)
    steps: int = 100_000
    envs: int = 64
    n_steps: int = 32
    epochs: int = 4
    minibatch: int = 1024
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    damage_reward: float = 0.5
    seed: int = 0
    threads: int = 1
    checkpoint_every: int = 100_000
    init: str | None = None
    #: behaviour cloning before PPO: these agents command ``team`` against ``opponents``
    imitate: list[str] = field(default_factory=list)
    imitate_battles: int = 400
    imitate_epochs: int = 10
    #: battles a party of the evaluation the run ends with (0: none)
    final_eval_battles: int = 0
    progress: bool = True


def make_vector(config: BatchedConfig) -> Any:
    """The run's batched native vector env, each episode's opponent drawn from the pool."""
    from env.vector import SkirmishVectorEnv
    from experiments.train.opponents import SELF, OpponentPool
    from experiments.train.sb3_components import PoolOpponents

    if SELF in config.opponents:
        raise ValueError("the batched learner's opponents must have native forms; 'self' "
                         "is sb3's league (fray train without --learner batched)")
    pool = OpponentPool(config.opponents, None, seed=config.seed * 1000)
    options = None
    if config.options:
        from agents.options import option_twins

        options = option_twins(config.options, config.seed * 1000, config.envs)
    return SkirmishVectorEnv(config.envs, config.scenario, PoolOpponents(pool),
                             team=config.team, damage_reward=config.damage_reward,
                             copy=False, options=options)


class Rollout:
    """Preallocated tensors for ``steps`` x ``envs`` samples."""

    def __init__(self, steps: int, envs: int, vector: Any, actions: int) -> None:
        space = vector.single_observation_space
        self.planes = torch.zeros((steps, envs, *space["planes"].shape))
        self.units = torch.zeros((steps, envs, *space["units"].shape))
        self.decision = torch.zeros((steps, envs, *space["decision"].shape), dtype=torch.int64)
        self.globals = torch.zeros((steps, envs, *space["globals"].shape))
        self.mask = torch.zeros((steps, envs, actions), dtype=torch.bool)
        self.actions = torch.zeros((steps, envs), dtype=torch.int64)
        self.log_probs = torch.zeros((steps, envs))
        self.values = torch.zeros((steps, envs))
        self.rewards = torch.zeros((steps, envs))
        self.dones = torch.zeros((steps, envs))

    def store(self, step: int, observation: dict[str, np.ndarray], mask: np.ndarray) -> None:
        self.planes[step].copy_(torch.from_numpy(observation["planes"]))
        self.units[step].copy_(torch.from_numpy(observation["units"]))
        self.decision[step].copy_(torch.from_numpy(observation["decision"]))
        self.globals[step].copy_(torch.from_numpy(observation["globals"]))
        self.mask[step].copy_(torch.from_numpy(mask))

    def inputs(self, step: int) -> tuple[torch.Tensor, ...]:
        return self.planes[step], self.units[step], self.decision[step], self.globals[step]

    def flat(self, name: str) -> torch.Tensor:
        value = getattr(self, name)
        return value.reshape(-1, *value.shape[2:])


def advantages(rollout: Rollout, last_value: torch.Tensor, gamma: float, lam: float
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """GAE(lambda) advantages and returns; a finished battle (``dones``) cuts the
    bootstrap (the vector env's next row is already the next battle's)."""
    steps = rollout.rewards.shape[0]
    out = torch.zeros_like(rollout.rewards)
    running = torch.zeros_like(last_value)
    for t in reversed(range(steps)):
        following = last_value if t == steps - 1 else rollout.values[t + 1]
        alive = 1.0 - rollout.dones[t]
        delta = rollout.rewards[t] + gamma * following * alive - rollout.values[t]
        running = delta + gamma * lam * alive * running
        out[t] = running
    return out, out + rollout.values


def ppo_loss(net: PolicyValueNet, batch: dict[str, torch.Tensor], config: BatchedConfig
             ) -> tuple[torch.Tensor, dict[str, float]]:
    """The clipped PPO loss of one minibatch, and its parts."""
    logits, values = net(batch["planes"], batch["units"], batch["decision"], batch["globals"])
    log_probs = torch.log_softmax(logits.masked_fill(~batch["mask"], MASKED), dim=-1)
    chosen = log_probs.gather(1, batch["actions"][:, None]).squeeze(1)
    ratio = torch.exp(chosen - batch["log_probs"])
    advantage = batch["advantages"]
    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    policy_loss = -torch.min(ratio * advantage,
                             ratio.clamp(1 - config.clip_range, 1 + config.clip_range)
                             * advantage).mean()
    value_loss = torch.nn.functional.mse_loss(values, batch["returns"])
    entropy = -(log_probs.exp() * log_probs).sum(1).mean()
    loss = policy_loss + config.vf_coef * value_loss - config.ent_coef * entropy
    return loss, {"policy_loss": policy_loss.item(), "value_loss": value_loss.item(),
                  "entropy": entropy.item()}


def checkpoint_path(config: BatchedConfig, steps: int) -> Path:
    return Path(config.out) / "checkpoints" / f"step_{steps:010d}.json"


def train_batched(config: BatchedConfig, limit_seconds: float | None = None
                  ) -> tuple[Path, dict[str, float]]:
    """Behaviour cloning first with ``config.imitate``; then PPO for ``config.steps``
    samples (or until ``limit_seconds``, or a SIGTERM / SIGINT, which stops it after
    the current update and saves); then, unless stopped by a signal, the final
    evaluation (``final_eval_battles``). The final checkpoint and the run's figures
    (samples/s, collect and update seconds, cloning)."""
    with contextlib.ExitStack() as stack:
        return _train(config, limit_seconds, stack)


def _train(config: BatchedConfig, limit_seconds: float | None, stack: contextlib.ExitStack
           ) -> tuple[Path, dict[str, float]]:
    torch.manual_seed(config.seed)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(config), indent=1) + "\n")
    vector = make_vector(config)
    actions = int(vector.single_action_space.n)
    if config.init:
        net, _ = load_network(config.init)
        if net.shape.actions != actions:
            raise ValueError(f"--init {config.init}: {net.shape.actions} actions, this run "
                             f"has {actions}")
    else:
        shape = NetworkShape.of_scenario(config.scenario)
        net = PolicyValueNet(NetworkShape(**{**shape.__dict__, "actions": actions}))
    clone_figures = clone(net, config) if config.imitate else {}
    if config.imitate:
        _save(net, config, 0)
    net.train()
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate, eps=1e-5)
    rollout = Rollout(config.n_steps, config.envs, vector, actions)
    observation, _ = vector.reset(seed=config.seed * 1000)
    generator = torch.Generator().manual_seed(config.seed)
    per_update = config.n_steps * config.envs
    done_steps, last_checkpoint = 0, 0
    collect_seconds = update_seconds = 0.0
    episodes = wins = 0
    recent: deque[bool] = deque(maxlen=200)
    log_rows: list[dict[str, Any]] = []
    bar = tqdm(total=config.steps, unit="step", desc=f"train {config.scenario} (batched)",
               disable=not config.progress, smoothing=0, dynamic_ncols=True)
    start = time.perf_counter()
    final = checkpoint_path(config, 0)
    stop = stack.enter_context(stop_on_terminate())
    stop.phase = COLLECTING  # a SIGTERM or SIGINT is recorded; the loop stops after the update
    while done_steps < config.steps:
        if limit_seconds is not None and time.perf_counter() - start > limit_seconds:
            break
        if stop.signal is not None:
            tqdm.write(f"signal {stop.signal}: stopping at step {done_steps:,}")
            break
        tick = time.perf_counter()
        torch.set_num_threads(1)
        with torch.no_grad():
            for t in range(config.n_steps):
                mask = vector.action_masks() if config.options else observation["action_mask"]
                rollout.store(t, observation, mask)
                logits, values = net(*rollout.inputs(t))
                log_probs = masked_log_probabilities(logits, rollout.mask[t])
                chosen = torch.multinomial(log_probs.exp(), 1, generator=generator).squeeze(1)
                rollout.actions[t] = chosen
                rollout.log_probs[t] = log_probs.gather(1, chosen[:, None]).squeeze(1)
                rollout.values[t] = values
                observation, rewards, terminated, truncated, infos = vector.step(
                    chosen.numpy())
                finished = terminated | truncated
                rollout.rewards[t] = torch.from_numpy(rewards.astype(np.float32))
                rollout.dones[t] = torch.from_numpy(finished.astype(np.float32))
                for i in np.flatnonzero(finished):
                    won = infos["final_info"]["winner"][i] == config.team
                    episodes += 1
                    wins += won
                    recent.append(bool(won))
            _, last_value = net(*(torch.as_tensor(observation[key], dtype=dtype) for key, dtype
                                  in (("planes", torch.float32), ("units", torch.float32),
                                      ("decision", torch.int64), ("globals", torch.float32))))
        advantage, returns = advantages(rollout, last_value, config.gamma, config.gae_lambda)
        collect_seconds += time.perf_counter() - tick
        tick = time.perf_counter()
        torch.set_num_threads(config.threads)
        batch_all = {name: rollout.flat(name) for name in (
            "planes", "units", "decision", "globals", "mask", "actions", "log_probs")}
        batch_all["advantages"] = advantage.reshape(-1)
        batch_all["returns"] = returns.reshape(-1)
        parts: dict[str, float] = {}
        for _ in range(config.epochs):
            order = torch.randperm(per_update, generator=generator)
            for first in range(0, per_update, config.minibatch):
                rows = order[first:first + config.minibatch]
                loss, parts = ppo_loss(net, {k: v[rows] for k, v in batch_all.items()}, config)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm)
                optimizer.step()
        update_seconds += time.perf_counter() - tick
        done_steps += per_update
        bar.update(per_update)
        if episodes:
            bar.set_postfix(episodes=episodes, win=f"{wins / episodes:.2f}",
                            recent=f"{sum(recent) / len(recent):.2f}", refresh=False)
        log_rows.append({"step": done_steps, "episodes": episodes,
                         "recent_win_rate": round(sum(recent) / max(1, len(recent)), 4),
                         **{k: round(v, 5) for k, v in parts.items()}})
        if config.checkpoint_every and done_steps - last_checkpoint >= config.checkpoint_every:
            last_checkpoint = done_steps
            final = _save(net, config, done_steps)
    bar.close()
    final = _save(net, config, done_steps)
    with (out / "progress.csv").open("w", newline="") as handle:
        if log_rows:
            writer = csv.DictWriter(handle, list(log_rows[0]))
            writer.writeheader()
            writer.writerows(log_rows)
    elapsed = time.perf_counter() - start
    torch.set_num_threads(1)
    stopped = stop.signal is not None
    stack.close()
    if config.final_eval_battles and not stopped:
        from experiments.train.evaluation import TRAIN_LOG
        from experiments.train.final_evaluation import report

        report(config.scenario, config.team, final, config.opponents,
               config.final_eval_battles, config.out, progress=config.progress,
               log=out / TRAIN_LOG)
    return final, {**clone_figures, "steps": done_steps, "seconds": elapsed,
                   "steps_per_s": done_steps / elapsed if elapsed else 0.0,
                   "collect_seconds": collect_seconds, "update_seconds": update_seconds,
                   "episodes": episodes, "win_rate": wins / episodes if episodes else 0.0,
                   "flops_per_sample": net.flops_per_sample()}


def clone(net: PolicyValueNet, config: BatchedConfig) -> dict[str, float]:
    """Behaviour cloning of ``config.imitate`` into ``net`` before PPO, with expert
    iteration's cloning (:mod:`experiments.train.expert_iteration`): the demonstrators
    command the team against the run's opponents for ``imitate_battles`` battles (battle
    seeds from ``10**6 * seed + 500_000``; the env's rewards, the run's shaping and
    discount, as the value's targets); ``imitate_epochs`` epochs (Adam, lr 1e-3,
    minibatch 256) on the first nine tenths of the decisions; the rest (the last
    battles played) held out. Writes ``imitation.csv``; returns the figures."""
    from experiments.train.expert_iteration import accuracy, demonstration_samples, fit

    tick = time.perf_counter()
    torch.set_num_threads(config.threads)
    samples = demonstration_samples(config.scenario, [config.team], config.imitate,
                                    config.opponents, config.imitate_battles,
                                    10**6 * config.seed + 500_000,
                                    damage_reward=config.damage_reward, gamma=config.gamma,
                                    progress=config.progress)
    cut = len(samples) - len(samples) // 10
    training, held_out = samples.rows(slice(0, cut)), samples.rows(slice(cut, None))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    losses = fit(net, optimizer, training, config.imitate_epochs, 256, config.seed)
    figures = {"imitation_samples": len(samples),
               "imitation_policy_loss": round(losses["policy_loss"], 4),
               "imitation_value_loss": round(losses["value_loss"], 4),
               "imitation_accuracy": round(accuracy(net, training), 4),
               "imitation_held_out_accuracy": round(accuracy(net, held_out), 4),
               "imitation_seconds": round(time.perf_counter() - tick, 1)}
    with (Path(config.out) / "imitation.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(figures))
        writer.writeheader()
        writer.writerow(figures)
    tqdm.write(f"behaviour cloning of {', '.join(config.imitate)}: {figures}")
    return figures


def _save(net: PolicyValueNet, config: BatchedConfig, steps: int) -> Path:
    return save_network(net, checkpoint_path(config, steps), scenario=config.scenario,
                        team=config.team, trained={"algorithm": "batched PPO", "steps": steps,
                                                   "opponents": config.opponents,
                                                   "options": config.options,
                                                   "imitate": config.imitate})
