"""The batched vector env: ``num_envs`` battles stepped in one native call.

``gymnasium.make_vec("fray/Skirmish-v0", num_envs=N)`` (or :class:`SkirmishVectorEnv`
directly) steps N battles of one scenario in C++ (``rules._native.EnvBatch``): each
env's action applied, its opponent played to the learner's next decision, its reward,
observation and mask written into preallocated batch arrays, all in one call that
releases the GIL, so threads can step several batches at once. Only a finished battle
comes back to Python, to be replaced (``autoreset_mode`` is ``SAME_STEP``: the
returned observation of a finished env is its next episode's first, the last one is in
``infos["final_obs"]``).

Row ``i`` of the batch is exactly ``SkirmishEnv`` reset with seed ``seed + i`` and
stepped with the same actions (tests/env/test_vector_env.py), so everything the single
env's docstring says about spaces, rewards and masks holds row by row. The mask of a row
is never all False: it is the next episode's first decision's when a battle ends.

The opponent must have a native form (``agent.native_twin()``: ``random``,
``berserker``, ``tactician``, ...); the battles run on the native engine, so the vector
env needs it built.

``options`` makes it a batch of selector envs (``agents/options.py``): the action of a
row picks one of ``K`` native agents of that row (``rules._native.NativeAgent``, used in
place), which plays the learner's decision inside the same call. With
``agents.options.option_twins(names, option_seed, num_envs)`` row ``i`` is
``OptionsWrapper(SkirmishEnv(seed + i), names, seed=option_seed + i)``
(``agents.environments.skirmish_vector_env(options=names)`` does that). Its
``action_masks()`` are all ones (every option is always legal); the observation keeps
the rules actions' ``action_mask``, as the wrapper's does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import rules
from env import native
from env.core import (
    OpponentSource,
    ScenarioSetup,
    as_index,
    check_opponent,
    default_scenario,
    make_opponent,
)
from rules import Battle, bridge
from rules.limits import MAX_NUM_ENVS, within

_MAX_RESET_ATTEMPTS = 64


class SkirmishVectorEnv(VectorEnv):
    """``num_envs`` battles of one scenario stepped together in the engine.

    Arguments are ``SkirmishEnv``'s (``scenario``, ``opponent``, ``team``,
    ``illegal_penalty``, ``damage_reward``, ``flat_obs``, ``content_dir``) except
    ``render_mode`` and ``illegal_action`` (an index outside a row's mask is that row's
    no-op with the penalty, ``infos["illegal_action"]``); ``copy`` (default True) hands
    out copies of the batch arrays, False the arrays themselves (overwritten by the next
    step: faster, for loops that consume each step at once)."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.SAME_STEP,
                                          "render_modes": []}

    def __init__(self, num_envs: int = 8, scenario: str | Path | None = None,
                 opponent: OpponentSource | None = None, team: str = "monsters",
                 illegal_penalty: float = -0.1, damage_reward: float = 0.0,
                 flat_obs: bool = False, content_dir: str | None = None,
                 copy: bool = True, options: Sequence[Sequence[Any]] | None = None
                 ) -> None:
        if not native.available():
            raise RuntimeError("the batched vector env needs the native engine, which is not "
                               "built here; use gymnasium.make_vec(..., vectorization_mode="
                               "'sync') for Python envs")
        if not within(as_index(num_envs), MAX_NUM_ENVS, 1):
            raise ValueError(f"num_envs: expected an integer from 1 to {MAX_NUM_ENVS} "
                             f"(rules/limits.py), got {num_envs!r}")
        if opponent is None:
            raise TypeError("SkirmishVectorEnv needs an opponent: an agent factory(seed) with a "
                            "native twin (gymnasium.make_vec('fray/Skirmish-v0') defaults to "
                            "'berserker')")
        self.num_envs = int(num_envs)
        self.setup = ScenarioSetup(scenario or default_scenario(), content_dir, "native")
        if team not in self.setup.teams:
            raise ValueError(f"team {team!r} is not in scenario {self.setup.scenario.name!r} "
                             f"(teams: {self.setup.teams})")
        self.team = team
        self.opponent_source = check_opponent(opponent)
        self.flat_obs = bool(flat_obs)
        self.copy = bool(copy)
        self.single_observation_space = self.setup.observation_space(self.flat_obs)
        #: a selector batch's options: each row's native agents, or None
        self.options = self._checked_options(options)
        self.single_action_space = spaces.Discrete(
            self.setup.n if self.options is None else len(self.options[0]))
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.layouts = self.setup.native_layouts()
        module = rules.engine.native_module()
        #: this batch's own name table: its steps run without the GIL, beside other threads
        self._records = bridge.new_records()
        #: the scenario mustered once: battles start in C++ (None: mustering rolls dice)
        self._template = self.setup.template(self._records)
        actions = self.layouts.actions_in(self._records)
        self._cores = [native.episode_core(self.setup, team, illegal_penalty, damage_reward,
                                           actions) for _ in range(self.num_envs)]
        self._batch = module.EnvBatch(self._cores)
        if self.options is not None:
            self._batch.set_options(self.options)
        self._arrays = self.layouts.empty(self.num_envs)
        self._masks = np.zeros((self.num_envs, self.setup.n), dtype=np.int8)
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._terminated = np.zeros(self.num_envs, dtype=np.bool_)
        self._truncated = np.zeros(self.num_envs, dtype=np.bool_)
        self._illegal = np.zeros(self.num_envs, dtype=np.bool_)
        self._generators: list[np.random.Generator | None] = [None] * self.num_envs
        self.opponents: list[Any] = [None] * self.num_envs  # each env's opponent agent
        self._started = False

    # ------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict]:
        """Every env's new battle: env ``i`` seeded with ``seed + i`` (or ``seed[i]``)."""
        if seed is None or isinstance(seed, int | np.integer):
            seeds = [None if seed is None else int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset: expected {self.num_envs} seeds, got {len(seeds)}")
        for i, each in enumerate(seeds):
            self._generators[i] = np.random.default_rng(each)
            self._start(i)
        self._started = True
        return self._observations(), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                         np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got {actions!r}")
        if (chosen < 0).any() or (chosen >= self.single_action_space.n).any():
            raise ValueError(f"actions {chosen.tolist()} are not in the action space "
                             f"{self.single_action_space}")
        arrays = self._arrays
        self._batch.step(chosen.astype(np.int64, copy=False), self._rewards, self._terminated,
                         self._truncated, self._illegal, arrays["planes"], arrays["units"],
                         arrays["decision"], arrays["globals"], self._masks,
                         self.options is not None)
        infos: dict[str, Any] = {"illegal_action": self._illegal.copy(),
                                 "_illegal_action": np.ones(self.num_envs, dtype=np.bool_)}
        for i in np.flatnonzero(self._terminated | self._truncated):
            final = self._row(int(i))
            ended = {"winner": self._cores[i].winner,
                     "opponent": getattr(self.opponents[i], "name", None)}
            self._start(int(i))
            infos = self._add_info(infos, {"final_obs": final, "final_info": ended}, int(i))
        return (self._observations(), self._rewards.copy(), self._terminated.copy(),
                self._truncated.copy(), infos)

    def action_masks(self) -> np.ndarray:
        """The current masks as bool, one row per env (sb3-contrib's MaskablePPO); all
        ones for a selector batch."""
        if self.options is not None:
            return np.ones((self.num_envs, self.single_action_space.n), dtype=bool)
        return self._masks.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        self._started = False

    # ------------------------------------------------------------ internals
    def _checked_options(self, options: Sequence[Sequence[Any]] | None
                         ) -> list[list[Any]] | None:
        """``options`` as lists, after checking them: one row of at least two native
        agents per env, as many in every row."""
        if options is None:
            return None
        rows = [list(row) for row in options]
        if len(rows) != self.num_envs or len({len(row) for row in rows}) != 1 or len(rows[0]) < 2:
            raise ValueError(f"options: expected {self.num_envs} rows of the same two or more "
                             f"native agents, got {[len(row) for row in rows]}")
        if not all(bridge.is_native_agent(agent) for row in rows for agent in row):
            raise TypeError("options: expected native agents (rules._native.NativeAgent; "
                            "agents.options.option_twins makes them from agent names)")
        return rows

    def _start(self, row: int) -> None:
        """A new battle for env ``row`` (``SkirmishEnv.reset``'s draws from its generator)."""
        generator = self._generators[row]
        assert generator is not None
        core = self._cores[row]
        for _ in range(_MAX_RESET_ATTEMPTS):
            battle_seed = int(generator.integers(2**62))
            opponent_seed = int(generator.integers(2**62))
            if self._template is not None:  # started in C++ from the mustered scenario
                template = self._template
                state, rules_, loop = (bridge.start_native(template, battle_seed),
                                       template.rules, template.loop)
            else:
                battle = Battle(self.setup.scenario, battle_seed, self.setup.content,
                                self.setup.content_dir, engine="python")
                state, rules_, loop = bridge.native_parts(battle, self._records)
            opponent = make_opponent(self.opponent_source, opponent_seed)
            twin = bridge.twin_of(opponent)
            if twin is None:
                known = ", ".join(rules.engine.native_module().NativeAgent.known())
                raise TypeError(f"the vector env's opponent {opponent!r} has no native form "
                                f"(native agents: {known})")
            self.opponents[row] = opponent
            if core.start(state, loop, rules_, twin):
                break
        else:  # pragma: no cover - needs a scenario the learner never gets to play
            raise RuntimeError(f"{_MAX_RESET_ATTEMPTS} battles of {self.setup.scenario.name!r} "
                               f"ended before team {self.team!r} had a decision")
        arrays = self._arrays
        self._batch.observe(row, arrays["planes"], arrays["units"], arrays["decision"],
                            arrays["globals"], self._masks)

    def _row(self, row: int) -> dict[str, np.ndarray]:
        """Env ``row``'s observation as the single env returns it (copies)."""
        out = {key: value[row].copy() for key, value in self._arrays.items()}
        if self.flat_obs:
            out["planes"] = out["planes"].ravel()
            out["units"] = out["units"].ravel()
        out["action_mask"] = self._masks[row].copy()
        return out

    def _observations(self) -> dict[str, np.ndarray]:
        arrays = dict(self._arrays)
        if self.flat_obs:
            arrays["planes"] = arrays["planes"].reshape(self.num_envs, -1)
            arrays["units"] = arrays["units"].reshape(self.num_envs, -1)
        arrays["action_mask"] = self._masks
        if self.copy:
            return {key: value.copy() for key, value in arrays.items()}
        return arrays
