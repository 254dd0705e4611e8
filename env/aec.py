"""PettingZoo envs: one agent per combatant, every team learned.

``raw_env`` / :class:`FrayAECEnv` is the AEC env; ``aec_env`` wraps it in PettingZoo's
``OrderEnforcingWrapper``; ``parallel_env`` / :class:`FrayParallelEnv` is a parallel view
of the same game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from env import render as draw
from env.core import (
    ScenarioSetup,
    check_illegal_mode,
    default_action,
    default_scenario,
    ended_by_round_limit,
    illegal_message,
    out_of_action,
    outcome_reward,
    shaping,
    space_index,
    team_health,
)
from rules import Battle, IllegalActionError

RENDER_MODES = ["ansi", "rgb_array", "human"]


class _Game:
    """The battle plus everything both PettingZoo views share."""

    def __init__(self, scenario: str | Path | None, render_mode: str | None,
                 illegal_action: str, illegal_penalty: float, damage_reward: float,
                 max_cycles: int | None, content_dir: str | None,
                 engine: str | None = None) -> None:
        check_illegal_mode(illegal_action)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError("max_cycles must be a positive integer or None")
        self.setup = ScenarioSetup(scenario or default_scenario(), content_dir, engine,
                                   every_agent_outside=True)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.damage_reward = float(damage_reward)
        self.max_cycles = max_cycles
        self.action_space = spaces.Discrete(self.setup.n)
        self.team_of = {u.id: u.team for u in self.setup.scenario.units}
        self.rng: np.random.Generator | None = None
        self.battle: Battle | None = None
        self.mask = np.zeros(self.setup.n, dtype=np.int8)
        self.legal_by_index: dict[int, Any] = {}  # the mask's legal actions by index

    def spaces_for(self, agents: list[str]) -> tuple[dict, dict]:
        obs, act = {}, {}
        for a in agents:
            obs[a] = spaces.Dict({
                "observation": spaces.Dict(self.setup.builder.spaces()),
                "action_mask": self.setup.mask_space(),
            })
            act[a] = self.action_space
        return obs, act

    def new_battle(self, seed: int | None) -> Battle:
        if seed is not None or self.rng is None:
            self.rng, _ = seeding.np_random(seed)
        self.battle = self.setup.new_battle(int(self.rng.integers(2**62)))
        self.refresh_mask()
        return self.battle

    def refresh_mask(self) -> None:
        b = self.battle
        assert b is not None
        if b.is_over:
            self.legal_by_index = {}
            self.mask = np.zeros(self.setup.n, dtype=np.int8)
        elif b.engine == "native":  # the mask from the engine (env/native.py)
            self.mask, places = self.setup.native_layouts().mask(b)
            legal = b.legal_actions()
            self.legal_by_index = {index: legal[place] for index, place in places.items()}
        else:
            self.legal_by_index = self.setup.codec.legal_by_index(b)
            self.mask = self.setup.codec.mask_of(self.legal_by_index)

    def apply_index(self, action: Any) -> bool:
        """Apply the decider's action; False (and nothing changed) if it was illegal under
        the default penalty option; raises IllegalActionError under ``"raise"``, and
        ValueError for an action outside the action space (nothing changed either way)."""
        b = self.battle
        assert b is not None and b.decision is not None
        index = space_index(action, self.action_space)
        if not self.mask[index]:
            if self.illegal_action == "raise":
                raise IllegalActionError(illegal_message(self.setup, b, index))
            return False
        act = self.legal_by_index.get(index)  # what decode gives, as the battle listed it
        if act is None:
            act = self.setup.codec.decode(b, b.decision.actor, index)
        assert act is not None
        b.apply(act)
        return True

    def observe(self, agent: str, deciding: bool) -> dict[str, Any]:
        b = self.battle
        assert b is not None
        if b.engine == "native":  # the observation from the engine (env/native.py)
            obs = self.setup.native_layouts().observe(b, self.team_of[agent], agent, deciding)
        else:
            obs = self.setup.builder.build(b, self.team_of[agent], agent,
                                           show_reachable=deciding)
        mask = self.mask.copy() if deciding else np.zeros(self.setup.n, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def render(self) -> str | np.ndarray | None:
        if self.battle is None or self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return draw.render_rgb(self.battle)
        text = draw.render_ansi(self.battle)
        if self.render_mode == "human":
            print(text)
            return None
        return text


class FrayAECEnv(AECEnv):
    """fray battle as a PettingZoo AEC env: one agent per combatant (its unit id).

    ``agent_selection`` is whoever decides now: the turn owner, or a combatant reacting
    out of turn order (Free Attack, parry, dodge). Actions and the mask are those of the
    Gymnasium env (see :class:`env.SkirmishEnv`; the same ``Discrete(n)`` for every agent).
    ``observe(agent)`` is ``{"observation": {planes, units, decision, globals},
    "action_mask": int8 (n,)}`` from the agent's team's view (``self`` marks the agent);
    the mask is all zero for agents not deciding and never all zero for the selected one.

    Rewards are per team: when the battle ends every agent still in play gets +1 if its
    team won, -1 if it lost, 0 for a draw; optional ``damage_reward`` shaping pays each
    agent its team's share every step; an index outside the mask (``illegal_action=
    "penalty"``, the default) charges ``illegal_penalty`` to the offender and does nothing
    else, and ``illegal_action="raise"`` (for debugging) raises
    :class:`rules.IllegalActionError` instead. An agent whose combatant
    goes out of action is terminated and, after its final ``step(None)``, removed; when
    the battle ends everyone is terminated, or truncated at the round limit. A combatant
    whose agent is gone (healed back into action, say) ends its turns and declines its
    reactions.

    ``max_cycles`` (default None: no limit but the round limit) truncates each agent after
    it has taken that many steps; its combatant then ends its turns and declines
    reactions, and the episode ends when every agent is done.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES, "name": "fray_v0", "is_parallelizable": False,
        "render_fps": 4}

    def __init__(
        self,
        scenario: str | Path | None = None,
        render_mode: str | None = None,
        illegal_action: str = "penalty",
        illegal_penalty: float = -0.1,
        damage_reward: float = 0.0,
        max_cycles: int | None = None,
        content_dir: str | None = None,
        engine: str | None = None,
    ) -> None:
        super().__init__()
        self.game = _Game(scenario, render_mode, illegal_action, illegal_penalty,
                          damage_reward, max_cycles, content_dir, engine)
        self.render_mode = render_mode
        self.possible_agents = list(self.game.setup.unit_ids)
        self.observation_spaces, self.action_spaces = self.game.spaces_for(self.possible_agents)
        self.agents = []
        self.agent_selection = self.possible_agents[0]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def battle(self) -> Battle | None:
        return self.game.battle

    def __str__(self) -> str:
        return "fray_v0"

    # ------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        b = self.game.new_battle(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._steps = dict.fromkeys(self.agents, 0)
        self._skip_agent_selection = None
        assert b.decision is not None
        self.agent_selection = b.decision.actor

    def observe(self, agent: str) -> dict[str, Any]:
        b = self.game.battle
        deciding = (b is not None and b.decision is not None and b.decision.actor == agent
                    and self._live(agent))
        return self.game.observe(agent, deciding)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        b = self.game.battle
        assert b is not None
        before = team_health(b) if self.game.damage_reward else None
        legal = self.game.apply_index(action)  # an action outside the space raises first
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if not legal:
            self.rewards[agent] += self.game.illegal_penalty
        self._steps[agent] += 1
        if self.game.max_cycles is not None and self._steps[agent] >= self.game.max_cycles:
            self.truncations[agent] = True
        self._advance()
        if before is not None:
            after = team_health(b)
            for a in self.agents:
                self.rewards[a] += self.game.damage_reward * shaping(
                    before, after, self.game.team_of[a])
        self._settle()
        self.game.refresh_mask()
        if b.decision is not None:
            self.agent_selection = b.decision.actor
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        return self.game.render()

    def close(self) -> None:
        pass

    # ------------------------------------------------------------ internals
    def _live(self, agent: str) -> bool:
        return (agent in self.terminations and not self.terminations[agent]
                and not self.truncations[agent])

    def _advance(self) -> None:
        """Play the decisions of combatants without a live agent (default actions)."""
        b = self.game.battle
        assert b is not None
        if not any(self._live(a) for a in self.agents):
            return
        while not b.is_over:
            d = b.decision
            assert d is not None
            if self._live(d.actor):
                return
            b.apply(default_action(b))

    def _settle(self) -> None:
        """Terminate agents out of action; end everyone at the battle's end."""
        b = self.game.battle
        assert b is not None
        if b.is_over:
            limit = ended_by_round_limit(b)
            for a in self.agents:
                if self._live(a):
                    self.rewards[a] += outcome_reward(b, self.game.team_of[a])
                    if limit:
                        self.truncations[a] = True
                    else:
                        self.terminations[a] = True
            for a in self.agents:
                self.infos[a] = {"winner": b.winner, "round": b.round}
            return
        fallen = out_of_action(b)
        for a in self.agents:
            if self._live(a) and a in fallen:
                self.terminations[a] = True


