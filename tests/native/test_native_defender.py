"""The native defender (``rules/native/agents/agents_defender.cpp``, ``NativeAgent("defender",
seed)``) decides as ``agents.defender.Defender(seed)``, reasons included.

- Recorded states: every shipped scenario played on the native engine by random,
  berserker, tactician or defender agents (two battle seeds each, up to 250 decisions);
  at every decision a fresh Python ``Defender(seed)`` and a fresh native one choose, and
  the (action, reason) pairs must be equal, no difference allowed.
- A persistent pair: one Python and one native defender kept across the whole battle and
  asked at every decision (the driver plays it), so that what the defender remembers (the
  chokepoint of each combatant it decided for, ``self.memory``) and its generator's state
  from one tie to the next are compared too.
- Whole battles, the defender against the tactician and the berserker:
  tests/experiments/test_native_play.py (its pairings include the defender's).
"""

from __future__ import annotations

import pytest

import rules
import rules.engine
from agents.base import SeededAgent
from agents.berserker import Berserker
from agents.defender import Defender
from agents.random_agent import RandomAgent
from agents.tactician import Tactician

_MISSING = rules.engine.missing_native("NativeAgent", "the native agents")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)

from rules.bridge import native_agent, native_choice  # noqa: E402
from tests.native.twin_states import (  # noqa: E402
    FRESH,
    PERSISTENT,
    compare_drivers,
    compare_twins,
    differences_text,
)

#: (battle seed, defender seed): a one-word and a two-word seed (numpy splits a seed
#: into 32-bit words; the native generator must split it alike)
SEEDS = ((1, 7), (2, 2**40 + 3))
#: who plays the recorded battles (the Python defender too: its posts, its reactions)
DRIVERS = {"random": RandomAgent, "berserker": Berserker, "tactician": Tactician,
           "defender": Defender}
MAX_DECISIONS = 250


def compare_states(scenario: str, battle_seed: int, agent_seed: int, driver: SeededAgent
                   ) -> tuple[int, list[str]]:
    """At every decision of ``scenario`` played by ``driver``, a fresh Python and native
    ``Defender(agent_seed)`` and a persistent pair kept across the battle
    (twin_states.compare_twins)."""
    return compare_twins(scenario, battle_seed, lambda: Defender(agent_seed), "defender",
                         agent_seed, driver, max_decisions=MAX_DECISIONS,
                         pairs=(FRESH, PERSISTENT))


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_the_native_defender_decides_as_the_python_one(scenario: str) -> None:
    compared, differences = compare_drivers(compare_states, scenario, SEEDS,
                                            list(DRIVERS.values()))
    assert compared > 400
    assert differences == [], differences_text(compared, differences)


def test_the_defender_has_a_native_twin_that_remembers_its_chokepoints() -> None:
    """``Defender(seed).native_twin()`` is the native defender; a clone made once the
    chokepoints are remembered (the in-engine searches clone their rollout policy) keeps
    them, deciding as the original from there on."""
    assert Defender(3).native_twin().name == "defender"
    assert native_agent("defender", 3).name == "defender"
    for scenario in ("duel", "crypt"):
        battle = rules.Battle.from_scenario(scenario, seed=4, engine="native")
        python, native, clone = Defender(5), native_agent("defender", 5), None
        holding = 0
        while battle.decision is not None:
            expected = python.act(battle)
            chosen, reason = native_choice(battle, native)
            assert (chosen, reason) == (expected, python.reason)
            if clone is not None:
                assert native_choice(battle, clone) == (chosen, reason)
            elif python.memory:
                clone = native.clone()
            holding += reason.startswith(("holding", "hold the chokepoint"))
            battle.apply(expected)
        assert clone is not None and holding > 0
