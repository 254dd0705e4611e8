"""Warm start from demonstrations: behaviour cloning before PPO (``fray train --imitate``).

``collect`` plays battles with a scripted *demonstrator* (``--imitate tactician``)
commanding the learner's team against the opponent pool, through the training env
itself (:class:`env.SkirmishEnv`, the same observation builder, action codec and rewards
that PPO and ``learned:PATH`` use): for every decision of the team (turn actions and
reactions alike) it records the observation, the exact action mask and the index of the
demonstrator's action (``env.encode``), and then steps the env with that index. The
returns of every step (the env's outcome reward plus its damage shaping, discounted by
the run's ``gamma``) are what the value head learns.

``pretrain`` fits a MaskablePPO policy to them: masked cross-entropy of the
demonstrator's index under the policy's masked distribution (behaviour cloning) plus
``value_coef`` times the squared error of the value head against the returns, with Adam
over a few epochs. A tenth of the battles is held out; each epoch reports the loss, the
training accuracy and the held-out accuracy (the policy's most probable legal index
equals the demonstrator's). ``BehaviourCloning`` keeps the cloning loss as a regulariser
during PPO (a few minibatches before each PPO update, ``--imitate-keep`` of them,
decaying to zero over ``--imitate-keep-steps``), so the fine-tuning does not wander far
from the demonstrator early.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from experiments.workers import process_pool

OBSERVATION_KEYS = ("planes", "units", "decision", "globals", "action_mask")


@dataclass
class Demonstrations:
    """Stacked decisions of demonstration battles: observations (with their masks),
    the demonstrator's action indices, the discounted returns and each sample's battle."""

    observations: dict[str, np.ndarray]
    actions: np.ndarray
    returns: np.ndarray
    episodes: np.ndarray
    wins: int
    battles: int

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def save(self, path: str | Path) -> Path:
        """Write the set to a compressed ``.npz`` (planes and masks compress well)."""
        path = Path(path)
        np.savez_compressed(path, actions=self.actions, returns=self.returns,
                            episodes=self.episodes, counts=np.array([self.wins, self.battles]),
                            **{f"obs_{k}": v for k, v in self.observations.items()})
        return path

    @classmethod
    def load(cls, path: str | Path) -> Demonstrations:
        """A set written by :meth:`save`."""
        with np.load(path) as data:
            wins, battles = (int(v) for v in data["counts"])
            return cls({k: data[f"obs_{k}"] for k in OBSERVATION_KEYS}, data["actions"],
                       data["returns"], data["episodes"], wins, battles)

    def __add__(self, other: Demonstrations) -> Demonstrations:
        """Both sets' samples (battle numbers kept; counts summed)."""
        return Demonstrations(
            {k: np.concatenate([v, other.observations[k]]) for k, v in self.observations.items()},
            np.concatenate([self.actions, other.actions]),
            np.concatenate([self.returns, other.returns]),
            np.concatenate([self.episodes, other.episodes]),
            self.wins + other.wins, self.battles + other.battles)

    def subset(self, rows: np.ndarray) -> Demonstrations:
        """The samples at ``rows`` (the battle counts are kept)."""
        return Demonstrations({k: v[rows] for k, v in self.observations.items()},
                              self.actions[rows], self.returns[rows], self.episodes[rows],
                              self.wins, self.battles)


def discounted(rewards: Sequence[float], gamma: float) -> np.ndarray:
    """Returns-to-go of one episode's rewards."""
    out = np.zeros(len(rewards), dtype=np.float32)
    running = 0.0
    for step in range(len(rewards) - 1, -1, -1):
        running = rewards[step] + gamma * running
        out[step] = running
    return out


Job = tuple[str, str, list[str], list[str], list[int], float, float, "str | None"]
Chunk = tuple[list[dict[str, np.ndarray]], list[int], list[np.ndarray], list[int], int]


