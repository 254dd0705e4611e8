"""Expert iteration for ``az`` (``fray az-train``): search plays, the network learns the
search's choices and the outcomes, and the better network guides the next search.

A run's folder (``--out DIR``):

- ``config.json``: the run's settings (a resumed run keeps them);
- ``checkpoints/iteration_<K>.json`` + ``.pt``: the network after loop iteration ``K``
  (:mod:`agents.policy_value`'s safe format; ``iteration_0000`` is the starting
  network); ``az(path=...)`` plays any of them;
- ``optimizer.pt``: Adam's state (tensors and numbers only, read with
  ``weights_only=True``);
- ``data/iteration_<K>.npz``: iteration ``K``'s self-play samples (the replay buffer
  is the newest ``replay`` of them);
- ``progress.csv``: one row per iteration: samples, the losses, the monsters' win rate
  in self-play, seconds.

``--resume`` continues from the newest checkpoint: its network, the optimizer and the
replay files, up to ``iterations`` in all.

**The start** (iteration 0): behaviour cloning of ``imitate`` (default the tactician)
playing each team in turn against the tactician (``experiments.train.imitation.collect``,
outcome-only returns: the value head learns +1 / -1 / 0), or a random network with
``imitate=None``.

**Self-play** (each iteration): ``battles`` battles of the scenario, battle ``i`` of
iteration ``K`` seeded ``10**6 * seed + 1000 * K + i``; every team's decisions are
made by ``az`` with the current network and ``search`` iterations (the search re-seeds
its clones' dice, so it never sees the battle's future dice), the move sampled in
proportion to the visit counts for a team's first ``explore`` decisions of the battle
and the most visited one after. Each decision records the decider's observation, the
exact mask, the visit distribution and, when the battle ends, the outcome for the
decider's team.

**Training**: ``epochs`` passes over the replay buffer in minibatches of
``batch_size``: cross-entropy of the masked policy against the visit distribution plus
the squared error of the value against the outcome.
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import asdict, dataclass, fields
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

KEYS = ("planes", "units", "decision", "globals")


@dataclass
class AZConfig:
    """Settings of one expert-iteration run."""

    scenario: str
    out: str
    iterations: int = 4
    battles: int = 16
    search: int = 32
    explore: int = 4
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    replay: int = 4
    seed: int = 0
    imitate: str | None = "tactician"
    imitate_battles: int = 100
    imitate_epochs: int = 8
    progress: bool = True


@dataclass
class Samples:
    """Stacked decisions: observations, masks, visit distributions, outcomes."""

    observations: dict[str, np.ndarray]
    masks: np.ndarray
    policies: np.ndarray
    outcomes: np.ndarray

    def __len__(self) -> int:
        return int(self.outcomes.shape[0])

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, masks=self.masks, policies=self.policies,
                            outcomes=self.outcomes,
                            **{f"obs_{k}": v for k, v in self.observations.items()})

    @classmethod
    def load(cls, path: Path) -> Samples:
        with np.load(path, allow_pickle=False) as data:
            return cls({k: data[f"obs_{k}"] for k in KEYS}, data["masks"], data["policies"],
                       data["outcomes"])

    def rows(self, part: slice) -> Samples:
        """The samples of ``part`` (in the order they were played)."""
        return Samples({k: v[part] for k, v in self.observations.items()}, self.masks[part],
                       self.policies[part], self.outcomes[part])

    @classmethod
    def concatenate(cls, parts: list[Samples]) -> Samples:
        return cls({k: np.concatenate([p.observations[k] for p in parts]) for k in KEYS},
                   np.concatenate([p.masks for p in parts]),
                   np.concatenate([p.policies for p in parts]),
                   np.concatenate([p.outcomes for p in parts]))


# ------------------------------------------------------------------ files
def checkpoint(out: str | Path, iteration: int) -> Path:
    return Path(out) / "checkpoints" / f"iteration_{iteration:04d}.json"


def latest_iteration(out: str | Path) -> int | None:
    """The newest checkpointed iteration of a run, or None."""
    found = sorted((Path(out) / "checkpoints").glob("iteration_*.json"))
    return int(found[-1].stem.split("_")[1]) if found else None


def data_file(out: str | Path, iteration: int) -> Path:
    return Path(out) / "data" / f"iteration_{iteration:04d}.npz"


# ------------------------------------------------------------------ self-play
def self_play(net: PolicyValueNet, config: AZConfig, iteration: int) -> tuple[Samples, int]:
    """``config.battles`` battles, az with ``net`` commanding every team; the samples and
    the monsters' wins."""
    import rules
    from agents.az import AZ, observe

    observations: dict[str, list[np.ndarray]] = {k: [] for k in KEYS}
    masks: list[np.ndarray] = []
    policies: list[np.ndarray] = []
    outcomes: list[float] = []
    wins = 0
    net.eval()
    bar = tqdm(total=config.battles, desc=f"self-play {iteration}", unit="battle",
               disable=not config.progress, leave=False, dynamic_ncols=True)
    for number in range(config.battles):
        seed = 10**6 * config.seed + 1000 * iteration + number
        battle = rules.Battle.from_scenario(config.scenario, seed=seed)
        agent = AZ.with_network(net, seed=seed, iterations=config.search)
        teams: list[str] = []
        made: dict[str, int] = {}
        while not battle.is_over:
            team, observation, mask = observe(battle)
            made[team] = made.get(team, 0) + 1
            agent.temperature = 1.0 if made[team] <= config.explore else 0.0
            action = agent.act(battle)
            visits = np.zeros(mask.shape[0], dtype=np.float32)
            for index, count in agent.last_visits.items():
                visits[index] = count
            for key in KEYS:
                observations[key].append(np.array(observation[key]))
            masks.append(mask.copy())
            policies.append(visits / visits.sum())
            teams.append(team)
            battle.apply(action)
        winner = battle.winner
        wins += winner == "monsters"
        outcomes += [0.0 if winner is None else (1.0 if t == winner else -1.0) for t in teams]
        bar.update(1)
    bar.close()
    return Samples({k: np.stack(v) for k, v in observations.items()},
                   np.stack(masks), np.stack(policies),
                   np.asarray(outcomes, dtype=np.float32)), wins