class FrayParallelEnv(ParallelEnv):
    """A parallel view of the same game. Each ``step(actions)`` applies the action of the
    agent deciding now (its observation carries the non-zero mask) and ignores the others'
    actions, which are required for live agents but have no effect. Rewards, endings and
    options as in :class:`FrayAECEnv`, except that ``max_cycles`` counts parallel steps and
    truncates every agent at once."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES, "name": "fray_parallel_v0", "render_fps": 4}

    def __init__(
        self,
        scenario: str | Path | None = None,
        render_mode: str | None = None,
        illegal_action: str = "penalty",
        illegal_penalty: float = -0.1,
        damage_reward: float = 0.0,
        max_cycles: int | None = None,
        content_dir: str | None = None,
        engine: str | None = None,
    ) -> None:
        self.game = _Game(scenario, render_mode, illegal_action, illegal_penalty,
                          damage_reward, max_cycles, content_dir, engine)
        self.render_mode = render_mode
        self.possible_agents = list(self.game.setup.unit_ids)
        self.observation_spaces, self.action_spaces = self.game.spaces_for(self.possible_agents)
        self.agents: list[str] = []
        self._cycles = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def battle(self) -> Battle | None:
        return self.game.battle

    def reset(self, seed: int | None = None,
              options: dict | None = None) -> tuple[dict, dict]:
        self.game.new_battle(seed)
        self.agents = self.possible_agents[:]
        self._cycles = 0
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        b = self.game.battle
        assert b is not None and b.decision is not None and self.agents
        decider = b.decision.actor
        rewards = dict.fromkeys(self.agents, 0.0)
        before = team_health(b) if self.game.damage_reward else None
        if decider in self.agents:
            if decider not in actions:
                raise KeyError(f"{decider} decides now and needs an action")
            if not self.game.apply_index(actions[decider]):
                rewards[decider] += self.game.illegal_penalty
        else:
            b.apply(default_action(b))
        while not b.is_over and b.decision is not None and b.decision.actor not in self.agents:
            b.apply(default_action(b))
        self._cycles += 1
        if before is not None:
            after = team_health(b)
            for a in self.agents:
                rewards[a] += self.game.damage_reward * shaping(before, after,
                                                                self.game.team_of[a])
        terminations = dict.fromkeys(self.agents, False)
        truncations = dict.fromkeys(self.agents, False)
        if b.is_over:
            limit = ended_by_round_limit(b)
            for a in self.agents:
                rewards[a] += outcome_reward(b, self.game.team_of[a])
                (truncations if limit else terminations)[a] = True
        else:
            fallen = out_of_action(b)
            for a in self.agents:
                terminations[a] = a in fallen
            if self.game.max_cycles is not None and self._cycles >= self.game.max_cycles:
                truncations = dict.fromkeys(self.agents, True)
        self.game.refresh_mask()
        observations = self._observations()
        infos = {a: {"round": b.round} for a in self.agents}
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | np.ndarray | None:
        return self.game.render()

    def close(self) -> None:
        pass

    def _observations(self) -> dict[str, dict[str, Any]]:
        b = self.game.battle
        assert b is not None
        decider = b.decision.actor if b.decision is not None else None
        return {a: self.game.observe(a, a == decider) for a in self.agents}


def raw_env(**kwargs: Any) -> FrayAECEnv:
    """The unwrapped AEC env (keyword arguments of :class:`FrayAECEnv`)."""
    return FrayAECEnv(**kwargs)


def aec_env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's ``OrderEnforcingWrapper``."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> FrayParallelEnv:
    """The parallel view (keyword arguments of :class:`FrayParallelEnv`)."""
    return FrayParallelEnv(**kwargs)
