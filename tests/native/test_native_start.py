"""Battles started in C++ (``rules.bridge.start_template`` / ``start_native``,
``rules/native/core/battle.cpp`` ``start_battle`` and ``rules/native/core/muster.cpp``
``roll_initiative``): for a new seed, the native state equals the one the Python
constructor ``rules.Battle(scenario, seed)`` builds (dice, initiative, events, first
decision), and both play on alike."""

from __future__ import annotations

import threading

import pytest

import rules
from rules import engine
from rules.bridge.start import start_native, start_template, started_driver
from rules.content import default_content, load_content
from rules.scenario import load_scenario, parse_scenario
from tests.native.glue import state as native_battle

pytestmark = pytest.mark.skipif(not engine.native_available(),
                                reason="the native engine (rules._native) is not built")

#: ~100 seeds a scenario: small ones, and ones of two and three SeedSequence words
SEEDS = [*range(97), 2**32 + 5, 2**62 - 1, 2**64 + 3]


def python_json(scenario: rules.Scenario, seed: int, content=None,
                content_dir: str | None = None) -> str:
    return rules.Battle(scenario, seed, content, content_dir, engine="python").to_json()


@pytest.fixture(scope="module")
def templates() -> dict[str, tuple]:
    content = default_content()
    out = {}
    for name in rules.shipped_scenarios():
        scenario = load_scenario(name, content)
        out[name] = (scenario, start_template(scenario, content))
    return out


@pytest.mark.parametrize("name", rules.shipped_scenarios())
def test_a_started_battle_is_the_python_constructors(name: str, templates) -> None:
    scenario, template = templates[name]
    for seed in SEEDS:
        started = start_native(template, seed)
        assert native_battle.to_json(started) == python_json(scenario, seed), (name, seed)


@pytest.mark.parametrize("name", rules.shipped_scenarios())
def test_a_started_battle_plays_on_as_the_python_one(name: str, templates) -> None:
    """The loop and rules of the template step every battle started from it."""
    scenario, template = templates[name]
    module = engine.native_module()
    for seed, play_seed in ((0, 3), (2**62 - 1, 4), (41, 5)):
        started = start_native(template, seed)
        python = rules.Battle(scenario, seed, engine="python")
        made = module.battle_random_play(started, template.loop, template.rules, play_seed,
                                         250, True)
        assert made == python.random_play(play_seed, 250)
        assert native_battle.to_json(started) == python.to_json()


def test_the_template_is_left_as_it_was(templates) -> None:
    _, template = templates["skirmish"]
    before = template.state.to_dict()
    first = start_native(template, 7)
    again = start_native(template, 7)
    other = start_native(template, 8)
    assert template.state.to_dict() == before
    assert first.to_dict() == again.to_dict() != other.to_dict()
    assert first.to_dict()["seed"] == 7 and before["seed"] is None
    engine.native_module().battle_random_play(first, template.loop, template.rules, 1, 30)
    assert again.to_dict() == start_native(template, 7).to_dict()  # independent states


def test_a_native_battle_goes_on_from_a_started_state(templates) -> None:
    """A started state is a whole battle: Battle.from_json of it plays as the original."""
    scenario, template = templates["duel"]
    restored = rules.Battle.from_json(native_battle.to_json(start_native(template, 12)),
                                      engine="native")
    python = rules.Battle(scenario, 12, engine="python")
    assert restored.random_play(2) == python.random_play(2)
    assert restored.to_json() == python.to_json()


#: fatigued and exhausted units (S21), an encumbered one (S19/S20: plate without
#: training), twins that tie on initiative and DEX (the uniform draw decides), a rider,
#: a later start round, and a unit out of action (no turn)
SITUATIONS = '''
name = "situations"
max_rounds = 6
start_round = 3
map = """
##########
#........#
#........#
#........#
##########
"""
[[units]]
id = "tired"
team = "party"
creature = "human_warrior"
at = [1, 1]
fatigue = "fatigued"
[[units]]
id = "worn_out"
team = "party"
creature = "human_archer"
at = [1, 2]
fatigue = "exhausted"
[[units]]
id = "laden"
team = "party"
creature = "human_archer"
at = [1, 3]
armour = "full_plate"
armour_training = "none"
[[units]]
id = "horse"
team = "party"
creature = "horse"
at = [2, 2]
[[units]]
id = "rider"
team = "party"
creature = "human_warrior"
at = [2, 2]
riding = "horse"
[[units]]
id = "twin_1"
team = "monsters"
creature = "goblin"
at = [7, 1]
[[units]]
id = "twin_2"
team = "monsters"
creature = "goblin"
at = [7, 2]
[[units]]
id = "twin_3"
team = "monsters"
creature = "goblin"
at = [7, 3]
[[units]]
id = "fallen"
team = "monsters"
creature = "orc"
at = [8, 2]
out_of_action = true
'''


