"""Random scenarios for the fuzzer, and scenario TOML written from plain data.

A scenario is handled as its TOML data (``tomllib.loads`` of the file: ``name``,
``max_rounds``, ``map``, ``units`` ...); :func:`scenario_toml` writes such data back, so
the fuzzer and the shrinker can edit scenarios (drop a unit, crop the map) and play the
result through the public ``rules.Battle.from_toml``.

:func:`random_scenario` draws a small map that holds every glyph of ``rules.grid.LEGEND``
(walls, both door states, difficult and dark terrain, drops of every depth glyph; a
quarter of them are instead crowded rooms with a few of the glyphs, and a quarter
cavalry corridors: riders behind a file of their allies in a corridor with side
pockets, facing enemies there and at the far end, so mounted moves pass allies' squares
under Free Attacks, H13, H22; see :func:`corridor_scenario`) and two
or three teams of random creatures from the content with random equipment (ready within
two hands, the rest carried, sheathed or hidden), armour, spells, mounts with riders,
characteristic and skill overrides, and — where this version of the scenario format
accepts them (probed with ``rules.parse_scenario``) — current states such as
``current_hp``, ``prone``, ``bleeding``, ``fatigue``, ``power_points``, ``out_of_action``,
``start_round``, and nocked bows, loaded crossbows and lit torches.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

import numpy as np

import rules
from rules.grid import LEGEND

Data = dict[str, Any]
TEAMS = ("party", "monsters", "others")
#: share of generated scenarios that are crowded: a 3-6 x 3-5 room, 2-4 units a team
CROWDED_SHARE = 0.25
#: share that are cavalry corridors (:func:`corridor_scenario`)
CORRIDOR_SHARE = 0.25
_FLOOR_GLYPHS = ".'~:;"  # squares a unit may start on


# ---------------------------------------------------------------- TOML writing
def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # JSON string escapes are valid TOML basic-string escapes
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} {value!r} as TOML")


def _key(key: str) -> str:
    bare = key.replace("_", "").replace("-", "").isalnum() and key.isascii()
    return key if bare else json.dumps(key)


def scenario_toml(data: Data) -> str:
    """Scenario TOML text for scenario data (top-level keys, then ``[[units]]``)."""
    lines = []
    for key, value in data.items():
        if key == "units":
            continue
        if key == "map":
            text = value if value.endswith("\n") else value + "\n"
            lines.append(f'map = """\n{text.lstrip(chr(10))}"""')
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    for unit in data.get("units", []):
        lines += ["", "[[units]]"]
        lines += [f"{_key(k)} = {_value(v)}" for k, v in unit.items()]
    return "\n".join(lines) + "\n"


def scenario_data(text: str) -> Data:
    """Scenario TOML text -> its data (for editing)."""
    return tomllib.loads(text)


def map_rows(data: Data) -> list[str]:
    """The map's rows without the blank lines around them."""
    return [row for row in data["map"].split("\n") if row.strip()]


# ---------------------------------------------------------------- what the format accepts
_STATE_PROBES: dict[str, Any] = {
    "current_hp": 1, "prone": True, "bleeding": True, "fatigue": "fatigued",
    "power_points": 1, "out_of_action": False,
}
#: item-state flags and an item each applies to (a bow, a crossbow, a torch)
_ITEM_PROBES = {"nocked": "short_bow", "loaded": "light_crossbow", "lit": "torch"}
_PROBE_BASE = {"name": "probe", "max_rounds": 3, "map": "...\n", "units": [
    {"id": "a", "team": "party", "creature": "human_warrior", "at": [0, 0]},
    {"id": "b", "team": "monsters", "creature": "goblin", "at": [2, 0]}]}


def _accepted(content: rules.Content, data: Data) -> bool:
    try:
        rules.parse_scenario(scenario_toml(data), source="<probe>", content=content)
    except rules.ScenarioError:
        return False
    return True


_SUPPORTED: dict[int, tuple[rules.Content, frozenset[str]]] = {}