def demonstration_samples(scenario: str, teams: list[str], demonstrators: list[str],
                          opponents: list[str], battles: int, seed: int, *,
                          damage_reward: float = 0.0, gamma: float = 1.0,
                          progress: bool = False) -> Samples:
    """Behaviour cloning's set: ``demonstrators`` commanding each of ``teams`` in turn
    against ``opponents`` (``battles`` in all, shared among the teams; team ``k``'s
    battles seeded from ``seed + 10_000 * k``,
    :func:`experiments.train.imitation.collect`), their actions as one-hot policies and
    the env's returns (``damage_reward`` shaping, discounted by ``gamma``) as values."""
    from experiments.train.imitation import collect

    parts = []
    for offset, team in enumerate(teams):
        demos = collect(scenario, team, demonstrators, opponents,
                        max(1, battles // len(teams)), seed=seed + offset * 10_000,
                        damage_reward=damage_reward, gamma=gamma, progress=progress)
        policies = np.zeros(demos.observations["action_mask"].shape, dtype=np.float32)
        policies[np.arange(len(demos)), demos.actions] = 1.0
        parts.append(Samples({k: demos.observations[k] for k in KEYS},
                             demos.observations["action_mask"].astype(bool), policies,
                             demos.returns.astype(np.float32)))
    return Samples.concatenate(parts)


def imitation_samples(config: AZConfig) -> Samples:
    """The starting set: ``imitate`` playing each team against the tactician, its
    actions as one-hot policies and the outcomes (no shaping, no discount) as values."""
    import rules

    if not config.imitate:
        raise ValueError("imitation needs a demonstrator (imitate)")
    teams = rules.load_scenario(config.scenario, rules.default_content()).teams
    samples = demonstration_samples(config.scenario, list(teams), [config.imitate],
                                    ["tactician"], config.imitate_battles,
                                    10**6 * config.seed + 500_000, progress=config.progress)
    samples.outcomes = np.clip(samples.outcomes, -1.0, 1.0)
    return samples


def accuracy(net: PolicyValueNet, samples: Samples, batch_size: int = 2048) -> float:
    """The share of samples whose most probable legal index is the target's most
    probable one (a clone's agreement with its demonstrator)."""
    agree = 0
    with torch.no_grad():
        for first in range(0, len(samples), batch_size):
            rows = slice(first, first + batch_size)
            logits, _ = net(*(torch.as_tensor(samples.observations[k][rows],
                                              dtype=torch.int64 if k == "decision"
                                              else torch.float32) for k in KEYS))
            chosen = masked_log_probabilities(logits, torch.as_tensor(samples.masks[rows]))
            agree += int((chosen.argmax(1).numpy() == samples.policies[rows].argmax(1)).sum())
    return agree / len(samples) if len(samples) else 0.0


# ------------------------------------------------------------------ training
def fit(net: PolicyValueNet, optimizer: torch.optim.Optimizer, samples: Samples,
        epochs: int, batch_size: int, seed: int) -> dict[str, float]:
    """``epochs`` passes of the policy (cross-entropy against the targets) and value
    (squared error against the outcomes) losses; the last epoch's mean losses."""
    net.train()
    generator = np.random.default_rng(seed)
    tensors = {k: torch.as_tensor(samples.observations[k],
                                  dtype=torch.int64 if k == "decision" else torch.float32)
               for k in KEYS}
    masks = torch.as_tensor(samples.masks, dtype=torch.bool)
    policies = torch.as_tensor(samples.policies)
    outcomes = torch.as_tensor(samples.outcomes)
    totals = {"policy_loss": 0.0, "value_loss": 0.0}
    for _ in range(epochs):
        order = generator.permutation(len(samples))
        totals = {"policy_loss": 0.0, "value_loss": 0.0}
        batches = 0
        for first in range(0, len(samples), batch_size):
            rows = torch.as_tensor(order[first:first + batch_size])
            logits, values = net(*(tensors[k][rows] for k in KEYS))
            log_probs = masked_log_probabilities(logits, masks[rows])
            targets = policies[rows]
            policy_loss = -(targets * log_probs.clamp(min=-1e4)).sum(1).mean()
            value_loss = torch.nn.functional.mse_loss(values, outcomes[rows])
            optimizer.zero_grad(set_to_none=True)
            (policy_loss + value_loss).backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            totals["policy_loss"] += policy_loss.item()
            totals["value_loss"] += value_loss.item()
            batches += 1
    net.eval()
    return {k: v / max(1, batches) for k, v in totals.items()}


def _save(net: PolicyValueNet, optimizer: torch.optim.Optimizer, config: AZConfig,
          iteration: int) -> Path:
    torch.save(optimizer.state_dict(), Path(config.out) / "optimizer.pt")
    return save_network(net, checkpoint(config.out, iteration), scenario=config.scenario,
                        team="any", trained={"algorithm": "expert iteration",
                                             "iteration": iteration,
                                             "search": config.search,
                                             "battles": config.battles})


def load_config(out: str | Path) -> AZConfig:
    """A run's saved settings (``--resume``)."""
    path = Path(out) / "config.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the run's settings ({exc})") from None
    known = {f.name for f in fields(AZConfig)}
    if not isinstance(data, dict) or not {"scenario", "out"} <= set(data):
        raise ValueError(f"{path}: expected the run's settings (scenario, out, ...)")
    return AZConfig(**{k: v for k, v in data.items() if k in known})


