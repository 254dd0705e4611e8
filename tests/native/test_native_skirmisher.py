"""The native skirmisher (``rules/native/agents_skirmisher.cpp``, ``NativeAgent("skirmisher",
seed)``, a subclass of the native tactician) decides as ``agents.skirmisher.Skirmisher(seed)``,
reasons included.

- Recorded states: every shipped scenario played on the native engine by random,
  berserker or tactician agents; at every decision a fresh Python ``Skirmisher(seed)`` and
  a fresh native one choose, and the (action, reason) pairs must be equal, no difference
  allowed. The skirmisher's own steps (shoot, keep away, shift out of reach, disengage to,
  close to shooting range) must have been taken in these states, not only the
  tactician's it falls back on.
- A persistent pair: one Python and one native skirmisher kept across a whole battle and
  asked at every decision, so the generator's state carries over from decision to
  decision (its ties and the tactician steps' ties draw from one generator).
- Whole battles, skirmisher against tactician and berserkers:
  tests/experiments/test_native_play.py (its pairings include the skirmisher's).
- ``Skirmisher(seed, step_back=True)`` has no native twin.
"""

from __future__ import annotations

from collections import Counter

import pytest

import rules
import rules.engine
from agents.base import SeededAgent
from agents.berserker import Berserker
from agents.random_agent import RandomAgent
from agents.skirmisher import Skirmisher
from agents.tactician import Tactician

_MISSING = rules.engine.missing_native("NativeAgent", "the native agents")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)

from rules.native_agents import native_agent, native_choice  # noqa: E402

#: (battle seed, skirmisher seed): a one-word and a two-word seed (numpy splits a seed
#: into 32-bit words; the native generator must split it alike)
SEEDS = ((1, 7), (2, 2**40 + 3))
#: who plays the recorded battles
DRIVERS = {"random": RandomAgent, "berserker": Berserker, "tactician": Tactician}
MAX_DECISIONS = 150
#: the reasons of the skirmisher's own steps (agents/skirmisher.py)
OWN_STEPS = ("shoot", "keep away", "shift out of reach", "disengage to",
             "close to shooting range")


def own_step(reason: str) -> str | None:
    """Which of the skirmisher's own steps gave ``reason`` (None: a tactician step)."""
    return next((step for step in OWN_STEPS if reason.startswith(step)), None)


def compare_states(scenario: str, battle_seed: int, agent_seed: int, driver: SeededAgent,
                   steps: Counter[str], persistent: bool = False) -> tuple[int, list[str]]:
    """Play ``scenario`` with ``driver`` on the native engine; at every decision compare
    a Python and a native ``Skirmisher(agent_seed)``: fresh ones, or with ``persistent``
    the same pair throughout. (Decisions compared, the differences); ``steps`` counts the
    skirmisher's own steps taken."""
    battle = rules.Battle.from_scenario(scenario, seed=battle_seed, engine="native")
    kept = (Skirmisher(agent_seed), native_agent("skirmisher", agent_seed))
    compared, differences = 0, []
    for made in range(MAX_DECISIONS):
        if battle.decision is None:
            break
        python, native = kept if persistent else (Skirmisher(agent_seed),
                                                  native_agent("skirmisher", agent_seed))
        expected = python.act(battle)
        chosen, reason = native_choice(battle, native)
        compared += 1
        if (chosen, reason) != (expected, python.reason):
            differences.append(f"{scenario} seed {battle_seed} decision {made} "
                               f"{battle.decision}: native {chosen} ({reason!r}), Python "
                               f"{expected} ({python.reason!r})")
        step = own_step(python.reason or "")
        if step is not None:
            steps[step] += 1
        battle.apply(driver.act(battle))
    return compared, differences


def test_the_native_skirmisher_decides_as_the_python_one() -> None:
    compared, differences, steps = 0, [], Counter()
    for scenario in rules.shipped_scenarios():
        for battle_seed, agent_seed in SEEDS:
            for make in DRIVERS.values():
                found, different = compare_states(scenario, battle_seed, agent_seed,
                                                  make(battle_seed), steps)
                compared += found
                differences += different
    assert compared > 5_000
    assert differences == [], f"{len(differences)} of {compared} differ:\n" + "\n".join(
        differences[:10])
    # the missile steps were taken, not only the tactician's
    assert steps["shoot"] > 0 and steps["keep away"] > 0, steps
    assert sum(steps.values()) > 100, steps


def test_a_persistent_native_skirmisher_decides_as_a_persistent_python_one() -> None:
    """One Python and one native skirmisher asked at every decision of a battle: the
    generator's state carries over, draws in its own steps and the tactician's alike."""
    compared, differences, steps = 0, [], Counter()
    battle_seed, agent_seed = 3, 2**64 - 1
    for scenario in rules.shipped_scenarios():
        for make in (RandomAgent, Tactician):
            found, different = compare_states(scenario, battle_seed, agent_seed,
                                              make(battle_seed), steps, persistent=True)
            compared += found
            differences += different
    assert compared > 1_000 and sum(steps.values()) > 0, steps
    assert differences == [], f"{len(differences)} of {compared} differ:\n" + "\n".join(
        differences[:10])


def test_the_skirmisher_has_a_native_twin_but_not_its_step_back_variant() -> None:
    assert Skirmisher(3).native_twin().name == "skirmisher"
    assert Skirmisher(3).native_agent_name() == "skirmisher"
    assert Skirmisher(3, step_back=True).native_agent_name() is None
    assert Skirmisher(3, step_back=True).native_twin() is None
    assert native_agent("skirmisher", 3).name == "skirmisher"