def supported_states(content: rules.Content) -> frozenset[str]:
    """The current-state keys the parser accepts: unit keys, ``start_round``, and item
    flags as ``item:nocked``, ``item:loaded``, ``item:lit``."""
    cached = _SUPPORTED.get(id(content))
    if cached is not None and cached[0] is content:
        return cached[1]
    found = set()
    for key, value in _STATE_PROBES.items():
        data = json.loads(json.dumps(_PROBE_BASE))
        data["units"][0][key] = value
        if _accepted(content, data):
            found.add(key)
    data = json.loads(json.dumps(_PROBE_BASE)) | {"start_round": 2}
    if _accepted(content, data):
        found.add("start_round")
    for flag, item in _ITEM_PROBES.items():
        data = json.loads(json.dumps(_PROBE_BASE))
        data["units"][0]["equipment"] = [{"item": item, "state": "ready", flag: True},
                                         {"item": "arrow", "count": 3}]
        if _accepted(content, data):
            found.add(f"item:{flag}")
    _SUPPORTED[id(content)] = (content, frozenset(found))
    return frozenset(found)


# ---------------------------------------------------------------- random scenarios
def random_map(rng: np.random.Generator, width: int, height: int,
               glyphs: int | None = None) -> list[str]:
    """A map holding every legend glyph once (or ``glyphs`` of them, drawn at random),
    the rest mostly floor with some walls."""
    cells = rng.choice(list(".#~:"), size=(height, width), p=[0.78, 0.12, 0.06, 0.04])
    rows = [list(r) for r in cells]
    chosen = [g for g in LEGEND if g != "."]
    if glyphs is not None:
        chosen = [str(g) for g in rng.choice(chosen, size=glyphs, replace=False)]
    spots = rng.permutation(width * height)[:len(chosen)]
    for glyph, spot in zip(chosen, spots, strict=False):
        rows[spot // width][spot % width] = glyph
    return ["".join(r) for r in rows]


def _floor_squares(rows: list[str]) -> list[tuple[int, int]]:
    return [(x, y) for y, row in enumerate(rows) for x, g in enumerate(row) if g in _FLOOR_GLYPHS]


def _item_flag(content: rules.Content, item: str) -> str | None:
    """The state flag an item can carry: nocked (bows, slings), loaded (crossbows), lit
    (torches)."""
    weapon = content.weapons.get(item)
    if weapon is not None:
        return {"nock": "nocked", "wind": "loaded"}.get(weapon.reload)
    if item in content.items and content.items[item].kind == "torch":
        return "lit"
    return None


def _equipment(rng: np.random.Generator, content: rules.Content) -> list[Any]:
    """Random gear: ready things within two hands, the rest in a pack or a sheath."""
    pool = ([w for w, d in content.weapons.items() if not d.natural]
            + [a for a, d in content.armour.items() if d.slot != "body"]
            + list(content.items))
    out: list[Any] = []
    hands = 0
    for item in rng.choice(pool, size=int(rng.integers(0, 5)), replace=False):
        item = str(item)
        need = (content.weapons[item].hands if item in content.weapons
                else content.armour[item].hands if item in content.armour
                else content.items[item].hands)
        entry: dict[str, Any] = {"item": item}
        if hands + need <= 2 and rng.random() < 0.6:
            entry["state"] = "ready"
            hands += need
        else:
            entry["state"] = str(rng.choice(["carried", "sheathed", "hidden"]))
        if item in content.items and content.items[item].kind == "ammo":
            entry["count"] = int(rng.integers(1, 8))
        flag = _item_flag(content, item)
        if flag is not None and f"item:{flag}" in supported_states(content) \
                and rng.random() < 0.5:
            entry[flag] = True
        out.append(entry)
    return out


def _unit(rng: np.random.Generator, content: rules.Content, uid: str, team: str,
          at: tuple[int, int], creature: str) -> Data:
    unit: Data = {"id": uid, "team": team, "creature": creature, "at": list(at)}
    if rng.random() < 0.35:
        unit["equipment"] = _equipment(rng, content)
    if rng.random() < 0.25:
        bodies = [a for a, d in content.armour.items() if d.slot == "body"]
        unit["armour"] = str(rng.choice([*bodies, "none"]))
        unit["armour_training"] = str(rng.choice(["none", "light", "moderate", "heavy"]))
    if rng.random() < 0.2 and content.spells:
        count = int(rng.integers(1, len(content.spells) + 1))
        unit["spells"] = [str(s) for s in rng.choice(list(content.spells), count,
                                                      replace=False)]
    if rng.random() < 0.15:
        names = content.ruleset.characteristics.names
        unit["characteristics"] = {str(n): int(rng.integers(3, 19))
                                   for n in rng.choice(names, 2, replace=False)}
    if rng.random() < 0.15:
        skills = list(content.ruleset.skills)
        unit["skills"] = {str(s): int(rng.integers(0, 100))
                          for s in rng.choice(skills, 2, replace=False)}
    if rng.random() < 0.1:
        unit["hp"] = int(rng.integers(1, 15))
    if rng.random() < 0.05:
        unit["roll_characteristics"] = True
    return unit


def random_scenario(rng: np.random.Generator, content: rules.Content,
                    name: str = "generated") -> Data:
    """Scenario data for a small random battle (see the module docstring); drawn again
    (up to 20 times) where the scenario validator rejects a combination."""
    for _ in range(20):
        data = _draw(rng, content, name)
        if _accepted(content, data):
            with_states = _add_states(rng, content, data)
            return with_states if with_states is not None else data
    raise rules.ScenarioError("<generated>", "units", "a combination the scenario "
                              "validator accepts", "20 rejected draws in a row")


def _draw(rng: np.random.Generator, content: rules.Content, name: str) -> Data:
    kind = rng.random()
    if CROWDED_SHARE <= kind < CROWDED_SHARE + CORRIDOR_SHARE:
        return corridor_scenario(rng, content, name)
    crowded = kind < CROWDED_SHARE
    for _ in range(50):
        teams = TEAMS[:3 if rng.random() < 0.15 else 2]
        if crowded:  # a small room packed with bodies: reactions, blocked dodges, falls
            width, height = int(rng.integers(3, 7)), int(rng.integers(3, 6))
            rows = random_map(rng, width, height, glyphs=int(rng.integers(1, 5)))
            sizes = [int(rng.integers(2, 5)) for _ in teams]
        else:
            width, height = int(rng.integers(5, 12)), int(rng.integers(4, 9))
            rows = random_map(rng, width, height)
            sizes = [int(rng.integers(1, 4)) for _ in teams]
        floor = _floor_squares(rows)
        if len(floor) >= sum(sizes) + 2:
            break
    else:  # pragma: no cover - 50 unlucky maps in a row
        raise RuntimeError("could not draw a map with room for the units")
    squares = [floor[i] for i in rng.permutation(len(floor))[:sum(sizes)]]
    creatures = sorted(content.creatures)
    mounts = [c for c in creatures if content.creatures[c].mount]
    riders = [c for c in creatures if not content.creatures[c].mount]
    units: list[Data] = []
    free = iter(squares)
    for team, size in zip(teams, sizes, strict=True):
        for _ in range(size):
            at = next(free)
            uid = f"{team}_{len(units)}"
            if mounts and rng.random() < 0.15:  # a rider on its mount (H22)
                units.append(_unit(rng, content, f"{uid}_mount", team, at,
                                   str(rng.choice(mounts))))
                rider = _unit(rng, content, uid, team, at, str(rng.choice(riders)))
                rider["riding"] = f"{uid}_mount"
                units.append(rider)
            else:
                units.append(_unit(rng, content, uid, team, at, str(rng.choice(creatures))))
    kind = "a crowded room" if crowded else "every map glyph"
    data: Data = {"name": name, "description": f"randomly generated ({kind})",
                  "max_rounds": int(rng.integers(4, 16)), "map": "\n".join(rows) + "\n",
                  "units": units}
    return data


def corridor_scenario(rng: np.random.Generator, content: rules.Content,
                      name: str = "generated") -> Data:
    """A cavalry corridor: a corridor 1-2 squares wide and 8-13 long with side pockets
    (floor above and below it at random); at its near end 1-2 riders on their mounts
    (H22), in front of them a file of 1-3 allies on foot in the corridor, enemies in
    the pockets beside the allies (so they threaten the squares a rider passes, H13) and
    at the far end; sometimes a rider on the other side too. A move that is cut short
    there (a throw from the saddle, a rider or mount out of action) stops on an ally's
    square."""
    creatures = sorted(content.creatures)
    mounts = [c for c in creatures if content.creatures[c].mount]
    walkers = [c for c in creatures if not content.creatures[c].mount]
    width, lanes = int(rng.integers(10, 16)), int(rng.integers(1, 3))
    height = lanes + 4
    rows = [["#"] * width for _ in range(height)]
    for y in range(2, 2 + lanes):  # the corridor
        for x in range(1, width - 1):
            rows[y][x] = "."
    pockets = []
    for y in (1, height - 2):  # side pockets above and below it
        for x in range(2, width - 2):
            if rng.random() < 0.35:
                rows[y][x] = str(rng.choice(list("..~:")))
                pockets.append((x, y))
    units: list[Data] = []
    mine = [(x, 2 + int(rng.integers(0, lanes))) for x in (1, 2)]
    for index in range(int(rng.integers(1, 3)) if mounts else 0):
        at, uid = mine[index], f"party_{len(units)}"
        units.append(_unit(rng, content, f"{uid}_mount", "party", at, str(rng.choice(mounts))))
        rider = _unit(rng, content, uid, "party", at, str(rng.choice(walkers)))
        rider["riding"] = f"{uid}_mount"
        units.append(rider)
    start = 2 + len(mine)
    file_ = [(x, 2 + int(rng.integers(0, lanes)))
             for x in range(start, start + int(rng.integers(1, 4)))]
    for at in file_:
        units.append(_unit(rng, content, f"party_{len(units)}", "party", at,
                           str(rng.choice(walkers))))
    x, y = file_[0]
    near = (x, 1 if y == 2 else height - 2)  # one pocket at least beside an ally
    if near not in pockets:
        rows[near[1]][near[0]] = "."
        pockets.append(near)
    beside = [sq for sq in pockets
              if any(max(abs(sq[0] - x), abs(sq[1] - y)) == 1 for x, y in file_)]
    taken = {tuple(u["at"]) for u in units}
    picks = rng.permutation(len(beside))[:int(rng.integers(1, 3))]
    spots = [beside[int(i)] for i in picks] + [(width - 2, 2 + int(rng.integers(0, lanes)))]
    for at in spots:
        if at in taken:
            continue
        taken.add(at)
        uid = f"monsters_{len(units)}"
        if mounts and at[0] == width - 2 and rng.random() < 0.3:
            units.append(_unit(rng, content, f"{uid}_mount", "monsters", at,
                               str(rng.choice(mounts))))
            rider = _unit(rng, content, uid, "monsters", at, str(rng.choice(walkers)))
            rider["riding"] = f"{uid}_mount"
            units.append(rider)
        else:
            units.append(_unit(rng, content, uid, "monsters", at, str(rng.choice(walkers))))
    return {"name": name, "description": "randomly generated (a cavalry corridor)",
            "max_rounds": int(rng.integers(3, 8)),
            "map": "\n".join("".join(row) for row in rows) + "\n", "units": units}


def _add_states(rng: np.random.Generator, content: rules.Content, data: Data) -> Data | None:
    """The data with random current states the format supports (None if none apply).

    States are added one unit at a time and kept only where the parser accepts them, so
    a combination this version rejects (say, out of action at full HP) is simply skipped.
    """
    states = supported_states(content)
    if not states:
        return None
    battle = rules.Battle(rules.parse_scenario(scenario_toml(data), source="<generated>",
                                               content=content), 0, content)
    out = json.loads(json.dumps(data))
    for index, unit in enumerate(out["units"]):
        if rng.random() > 0.3:
            continue
        c = battle.combatants[unit["id"]]
        change: Data = {}
        if "current_hp" in states:
            change["current_hp"] = int(rng.integers(1, c.max_hp + 1))
        if "out_of_action" in states and rng.random() < 0.15:
            change |= {"out_of_action": True, "prone": True}
            if "current_hp" in states:
                change["current_hp"] = int(rng.integers(-2, 1))
        if "prone" in states and rng.random() < 0.3 and "riding" not in unit:
            change["prone"] = True
        for key, value in (("bleeding", True), ("fatigue", str(rng.choice(
                ["fresh", "fatigued", "exhausted"]))), ("power_points", int(
                rng.integers(0, c.max_power_points + 1)))):
            if key in states and rng.random() < 0.3:
                change[key] = value
        candidate = json.loads(json.dumps(out))
        candidate["units"][index] |= change
        if _accepted(content, candidate):
            out = candidate
    if "start_round" in states and rng.random() < 0.3:
        candidate = out | {"start_round": int(rng.integers(1, out["max_rounds"] + 1))}
        if _accepted(content, candidate):
            out = candidate
    return out