def test_fatigue_encumbrance_ties_riders_and_a_late_start() -> None:
    content = default_content()
    scenario = parse_scenario(SITUATIONS, source="<situations>", content=content)
    battle = rules.Battle(scenario, 0, engine="python")
    assert battle.combatants["laden"].encumbered
    assert battle.combatants["tired"].fatigue_factor() < 1
    template = start_template(scenario, content)
    for seed in SEEDS:
        started = start_native(template, seed)
        assert native_battle.to_json(started) == python_json(scenario, seed), seed


def test_a_ruleset_variant(tmp_path) -> None:
    """Other initiative rules (die, DEX bonus, impaired and fatigue factors) and tables."""
    from experiments.comparison.sweep import base_folder, write_variant

    changes = {"initiative.die": "2d6+1", "initiative.dex_bonus_divisor": 3,
               "initiative.impaired_factor": 0.3, "fatigue.fatigued_factor": 0.7,
               "fatigue.exhausted_factor": 0.35, "movement.diagonal_costs": [2, 2]}
    folder = str(write_variant(base_folder(None), tmp_path / "variant", changes))
    content = load_content(folder)
    scenarios = [load_scenario(name, content) for name in ("skirmish", "cavalry")]
    scenarios.append(parse_scenario(SITUATIONS, source="<situations>", content=content))
    for scenario in scenarios:
        template = start_template(scenario, content, folder)
        for seed in range(40):
            started = start_native(template, seed)
            assert native_battle.to_json(started) == python_json(scenario, seed, content,
                                                                 folder), (scenario.name, seed)
        started = start_native(template, 9)
        python = rules.Battle(scenario, 9, content, folder, engine="python")
        module = engine.native_module()
        assert module.battle_random_play(started, template.loop, template.rules, 2, 150) == \
            python.random_play(2, 150)
        assert native_battle.to_json(started) == python.to_json()


def test_rolled_characteristics_cannot_use_a_template() -> None:
    """H1: the muster's dice depend on the seed; callers build such battles in Python."""
    text = SITUATIONS.replace('id = "tired"\n', 'id = "tired"\nroll_characteristics = true\n')
    content = default_content()
    scenario = parse_scenario(text, source="<rolled>", content=content)
    with pytest.raises(ValueError, match=r"rolls characteristics at muster \(tired\)"):
        start_template(scenario, content)


def test_bad_seeds_and_states(templates) -> None:
    _, template = templates["duel"]
    with pytest.raises(TypeError):
        start_native(template, None)
    with pytest.raises(ValueError):
        start_native(template, -1)
    started = start_native(template, 1)
    with pytest.raises(ValueError, match="mustered"):
        engine.native_module().battle_start(started, 2, template.loop, template.rules, "duel")


def test_started_driver_keeps_a_template_per_thread_and_scenario(tmp_path) -> None:
    """``rules.bridge.start.started_driver`` (how ``rules.Battle`` starts a native battle):
    the constructor's battle; each thread musters its own template once."""
    content = default_content()
    duel = load_scenario("duel", content)
    assert load_scenario("duel", content) is duel  # one parse while the file is the same
    first = started_driver(duel, 5, content)
    assert native_battle.to_json(first.native) == rules.Battle(duel, 5, content,
                                                              engine="python").to_json()
    made = {}

    def elsewhere() -> None:
        made["driver"] = started_driver(duel, 5, content)

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert made["driver"].loop is not first.loop  # its own template
    assert started_driver(duel, 6, content).loop is first.loop
    battle = rules.Battle(duel, 6, content, engine="native")  # the constructor uses it
    assert battle._driver.loop is first.loop
    assert battle.to_json() == rules.Battle(duel, 6, content, engine="python").to_json()
    assert started_driver(duel, -1, content) is None
    rolled = SITUATIONS.replace('id = "tired"\n', 'id = "tired"\nroll_characteristics = true\n')
    path = tmp_path / "rolled.toml"
    path.write_text(rolled)
    assert started_driver(load_scenario(path, content), 5, content) is None
    rolled_scenario = load_scenario(path, content)
    path.write_text(SITUATIONS)  # another text in the same file: parsed again
    plain = load_scenario(path, content)
    assert plain is not rolled_scenario and not any(u.roll_characteristics for u in plain.units)
    assert started_driver(plain, 5, content) is not None