def _collect_chunk(job: Job, on_battle: Callable[[], None] | None = None) -> Chunk:
    """Play the battles of one chunk; returns observations, actions, returns, battle
    numbers and wins (runs in a worker process when there are several). ``on_battle`` is
    called after each battle (the progress bar, in-process)."""
    import agents
    from agents.environments import NamedAgent
    from env import SkirmishEnv

    scenario, team, demonstrators, opponents, numbers, damage_reward, gamma, driver = job
    env = SkirmishEnv(scenario=scenario, opponent=NamedAgent(opponents[0]), team=team,
                      damage_reward=damage_reward, illegal_action="raise")
    observations: list[dict[str, np.ndarray]] = []
    actions: list[int] = []
    returns: list[np.ndarray] = []
    episodes: list[int] = []
    wins = 0
    for number in numbers:
        env.opponent_source = NamedAgent(opponents[number % len(opponents)])
        demonstrator = agents.make(demonstrators[number % len(demonstrators)], seed=number)
        player = agents.make(driver, seed=number) if driver else demonstrator
        obs, _ = env.reset(seed=number)
        rewards: list[float] = []
        while True:
            index = env.encode(demonstrator.act(env.battle))
            played = index if player is demonstrator else env.encode(player.act(env.battle))
            if index is None or played is None:  # pragma: no cover - every legal action
                raise RuntimeError("an agent's action has no index")  # has an index
            observations.append(obs)
            actions.append(index)
            episodes.append(number)
            obs, reward, terminated, truncated, info = env.step(played)
            rewards.append(reward)
            if terminated or truncated:
                wins += info.get("winner") == team
                break
        returns.append(discounted(rewards, gamma))
        if on_battle is not None:
            on_battle()
    return observations, actions, returns, episodes, wins


def _chunks(numbers: Sequence[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(numbers), size):
        yield list(numbers[start:start + size])


def collect(scenario: str, team: str, demonstrators: Sequence[str],
            opponents: Sequence[str], battles: int, seed: int = 0,
            damage_reward: float = 0.5, gamma: float = 0.99, workers: int = 1,
            driver: str | None = None, progress: bool = False,
            advance: Callable[[float], None] | None = None) -> Demonstrations:
    """``battles`` demonstration battles: battle ``i`` (``seed + i``) has demonstrator
    ``i mod len(demonstrators)`` and opponent ``i mod len(opponents)``, and the env reset
    with seed ``seed + i``, so a set is reproducible from its arguments.

    With ``driver`` (an agent name, say ``learned:PATH``) the driver plays the team and
    the demonstrator only labels the decisions the driver reaches (DAgger): the set then
    covers the states the learner itself gets into, not only the demonstrator's.
    ``advance``: called with the battles done (a run's overall bar, experiments.train.stages)."""
    if not demonstrators or not opponents:
        raise ValueError("demonstrations need a demonstrator and an opponent")
    numbers = list(range(seed, seed + battles))
    # in-process, chunks of 10 battles share an env and the bar moves per battle; in a
    # pool one battle per job, so the bar (and its ETA) moves from the first battle
    jobs = [(scenario, team, list(demonstrators), list(opponents), chunk, damage_reward,
             gamma, driver) for chunk in _chunks(numbers, 1 if workers > 1 else 10)]
    parts: list[dict[str, np.ndarray]] = []
    actions: list[int] = []
    returns: list[np.ndarray] = []
    episodes: list[int] = []
    wins = 0
    bar = tqdm(total=battles, desc="demonstrations", unit="battle", disable=not progress,
               dynamic_ncols=True, leave=advance is None)

    def played(count: int) -> None:
        bar.update(count)
        if advance is not None:
            advance(count)

    def gather(results: Iterator[Chunk], counted: bool) -> None:
        nonlocal wins
        for chunk_obs, chunk_actions, chunk_returns, chunk_episodes, chunk_wins in results:
            parts.extend(chunk_obs)
            actions.extend(chunk_actions)
            returns.extend(chunk_returns)
            episodes.extend(chunk_episodes)
            wins += chunk_wins
            if not counted:
                played(len(chunk_returns))
            bar.set_postfix(decisions=len(actions), wins=wins, refresh=False)

    if workers > 1:
        with process_pool(workers) as pool:
            gather(pool.map(_collect_chunk, jobs), counted=False)
    else:
        gather((_collect_chunk(job, lambda: played(1)) for job in jobs), counted=True)
    bar.close()
    stacked = {key: np.stack([obs[key] for obs in parts]) for key in OBSERVATION_KEYS}
    return Demonstrations(stacked, np.asarray(actions, dtype=np.int64),
                          np.concatenate(returns).astype(np.float32),
                          np.asarray(episodes, dtype=np.int64), wins, battles)


def _tensors(policy: Any, demos: Demonstrations, rows: np.ndarray) -> tuple[Any, ...]:
    """Policy-ready tensors of the samples at ``rows``: observations, masks, actions,
    returns."""
    import torch

    observations = {key: value[rows] for key, value in demos.observations.items()}
    tensors, _ = policy.obs_to_tensor(observations)
    masks = demos.observations["action_mask"][rows].astype(bool)
    return (tensors, masks, torch.as_tensor(demos.actions[rows]),
            torch.as_tensor(demos.returns[rows]))


def cloning_loss(policy: Any, demos: Demonstrations, rows: np.ndarray,
                 value_coef: float) -> tuple[Any, float]:
    """Masked cross-entropy of the demonstrator's indices plus ``value_coef`` times the
    value head's squared error on the returns; also the batch's accuracy."""
    import torch

    tensors, masks, actions, returns = _tensors(policy, demos, rows)
    # MaskableActorCriticPolicy.evaluate_actions, keeping the distribution: one pass of
    # the shared features extractor for both heads
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(tensors))
    distribution = policy._get_action_dist_from_latent(latent_pi)
    distribution.apply_masking(masks)
    values = policy.value_net(latent_vf).flatten()
    log_prob = distribution.log_prob(actions)
    loss = -log_prob.mean() + value_coef * torch.nn.functional.mse_loss(values, returns)
    chosen = distribution.distribution.probs.argmax(dim=1)
    return loss, float((chosen == actions).float().mean())


