"""``fray train --backend rllib``: RLlib's PPO on Ray, one RL module per team.

The game is the PettingZoo AEC env (:func:`env.raw_env`, one agent per combatant),
seen by RLlib as a multi-agent env whose agents are the *teams*: whichever of a team's
combatants decides, that team's module acts, so a team's policy plays every decision of
its team (the same contract as ``learned:PATH``). Each episode draws an entry of the
opponent pool: ``self`` lets every team's module play (team self-play, both trained);
an agent name plays the other teams with that scripted agent, and only the learner
team's module gets experience.

Observations are ``{"observations": the flattened env observation (planes, units,
one-hot decision, globals; gymnasium.spaces.flatten), "action_mask": float mask}`` and
the modules are RLlib's action-masking PPO module (``ActionMaskingTorchRLModule`` from
RLlib's examples), which adds ``log(mask)`` to the logits, so illegal actions are never
sampled. Rewards per team: +1 / -1 / 0 at the end (:func:`env.core.outcome_reward`) plus
the optional damage shaping (:func:`env.core.shaping`), credited to a team even between
its decisions.

Ray runs locally by default (``ray.init(num_cpus=...)``); ``address`` connects to a
running cluster instead (``"auto"`` on a cluster node, ``"ray://HEAD:10001"`` through
Ray Client); fray must be installed on every node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

SELF = "self"


class FrayTeamsEnv(MultiAgentEnv):
    """The AEC env as an RLlib multi-agent env whose agents are the learned teams."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        import env as fray_env
        from experiments.train.opponents import OpponentPool

        config = dict(config or {})
        # the mask keeps PPO legal; "penalty" makes a stray index a no-op, not a crash
        self.aec = fray_env.raw_env(scenario=config.get("scenario", "duel"),
                                    illegal_action="penalty")
        self.setup = self.aec.game.setup
        self.team = config.get("team", "monsters")
        self.damage_reward = float(config.get("damage_reward", 0.0))
        self.pool = OpponentPool(config.get("opponents", [SELF]),
                                 seed=config.get("seed", 0))
        self.teams = list(self.setup.teams)
        self.possible_agents = self.teams[:]
        self.agents = self.teams[:]
        inner = spaces.Dict(self.setup.builder.spaces())
        self._inner = inner
        flat = spaces.flatten_space(inner)
        one = spaces.Dict({
            "observations": spaces.Box(flat.low.astype(np.float32),
                                       flat.high.astype(np.float32), dtype=np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (self.setup.n,), dtype=np.float32),
        })
        self.observation_spaces = dict.fromkeys(self.teams, one)
        self.action_spaces = {t: spaces.Discrete(self.setup.n) for t in self.teams}
        self.scripted: Any = None
        self.rng = np.random.default_rng(config.get("seed", 0))

    def _learned(self, team: str) -> bool:
        return team == self.team or self.scripted is None

    def _observe(self, combatant: str) -> dict[str, np.ndarray]:
        raw = self.aec.observe(combatant)
        return {"observations": spaces.flatten(self._inner, raw["observation"])
                .astype(np.float32),
                "action_mask": raw["action_mask"].astype(np.float32)}

    def _skip_dead(self) -> None:
        """PettingZoo's protocol: a terminated agent's last step is ``step(None)``."""
        while self.aec.agents and (self.aec.terminations[self.aec.agent_selection]
                                   or self.aec.truncations[self.aec.agent_selection]):
            self.aec.step(None)

    def _run_until_learner(self, rewards: dict[str, float]) -> None:
        """Play scripted decisions (and dead agents' steps) until a learned team decides
        or the battle ends, crediting shaping to every team."""
        from env.core import shaping, team_health

        battle = self.aec.battle
        while True:
            self._skip_dead()
            if battle.is_over or not self.aec.agents:
                return
            actor = self.aec.agent_selection
            team = battle.combatants[actor].team
            if self._learned(team):
                return
            before = team_health(battle)
            index = self.setup.codec.encode(battle, actor, self.scripted.act(battle))
            self.aec.step(index)
            self._credit(rewards, before, team_health(battle), shaping)

    def _credit(self, rewards: dict[str, float], before: dict[str, float],
                after: dict[str, float], shaping: Any) -> None:
        if self.damage_reward:
            for team in self.teams:
                rewards[team] = rewards.get(team, 0.0) + self.damage_reward * shaping(
                    before, after, team)

    def _result(self, rewards: dict[str, float]) -> tuple[dict, dict, dict, dict, dict]:
        from env.core import ended_by_round_limit, outcome_reward

        battle = self.aec.battle
        learned = [t for t in self.teams if self._learned(t)]
        if battle.is_over:
            for team in learned:
                rewards[team] = rewards.get(team, 0.0) + outcome_reward(battle, team)
            limit = ended_by_round_limit(battle)
            obs = {t: self._final_obs() for t in learned}
            done = {t: not limit for t in learned} | {"__all__": not limit}
            cut = {t: limit for t in learned} | {"__all__": limit}
            infos = {t: {"winner": battle.winner} for t in learned}
            return obs, {t: rewards.get(t, 0.0) for t in learned}, done, cut, infos
        actor = self.aec.agent_selection
        team = battle.combatants[actor].team
        obs = {team: self._observe(actor)}
        out = {t: r for t, r in rewards.items() if t in learned}
        return obs, out, {"__all__": False}, {"__all__": False}, {}

    def _final_obs(self) -> dict[str, np.ndarray]:
        mask = np.zeros(self.setup.n, dtype=np.float32)
        mask[0] = 1.0
        obs = self.setup.builder.build(self.aec.battle, self.team, None)
        return {"observations": spaces.flatten(self._inner, obs).astype(np.float32),
                "action_mask": mask}

    def reset(self, *, seed: int | None = None,
              options: dict | None = None) -> tuple[dict, dict]:
        """A new battle; the opponent pool decides who plays the other teams."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        label, factory = self.pool.sample()  # a NamedAgent: the pool's draw by name
        self.scripted = None if label == SELF else factory(int(self.rng.integers(2**31)))
        for _ in range(64):
            self.aec.reset(seed=int(self.rng.integers(2**62)))
            rewards: dict[str, float] = {}
            self._run_until_learner(rewards)
            if not self.aec.battle.is_over:
                break
        obs, _, _, _, _ = self._result({})
        return obs, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the deciding team's action, then play on to the next learned decision."""
        from env.core import shaping, team_health

        battle = self.aec.battle
        actor = self.aec.agent_selection
        team = battle.combatants[actor].team
        rewards: dict[str, float] = {}
        before = team_health(battle)
        self.aec.step(int(action_dict[team]))
        self._credit(rewards, before, team_health(battle), shaping)
        self._run_until_learner(rewards)
        return self._result(rewards)


