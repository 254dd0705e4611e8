"""Saved battles from strangers (issue 46, items 2-4): every finding refused at load with
one line naming the file, the field, what was expected and what was found, the same on
both engines (``rules.save_validation``); and the native engine refusing at its binding
what a caller hands it past the validator, leaving the process working."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rules import Battle, engine, limits
from rules.errors import SaveError

DATA = Path(__file__).parent / "data"
ENGINES = ("python", "native")
needs_native = pytest.mark.skipif(not engine.native_available(),
                                  reason="the native engine is not built")


def refusals(text: str, source: str = "battle JSON") -> set[str]:
    """The SaveError line of each engine (a set: one element when they agree)."""
    found = set()
    for name in ENGINES if engine.native_available() else ("python",):
        with pytest.raises(SaveError) as error:
            Battle.from_json(text, engine=name, source=source)
        found.add(str(error.value))
    return found


def save_of(scenario: str, seed: int = 1) -> dict[str, Any]:
    return json.loads(Battle.from_scenario(scenario, seed=seed, engine="python").to_json())


# ------------------------------------------------------------------ the crafted files
CRAFTED = {
    "horde-level-100000.json": "stack[1].level: expected an integer in 2..4, got 100000",
    "skirmish-duplicate-uid.json": "combatants[3].inventory[1].uid: expected an item uid "
                                   "not used by any other item, got 'elf.longbow'",
    "long-fight-fatigue.json": "combatants[0].fatigue_level: expected an integer in 0..2, "
                               "got -1000000",
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_saves_are_refused_at_load_alike_on_both_engines(name: str) -> None:
    path = DATA / name
    assert refusals(path.read_text(), source=str(path)) == {f"{path}: {CRAFTED[name]}"}


# ------------------------------------------------------------------ item 3: rule-breaking states
def _skirmish(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = save_of("skirmish")
    change(data)
    return data


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        for key in parents:
            data = data[key]
        data[last] = value
    return change


FORBIDDEN: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "two bodies on one square": (_set("combatants.1.position", [4, 15]),
                                 "combatants[1].position: expected a square no other body"),
    "hp above max": (_set("combatants.0.hp", 99), "combatants[0].hp: expected an integer in"),
    "count -5": (_set("combatants.0.inventory.0.count", -5),
                 "combatants[0].inventory[0].count: expected an integer in 1..10000, got -5"),
    "count 0": (_set("combatants.0.inventory.0.count", 0),
                "combatants[0].inventory[0].count: expected an integer in 1..10000, got 0"),
    "position (-1, -1)": (_set("combatants.0.position", [-1, -1]),
                          "combatants[0].position[0]: expected an integer in 0.."),
    "position (10000, 10000)": (_set("combatants.0.position", [10000, 10000]),
                                "combatants[0].position[0]: expected an integer in 0.."),
    "initiative ghost": (_set("initiative_order.7", "ghost"),
                         "initiative_order[7]: expected one of"),
    "initiative duplicate": (_set("initiative_order.7", "elf"),
                             "initiative_order: expected every combatant id once"),
    "turn_index out of range": (_set("turn_index", 8),
                                "turn_index: expected an integer in 0..7, got 8"),
    "turn_index -1": (_set("turn_index", -1), "turn_index: expected an integer in 0..7, got -1"),
    "decision for a ghost": (_set("decision.actor", "ghost"), "decision.actor: expected one of"),
    "decision for another": (_set("decision.actor", "warrior"),
                             "decision: expected turn by elf, the decision this state waits"),
    "riding a ghost": (_set("combatants.0.riding", "ghost"), "combatants[0].riding: expected"),
    "riding oneself": (_set("combatants.0.riding", "warrior"),
                       "combatants[0].riding: expected another combatant's id, got 'warrior'"),
    "grappled by oneself": (_set("combatants.0.grappled_by", "warrior"),
                            "combatants[0].grappled_by: expected another combatant's id"),
    "power points -3": (_set("combatants.0.power_points", -3),
                        "combatants[0].power_points: expected an integer in 0.."),
    "power points 10**6": (_set("combatants.0.power_points", 10**6),
                           "combatants[0].power_points: expected an integer in 0.."),
    "round -5": (_set("round", -5), "round: expected an integer in 1..40, got -5"),
    "winner martians while running": (_set("winner", "martians"),
                                      "winner: expected one of monsters, party, got 'martians'"),
    "winner while running": (_set("winner", "party"),
                             "winner: expected null while the battle runs, got 'party'"),
    "a wall": (_set("combatants.0.position", [0, 0]),
               "combatants[0].position: expected a floor square"),
}


@pytest.mark.parametrize("name", sorted(FORBIDDEN))
def test_states_the_rules_forbid_are_refused_alike(name: str) -> None:
    change, expected = FORBIDDEN[name]
    found = refusals(json.dumps(_skirmish(change)))
    assert len(found) == 1
    assert next(iter(found)).startswith(f"battle JSON: {expected}")


def test_a_spell_known_twice_is_refused() -> None:
    """Found by `fray fuzz --inputs` under the sanitizers (seed 0): a caster's spell listed
    twice gave duplicate legal actions."""
    data = save_of("casters")
    caster = next(i for i, c in enumerate(data["combatants"]) if c["spells"])
    spells = data["combatants"][caster]["spells"]
    spells[-1] = spells[0]
    assert refusals(json.dumps(data)) == {
        f"battle JSON: combatants[{caster}].spells[{len(spells) - 1}]: expected each spell "
        f"once, got {spells[0]!r}"}


def test_a_rider_and_its_mount_must_name_each_other() -> None:
    data = save_of("cavalry")
    data["combatants"][0]["ridden_by"] = None  # horse_1, ridden by knight_1
    assert refusals(json.dumps(data)) == {
        "battle JSON: combatants[1].riding: expected a mount ridden by knight_1 on its "
        "square (H22), got 'horse_1'"}


# ------------------------------------------------------------------ item 4: types and 32 bits
TYPES = {
    "a string for an int": ("combatants.0.hp", "7", "combatants[0].hp: expected an integer"),
    "a float for an int": ("combatants.0.hp", 7.0, "combatants[0].hp: expected an integer"),
    "NaN for an int": ("round", float("nan"), "round: expected an integer in 1..40, got nan"),
    "None for an int": ("turn_index", None, "turn_index: expected an integer"),
    "a bool for an int": ("combatants.0.characteristics.str", True,
                          "combatants[0].characteristics.str: expected an integer"),
    "an int for a bool": ("combatants.0.prone", 1, "combatants[0].prone: expected true or false"),
    "None for a bool": ("is_over", None, "is_over: expected true or false, got None"),
    "STR 2**31 - 1": ("combatants.0.characteristics.str", 2**31 - 1,
                      "combatants[0].characteristics.str: expected an integer in 0..10000"),
    "dodge 2**31 - 1": ("combatants.0.base_skills.dodge", 2**31 - 1,
                        "combatants[0].base_skills.dodge: expected an integer in 0..10000"),
    "an int past 64 bits": ("seed", 2**64, "seed: expected an integer in 0.."),
    "an event's round as a string": ("events.0.round", "1",
                                     "events[0].round: expected an integer"),
    "an unknown event type": ("events.0.type", "Exploded",
                              "events[0].type: expected one of"),
    "an event's order as a string": ("events.0.order", "elf",
                                     "events[0].order: expected a list"),
    "a lone surrogate": ("combatants.0.name", "\udcff", "combatants[0].name: expected a "
                         "string of valid UTF-8"),
}


@pytest.mark.parametrize("name", sorted(TYPES))
def test_wrong_types_and_huge_ints_are_refused_alike_naming_the_field(name: str) -> None:
    path, value, expected = TYPES[name]
    found = refusals(json.dumps(_skirmish(_set(path, value))))
    assert len(found) == 1
    assert next(iter(found)).startswith(f"battle JSON: {expected}")


def test_bad_json_and_other_tops_are_one_line() -> None:
    assert refusals("[1, 2]") == {"battle JSON: save: expected a JSON object, got <a list>"}
    assert len(refusals("{" * 100_000)) == 1
    assert refusals("{}") == {"battle JSON: version: expected 3, got <missing>"}


def test_limits_the_native_engine_relies_on_are_rules_limits() -> None:
    """bindings_battle.hpp's kMaxStat, kMaxRounds, kMaxDiceSides mirror rules/limits.py:
    a save at MAX_STAT passes both checks, one past fails the native one alone."""
    if not engine.native_available():
        pytest.skip("the native engine is not built")
    battle = Battle.from_scenario("skirmish", seed=1, engine="python")
    from rules import bridge

    battle.combatants["warrior"].characteristics["str"] = limits.MAX_STAT
    bridge.native_state(battle)
    battle.combatants["warrior"].characteristics["str"] = limits.MAX_STAT + 1
    with pytest.raises(ValueError, match=r"characteristic: expected a value in 0\.\.10000"):
        bridge.native_state(battle)


# ------------------------------------------------------------------ the native binding
#: Mirror edits (past the validator) the binding must refuse with a ValueError.
BINDING: dict[str, str] = {
    "attack level 100000": "stack[-1].level = 100000",
    "attack level -1": "stack[-1].level = -1",
    "move index 99": "stack[0].index = 99",
    "move index 2**31 - 1": "stack[0].index = 2**31 - 1",
    "move index 2**31": "stack[0].index = 2**31",
    "fatigue -2": "combatants['hero_warrior'].fatigue_level = -2",
    "STR 2**31 - 1": "combatants['hero_warrior'].characteristics['str'] = 2**31 - 1",
    "initiative ghost": "initiative_order[0] = 'ghost'",
    "turn_index -1": "state.turn_index = -1",
    "duplicate uid": "combatants['hero_elf'].inventory[0].uid = "
                     "combatants['hero_warrior'].inventory[0].uid",
    "riding a ghost": "combatants['hero_warrior'].riding = 'ghost'",
}


#: One child process tries every edit (a crash would be a signal, not a failed test run):
#: per edit, a horde battle mid-attack whose Python state was edited behind the validator;
#: building the native state must raise a ValueError; then a fresh native battle plays.
BINDING_SCRIPT = """
import json, sys
from rules import Battle, bridge
edits = json.loads(sys.argv[1])
data = json.loads(open(sys.argv[2]).read())
data["stack"][1]["level"] = 2
for name, edit in edits.items():
    battle = Battle.from_json(json.dumps(data), engine="python")
    state = battle.state
    exec(edit, {}, {"state": state, "stack": state.stack, "combatants": state.combatants,
                    "initiative_order": state.initiative_order})
    print(name, "->", end=" ", flush=True)
    try:
        bridge.native_state(battle)
    except ValueError as error:
        print("refused:", error, flush=True)
    else:
        print("accepted", flush=True)
