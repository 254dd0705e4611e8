"""The envs on the native engine: observation, mask, opponent and step in C++.

``rules/native/env/env_observation.cpp``, ``env_spaces.cpp`` and ``env_skirmish.cpp`` are this
package's ``observation.py``, ``spaces.py`` and ``skirmish.py`` step in C++, value for
value (``tests/env/test_native_env.py`` compares bytes on recorded states of every
scenario). This module hands them what Python owns: the action codec's layout (built once
per scenario by :class:`env.spaces.ActionCodec`, passed over as tables) and the numbers
the observation reads from content and scenario.

An env runs its step natively when its battles run on the native engine and its opponent
has a native twin (``agent.native_twin()``: the scripted agents ``random``, ``berserker``
and ``tactician`` made fresh by the env's factory); otherwise it steps in Python as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import rules
from env.observation import GLOBAL_FEATURES, PLANES, UNIT_FEATURES
from env.spaces import _FIELD, ITEM_CATEGORIES, ActionCodec, EncodingError
from rules import ActionKind, Battle, bridge
from rules.actions import DESTINATION_KINDS

#: env_spaces.hpp Parameter::Type of each LAYOUT parameter name
_PARAMETER_TYPES = {"target": 0, "target|none": 1, "adjacent": 2, "dodge": 3,
                    "square:move": 4, "square:full": 4, "spell": 5,
                    **{f"item:{category}": 6 for category in ITEM_CATEGORIES}}
#: actions.hpp FieldBit of each Action field
_FIELD_BITS = {"target": 1, "square": 2, "item": 4}


def available() -> bool:
    """Whether the native env is built (the engine's module with the env's classes)."""
    return rules.engine.native_available() and hasattr(rules.engine.native_module(), "EnvCore")


def layout_tables(codec: ActionCodec, scenario: str) -> dict[str, Any]:
    """The codec's layout as the tables ``rules._native.ActionLayout`` takes."""
    blocks = []
    for kind in ActionKind:
        block = codec.blocks[kind]
        parameters = []
        carried = 0
        for parameter in block.params:
            radius_x = radius_y = 0
            if parameter.name.startswith("square:"):
                radius_x, radius_y = codec._radii(codec._square_radius[parameter.name])
            category = (ITEM_CATEGORIES.index(parameter.name.split(":", 1)[1])
                        if parameter.name.startswith("item:") else 0)
            parameters.append((_PARAMETER_TYPES[parameter.name], parameter.size, radius_x,
                               radius_y, category))
            carried |= _FIELD_BITS[_FIELD[parameter.name]]
        blocks.append((block.offset, parameters, carried))
    units = list(codec.unit_ids)
    return {
        "n": codec.n, "scenario": scenario, "units": units, "blocks": blocks,
        "spells": [list(codec.spells_of[cid]) for cid in units],
        "items": [[list(codec._item_list[category][cid]) for cid in units]
                  for category in ITEM_CATEGORIES],
        "overflow": [[(origin, rank, index) for (origin, rank), index
                      in codec._overflow_index[category].items()]
                     for category in ITEM_CATEGORIES],
        "split_capacity": dict(codec.split_capacity),
        "known_uids": list(codec._cats),
    }


def battle_parts(battle: Battle) -> tuple[Any, Any, Any]:
    """A native battle's (state, loop, rules), its state current in the engine."""
    return bridge.engine_parts(battle)


class NativeLayouts:
    """One scenario's observation and action layouts in the engine (from a probe battle
    of the scenario on the native engine)."""

    def __init__(self, probe: Battle, codec: ActionCodec) -> None:
        module = rules.engine.native_module()
        state, loop, _ = battle_parts(probe)
        content = probe.content
        self.width, self.height = codec.width, codec.height
        self.units = codec.n_units
        self.n = codec.n
        self.observation = module.ObservationLayout(
            state, loop, probe.scenario.max_rounds,
            content.ruleset.defence.parries_per_round, "dodge",
            [list(ActionKind).index(kind) for kind in DESTINATION_KINDS])
        self.actions = module.ActionLayout(state, layout_tables(codec, probe.scenario.name))
        self.probe_state = state  # a state of the scenario (its team names)
        #: one env's shapes in empty()'s order (planes, units, decision, globals)
        self._shapes = ((len(PLANES), self.height, self.width), (self.units, len(UNIT_FEATURES)),
                        (2,), (len(GLOBAL_FEATURES),))
        self._probe, self._codec = probe, codec

    def actions_in(self, records: Any) -> Any:
        """The action layout with its names in ``records`` (a ``rules._native.Records``):
        for battles whose events are interned there."""
        state = bridge.native_state(self._probe, records)
        return rules.engine.native_module().ActionLayout(
            state, layout_tables(self._codec, self._probe.scenario.name))

    def empty(self, count: int | None = None) -> dict[str, np.ndarray]:
        """Observation arrays (one env, or ``count`` rows) for the engine to fill (it
        writes every element: ``write_observation``)."""
        planes, units, decision, globals_ = self._shapes
        if count is not None:
            planes, units, decision, globals_ = ((count, *shape) for shape in self._shapes)
        return {"planes": np.empty(planes, dtype=np.float32),
                "units": np.empty(units, dtype=np.float32),
                "decision": np.empty(decision, dtype=np.int64),
                "globals": np.empty(globals_, dtype=np.float32)}

    def observe(self, battle: Battle, team: str, self_id: str | None,
                show_reachable: bool = True) -> dict[str, np.ndarray]:
        """``ObservationBuilder.build`` of ``battle`` computed by the engine."""
        state, loop, _ = battle_parts(battle)
        out = self.empty()
        rules.engine.native_module().env_observe(
            self.observation, state, loop, team, self_id, show_reachable, out["planes"],
            out["units"], out["decision"], out["globals"])
        return out

    def mask(self, battle: Battle) -> tuple[np.ndarray, dict[int, int]]:
        """``ActionCodec.mask`` of ``battle`` computed by the engine, and each legal index's
        place in ``battle.legal_actions()``."""
        state, loop, _ = battle_parts(battle)
        mask = np.zeros(self.n, dtype=np.int8)
        try:
            places = rules.engine.native_module().env_mask(self.actions, state, loop, mask)
        except rules.engine.native_module().EncodingFailure as exc:
            raise EncodingError(str(exc)) from None
        return mask, dict(places)



def episode_core(setup: Any, team: str, illegal_penalty: float, damage_reward: float,
                 actions: Any = None) -> Any:
    """A ``rules._native.EnvCore``: ``SkirmishEnv``'s step in the engine for ``team`` of
    ``setup``'s scenario (``env.core.ScenarioSetup``); ``start`` gives it each episode.
    ``actions``: the action layout in the name table its battles use (default: the
    process's shared one, which ``rules.Battle`` uses)."""
    layouts = setup.native_layouts()
    return rules.engine.native_module().EnvCore(
        layouts.observation, layouts.actions if actions is None else actions, team,
        illegal_penalty, damage_reward, layouts.probe_state)
