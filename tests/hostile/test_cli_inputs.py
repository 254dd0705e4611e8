"""The command line meets crafted files and numbers (issue 46 item 6, issue 50 items 4
and 7): each ends in one line ``fray: error: ...`` on stderr and exit 2, never a
traceback. Every case below ended in a traceback (or an unclear message) before the
loaders raised fray's typed errors for it."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from agents.learned import MODELS_DIR
from experiments.cli import main
from tests.hostile.crafted import (
    content_folder,
    deep_json,
    replay_data,
    scenario_file,
    write_json,
)

Case = Callable[[Path], list[str]]
BIG = 2**31


# ---------------------------------------------------------------- replays
def _replay(edit: Callable[[dict], object]) -> Case:
    def case(tmp_path: Path) -> list[str]:
        data = replay_data()
        edit(data)
        return ["replay", str(write_json(tmp_path / "replay.json", data))]
    return case


def _set(key: str, value: object) -> Callable[[dict], object]:
    return lambda data: data.__setitem__(key, value)


def _scenario_text(pattern: str, replacement: str) -> Callable[[dict], object]:
    def edit(data: dict) -> None:
        data["scenario"]["text"] = data["scenario"]["text"].replace(pattern, replacement)
    return edit


def _deep_replay(tmp_path: Path) -> list[str]:
    path = tmp_path / "deep.json"
    path.write_text(deep_json(100_000), encoding="utf-8")
    return ["replay", str(path)]


def _folder_replay(tmp_path: Path) -> list[str]:
    return ["replay", str(tmp_path)]


REPLAYS: dict[str, tuple[Case, str]] = {
    "seed 'x'": (_replay(_set("seed", "x")), "seed"),
    "seed 1.5": (_replay(_set("seed", 1.5)), "seed"),
    "seed true": (_replay(_set("seed", True)), "seed"),
    "seed -1": (_replay(_set("seed", -1)), "seed"),
    "seed 2**64": (_replay(_set("seed", 2**64)), "seed"),
    "content_dir 123": (_replay(_set("content_dir", 123)), "content_dir"),
    "content_dir a list": (_replay(_set("content_dir", ["a"])), "content_dir"),
    "events garbage": (_replay(_set("events", ["garbage", 5])), "events"),
    "events a number": (_replay(_set("events", 5)), "events"),
    "events unknown kind": (_replay(_set("events", [{"kind": "martians"}])), "events"),
    "scenario max_rounds >= 2**31": (_replay(_scenario_text("max_rounds = 30",
                                                            f"max_rounds = {BIG}")),
                                     "max_rounds"),
    "scenario a number": (_replay(_set("scenario", 5)), "scenario"),
    "scenario text a number": (_replay(lambda d: d["scenario"].__setitem__("text", 5)),
                               "scenario"),
    "JSON nested 100k deep": (_deep_replay, "nested"),
    "a folder as the file": (_folder_replay, "found a folder"),
    "agents 5": (_replay(_set("agents", 5)), "agents"),
    "agents a list": (_replay(_set("agents", ["random"])), "agents"),
    "actions 'abc'": (_replay(_set("actions", "abc")), "actions"),
    "actions 5": (_replay(_set("actions", 5)), "actions"),
    "reasons 'abc'": (_replay(_set("reasons", "abc")), "reasons"),
    "result a list": (_replay(_set("result", [1])), "result"),
}


# ---------------------------------------------------------------- content folders
def _content(command: str, file: str | None, pattern: str, replacement: str) -> Case:
    def case(tmp_path: Path) -> list[str]:
        folder = content_folder(tmp_path, file, pattern, replacement)
        return _with_content(command, folder, tmp_path)
    return case


def _with_content(command: str, folder: Path, tmp_path: Path) -> list[str]:
    if command == "fuzz":
        return ["fuzz", "--seconds", "1", "--content-dir", str(folder),
                "--out", str(tmp_path / "fuzz-out")]
    if command == "odds":
        return ["odds", "duel", "orc_1", "hero", "--content-dir", str(folder)]
    return [command, "duel", "--content-dir", str(folder)]


def _deep_toml(command: str) -> Case:
    def case(tmp_path: Path) -> list[str]:
        folder = content_folder(tmp_path)
        with (folder / "items.toml").open("a", encoding="utf-8") as out:
            out.write("\n[deep]\nname = " + "[" * 100_000 + "]" * 100_000 + "\n")
        return _with_content(command, folder, tmp_path)
    return case


def _weapons_folder(command: str) -> Case:
    def case(tmp_path: Path) -> list[str]:
        folder = content_folder(tmp_path)
        (folder / "weapons.toml").unlink()
        (folder / "weapons.toml").mkdir()
        return _with_content(command, folder, tmp_path)
    return case


CONTENT: dict[str, tuple[Case, str]] = {}
for _command in ("watch", "inspect", "fuzz", "odds"):
    CONTENT |= {
        f"{_command} ap = 2**32": (_content(_command, "weapons.toml", r"^ap = 6$",
                                            f"ap = {2**32}"), "ap"),
        f"{_command} deep TOML": (_deep_toml(_command), "nested"),
        f"{_command} a folder named weapons.toml": (_weapons_folder(_command),
                                                    "weapons.toml"),
    }
CONTENT |= {
    "damage 100000000d6": (_content("odds", "weapons.toml", r'^damage = "1d4\+2"$',
                                    'damage = "100000000d6"'), "damage"),
    "dice of 2**40 sides": (_content("watch", "weapons.toml", r'^damage = "1d4\+2"$',
                                     f'damage = "1d{2**40}"'), "damage"),
    "creature characteristic 2**31": (_content("watch", "creatures.toml",
                                               r"(characteristics = \{ *str = )\d+",
                                               rf"\g<1>{BIG}"), "str"),
    "weight 1e300": (_content("watch", "weapons.toml", r"^weight = 0.05$",
                              "weight = 1e300"), "weight"),
    "torch_radius 2**63": (_content("watch", "ruleset.toml", r"^torch_radius = 4",
                                    f"torch_radius = {2**63}"), "torch_radius"),
}


# ---------------------------------------------------------------- scenario files
def _watch(pattern: str, replacement: str) -> Case:
    def case(tmp_path: Path) -> list[str]:
        return ["watch", str(scenario_file(tmp_path, pattern, replacement))]
    return case


SCENARIOS: dict[str, tuple[Case, str]] = {
    "max_rounds 2**63-1": (_watch("max_rounds = 30", f"max_rounds = {2**63 - 1}"),
                           "max_rounds"),
    "max_rounds 10**6": (_watch("max_rounds = 30", "max_rounds = 1000000"), "max_rounds"),
    "characteristic 2**31": (_watch(r'creature = "orc"',
                                    f'creature = "orc"\ncharacteristics = {{ str = {BIG} }}'),
                             "characteristics.str"),
    "skill 2**31": (_watch(r'creature = "orc"', f'creature = "orc"\nskills = {{ dodge = {BIG} }}'),
                    "skills.dodge"),
    "hp 2**31": (_watch(r'creature = "orc"', f'creature = "orc"\nhp = {BIG}'), "hp"),
    "equipment count 2**31": (
        _watch(r'creature = "orc"',
               f'creature = "orc"\nequipment = [{{ item = "torch", count = {BIG} }}]'),
        "count"),
    "race a table": (_watch(r'creature = "orc"', 'creature = "orc"\nrace = {}'), "race"),
    "armour a table": (_watch(r'creature = "orc"', 'creature = "orc"\narmour = {}'), "armour"),
    "spells of tables": (_watch(r'creature = "orc"', 'creature = "orc"\nspells = [{}]'),
                         "spells"),
    "equipment item a table": (_watch(r'creature = "orc"',
                                      'creature = "orc"\nequipment = [{ item = {} }]'), "item"),
    "start_round 2**63": (_watch("max_rounds = 30", f"max_rounds = 30\nstart_round = {2**63}"),
                          "start_round"),
}


# ---------------------------------------------------------------- other commands
def _sweep(tmp_path: Path) -> list[str]:
    return ["sweep", "--set", "misc.torch_radius=99999999999999999999", "--agents",
            "random,berserker", "--scenario", "duel", "--battles", "1",
            "--out", str(tmp_path / "sweep")]


def _fuzz_seconds(value: str) -> Case:
    return lambda tmp_path: ["fuzz", "--seconds", value, "--out", str(tmp_path / "f")]


def _model(edit: Callable[[dict, Path], None]) -> Case:
    """``watch duel`` with the monsters played by a copy of the shipped duel model,
    edited (its weights' hash follows any change to them)."""
    def case(tmp_path: Path) -> list[str]:
        path = tmp_path / "crafted.json"
        shutil.copy(MODELS_DIR / "duel.pt", path.with_suffix(".pt"))
        data = json.loads((MODELS_DIR / "duel.json").read_text())
        edit(data, path.with_suffix(".pt"))
        data["weights_sha256"] = hashlib.sha256(path.with_suffix(".pt").read_bytes()).hexdigest()
        text = json.dumps(data).replace('"@deep@"', deep_json(100_000))
        path.write_text(text, encoding="utf-8")
        return ["watch", "duel", "--party", "random", "--monsters", f"learned:{path}"]
    return case


def _nested_model(data: dict, weights: Path) -> None:
    data["trained"] = "@deep@"  # replaced by 100,000 nested arrays


def _huge_box(data: dict, weights: Path) -> None:
    data["observation_space"]["dict"]["planes"]["box"] = [10**6, 10**6, 10**6]


def _huge_net(data: dict, weights: Path) -> None:
    data["policy"]["net_arch"] = [10**9]


def _safetensors(data: dict, weights: Path) -> None:
    header = json.dumps({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
    weights.write_bytes(struct.pack("<Q", len(header)) + header + b"\0\0\0\0")


def _layout_numbers(data: dict, weights: Path) -> None:
    data["layout"]["planes"][0] = 5


def _overflowing_bounds(data: dict, weights: Path) -> None:
    data["observation_space"]["dict"]["planes"]["high"] = 1e300  # past float32


OTHERS: dict[str, tuple[Case, str]] = {
    "model layout names not text": (_model(_layout_numbers), "layout.planes"),
    "model box bounds past float32": (_model(_overflowing_bounds), "observation_space"),
    "sweep --set torch_radius=10**20": (_sweep, "torch_radius"),
    "fuzz --seconds nan": (_fuzz_seconds("nan"), "--seconds"),
    "fuzz --seconds inf": (_fuzz_seconds("inf"), "--seconds"),
    "model JSON nested 100k deep": (_model(_nested_model), "nested"),
    "model with a huge box space": (_model(_huge_box), "observation_space"),
    "model with a huge network": (_model(_huge_net), "net_arch"),
    "safetensors bytes named NAME.pt": (_model(_safetensors), "safetensors"),
}

CASES = {**REPLAYS, **CONTENT, **SCENARIOS, **OTHERS}


@pytest.mark.parametrize("name", list(CASES))
def test_a_crafted_input_is_one_line_and_exit_2(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case, named = CASES[name]
    argv = case(tmp_path)
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fray: error: "), err[-2000:]
    assert named in lines[0], lines[0]


def test_env_step_refuses_a_bool() -> None:
    """``env.step(True)`` is not action 1: a bool is not an action index (issue 50 item 7)."""
    import numpy as np

    from agents.environments import skirmish_env

    env = skirmish_env(scenario="duel")
    env.reset(seed=1)
    for action in (True, False, np.bool_(True), np.array([True])):
        with pytest.raises(ValueError, match="not in the action space"):
            env.step(action)
    env.close()
