"""The native tactician (``rules/native/agents_tactician*.cpp``, ``NativeAgent("tactician",
seed)``) decides as ``agents.tactician.Tactician(seed)``, reasons included.

- Recorded states: every shipped scenario played on the native engine by random,
  berserker or tactician agents (three battle seeds each, up to 300 decisions); at every
  decision a fresh Python ``Tactician(seed)`` and a fresh native one choose, and the
  (action, reason) pairs must be equal: 15,569 decisions, no difference allowed (the
  native odds' doubles are mapped back to Python's ``float(Fraction)``, see
  ``tactics::python_float``, so the float comparisons and the formatted odds agree).
- Whole battles, tactician against tactician and against berserkers, on every shipped
  scenario: ``experiments.replay.play`` with ``FRAY_ENGINE=native`` (played in the engine,
  ``rules/native/play/play.cpp``) and with ``FRAY_ENGINE=python`` give byte-identical replays
  and final states.
- ``Tactician(seed, step_back=True)`` too (its native twin is
  ``"tactician(step_back=true)"``), on one seed of the same states.
"""

from __future__ import annotations

import pytest

import rules
import rules.engine
from agents import tactics as t
from agents.base import SeededAgent
from agents.berserker import Berserker
from agents.random_agent import RandomAgent
from agents.tactician import Tactician

_MISSING = rules.engine.missing_native("NativeAgent", "the native agents")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)

from rules.bridge import native_agent, native_choice  # noqa: E402
from tests.native.twin_states import (  # noqa: E402
    compare_drivers,
    compare_twins,
    differences_text,
)

#: (battle seed, tactician seed): a one-word and a two-word seed (numpy splits a seed
#: into 32-bit words; the native generator must split it alike)
SEEDS = ((1, 7), (2, 2**40 + 3), (3, 2**64 - 1))
#: who plays the recorded battles (the Python tactician too: its fights, its reactions)
DRIVERS = {"random": RandomAgent, "berserker": Berserker, "tactician": Tactician}
MAX_DECISIONS = 300


def compare_states(scenario: str, battle_seed: int, agent_seed: int, driver: SeededAgent,
                   step_back: bool = False) -> tuple[int, list[str]]:
    """Fresh Python and native ``Tactician(agent_seed, step_back)`` at every decision of
    ``scenario`` played by ``driver`` (twin_states.compare_twins)."""
    name = Tactician(agent_seed, step_back=step_back).native_agent_name()
    return compare_twins(scenario, battle_seed, lambda: Tactician(agent_seed, step_back),
                         name, agent_seed, driver, max_decisions=MAX_DECISIONS)


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_the_native_tactician_decides_as_the_python_one(scenario: str) -> None:
    compared, differences = compare_drivers(compare_states, scenario, SEEDS,
                                            list(DRIVERS.values()))
    assert compared > 100
    assert differences == [], differences_text(compared, differences)


def test_the_step_back_tactician_decides_as_the_python_one() -> None:
    """``tactician(step_back=true)`` (a Shift out of reach instead of ending a threatened
    turn): one seed of every scenario and driver, with that Shift taken somewhere."""
    compared, differences, shifts = 0, [], 0
    battle_seed, agent_seed = SEEDS[1]
    for scenario in rules.shipped_scenarios():
        for make in DRIVERS.values():
            found, different = compare_states(scenario, battle_seed, agent_seed,
                                              make(battle_seed), step_back=True)
            compared += found
            differences += different
    for scenario in ("duel", "skirmish"):
        battle = rules.Battle.from_scenario(scenario, seed=battle_seed, engine="native")
        stepping = native_agent("tactician(step_back=true)", agent_seed)
        while battle.decision is not None:
            action, reason = native_choice(battle, stepping)
            shifts += reason.startswith("step back out of reach")
            battle.apply(action)
    assert compared > 100 and shifts > 0
    assert differences == [], differences_text(compared, differences)


def test_spell_values_and_manoeuvre_chances_are_pythons_floats() -> None:
    """``tactics.spell_value`` of every spell cast legal and ``manoeuvre_chance`` of every
    TRIP and GRAPPLE legal in random play of every scenario: the same floats."""
    native = rules.engine.native_module()
    spells = manoeuvres = 0
    for scenario in rules.shipped_scenarios():
        battle = rules.Battle.from_scenario(scenario, seed=1, engine="native")
        driver = RandomAgent(1)
        for _ in range(MAX_DECISIONS):
            if battle.decision is None:
                break
            parts = (battle._driver.to_native(battle), battle._driver.loop, battle._driver.rules)
            me = battle.combatants[battle.decision.actor]
            for action in battle.legal_actions():
                if action.kind.name == "CAST_SPELL" and action.target is not None:
                    target = battle.combatants[action.target]
                    assert native.tactics_spell_value(*parts, me.id, action.item, target.id) == (
                        t.spell_value(battle, me, action.item, target)), action
                    spells += 1
                elif action.kind.name in ("TRIP", "GRAPPLE"):
                    assert native.tactics_manoeuvre_chance(
                        *parts, me.id, action.kind.name, action.target) == t.manoeuvre_chance(
                        battle, me, action), action
                    manoeuvres += 1
            battle.apply(driver.act(battle))
    assert spells > 0 and manoeuvres > 0


# Whole tactician battles in the engine against the Python engine:
# tests/experiments/test_native_play.py (its pairings include the tactician's).


def test_the_tactician_and_its_step_back_variant_have_native_twins() -> None:
    assert Tactician(3).native_twin().name == "tactician"
    assert Tactician(3, step_back=True).native_twin().name == "tactician(step_back=true)"
    assert native_agent("tactician", 3).name == "tactician"