@dataclass
class RllibConfig:
    """Settings of one RLlib run."""

    scenario: str
    out: str
    team: str = "monsters"
    steps: int = 4000
    seed: int = 0
    address: str | None = None
    envs: int = 1
    opponents: list[str] = field(default_factory=lambda: [SELF])
    damage_reward: float = 0.5
    batch_size: int = 1000
    minibatch_size: int = 128
    epochs: int = 4
    hidden: tuple[int, ...] = (128, 128)
    num_cpus: int = 2


def ppo_config(config: RllibConfig) -> Any:
    """The RLlib ``PPOConfig``: one action-masking module per team."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    import rules

    teams = rules.load_scenario(config.scenario, rules.default_content()).teams
    env_config = {"scenario": config.scenario, "team": config.team, "seed": config.seed,
                  "opponents": config.opponents, "damage_reward": config.damage_reward}
    trained = list(teams) if SELF in config.opponents else [config.team]
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"fcnet_hiddens": list(config.hidden),
                                        "head_fcnet_hiddens": []})
    return (
        PPOConfig()
        .environment(FrayTeamsEnv, env_config=env_config, disable_env_checking=True)
        .multi_agent(policies=set(teams), policy_mapping_fn=_team_module,
                     policies_to_train=trained)
        .rl_module(rl_module_spec=MultiRLModuleSpec(
            rl_module_specs=dict.fromkeys(teams, module)))
        .env_runners(num_env_runners=max(0, config.envs - 1), num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=config.batch_size,
                  minibatch_size=config.minibatch_size, num_epochs=config.epochs, lr=3e-4)
        .debugging(seed=config.seed)
    )


def _team_module(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Agents are teams, and each team has its own module."""
    return agent_id


@dataclass
class RllibRun:
    """What a run did: its checkpoint folder (``Algorithm.from_checkpoint`` restores
    it), env steps sampled, iterations, and the modules that learned."""

    checkpoint: Path
    steps: int
    iterations: int
    trained: list[str]


def train_rllib(config: RllibConfig, iterations: int | None = None) -> RllibRun:
    """Train until ``config.steps`` env steps (or ``iterations``) and save a checkpoint."""
    import ray

    from experiments.comparison.runner import ray_temp_dir, start_ray

    with ray_temp_dir(Path(config.out)) as temp:
        started = start_ray(config.address, config.num_cpus,
                            **({} if config.address else {"_temp_dir": temp}))
        try:
            return _train(config, iterations)
        finally:
            if started:
                ray.shutdown()


def _train(config: RllibConfig, iterations: int | None) -> RllibRun:
    """:func:`train_rllib`'s loop, Ray running."""
    from tqdm import tqdm

    algo = ppo_config(config).build_algo()
    bar = tqdm(total=config.steps, unit="step", desc=f"rllib {config.scenario}")
    done, rounds, result = 0, 0, {}
    while (iterations is None and done < config.steps) or (
            iterations is not None and rounds < iterations):
        result = algo.train()
        rounds += 1
        sampled = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
        bar.update(sampled - done)
        done = sampled
        bar.set_postfix(iteration=rounds, refresh=False)
    bar.close()
    path = Path(config.out).resolve() / "rllib_checkpoint"
    path.mkdir(parents=True, exist_ok=True)
    algo.save_to_path(str(path))
    algo.stop()
    trained = sorted(k for k in result.get("learners", {}) if k != "__all_modules__")
    return RllibRun(path, done, rounds, trained)


__all__ = ["FrayTeamsEnv", "RllibConfig", "RllibRun", "gym", "ppo_config", "train_rllib"]
