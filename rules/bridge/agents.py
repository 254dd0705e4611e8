"""The native scripted agents (``rules/native/agents_*.cpp``: ``agents/random_agent.py``,
``agents/berserker.py``, ``agents/tactician.py``, ``agents/skirmisher.py`` and
``agents/defender.py`` in C++) on a battle run by the native engine.

``native_agent(name, seed)`` makes one (``rules._native.NativeAgent``: "random",
"berserker", "tactician", "tactician(step_back=true)", "skirmisher" or "defender",
seeded as ``SeededAgent(seed)``); :func:`native_choice` asks
it for the pending decision of a ``rules.Battle(engine="native")``: the very action
object ``battle.legal_actions()`` lists, and the agent's reason ("" when it gives none).
``tests/native/test_native_agents.py`` checks that it chooses as the Python agent with the
same seed at every decision of whole battles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules import engine

if TYPE_CHECKING:
    from rules.actions import Action
    from rules.battle import Battle


def twin_of(agent: Any) -> Any | None:
    """``agent.native_twin()`` (a ``NativeAgent`` deciding exactly as ``agent`` would from
    here on), or None when the agent has no native form (or no such method)."""
    twin = getattr(agent, "native_twin", None)
    return twin() if twin is not None else None


def battle_twins(battle: Battle, agents_by_team: dict[str, Any]) -> dict[str, Any]:
    """team -> the native twin of its agent (:func:`twin_of`), for the teams whose agent
    has one, when ``battle`` runs on the native engine; ``{}`` on the Python engine. The
    teams named decide in the engine (:func:`native_choice`, :func:`play_records`)."""
    if battle._driver is None:
        return {}
    twins = {team: twin_of(agent) for team, agent in agents_by_team.items()}
    return {team: twin for team, twin in twins.items() if twin is not None}


def is_native_agent(agent: Any) -> bool:
    """Whether ``agent`` is a ``rules._native.NativeAgent`` (a twin, not a Python agent)."""
    return engine.native_available() and isinstance(agent, engine.native_module().NativeAgent)


def native_agent(name: str, seed: int) -> Any:
    """A new ``rules._native.NativeAgent`` (ValueError naming the known ones for an
    unknown ``name``)."""
    return engine.require_native("NativeAgent", "the native agents").NativeAgent(name, seed)


def engine_parts(battle: Battle) -> tuple[Any, Any, Any]:
    """A native battle's (state, loop, rules), its state current in the engine: what the
    engine's agents, envs and searches step (env, agents and experiments read no private
    field of the battle, issue 47). ValueError on the Python engine."""
    driver = battle._driver
    if driver is None:
        raise ValueError("the battle does not run on the native engine")
    return driver.to_native(battle), driver.loop, driver.rules


def current_native_state(battle: Battle) -> Any | None:
    """The native state of ``battle`` when only it is current (the Python mirror lags:
    read it without bringing the mirror up to date), else None."""
    driver = battle._driver
    return driver.native if driver is not None and driver.where == "native" else None


def start_episode(core: Any, battle: Battle, opponent: Any) -> None:
    """Start a native env episode on ``battle``: ``core`` (an ``EnvCore``,
    ``rules/native/env/env_skirmish.cpp``) steps its native state from now on, with the
    native agent ``opponent``; the battle follows by itself (its mirror and legal actions
    are brought up to date when read), so the env repairs nothing (issue 47)."""
    core.start(*engine_parts(battle), opponent)
    battle._driver.stepped(battle)


def step_episode(core: Any, battle: Battle, index: int, *buffers: Any) -> Any:
    """``core.step_observe(index, *buffers)`` (the learner's action, the opponent to the
    next decision, the observation and mask into ``buffers``) on ``battle``, which
    follows by itself: the step's result (reward, terminated, truncated, ..., legal
    count, round)."""
    result = core.step_observe(index, *buffers)
    battle._driver.stepped(battle)
    return result


def native_choice(battle: Battle, agent: Any) -> tuple[Action, str]:
    """``agent``'s choice for ``battle``'s pending decision, as (the action listed by
    ``battle.legal_actions()``, the reason); ValueError when the battle is over or does not
    run on the native engine."""
    driver = battle._driver
    if driver is None:
        raise ValueError("native_choice: the battle runs on the Python engine; native agents "
                         "need Battle(engine='native')")
    if battle.decision is None:
        raise ValueError("the battle is over: there is no decision to act on")
    index, reason = agent.act(driver.to_native(battle), driver.loop, driver.rules)
    return battle.legal_actions()[index], reason


def play_natively(battle: Battle, agents_by_team: dict[str, Any],
                  max_decisions: int = 2**31 - 1) -> list[tuple[Action, str | None]]:
    """Play ``battle`` (on the native engine) on in the engine with a native agent per team
    (team -> ``NativeAgent``, used in place) until it is over or ``max_decisions`` were
    made, each decision's reason logged as ``Battle.apply`` logs it: the decisions, as
    (action, reason or None). ``rules/native/play/play.cpp`` is the loop."""
    return _battle_play(battle, agents_by_team, max_decisions, False)


def play_records(battle: Battle, agents_by_team: dict[str, Any],
                 max_decisions: int = 2**31 - 1) -> tuple[list[dict[str, Any]], list[str | None]]:
    """``play_natively`` for a replay: the decisions' ``Action.to_dict()`` and their
    reasons (or None), as two lists built in the engine (no Action per decision)."""
    return _battle_play(battle, agents_by_team, max_decisions, True)


def _battle_play(battle: Battle, agents_by_team: dict[str, Any], max_decisions: int,
                 records: bool) -> Any:
    driver = battle._driver
    if driver is None:
        raise ValueError("play_natively: the battle runs on the Python engine; native agents "
                         "need Battle(engine='native')")
    module = engine.require_native("battle_play", "the in-engine battle loop")
    return driver.run(battle, module.battle_play, agents_by_team, max_decisions, records)


def search_round(battle: Battle, candidates: list[Action], seed: int, rollout: Any,
                 depth: int, team: str) -> list[float]:
    """``agents.mcts``'s flat iterations in the engine: for each candidate, a clone of
    ``battle`` with its dice re-seeded by ``seed``, the candidate applied and ``rollout``
    (a ``NativeAgent``, used in place) playing ``depth`` decisions; the leaf values
    (``hp_balance`` for ``team``). ``rules/native/agents/agents_mcts.cpp`` is the loop."""
    driver = battle._driver
    if driver is None:
        raise ValueError("search_round: the battle runs on the Python engine")
    module = engine.require_native("mcts_round", "the native search rounds")
    return module.mcts_round(driver.to_native(battle), driver.loop, driver.rules, candidates,
                             seed, rollout, depth, team)