def train_az(config: AZConfig, resume: bool = False) -> Path:
    """Run (or resume) expert iteration up to ``config.iterations``; the newest
    checkpoint's path."""
    torch.manual_seed(config.seed)
    torch.set_num_threads(1)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    start = latest_iteration(out) if resume else None
    if start is None:
        (out / "config.json").write_text(json.dumps(asdict(config), indent=1) + "\n")
        net = PolicyValueNet(NetworkShape.of_scenario(config.scenario))
        optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
        if config.imitate:
            fit(net, optimizer, imitation_samples(config), config.imitate_epochs,
                config.batch_size, config.seed)
        _save(net, optimizer, config, 0)
        start = 0
    else:
        net, _ = load_network(checkpoint(out, start))
        optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
        state_file = out / "optimizer.pt"
        if state_file.is_file():
            optimizer.load_state_dict(torch.load(state_file, weights_only=True))
    log = out / "progress.csv"
    for iteration in range(start + 1, config.iterations + 1):
        tick = time.perf_counter()
        samples, wins = self_play(net, config, iteration)
        samples.save(data_file(out, iteration))
        kept = [data_file(out, k) for k in range(max(1, iteration - config.replay + 1),
                                                 iteration + 1)]
        replay = Samples.concatenate([Samples.load(p) for p in kept if p.is_file()])
        losses = fit(net, optimizer, replay, config.epochs, config.batch_size,
                     config.seed + iteration)
        _save(net, optimizer, config, iteration)
        row: dict[str, Any] = {"iteration": iteration, "samples": len(samples),
                               "replay": len(replay), **{k: round(v, 4) for k, v in losses.items()},
                               "monsters_win_rate": round(wins / config.battles, 4),
                               "seconds": round(time.perf_counter() - tick, 1)}
        new = not log.exists()
        with log.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, list(row))
            if new:
                writer.writeheader()
            writer.writerow(row)
        tqdm.write(f"iteration {iteration}: {row}")
    return checkpoint(out, max(start, config.iterations))
