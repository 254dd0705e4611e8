"""Options: a selector env whose actions are scripted agents, not rules actions.

A selector policy picks, at each of its team's decisions, which of ``K`` scripted
*options* (agent specs: ``tactician``, ``tactician(step_back=true)``, ``defender``, ...)
plays it; the chosen option's action is what the battle sees. It is the options
framework of Sutton, Precup and Singh (1999) with one-decision options, and it is a
far smaller problem for PPO than the env's ~1,000 actions: the policy only learns which
behaviour suits each unit and moment, and every action it can take is one a script
found sensible.

- the action space is ``Discrete(K)``; every option is always legal (each plays a legal
  action of any decision), so :meth:`OptionsWrapper.action_masks` is all ones;
- the observation is the wrapped env's, unchanged (it names the deciding unit);
- ``hold`` is how long a choice lasts: ``"decision"`` (one decision), ``"turn"`` (every
  decision of that unit in that round, its reactions included) or ``"battle"`` (that unit
  for the rest of the battle: a learned composition). A held choice plays on without
  asking the policy, so the policy decides less often and each choice has a larger,
  easier to credit effect;
- ``learned:PATH`` plays a selector model the same way (:class:`OptionSelector`), so a
  model never plays without the options it learned with.

The options are made once per env with their own seeds and keep no state across a
switch: they read the battle they are shown, as every agent does.

On the native engine (``hold="decision"``, every option with a native twin: ``random``,
``berserker``, ``tactician``, ``tactician(step_back=true)``, ``defender``,
``skirmisher``), the chosen option decides in the engine (``agent.native_twin()``, the
same choices and draws as the Python agent), and a native env step asks it there
(``EnvCore.choice_index``): the selector then steps at engine speed, and the batched
vector env takes options too (``env/vector.py``). A selector follows the engine of the
first battle it is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rules import Action, Battle

HOLDS = ("decision", "turn", "battle")


class OptionSelector:
    """``K`` scripted agents, each asked only when chosen, and the choices still held."""

    def __init__(self, options: Sequence[str], seed: int | None = 0,
                 hold: str = "decision") -> None:
        from agents.factory import make

        if len(options) < 2:
            raise ValueError(f"--options: expected at least two agents, got {list(options)}")
        if hold not in HOLDS:
            raise ValueError(f"--option-hold: expected one of {', '.join(HOLDS)}, got {hold!r}")
        self.names = [str(o) for o in options]
        self.hold = hold
        base = 0 if seed is None else int(seed)
        self.agents = [make(name, seed=base * 31 + k)
                       for k, name in enumerate(self.names)]
        self._battle: Battle | None = None
        self._held: dict[tuple[str, ...] | tuple[str, int], int] = {}
        #: the options' native twins, decided at the first battle shown: a list on the
        #: native engine (when every option has one), else empty (Python agents)
        self._twins: list[Any] | None = None

    def __len__(self) -> int:
        return len(self.agents)

    def _key(self, battle: Battle) -> tuple[str, ...] | tuple[str, int]:
        if battle is not self._battle:  # a new battle: nothing is held in it
            self._battle = battle
            self._held = {}
        actor = battle.decision.actor if battle.decision is not None else ""
        return (actor, battle.round) if self.hold == "turn" else (actor,)

    def held(self, battle: Battle) -> int | None:
        """The option still held for the deciding unit (never, with ``hold="decision"``)."""
        if self.hold == "decision":
            return None
        return self._held.get(self._key(battle))

    def native_twins(self) -> list[Any] | None:
        """The options' native twins (``rules._native.NativeAgent``, deciding from here on
        as the Python options would), or None: with a ``hold`` other than ``"decision"``,
        or when an option has none (or the engine is not built)."""
        if self.hold != "decision":
            return None
        from rules.bridge import twin_of

        twins = [twin_of(agent) for agent in self.agents]
        return None if any(twin is None for twin in twins) else twins

    def twins_for(self, battle: Battle) -> list[Any] | None:
        """The twins that play ``battle`` (None: the Python options do). Decided at the
        first battle: native twins when it runs on the native engine and every option has
        one; a battle on the Python engine after that is a ValueError (the twins' draws
        have left the Python agents' behind)."""
        if self._twins is None:
            twins = self.native_twins() if battle.engine == "native" else None
            self._twins = twins or []
        if not self._twins:
            return None
        if battle.engine == "python":
            raise ValueError("this selector's options play on the native engine (its first "
                             "battle ran there); make a new one for a Python-engine battle")
        return self._twins

    def check(self, option: int) -> int:
        """``option`` if it names an option, else ValueError."""
        if not 0 <= option < len(self.agents):
            raise ValueError(f"option {option} is not one of 0..{len(self.agents) - 1}")
        return option

    def choose(self, battle: Battle, option: int) -> Action:
        """Option ``option``'s action for ``battle.decision`` (a legal action), held for
        the deciding unit's span when ``hold`` is ``"turn"`` or ``"battle"``."""
        self.check(option)
        if self.hold != "decision":
            key = self._key(battle)  # first: a new battle replaces the held dict
            self._held[key] = option
        twins = self.twins_for(battle)
        if twins is not None:
            from rules.bridge import native_choice

            return native_choice(battle, twins[option])[0]
        return self.agents[option].act(battle)

    def act(self, battle: Battle, choose: Callable[[], int]) -> Action:
        """The held option's action, or ``choose()``'s (called only when none is held)."""
        option = self.held(battle)
        return self.choose(battle, choose() if option is None else option)


def option_twin_rows(options: Sequence[str], seed: int, rows: int) -> list[list[Any]] | None:
    """:func:`option_twins`, or None when an option has no native form."""
    twins = [OptionSelector(options, seed=seed + row).native_twins() for row in range(rows)]
    if any(row is None for row in twins):
        return None
    return [list(row) for row in twins if row is not None]


def option_twins(options: Sequence[str], seed: int, rows: int) -> list[list[Any]]:
    """For each of ``rows`` selector envs, the native twins of
    ``OptionSelector(options, seed=seed + row)``'s options (the batched vector env's
    ``options``: row ``i`` then plays as ``OptionsWrapper(env, options, seed=seed + i)``);
    TypeError when an option has no native form."""
    twins = option_twin_rows(options, seed, rows)
    if twins is None:
        raise TypeError(f"options {list(options)}: every option needs a native twin for the "
                        f"batched vector env (the scripted agents but per_unit, pack and "
                        f"mcts have one; learned models do not)")
    return twins


class OptionsWrapper(gym.Wrapper):
    """A fray env (:class:`env.SkirmishEnv`, possibly wrapped) whose action picks an option.

    ``options``: agent specs for :func:`agents.make`, seeded from ``seed``; ``hold``: see
    the module. A step plays the chosen option, then every decision of the team that a
    held option answers, and returns at the next decision that needs a choice (or the
    end), with the rewards of all of them summed."""

    def __init__(self, env: gym.Env, options: Sequence[str], seed: int = 0,
                 hold: str = "decision") -> None:
        super().__init__(env)
        self.selector = OptionSelector(options, seed=seed, hold=hold)
        self.option_names = self.selector.names
        self.action_space = spaces.Discrete(len(self.selector))

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        inner = self.env.unwrapped
        battle = inner.battle
        if battle is None or battle.decision is None:
            raise RuntimeError("call reset() before step()")
        option = self.selector.check(int(np.asarray(action).item()))
        twins = self.selector.twins_for(battle)
        if twins is not None and inner._core is not None:  # asked in the engine's step
            return self.env.step(inner._core.choice_index(twins[option]))
        result = self._play(self.selector.choose(battle, option))
        total = result[1]
        while not (result[2] or result[3]):
            option = self.selector.held(inner.battle)
            if option is None:
                break
            result = self._play(self.selector.choose(inner.battle, option))
            total += result[1]
        return result[0], total, result[2], result[3], result[4]

    def _play(self, chosen: Action) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        inner = self.env.unwrapped
        battle = inner.battle
        index = inner.codec.encode(battle, battle.decision.actor, chosen)
        if index is None:  # pragma: no cover - every legal action has an index (codec tests)
            raise ValueError("the option's action has no index in the env's codec")
        return self.env.step(index)

    def action_masks(self) -> np.ndarray:
        """Every option, always (sb3-contrib MaskablePPO)."""
        return np.ones(len(self.selector), dtype=bool)