def accuracy(policy: Any, demos: Demonstrations, batch_size: int = 512) -> float:
    """Share of samples where the policy's most probable legal index is the
    demonstrator's."""
    if not len(demos):
        return float("nan")
    return float((predictions(policy, demos, batch_size) == demos.actions).mean())


def predictions(policy: Any, demos: Demonstrations, batch_size: int = 512) -> np.ndarray:
    """The policy's most probable legal index for every sample."""
    import torch

    out = np.zeros(len(demos), dtype=np.int64)
    with torch.no_grad():
        for start in range(0, len(demos), batch_size):
            rows = np.arange(start, min(start + batch_size, len(demos)))
            tensors, masks, _, _ = _tensors(policy, demos, rows)
            probs = policy.get_distribution(tensors, action_masks=masks).distribution.probs
            out[rows] = probs.argmax(dim=1).numpy()
    return out


def accuracy_by_kind(policy: Any, demos: Demonstrations,
                     codec: Any) -> list[dict[str, Any]]:
    """Per action kind of the demonstrator's choice: how many samples, how often the
    policy picked the same kind, and how often the very same index (for a move: the
    same square). ``codec`` is the scenario's :class:`env.spaces.ActionCodec`."""
    def kinds(indices: np.ndarray) -> np.ndarray:
        return np.array([codec.block_of(int(i)).kind.name for i in indices])

    chosen = predictions(policy, demos)
    want, got = kinds(demos.actions), kinds(chosen)
    rows = []
    for kind in np.unique(want):
        at = want == kind
        rows.append({"kind": str(kind), "samples": int(at.sum()),
                     "same_kind": float((got[at] == kind).mean()),
                     "same_index": float((chosen[at] == demos.actions[at]).mean())})
    return sorted(rows, key=lambda row: -row["samples"])