fresh = Battle.from_scenario("duel", seed=3, engine="native")
fresh.random_play(0, max_decisions=200)
print("fresh battle:", len(fresh.events), "events")
"""


@pytest.fixture(scope="module")
def binding_run() -> subprocess.CompletedProcess[str]:
    if not engine.native_available():
        pytest.skip("the native engine is not built")
    return subprocess.run([sys.executable, "-c", BINDING_SCRIPT, json.dumps(BINDING),
                           str(DATA / "horde-level-100000.json")],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("name", sorted(BINDING))
def test_the_native_binding_refuses_what_python_hands_it_and_the_process_goes_on(
        name: str, binding_run: subprocess.CompletedProcess[str]) -> None:
    lines = dict(line.split(" -> ", 1) for line in binding_run.stdout.splitlines()
                 if " -> " in line)
    assert name in lines, f"the child stopped before {name}: {binding_run.stderr[-1500:]}"
    assert lines[name].startswith("refused: "), lines[name]
    assert binding_run.returncode == 0, binding_run.stderr[-1500:]
    assert "fresh battle:" in binding_run.stdout


@needs_native
def test_a_bad_level_played_natively_does_not_poison_the_process() -> None:
    """The finding's root cause: a level past the table of level names was read out of
    bounds and interned in the process's shared name table, so every later load failed.
    Here the level reaches the engine as a mirror edit on a running native battle (the
    push rebuilds the native state): refused, and later loads work."""
    script = f"""
