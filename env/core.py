"""What the Gymnasium and PettingZoo envs share: loading a scenario once, outcomes and
rewards, action-space and illegal-action handling, opponents (agents or factories)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces

import rules
from env.observation import ObservationBuilder
from env.spaces import ActionCodec
from rules import (
    Action,
    ActionKind,
    Battle,
    DecisionKind,
    IllegalActionError,
    bridge,
)
from rules.content import content_for

ILLEGAL_MODES = ("raise", "penalty")

#: The version of the env's encoding (observation parts and action codec). A model file
#: records it with the names of every feature (``agents/model_file.py``); bump it when an
#: encoding changes meaning without changing its names, and learned models trained on the
#: old one are refused in one line instead of playing on garbage.
LAYOUT_VERSION = 1


class Policy(Protocol):
    def act(self, battle: Battle) -> Action: ...


def default_scenario() -> str:
    """``skirmish`` when shipped, else the first shipped scenario (``duel``)."""
    names = rules.shipped_scenarios()
    if "skirmish" in names:
        return "skirmish"
    return "duel" if "duel" in names else names[0]


def env_engine(engine: str | None, opponent: Any = None, every_agent_outside: bool = False,
               ) -> str:
    """The engine an env's battles run on: ``engine`` if named, else ``$FRAY_ENGINE`` if
    set, else the native engine when the env can step there (it is built and
    ``opponent``, a factory ``factory(seed) -> agent``, makes agents with a native twin:
    env/native.py), else the Python engine. An env whose opponent decides in Python reads
    the whole state every step, and on the native engine that means bringing its Python
    mirror up to date and back, which costs more than the native step saves
    (docs/architecture.md "Native engine"). ``every_agent_outside``: every combatant is
    an outside agent (the PettingZoo envs): no opponent decides in Python, so the native
    engine whenever it is built."""
    if engine is None and not os.environ.get(rules.engine.ENVIRONMENT_VARIABLE):
        from env import native

        if every_agent_outside:
            return "native" if native.available() else "python"
        return "native" if _steps_natively(opponent) else "python"
    return rules.engine.resolve(engine)


def _steps_natively(opponent: Any) -> bool:
    """Whether an env with this opponent source can step in the engine."""
    if opponent is None or (hasattr(opponent, "act") and not isinstance(opponent, type)):
        return False  # an agent object decides in Python, as given
    from env import native

    if not native.available():
        return False
    return bridge.twin_of(opponent(0)) is not None


class ScenarioSetup:
    """A scenario loaded once: content, codec, observation builder and spaces; its
    battles run on ``env_engine(engine)``."""

    def __init__(self, scenario: str | Path | rules.Scenario,
                 content_dir: str | None = None, engine: str | None = None,
                 opponent: Any = None, every_agent_outside: bool = False) -> None:
        self.content_dir = content_dir
        self.engine = env_engine(engine, opponent, every_agent_outside)
        content = content_for(content_dir)
        self.content = content
        self.scenario = (scenario if isinstance(scenario, rules.Scenario)
                         else rules.load_scenario(scenario, content))
        probe = self.new_battle(0)
        self._native_layouts: Any = None
        self.codec = ActionCodec(probe)
        self.builder = ObservationBuilder(probe)
        self.n = self.codec.n
        self.unit_ids = self.codec.unit_ids
        self.teams = self.scenario.teams

    def native_layouts(self) -> Any:
        """The scenario's observation and action layouts in the engine
        (:class:`env.native.NativeLayouts`), built at the first call."""
        if self._native_layouts is None:
            from env.native import NativeLayouts

            probe = Battle(self.scenario, 0, self.content, self.content_dir, engine="native")
            self._native_layouts = NativeLayouts(probe, self.codec)
        return self._native_layouts

    def new_battle(self, seed: int) -> Battle:
        """The battle of ``seed`` on the setup's engine (a native one is started in C++
        from this thread's template of the scenario: ``rules.Battle`` does so)."""
        return Battle(self.scenario, seed, self.content, self.content_dir, engine=self.engine)

    def template(self, records: Any) -> bridge.StartTemplate | None:
        """The scenario mustered once as native parts with names in ``records`` (a batch's
        own name table: ``env.vector``), or None when mustering rolls dice (then battles
        are built by ``rules.Battle``)."""
        try:
            return bridge.start_template(self.scenario, self.content, self.content_dir,
                                         records)
        except ValueError:
            return None

    def observation_space(self, flat_obs: bool = False) -> spaces.Dict:
        """One env's observation space: the builder's parts (``planes`` and ``units``
        flattened with ``flat_obs``) and the ``action_mask``."""
        parts = self.builder.spaces()
        if flat_obs:
            for key in ("planes", "units"):
                box = parts[key]
                parts[key] = spaces.Box(box.low.ravel(), box.high.ravel(), dtype=box.dtype)
        return spaces.Dict({**parts, "action_mask": self.mask_space()})

    def mask_space(self) -> spaces.Box:
        return spaces.Box(0, 1, (self.n,), dtype=np.int8)


def check_illegal_mode(mode: str) -> None:
    if mode not in ILLEGAL_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_MODES}, got {mode!r}")


