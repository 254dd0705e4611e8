"""The native skirmisher (``rules/native/agents/agents_skirmisher.cpp``, ``NativeAgent("skirmisher",
seed)``, a subclass of the native tactician) decides as ``agents.skirmisher.Skirmisher(seed)``,
reasons included.

- Recorded states: every shipped scenario played on the native engine by random,
  berserker, tactician or skirmisher agents (two battle seeds each, up to 150 decisions):
  8,257 decisions; at every decision a fresh Python ``Skirmisher(seed)`` and
  a fresh native one choose, and the (action, reason) pairs must be equal, no difference
  allowed. The skirmisher's own steps (shoot, keep away, shift out of reach, disengage to,
  close to shooting range) must have been taken in these states, not only the
  tactician's it falls back on.
- Javelin throwers placed as far from their enemies as the map allows, javelin in hand:
  the skirmisher closes to shooting range.
- A persistent pair: one Python and one native skirmisher kept across a whole battle and
  asked at every decision, so the generator's state carries over from decision to
  decision (its ties and the tactician steps' ties draw from one generator).
- Whole battles, skirmisher against tactician and berserkers:
  tests/experiments/test_native_play.py (its pairings include the skirmisher's).
- ``Skirmisher(seed, step_back=True)`` has no native twin.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

import rules
import rules.engine
from agents.base import SeededAgent
from agents.berserker import FAR, Berserker, distance_map
from agents.random_agent import RandomAgent
from agents.skirmisher import Skirmisher
from agents.tactician import Tactician

_MISSING = rules.engine.missing_native("NativeAgent", "the native agents")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)

from rules.bridge import native_agent  # noqa: E402
from tests.native.twin_states import (  # noqa: E402
    FRESH,
    PERSISTENT,
    compare_twins,
    differences_text,
)

#: (battle seed, skirmisher seed): a one-word and a two-word seed (numpy splits a seed
#: into 32-bit words; the native generator must split it alike)
SEEDS = ((1, 7), (2, 2**40 + 3))
#: who plays the recorded battles (the Python skirmisher too: the states it kites into)
DRIVERS = {"random": RandomAgent, "berserker": Berserker, "tactician": Tactician,
           "skirmisher": Skirmisher}
MAX_DECISIONS = 150
#: the reasons of the skirmisher's own steps (agents/skirmisher.py)
OWN_STEPS = ("shoot", "keep away", "shift out of reach", "disengage to",
             "close to shooting range")


def own_step(reason: str) -> str | None:
    """Which of the skirmisher's own steps gave ``reason`` (None: a tactician step)."""
    return next((step for step in OWN_STEPS if reason.startswith(step)), None)


def compare_states(scenario: str, battle_seed: int, agent_seed: int, driver: SeededAgent | None,
                   steps: Counter[str], persistent: bool = False,
                   prepare: Callable[[rules.Battle], None] | None = None
                   ) -> tuple[int, list[str]]:
    """A Python and a native ``Skirmisher(agent_seed)`` at every decision of ``scenario``
    played by ``driver``: fresh ones, or with ``persistent`` the same pair throughout
    (which plays the battle when ``driver`` is None); ``steps`` counts the skirmisher's own
    steps taken (twin_states.compare_twins)."""
    reasons: list[str] = []
    found = compare_twins(scenario, battle_seed, lambda: Skirmisher(agent_seed), "skirmisher",
                          agent_seed, driver, max_decisions=MAX_DECISIONS,
                          pairs=(PERSISTENT if persistent else FRESH,), prepare=prepare,
                          reasons=reasons)
    steps.update(step for step in map(own_step, reasons) if step is not None)
    return found


def test_the_native_skirmisher_decides_as_the_python_one() -> None:
    compared, differences, steps = 0, [], Counter()
    for scenario in rules.shipped_scenarios():
        for battle_seed, agent_seed in SEEDS:
            for make in DRIVERS.values():
                found, different = compare_states(scenario, battle_seed, agent_seed,
                                                  make(battle_seed), steps)
                compared += found
                differences += different
    assert compared > 8_000
    assert differences == [], differences_text(compared, differences)
    # the missile steps were taken, not only the tactician's
    assert all(steps[step] > 0 for step in OWN_STEPS[:4]), steps
    assert sum(steps.values()) > 300, steps


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
    assert differences == [], differences_text(compared, differences)


def javelins_far_away(battle: rules.Battle) -> None:
    """Every combatant carrying a javelin readies it (its other weapons put away) and stands
    on the free square farthest (walking) from its enemies."""
    weapons, grid = battle.content.weapons, battle.grid
    for combatant in battle.combatants.values():
        javelins = [i for i in combatant.inventory if i.item == "javelin"]
        if not javelins:
            continue
        for inst in combatant.inventory:
            if inst.item in weapons and inst.state == "ready":
                inst.state = "carried"
        javelins[0].state = "ready"
        dist = distance_map(grid, [e.position for e in battle.combatants.values()
                                   if e.team != combatant.team])
        held = {e.position for e in battle.combatants.values()}
        free = [(dist[y * grid.width + x], (x, y)) for y in range(grid.height)
                for x in range(grid.width) if dist[y * grid.width + x] < FAR and (x, y) not in held]
        combatant.position = max(free)[1]


def test_javelin_throwers_far_away_close_to_shooting_range() -> None:
    """A persistent pair plays both sides of battles whose javelin throwers start far from
    their enemies: the skirmisher's "close to shooting range" (no square in range to keep
    away on)."""
    compared, differences, steps = 0, [], Counter()
    for scenario in ("cavalry", "horde"):
        found, different = compare_states(scenario, 2, 5, None, steps, persistent=True,
                                          prepare=javelins_far_away)
        compared += found
        differences += different
    assert steps["close to shooting range"] > 0, steps
    assert differences == [], differences_text(compared, differences)


def test_the_skirmisher_has_a_native_twin_but_not_its_step_back_variant() -> None:
    assert Skirmisher(3).native_twin().name == "skirmisher"
    assert Skirmisher(3).native_agent_name() == "skirmisher"
    assert Skirmisher(3, step_back=True).native_agent_name() is None
    assert Skirmisher(3, step_back=True).native_twin() is None
    assert native_agent("skirmisher", 3).name == "skirmisher"
