"""The bounds on input from outside (issue 46 item 5, rules/limits.py): each is checked
with one line naming the file, the field, what was expected and what was found; each is
far above every shipped use; and a battle at the bounds plays event for event alike on
both engines (no 32-bit overflow in the native one)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import agents
import rules
from rules import limits
from rules.content.loader import DATA_DIR, load_content
from rules.dice import Dice
from rules.events import event_to_dict
from rules.scenario import scenario_dir
from tests.hostile.crafted import content_folder, deep_json, replay_data, write_json

DUEL = (scenario_dir() / "duel.toml").read_text(encoding="utf-8")
NATIVE = rules.engine.missing_native("BattleState", "the native engine")


def _numbers(value: object) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [abs(value)]
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    return []


def test_the_shipped_files_use_a_small_part_of_each_bound() -> None:
    """Large enough for every real use: the shipped content and scenarios stay under a
    quarter of each bound (dice, numbers, rounds, map sides, units)."""
    numbers, dice = [], []
    for path in [*DATA_DIR.glob("*.toml"), *scenario_dir().glob("*.toml")]:
        text = path.read_text(encoding="utf-8")
        numbers += _numbers(tomllib.loads(text))
        dice += [Dice.parse(m.group(0)) for m in re.finditer(r"\b\d*d\d+(?:[+-]\d+)?\b", text)]
    assert dice and numbers
    assert max(numbers) <= limits.MAX_STAT / 4
    assert max(count for d in dice for _, count, _ in d.terms) <= limits.MAX_DICE_COUNT / 4
    assert max(sides for d in dice for _, _, sides in d.terms) <= limits.MAX_DICE_SIDES / 4
    assert max(d.maximum for d in dice) <= limits.MAX_DICE_OUTCOMES / 4
    for name in rules.shipped_scenarios():
        scenario = rules.load_scenario(name, load_content())
        assert scenario.max_rounds <= limits.MAX_ROUNDS / 4
        assert max(scenario.grid.width, scenario.grid.height) <= limits.MAX_MAP_SIDE / 4
        assert len(scenario.units) <= limits.MAX_UNITS / 4


@pytest.mark.parametrize(("text", "ok"), [
    ("1d100", True), ("3d6+2", True), (f"{limits.MAX_DICE_COUNT}d5", True),
    (f"1d{limits.MAX_DICE_SIDES}", True), (f"1d6+{limits.MAX_DICE_CONSTANT}", True),
    ("100000000d6", False), (f"{limits.MAX_DICE_COUNT + 1}d2", False),
    (f"1d{limits.MAX_DICE_SIDES + 1}", False), ("2d250+1d1", False),
    (f"{limits.MAX_DICE_COUNT}d6", False),
    (f"1d6-{limits.MAX_DICE_CONSTANT + 1}", False), (f"1d{2**64}", False),
])
def test_dice_are_bounded(text: str, ok: bool) -> None:
    if ok:
        assert Dice.parse(text).maximum <= limits.MAX_DICE_OUTCOMES + limits.MAX_DICE_CONSTANT
    else:
        with pytest.raises(ValueError, match="at most 100 dice"):
            Dice.parse(text)


@pytest.mark.parametrize(("file", "pattern", "replacement", "message"), ids=[
    "damage", "ap 2**32", "ap -2**31", "weight", "str", "sword", "torch_radius"], argvalues=[
    ("weapons.toml", r'^damage = "1d4\+2"$', 'damage = "100000000d6"',
     "weapons.toml: dagger.damage: expected dice like '1d8+1' with at most 100 dice"),
    ("weapons.toml", r"^ap = 6$", f"ap = {2**32}",
     f"weapons.toml: dagger.ap: expected an integer from -10000 to 10000, got {2**32}"),
    ("weapons.toml", r"^ap = 6$", f"ap = {-2**31}",
     f"weapons.toml: dagger.ap: expected an integer from -10000 to 10000, got {-2**31}"),
    ("weapons.toml", r"^weight = 0.05$", "weight = 1e300",
     "weapons.toml: dagger.weight: expected a number from -10000 to 10000, got 1e+300"),
    ("creatures.toml", r"(characteristics = \{ *str = )\d+", rf"\g<1>{2**31 - 1}",
     "creatures.toml: human_warrior.characteristics.str: expected an integer from -10000"),
    ("creatures.toml", r"(skills = \{ *sword = )\d+", rf"\g<1>{2**31}",
     "creatures.toml: human_warrior.skills.sword: expected an integer from -10000"),
    ("ruleset.toml", r"^torch_radius = 4", "torch_radius = 99999999999999999999",
     "ruleset.toml: misc.torch_radius: expected an integer from -10000 to 10000"),
])
def test_content_numbers_are_bounded(tmp_path: Path, file: str, pattern: str,
                                     replacement: str, message: str) -> None:
    folder = content_folder(tmp_path, file, pattern, replacement)
    with pytest.raises(rules.ContentError) as raised:
        load_content(folder)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def _units(count: int) -> str:
    return "".join(f'\n[[units]]\nid = "u{i}"\nteam = "{"ab"[i % 2]}"\ncreature = "orc"\n'
                   f"at = [{1 + i % 40}, {1 + i // 40}]\n" for i in range(count))


def _map(width: int, height: int) -> str:
    return "\n".join(["#" * width] + ["#" + "." * (width - 2) + "#"] * (height - 2)
                     + ["#" * width])


SCENARIO_CASES = [
    (DUEL.replace("max_rounds = 30", "max_rounds = 1000000"),
     "x.toml: max_rounds: expected an integer from 1 to 10000, got 1000000"),
    (DUEL.replace("max_rounds = 30", f"max_rounds = {2**63 - 1}"),
     f"x.toml: max_rounds: expected an integer from 1 to 10000, got {2**63 - 1}"),
    (DUEL.replace('creature = "orc"', 'creature = "orc"\ncharacteristics = { str = 1001 }'),
     "x.toml: units[1] (orc_1).characteristics.str: expected an integer from 1 to 1000, "
     "got 1001"),
    (DUEL.replace('creature = "orc"', f'creature = "orc"\nskills = {{ dodge = {2**31 - 1} }}'),
     "x.toml: units[1] (orc_1).skills.dodge: expected an integer from -10000 to 10000"),
    (DUEL.replace('creature = "orc"', 'creature = "orc"\nequipment = [{ item = "torch", '
                  f"count = {2**31} }}]"),
     "x.toml: units[1] (orc_1).equipment[0].count: expected an integer from 1 to 10000"),
    (f'name = "big"\nmax_rounds = 5\nmap = """\n{_map(4097, 3)}\n"""\n{_units(2)}',
     "x.toml: map: expected at most 4096 rows and columns and 4000000 squares, got <4097x3>"),
    (f'name = "many"\nmax_rounds = 5\nmap = """\n{_map(42, 30)}\n"""\n{_units(1025)}',
     "x.toml: units: expected at most 1024 units, got <1025 units>"),
]


@pytest.mark.parametrize(("text", "message"), SCENARIO_CASES,
                         ids=[message.split(": ")[1] for _, message in SCENARIO_CASES])
def test_scenario_numbers_are_bounded(text: str, message: str) -> None:
    with pytest.raises(rules.ScenarioError) as raised:
        rules.Battle.from_toml(text, seed=1, source="x.toml")
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_a_scenario_at_the_bounds_loads() -> None:
    """The bounds themselves are allowed: max_rounds 10,000, 1,024 units."""
    text = DUEL.replace("max_rounds = 30", f"max_rounds = {limits.MAX_ROUNDS}")
    assert rules.Battle.from_toml(text, seed=1).scenario.max_rounds == limits.MAX_ROUNDS
    crowd = f'name = "many"\nmax_rounds = 5\nmap = """\n{_map(42, 30)}\n"""\n{_units(1024)}'
    assert len(rules.Battle.from_toml(crowd, seed=1).combatants) == limits.MAX_UNITS


EXTREME = DUEL.replace(
    'creature = "human_warrior"',
    'creature = "human_warrior"\ncharacteristics = { str = 1000, con = 1000, siz = 1000, '
    "int = 1000, pow = 1000, dex = 1000, cha = 1000 }\nskills = { sword = 10000, "
    "shield = 10000, dodge = 10000, brawl = 10000, grapple = 10000 }").replace(
    'creature = "orc"', 'creature = "orc"\ncharacteristics = { str = 1000, siz = 1, '
    "dex = 1, con = 1000 }\nskills = { dodge = 10000 }")


@pytest.mark.skipif(NATIVE is not None, reason=str(NATIVE))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_characteristics_and_skills_at_the_bound_play_alike_on_both_engines(seed: int) -> None:
    """STR 2**31-1 overflowed the native engine's arithmetic (issue 46 item 4): at the
    bounds, every characteristic 1,000 and skill 10,000, both engines give the same
    events."""
    battles = [rules.Battle.from_toml(EXTREME, seed=seed, engine=engine)
               for engine in ("python", "native")]
    agent = agents.make("random", seed=seed)
    for _ in range(300):
        if battles[0].is_over:
            break
        action = agent.act(battles[0])
        for battle in battles:
            battle.apply(action)
    events = [[event_to_dict(e) for e in battle.events] for battle in battles]
    assert len(events[0]) > 10 and events[0] == events[1]


def test_search_iterations_and_vector_envs_are_bounded() -> None:
    with pytest.raises(ValueError, match="iterations expects an integer from 1 to 1000000, "
                       "got 1000000000000"):
        agents.make("mcts(iterations=1000000000000)")
    with pytest.raises(ValueError, match="seconds expects a number > 0 and <= 3600"):
        agents.make("mcts(seconds=1e12)")
    if NATIVE is not None:
        return
    import gymnasium

    import env  # noqa: F401  (registers the ids)

    for count in (10**6, 0, 2.5, True, "8"):
        with pytest.raises(ValueError, match=r"num_envs: expected an integer from 1 to 4096"):
            gymnasium.make_vec("fray/Duel-v0", num_envs=count)


def test_nesting_is_bounded(tmp_path: Path) -> None:
    deep = "mcts(rollout=" * 65 + "random" + ")" * 65
    with pytest.raises(ValueError, match="nested at most 64 deep, got 65"):
        agents.make(deep)
    from experiments.replay import Replay, ReplayError

    nested = tmp_path / "nested.json"
    nested.write_text(deep_json(65), encoding="utf-8")
    with pytest.raises(ReplayError, match=r"nested at most 64 deep, got deeper$"):
        Replay.load(nested)
    data = replay_data()
    data["result"]["note"] = [[[[[[[[[[[]]]]]]]]]]]  # 12 deep in all: well within
    assert Replay.load(write_json(tmp_path / "fine.json", data)).seed == 3
    folder = content_folder(tmp_path)
    with (folder / "items.toml").open("a", encoding="utf-8") as out:
        out.write("\n[deep]\nname = " + "[" * 70 + "]" * 70 + "\n")
    with pytest.raises(rules.ContentError, match=r"items\.toml: toml: expected valid TOML with "
                       r"arrays and tables nested at most 64 deep, got <nested deeper>"):
        load_content(folder)
