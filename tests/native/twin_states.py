"""The native twins' recorded-state comparison, shared by the agents' test modules
(test_native_tactician.py, test_native_defender.py, test_native_skirmisher.py): a battle
played on the native engine, and at every decision a Python agent and its native twin of
the same seed asked for (action, reason)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import rules
from agents.base import SeededAgent
from rules.bridge import native_agent, native_choice

#: the pairs asked at each decision: made afresh, or one pair kept through the battle
FRESH, PERSISTENT = "fresh", "persistent"


def compare_twins(scenario: str, battle_seed: int, python_agent: Callable[[], SeededAgent],
                  native_name: str, agent_seed: int, driver: SeededAgent | None, *,
                  max_decisions: int, pairs: Sequence[str] = (FRESH,),
                  prepare: Callable[[rules.Battle], None] | None = None,
                  reasons: list[str] | None = None) -> tuple[int, list[str]]:
    """Play ``scenario`` (battle seed ``battle_seed``, on the native engine) with
    ``driver`` (None: the last pair's Python agent plays); at each of the first
    ``max_decisions`` decisions ask every pair of ``pairs``: a Python agent
    (``python_agent()``) and the native agent ``native_name`` seeded ``agent_seed``, fresh
    or kept (``PERSISTENT``). ``prepare`` may change the battle before the first decision;
    ``reasons`` collects the Python agents' reasons. (Decisions compared, the differences.)"""
    battle = rules.Battle.from_scenario(scenario, seed=battle_seed, engine="native")
    if prepare is not None:
        prepare(battle)
    kept = (python_agent(), native_agent(native_name, agent_seed))
    compared, differences = 0, []
    for made in range(max_decisions):
        if battle.decision is None:
            break
        played = None
        for label in pairs:
            python, native = kept if label == PERSISTENT else (
                python_agent(), native_agent(native_name, agent_seed))
            expected = python.act(battle)
            chosen, reason = native_choice(battle, native)
            compared += 1
            if (chosen, reason) != (expected, python.reason):
                differences.append(f"{scenario} seed {battle_seed} decision {made} ({label}) "
                                   f"{battle.decision}: native {chosen} ({reason!r}), Python "
                                   f"{expected} ({python.reason!r})")
            if reasons is not None:
                reasons.append(python.reason or "")
            played = expected
        battle.apply(driver.act(battle) if driver is not None else played)
    return compared, differences


def compare_drivers(compare: Callable[[str, int, int, SeededAgent], tuple[int, list[str]]],
                    scenario: str, seeds: Sequence[tuple[int, int]],
                    drivers: Sequence[Callable[[int], SeededAgent]]) -> tuple[int, list[str]]:
    """``compare(scenario, battle seed, agent seed, driver)`` for every (battle seed, agent
    seed) of ``seeds`` and every driver (made with the battle seed), summed."""
    compared, differences = 0, []
    for battle_seed, agent_seed in seeds:
        for make in drivers:
            found, different = compare(scenario, battle_seed, agent_seed, make(battle_seed))
            compared += found
            differences += different
    return compared, differences


def differences_text(compared: int, differences: list[str]) -> str:
    """The assertion message: how many differ, and the first ten."""
    return f"{len(differences)} of {compared} differ:\n" + "\n".join(differences[:10])
