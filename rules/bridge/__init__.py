"""The bridge to the native engine: everything the C++ engine (``rules._native``, built from
``rules/native/``) needs from Python, in one package below :class:`rules.Battle`
(issue 47).

A battle's engine is chosen once, where it is made (``rules.Battle(..., engine=...)``,
else ``$FRAY_ENGINE``, else native when built: :func:`rules.engine.resolve`). A native
battle keeps its state in C++ through :class:`rules.bridge.driver.NativeDriver`, and
``apply``, ``legal_actions`` and ``clone`` run there; its Python state is a mirror brought
up to date when read. ``rules.battle`` imports this package; no module of it imports
``rules.battle`` (only under ``TYPE_CHECKING``), so it sits below Battle's interface
(tests/test_architecture.py checks both directions).

The modules: :mod:`~rules.bridge.driver` (a native battle's state, loop and rules, and
its mirror), :mod:`~rules.bridge.start` (battles started in C++ from a scenario mustered
once), :mod:`~rules.bridge.battle_state` (a Python battle state as a native one),
:mod:`~rules.bridge.combatants` (compiled content and rosters), :mod:`~rules.bridge.legal`
(the compiled map the native legal actions read), :mod:`~rules.bridge.reach` (the native
reach search, added to ``rules.queries``), :mod:`~rules.bridge.records` (the name table
actions, decisions and events cross with) and :mod:`~rules.bridge.agents` (the native
scripted agents and in-engine loops).

env/, agents/ and experiments/ use only the names below (``__all__``); the modules'
other names are the bridge's own (tests/test_architecture.py fails on any other import
from outside rules/):

- Native agents: :func:`native_agent` makes one by name; :func:`twin_of` asks a Python
  agent for its native twin, :func:`battle_twins` each team's for a battle (none on the
  Python engine: the caller does not ask which engine runs it); :func:`is_native_agent`;
  :func:`native_choice` (a native agent's choice for a native battle's decision).
- In-engine loops on a native battle: :func:`play_natively` / :func:`play_records` (whole
  battles, native agents on every team), :func:`search_round` (the flat search's round,
  ``agents.mcts``); :func:`engine_parts` (a native battle's current state, loop and
  rules, for the engine's own searches and envs) and :func:`current_native_state` (its
  state when only it is current, without bringing the mirror up to date).
- The native env: :func:`start_episode` and :func:`step_episode` (the battle follows the
  engine's steps by itself: its caller repairs nothing).
- The batched env's starts: :func:`new_records` (a batch's own name table),
  :func:`start_template` / :class:`StartTemplate` (a scenario mustered once),
  :func:`start_native` (a battle of a seed started in C++ from it), :func:`native_parts`
  and :func:`native_state` (a Python battle's state handed over as native parts).
"""

from rules.bridge.agents import (
    battle_twins,
    current_native_state,
    engine_parts,
    is_native_agent,
    native_agent,
    native_choice,
    play_natively,
    play_records,
    search_round,
    start_episode,
    step_episode,
    twin_of,
)
from rules.bridge.battle_state import native_state
from rules.bridge.driver import native_parts
from rules.bridge.records import new_records
from rules.bridge.start import StartTemplate, start_native, start_template

__all__ = [
    "StartTemplate",
    "battle_twins",
    "current_native_state",
    "engine_parts",
    "is_native_agent",
    "native_agent",
    "native_choice",
    "native_parts",
    "native_state",
    "new_records",
    "play_natively",
    "play_records",
    "search_round",
    "start_episode",
    "start_native",
    "start_template",
    "step_episode",
    "twin_of",
]