def split(demos: Demonstrations, held_out: float = 0.1) -> tuple[Demonstrations,
                                                                 Demonstrations]:
    """Training and held-out samples, by whole battles (the last ``held_out`` share)."""
    numbers = np.unique(demos.episodes)
    cut = numbers[int(len(numbers) * (1 - held_out))] if len(numbers) > 1 else None
    if cut is None:
        return demos, demos.subset(np.zeros(0, dtype=np.int64))
    return (demos.subset(np.flatnonzero(demos.episodes < cut)),
            demos.subset(np.flatnonzero(demos.episodes >= cut)))


def pretrain(policy: Any, demos: Demonstrations, epochs: int = 10, batch_size: int = 256,
             learning_rate: float = 1e-3, value_coef: float = 0.5, seed: int = 0,
             progress: bool = False, advance: Callable[[float], None] | None = None,
             ) -> list[dict[str, float]]:
    """Behaviour cloning of ``policy`` on ``demos`` (see the module docstring); one row
    per epoch: loss, training accuracy, held-out accuracy. ``advance``: called with the
    samples of each minibatch (a run's overall bar, experiments.train.stages)."""
    import torch

    train_set, held_out = split(demos)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    history = []
    policy.set_training_mode(True)
    # one tick per minibatch (not per epoch), so the ETA shows after the first few
    batches = -(-len(train_set) // batch_size)
    bar = tqdm(total=epochs * batches, desc="behaviour cloning", unit="batch",
               disable=not progress, dynamic_ncols=True, leave=advance is None)
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(train_set))
        losses, hits = [], []
        for start in range(0, len(order), batch_size):
            loss, hit = cloning_loss(policy, train_set, order[start:start + batch_size],
                                     value_coef)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            losses.append(float(loss.detach()))
            hits.append(hit)
            bar.update()
            if advance is not None:
                advance(min(batch_size, len(order) - start))
        policy.set_training_mode(False)
        row = {"epoch": epoch, "loss": float(np.mean(losses)),
               "train_accuracy": float(np.mean(hits)),
               "held_out_accuracy": accuracy(policy, held_out)}
        policy.set_training_mode(True)
        history.append(row)
        bar.set_postfix(loss=f"{row['loss']:.3f}", held_out=f"{row['held_out_accuracy']:.3f}",
                        refresh=False)
        tqdm.write(f"behaviour cloning epoch {epoch}: loss {row['loss']:.4f}, accuracy "
                   f"{row['train_accuracy']:.3f} (held out {row['held_out_accuracy']:.3f})")
    bar.close()
    policy.set_training_mode(False)
    return history


class BehaviourCloning:
    """The cloning loss kept during PPO: ``minibatches`` Adam steps on the
    demonstrations before each PPO update, fewer as ``steps`` pass, none after."""

    def __init__(self, policy: Any, demos: Demonstrations, minibatches: int, steps: int,
                 batch_size: int = 256, learning_rate: float = 1e-4,
                 value_coef: float = 0.5, seed: int = 0) -> None:
        import torch

        self.policy = policy
        self.demos = demos
        self.minibatches = minibatches
        self.steps = steps
        self.batch_size = batch_size
        self.value_coef = value_coef
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
        self.rng = np.random.default_rng(seed)

    def count(self, elapsed: int) -> int:
        """Minibatches to run after ``elapsed`` PPO steps (linear decay to zero)."""
        if self.steps <= 0 or elapsed >= self.steps:
            return 0
        return int(np.ceil(self.minibatches * (1 - elapsed / self.steps)))

    def update(self, elapsed: int) -> int:
        """The cloning steps due after ``elapsed`` PPO steps; returns how many ran."""
        import torch

        runs = self.count(elapsed)
        if not runs or not len(self.demos):
            return 0
        self.policy.set_training_mode(True)
        for _ in range(runs):
            rows = self.rng.integers(len(self.demos), size=self.batch_size)
            loss, _ = cloning_loss(self.policy, self.demos, rows, self.value_coef)
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), 0.5)
            self.optimizer.step()
        self.policy.set_training_mode(False)
        return runs
