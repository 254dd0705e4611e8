"""The Gymnasium env: one learner commands one team; an opponent agent plays the other."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from env import native
from env import render as draw
from env.core import (
    OpponentSource,
    Policy,
    ScenarioSetup,
    check_illegal_mode,
    check_opponent,
    default_scenario,
    ended_by_round_limit,
    illegal_message,
    make_opponent,
    outcome_reward,
    shaping,
    space_index,
    team_health,
)
from env.observation import DECISION_KINDS, GLOBAL_FEATURES, PLANES, UNIT_FEATURES
from rules import Battle, IllegalActionError, bridge

_MAX_RESET_ATTEMPTS = 64


class SkirmishEnv(gym.Env):
    """fray battle, one team learned. Registered as ``fray/Skirmish-v0`` (any scenario via
    ``scenario=``) and ``fray/<Scenario>-v0`` per shipped scenario.

    **Configuration** (``gymnasium.make(id, **kwargs)``)

    - ``scenario``: a shipped scenario name or a TOML path (default ``"skirmish"``).
    - ``team``: the team the learner commands (default ``"monsters"``).
    - ``opponent``: the agent playing every other team: an object with ``act(battle)``
      (used as given), or a factory ``opponent(seed) -> agent`` (an agent class too),
      called on every ``reset`` with a seed from the env's generator. The registered ids
      also take an ``agents`` name or spec (``gymnasium.make("fray/Duel-v0",
      opponent="tactician")``, default ``"berserker"``): they are built by
      ``agents.environments.skirmish_env``, which checks the name at once and passes a
      factory. The env itself never resolves names (``env`` does not import ``agents``).
    - ``illegal_action``: ``"penalty"`` (default) makes an index outside the mask a no-op:
      the battle is untouched, the reward is ``illegal_penalty`` (default -0.1) and
      ``info["illegal_action"]`` is True, so Gymnasium's ``check_env`` (which steps
      unmasked ``action_space.sample()`` indices) passes with warnings as errors.
      ``"raise"`` is the opt-in for debugging: it raises :class:`rules.IllegalActionError`
      naming the action and the legal kinds. Either way an illegal action never changes
      the state. An action outside the action space (``10**6``, ``-1``, not an integer)
      is not an index at all: ``step`` raises ValueError naming it and the space.
    - ``damage_reward``: weight of the optional damage shaping (default 0, off); see
      Rewards.
    - ``render_mode``: ``"ansi"`` or ``"rgb_array"``.
    - ``flat_obs``: flatten ``planes`` and ``units`` to 1-D (C order), for libraries that
      expect vectors (stable-baselines3's checker); default False.
    - ``content_dir``: an alternative content folder (default: ``rules/data``).
    - ``engine``: ``"native"`` or ``"python"``; default ``$FRAY_ENGINE``, else the native
      engine when the opponent has a native form (a factory of ``random`` or
      ``berserker`` agents: then the whole step runs in the engine, env/native.py), else
      the Python engine (``env.core.env_engine`` says why).

    **Steps.** Every decision of any learner combatant is one step: its turn actions one by
    one, and its reactions (take a Free Attack, parry and with what, dodge and where)
    whenever they interrupt anyone's action. Between two learner decisions the opponent
    plays inside ``step``.

    **Action space.** ``Discrete(n)``; ``n`` depends only on the scenario (see
    ``env.codec.layout_text()``). The index space is one block per ``rules.ActionKind``,
    in enum order, each the product of the kind's parameters:

    - MOVE, DISENGAGE: destination (dx, dy) relative to the actor in a square window of
      radius floor(max MOV / 2); FULL_MOVE: radius max MOV (max over every unit and
      mount's race MOV; the window is clipped to the map size).
    - SHIFT, OPEN_DOOR, CLOSE_DOOR, DISMOUNT: one of 8 adjacent squares; DODGE: 8 squares
      + falling prone.
    - Targeted kinds: combatant slot (the scenario's units in file order); attacks (MELEE,
      MISSILE, FULL, FREE_ATTACK): slot x weapon slot; CAST_SPELL: the actor's spell index
      x slot; USE_ITEM: usable item x (slot or no target).
    - Item kinds: item slot among the scenario's items of the matching category (melee,
      missile, weapon, holdable, usable, torch, nock, wind, any), the actor's own starting
      items first, then one overflow slot per weapon that can split off a thrown stack.
    - END_TURN, FIGHT_DEFENSIVELY, STAND_UP, FALL_PRONE, PREPARE_COMPONENTS, SPEAK,
      DECLINE: one index each (END_TURN is index 0).

    The mask is exact: ``obs["action_mask"][i] == 1`` iff index ``i`` decodes to an
    action in ``battle.legal_actions()``; every legal action has exactly one index. It is
    never all zero: at the end of an episode only index 0 is set. ``action_masks()``
    returns it as bool for sb3-contrib's MaskablePPO; ``decode(i)`` gives the
    ``rules.Action``.

    **Observation** (``Dict``; ``H`` x ``W`` map, ``N`` units, ``n`` actions):

    - ``planes`` float32 ``(15, H, W)`` in [0, 1]: wall, closed_door, open_door,
      difficult, lit, drop (depth / 100 ft), ally, enemy, down (out of action), decider,
      self, enemy_threat, ally_threat, reachable (the decider's destinations),
      ground_item.
    - ``units`` float32 ``(N, 37)`` in [-1, 1]: in_action, out_of_action, dead, ally,
      self, deciding, turn_owner, source (of the reaction), hp_fraction, max_hp / 30,
      x, y, prone, threatens, reach, missile_ready, move_left, attack_left, full_left,
      moved_this_round, shifted_this_round, free_attack_used, parries_left, bleeding,
      grappled, mounted, casting, power_points, mov / 12, encumbered, fatigue, dodge,
      weapon_skill, armour_points, initiative_rank, components_ready, in_dark.
    - ``decision`` ``MultiDiscrete([5, N + 1])``: kind (TURN, FREE_ATTACK, PARRY, DODGE,
      4 = none) and the deciding unit's slot (N = none).
    - ``globals`` float32 ``(5,)``: round / max_rounds, own_turn, allies_in_action,
      enemies_in_action, over.
    - ``action_mask`` int8 ``(n,)``.

    **Rewards.** At the end: +1 if the learner's team won, -1 if it lost, 0 for a draw.
    With ``damage_reward=w``, each step also pays ``w * (enemy HP lost - own HP lost)``,
    each side's HP as a fraction of its total max HP (healing counts back), so the shaping
    sums to at most ``w`` in size over an episode.

    **Episode end.** ``terminated`` when a team has nobody in action (H25); ``truncated``
    when the scenario's round limit ends the battle (a draw). ``reset`` re-rolls the battle
    if it ends before the learner's first decision.

    **Info.** ``round``, ``illegal_action`` (bool), ``legal_actions`` (count) and, at the
    end, ``winner`` (team or None).

    **Version history.**

    - v0: initial release.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"],
                                          "render_fps": 4}

    def __init__(
        self,
        scenario: str | Path | None = None,
        opponent: OpponentSource | None = None,
        team: str = "monsters",
        render_mode: str | None = None,
        illegal_action: str = "penalty",
        illegal_penalty: float = -0.1,
        damage_reward: float = 0.0,
        flat_obs: bool = False,
        content_dir: str | None = None,
        engine: str | None = None,
    ) -> None:
        super().__init__()
        check_illegal_mode(illegal_action)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if opponent is None:
            raise TypeError("SkirmishEnv needs an opponent: an agent or a factory(seed) -> "
                            "agent (gymnasium.make('fray/Skirmish-v0') defaults to "
                            "'berserker')")
        #: what plays the other teams: an agent, or a factory called on every reset
        self.opponent_source: OpponentSource = check_opponent(opponent)
        self.setup = ScenarioSetup(scenario or default_scenario(), content_dir, engine,
                                   self.opponent_source)
        if team not in self.setup.teams:
            raise ValueError(f"team {team!r} is not in scenario "
                             f"{self.setup.scenario.name!r} (teams: {self.setup.teams})")
        self.scenario_name = self.setup.scenario.name
        self.team = team
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.damage_reward = float(damage_reward)
        self.codec = self.setup.codec
        self.action_space = spaces.Discrete(self.setup.n)
        self.flat_obs = bool(flat_obs)
        self.observation_space = self.setup.observation_space(self.flat_obs)
        self.battle: Battle | None = None
        self.opponent: Policy | None = None
        self._mask = np.zeros(self.setup.n, dtype=np.int8)
        self._legal_by_index: dict[int, Any] = {}  # the mask's legal actions by index
        #: the episode's step in the engine (env/native.py), when its battle runs on the
        #: native engine and its opponent has a native twin; else None (steps in Python)
        self._core: Any = None
        self._native_core: Any = None  # built at the first native episode, then reused

    # ------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict]:
        super().reset(seed=seed)
        for _ in range(_MAX_RESET_ATTEMPTS):
            battle_seed = int(self.np_random.integers(2**62))
            opp_seed = int(self.np_random.integers(2**62))
            self.battle = self.setup.new_battle(battle_seed)
            self.opponent = make_opponent(self.opponent_source, opp_seed)
            self._core = self._native_start(self.battle, self.opponent)
            if self._core is None:
                self._play_opponent()
            if not self.battle.is_over:
                break
        else:  # pragma: no cover - needs a scenario the learner never gets to play
            raise RuntimeError(f"{_MAX_RESET_ATTEMPTS} battles of {self.scenario_name!r} "
                               f"ended before team {self.team!r} had a decision")
        self._refresh_mask()
        return self._obs(), self._info(False)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        b = self.battle
        if b is None:
            raise RuntimeError("call reset() before step()")
        if b.is_over:
            raise RuntimeError("the episode is over; call reset()")
        index = space_index(action, self.action_space)
        if not self._mask[index]:
            if self.illegal_action == "raise":
                raise IllegalActionError(illegal_message(self.setup, b, index))
            return self._obs(), self.illegal_penalty, False, False, self._info(True)
        if self._core is not None:  # step, observation and mask in one native call
            obs = self.setup.native_layouts().empty()
            reward, terminated, truncated, _, legal, round_ = bridge.step_episode(
                self._core, b, index, obs["planes"], obs["units"], obs["decision"],
                obs["globals"], self._mask)
            over = terminated or truncated
            info = _step_info(round_, False, legal, over, self._core.winner if over else None)
            return self._finished(obs), reward, terminated, truncated, info
        assert b.decision is not None
        before = team_health(b) if self.damage_reward else None
        act = self._legal_by_index.get(index)  # what decode gives, as the battle listed it
        if act is None:
            act = self.codec.decode(b, b.decision.actor, index)
        assert act is not None  # the mask only holds decodable indices
        b.apply(act)
        self._play_opponent()
        self._refresh_mask()
        reward = outcome_reward(b, self.team)
        if before is not None:
            reward += self.damage_reward * shaping(before, team_health(b), self.team)
        truncated = ended_by_round_limit(b)
        terminated = b.is_over and not truncated
        return self._obs(), float(reward), terminated, truncated, self._info(False)

    def render(self) -> str | np.ndarray | None:
        if self.battle is None or self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return draw.render_ansi(self.battle, learner_team=self.team)
        return draw.render_rgb(self.battle)

    def close(self) -> None:
        self.battle = None

    # ------------------------------------------------------------ extras
    def action_masks(self) -> np.ndarray:
        """The current mask as bool (sb3-contrib MaskablePPO)."""
        return self._mask.astype(bool)

    def decode(self, index: int) -> Any:
        """The ``rules.Action`` that ``index`` stands for now (None if it names nothing)."""
        b = self.battle
        if b is None or b.decision is None:
            return None
        return self.codec.decode(b, b.decision.actor, int(index))

    def encode(self, action: Any) -> int | None:
        """The index of a ``rules.Action`` for the current decider (None if none)."""
        b = self.battle
        if b is None or b.decision is None:
            return None
        return self.codec.encode(b, b.decision.actor, action)

    # ------------------------------------------------------------ internals
    def _play_opponent(self) -> None:
        b = self.battle
        assert b is not None and self.opponent is not None
        while not b.is_over:
            d = b.decision
            assert d is not None
            if b.combatants[d.actor].team == self.team:
                return
            b.apply(self.opponent.act(b))

    def _native_start(self, battle: Battle, opponent: Policy) -> Any:
        """Start the episode's step in the engine and play the opponent there, when the
        battle runs natively and the env made the opponent (a factory's fresh agent) and it
        has a native twin; None otherwise (the episode steps in Python)."""
        if battle.engine == "python" or self.opponent_source is opponent:
            return None
        twin = bridge.twin_of(opponent)
        if twin is None:
            return None
        if self._native_core is None:
            self._native_core = native.episode_core(self.setup, self.team, self.illegal_penalty,
                                                    self.damage_reward)
        bridge.start_episode(self._native_core, battle, twin)
        return self._native_core

    def _refresh_mask(self) -> None:
        b = self.battle
        assert b is not None
        if self._core is not None:
            self._core.mask(self._mask)
            self._legal_by_index = {}
            return
        if b.is_over:
            self._mask = np.zeros(self.setup.n, dtype=np.int8)
            self._mask[0] = 1
            self._legal_by_index = {}
        else:
            self._legal_by_index = self.codec.legal_by_index(b)
            self._mask = self.codec.mask_of(self._legal_by_index)

    def _obs(self) -> dict[str, np.ndarray]:
        b = self.battle
        assert b is not None
        if self._core is not None:
            obs = self.setup.native_layouts().empty()
            self._core.observe(obs["planes"], obs["units"], obs["decision"], obs["globals"])
        else:
            d = b.decision
            obs = self.setup.builder.build(b, self.team, d.actor if d is not None else None)
        return self._finished(obs)

    def _finished(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """``obs`` flattened if asked, with a copy of the current mask."""
        if self.flat_obs:
            obs["planes"] = obs["planes"].ravel()
            obs["units"] = obs["units"].ravel()
        obs["action_mask"] = self._mask.copy()
        return obs

    def _info(self, illegal: bool) -> dict[str, Any]:
        b = self.battle
        assert b is not None
        legal = int(self._mask.sum()) if self._core is None else self._core.legal_count
        return _step_info(b.round, illegal, legal, b.is_over, b.winner if b.is_over else None)


def _step_info(round_: int, illegal: bool, legal: int, over: bool,
              winner: str | None) -> dict[str, Any]:
    """``SkirmishEnv``'s info: the round, whether the action was illegal, the learner's
    legal action count (0 once over) and, once over, the winner (None: a draw)."""
    info: dict[str, Any] = {"round": round_, "illegal_action": illegal,
                            "legal_actions": legal if not over else 0}
    if over:
        info["winner"] = winner
    return info


#: Names of the observation parts, for users building feature extractors.
OBSERVATION_LAYOUT = {
    "planes": PLANES, "units": UNIT_FEATURES, "globals": GLOBAL_FEATURES,
    "decision": (*(k.name for k in DECISION_KINDS), "NONE"),
}