import json
from rules import Battle
data = json.loads(open({str(DATA / 'horde-level-100000.json')!r}).read())
data["stack"][1]["level"] = 2
battle = Battle.from_json(json.dumps(data), engine="native")
parry = [a for a in battle.legal_actions() if a.kind.value == "parry"][-1]
battle.state.stack[-1].level = 6
try:
    battle.apply(parry)
except ValueError as error:
    print("refused:", error)
fresh = Battle.from_scenario("duel", seed=1, engine="native")
print("fresh decision:", fresh.decision.kind.value)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused: native battle state: attack frame: level: expected a value in 0..4, " \
           "got 6" in done.stdout
    assert "fresh decision: turn" in done.stdout


def test_a_refused_save_leaves_nothing_behind_and_a_good_one_plays_without_error() -> None:
    """Item 2's Python half: the level the Python engine once met half-way through
    ``apply`` (a ValueError after the parry was rolled) is refused before a battle exists;
    the same save with a level the rules build plays PARRY then DODGE on both engines
    alike."""
    data = json.loads((DATA / "horde-level-100000.json").read_text())
    data["stack"][1]["level"] = 6
    assert len(refusals(json.dumps(data))) == 1
    data["stack"][1]["level"] = 2
    events = []
    for name in ENGINES if engine.native_available() else ("python",):
        battle = Battle.from_json(json.dumps(data), engine=name)
        start = len(battle.events)
        battle.apply(next(a for a in battle.legal_actions()
                      if a.item == "hero_warrior.medium_shield"))
        if battle.decision is not None and battle.decision.kind.value == "dodge":
            battle.apply(battle.legal_actions()[0])
        events.append([str(e) for e in battle.events[start:]])
    assert all(found == events[0] for found in events) and events[0]


# ------------------------------------------------------------------ real saves pass
def test_every_save_of_real_play_is_accepted_and_restored_exactly() -> None:
    """The validator refuses nothing the rules build: saves of seven shipped scenarios
    after 0, 7, 23, 60 and 150 random decisions (mid-move, mid-attack, offers, mounted,
    over) and of a battle rested after its end load on both engines to the same JSON."""
    import random

    from experiments.fuzzing.inputs import base_saves

    texts = [json.dumps(save, sort_keys=True) for save in base_saves(seed=2)]
    rested = Battle.from_scenario("duel", seed=2, engine="python")
    chooser = random.Random(0)
    while not rested.is_over:
        rested.apply(chooser.choice(rested.legal_actions()))
    rested.rest(2400)
    texts.append(rested.to_json())
    for text in texts:
        for name in ENGINES if engine.native_available() else ("python",):
            assert Battle.from_json(text, engine=name).to_json() == text
