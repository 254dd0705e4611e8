"""The native scripted agents (``rules/native/agents/agents_random.cpp``,
``agents_berserker.cpp``) decide exactly as the Python ones (``agents/random_agent.py``,
``agents/berserker.py``) with the same seed: whole battles of every shipped scenario on the
native engine, where at every decision both agents choose, the two choices must be the
same action, and it is applied. Berserkers on both teams, random agents on both, and one
of each."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import rules
import rules.engine
from agents.base import SeededAgent
from agents.berserker import Berserker
from agents.random_agent import RandomAgent

_MISSING = rules.engine.missing_native("NativeAgent", "the native agents")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)

from rules.bridge import native_agent, native_choice  # noqa: E402

PYTHON_AGENTS: dict[str, Callable[[int], SeededAgent]] = {
    "berserker": Berserker, "random": RandomAgent}
#: (battle seed, agent seed): 0, one 32-bit word, and seeds of two and three words (numpy
#: splits a seed into 32-bit words for SeedSequence; the native side must split it alike).
SEEDS = ((1, 0), (2, 2**40 + 7), (3, 2**64 - 1))
#: A guard only: every battle ends (a win or the scenario's last round) well before.
MAX_DECISIONS = 100_000


def play_both(scenario: str, battle_seed: int, by_team: dict[int, tuple[str, int]],
              shared: bool = False,
              prepare: Callable[[rules.Battle], None] | None = None) -> int:
    """Play ``scenario`` to its end on the native engine: at every decision the Python
    agent and the native agent of the actor's team choose; both choices must be the same
    action. The team numbers index the teams in the order the scenario lists them first; a
    team not in ``by_team`` is played as team 0 is, by agents of its own (its seed plus its
    number), or with ``shared`` by team 0's very agents; ``prepare`` may change the
    battle's state before the first decision. The decisions made."""
    battle = rules.Battle.from_scenario(scenario, seed=battle_seed, engine="native")
    if prepare is not None:
        prepare(battle)
    teams = list(dict.fromkeys(c.team for c in battle.combatants.values()))
    pairs: dict[str, tuple[SeededAgent, object]] = {}
    for number, team in enumerate(teams):
        if shared and number not in by_team:
            pairs[team] = pairs[teams[0]]
            continue
        kind, seed = by_team.get(number, by_team[0])
        pairs[team] = (PYTHON_AGENTS[kind](seed + number), native_agent(kind, seed + number))
    made = 0
    while battle.decision is not None:
        assert made < MAX_DECISIONS, f"{scenario} seed {battle_seed}: no end in sight"
        decision = battle.decision
        python, native = pairs[battle.combatants[decision.actor].team]
        chosen, reason = native_choice(battle, native)
        expected = python.act(battle)
        assert chosen == expected, (
            f"{scenario} seed {battle_seed} decision {made} {decision}: native chose "
            f"{chosen}, Python {expected}")
        assert reason == ""
        battle.apply(chosen)
        made += 1
    assert battle.is_over
    return made


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
@pytest.mark.parametrize("kind", ["berserker", "random"])
def test_the_native_agent_decides_as_the_python_one(scenario: str, kind: str) -> None:
    """One agent per team, and (the last seed) one agent for every team."""
    for number, (battle_seed, agent_seed) in enumerate(SEEDS):
        shared = number == len(SEEDS) - 1
        assert play_both(scenario, battle_seed, {0: (kind, agent_seed)}, shared) > 0


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_a_berserker_against_a_random_agent(scenario: str) -> None:
    for battle_seed, agent_seed in SEEDS[:2]:
        play_both(scenario, battle_seed, {0: ("berserker", agent_seed),
                                          1: ("random", agent_seed)})
        play_both(scenario, battle_seed, {0: ("random", agent_seed),
                                          1: ("berserker", agent_seed)})


def without_melee_in_pack(battle: rules.Battle) -> None:
    """Every combatant with a ready missile weapon loses its melee weapons: a berserker
    archer then keeps its bow (it drops one only when a melee weapon is in its pack)."""
    weapons = battle.content.weapons
    for combatant in battle.combatants.values():
        kinds = {weapons[i.item].kind: i.state for i in combatant.inventory if i.item in weapons}
        if kinds.get("missile") == "ready":
            combatant.inventory[:] = [i for i in combatant.inventory
                                      if i.item not in weapons or weapons[i.item].kind != "melee"]


@pytest.mark.parametrize("scenario", ["ambush", "skirmish", "horde"])
def test_berserker_archers_without_a_melee_weapon(scenario: str) -> None:
    for battle_seed, agent_seed in SEEDS[:2]:
        play_both(scenario, battle_seed, {0: ("berserker", agent_seed)},
                  prepare=without_melee_in_pack)


def test_an_unknown_name_is_a_value_error_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match="random, berserker"):
        native_agent("no such agent", 0)
    assert rules.engine.native_module().NativeAgent.known() == [
        "random", "berserker", "tactician", "tactician(step_back=true)", "skirmisher",
        "defender"]
    assert native_agent("berserker", 5).name == "berserker"


def test_seeds_are_checked() -> None:
    with pytest.raises(ValueError):
        native_agent("random", -1)
    with pytest.raises(TypeError):
        native_agent("random", "1")  # type: ignore[arg-type]


def test_a_battle_that_is_over_is_a_value_error() -> None:
    battle = rules.Battle.from_scenario("duel", seed=0, engine="native")
    agent = native_agent("berserker", 0)
    while battle.decision is not None:
        battle.apply(native_choice(battle, agent)[0])
    with pytest.raises(ValueError, match="over"):
        native_choice(battle, agent)
    driver = battle._driver
    with pytest.raises(ValueError, match="over"):
        agent.act(driver.to_native(battle), driver.loop, driver.rules)


def test_a_python_battle_is_a_value_error() -> None:
    battle = rules.Battle.from_scenario("duel", seed=0, engine="python")
    with pytest.raises(ValueError, match="native"):
        native_choice(battle, native_agent("random", 0))


@pytest.mark.parametrize("kind", ["berserker", "random"])
def test_a_clone_continues_identically(kind: str) -> None:
    """Cloned mid-battle (its generator part-way through its stream), the copy makes the
    same choices as the original from there on, and the original is not disturbed by it:
    both match the Python agent."""
    battle = rules.Battle.from_scenario("skirmish", seed=4, engine="native")
    python, native = PYTHON_AGENTS[kind](9), native_agent(kind, 9)
    for _ in range(60):
        chosen = native_choice(battle, native)[0]
        assert chosen == python.act(battle)
        battle.apply(chosen)
    copy = native.clone()
    assert copy is not native and copy.name == kind
    twin = battle.clone()
    for _ in range(150):
        if battle.decision is None:
            break
        expected = python.act(battle)
        assert native_choice(battle, native)[0] == expected
        spare = copy.clone()  # a clone's clone agrees too
        assert native_choice(twin, copy)[0] == expected
        assert native_choice(twin, spare)[0] == expected
        battle.apply(expected)
        twin.apply(expected)