def unit_status(battle: Battle) -> list[tuple[str, str, bool, int, int]]:
    """(id, team, in action, hp, max hp) of every combatant in the scenario's order, read
    from the native state without bringing the Python mirror up to date when only the
    native state is current (the envs ask it every step)."""
    native = bridge.current_native_state(battle)
    if native is not None:
        rows = rules.engine.native_module().env_units(native)
        return [(unit.id, unit.team, *row)
                for unit, row in zip(battle.scenario.units, rows, strict=True)]
    return [(c.id, c.team, c.in_action, c.hp, c.max_hp) for c in battle.combatants.values()]


def standing_teams(battle: Battle) -> set[str]:
    return {team for _, team, standing, _, _ in unit_status(battle) if standing}


def out_of_action(battle: Battle) -> set[str]:
    """The ids of the combatants out of action (fallen or dead)."""
    return {cid for cid, _, standing, _, _ in unit_status(battle) if not standing}


def ended_by_round_limit(battle: Battle) -> bool:
    """H25: the battle ended at the round limit (several teams still standing)."""
    return battle.is_over and len(standing_teams(battle)) > 1


def outcome_reward(battle: Battle, team: str) -> float:
    """+1 win, -1 loss, 0 draw (or not over)."""
    if not battle.is_over or battle.winner is None:
        return 0.0
    return 1.0 if battle.winner == team else -1.0


def team_health(battle: Battle) -> dict[str, float]:
    """Each team's HP left as a fraction of its max HP (each unit's HP clipped to
    [0, max])."""
    hp: dict[str, float] = {}
    mx: dict[str, float] = {}
    for _, team, _, points, most in unit_status(battle):
        hp[team] = hp.get(team, 0.0) + min(max(points, 0), most)
        mx[team] = mx.get(team, 0.0) + most
    return {t: hp[t] / max(1.0, mx[t]) for t in hp}


def shaping(before: dict[str, float], after: dict[str, float], team: str) -> float:
    """Enemy health lost minus own health lost (fractions of max HP) over one step."""
    own = before[team] - after[team]
    others = [t for t in before if t != team]
    enemy = sum(before[t] - after[t] for t in others) / max(1, len(others))
    return enemy - own


def default_action(battle: Battle) -> Action:
    """What a combatant nobody commands does: end its turn, decline every reaction."""
    d = battle.decision
    if d is None:
        raise IllegalActionError("the battle is over")
    return Action(ActionKind.END_TURN if d.kind is DecisionKind.TURN else ActionKind.DECLINE)


def illegal_message(setup: ScenarioSetup, battle: Battle, index: int) -> str:
    """One line: the in-space index that is not legal now, what it names, the legal kinds."""
    d = battle.decision
    kinds = sorted({a.kind.name for a in battle.legal_actions()})
    what = f"action index {index!r}"
    if d is not None:
        act = setup.codec.decode(battle, d.actor, index)
        what += f" ({act if act is not None else setup.codec.describe(index) + ', off the map'})"
    return f"{what} is not legal for {d}; legal kinds: {', '.join(kinds)}"


def as_index(action: Any) -> int | None:
    """An int from an int-like action (numpy scalars and 0-d/1-element arrays too)."""
    try:
        arr = np.asarray(action)
        if arr.size != 1 or not np.issubdtype(arr.dtype, np.integer):
            return None
        return int(arr.reshape(()))
    except (TypeError, ValueError):
        return None


def space_index(action: Any, space: spaces.Discrete) -> int:
    """``action``'s index in ``space`` (a ``Discrete(n)``); an action outside the space
    (``10**6``, ``-1``, ``2.5``, ``"a"``, ``True``) is a ValueError naming it and the space, as
    Gymnasium's spaces define. An index inside the space but not legal now is the
    caller's to handle (the ``illegal_action`` option)."""
    if type(action) is int or isinstance(action, np.integer):  # the common case, checked here
        index: int | None = int(action)
    elif isinstance(action, bool):  # a Discrete space contains True, yet no bool is an index
        index = None
    else:
        index = int(np.asarray(action)) if space.contains(action) else as_index(action)
    if index is None or not 0 <= index < int(space.n):  # (a 1-element array passes)
        raise ValueError(f"action {action!r} is not in the action space {space}")
    return index


OpponentSource = Policy | Callable[[int | None], Policy]


def check_opponent(opponent: Any) -> OpponentSource:
    """``opponent`` as given when it is an agent (``act(battle)``) or a factory
    (``factory(seed) -> agent``, an agent class too); anything else is a one-line
    TypeError. A name is not resolved here: ``env`` never imports ``agents``
    (docs/architecture.md); ``gymnasium.make("fray/...", opponent="berserker")`` resolves
    names through ``agents.environments``."""
    if isinstance(opponent, str):
        raise TypeError(f"opponent {opponent!r}: the env takes an agent or a factory(seed) "
                        f"-> agent; for a name use gymnasium.make('fray/Skirmish-v0', "
                        f"opponent={opponent!r}) or agents.environments.skirmish_env")
    if (hasattr(opponent, "act") and not isinstance(opponent, type)) or callable(opponent):
        return opponent
    raise TypeError(f"opponent must be an agent (act(battle)) or a factory(seed) -> agent; "
                    f"got {opponent!r}")


def make_opponent(opponent: OpponentSource, seed: int | None) -> Policy:
    """The opponent of one episode: the agent itself, or ``factory(seed)``'s agent."""
    if hasattr(opponent, "act") and not isinstance(opponent, type):
        return opponent
    made = opponent(seed)
    if not hasattr(made, "act"):
        raise TypeError(f"the opponent factory {opponent!r} returned {made!r}, which has no "
                        f"act(battle)")
    return made
