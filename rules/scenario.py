"""Scenario files (DESIGN.md "Scenario files"): parse and validate, naming file and field.

Shipped scenarios are rules data: ``rules/data/scenarios`` (nothing in rules looks for
experiments/).

A unit may set its current state (``current_hp``, ``prone``, ``bleeding``, ``fatigue``,
``power_points``, ``out_of_action``; items ``nocked``/``loaded``/``lit``) and a scenario
its ``start_round``. All of it is checked on parsing, whatever the seed: a unit with
``roll_characteristics = true`` (H1) may bound its state only by values the dice do not
decide (``hp`` for ``current_hp``; ``characteristics.pow`` or the stat block's power
points for ``power_points``; ``characteristics.con`` for an HP below 0).
:func:`apply_state` then sets it on the built combatant. The battle starts as round
``start_round`` begins, with the units as written; that round's start effects (H7
bleeding, the S21 fatigue check on rounds 51, 101, ...) then apply as in any round.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules.combatant import FATIGUE_NAMES, Combatant, hit_points_for, power_points_for
from rules.content.loader import check_equipment, decode_text, parse_toml
from rules.content.schema import Content, EquipmentEntry
from rules.errors import ScenarioError
from rules.grid import GridMap, parse_map
from rules.limits import MAX_CHARACTERISTIC, MAX_ROUNDS, MAX_STAT, MAX_UNITS, within

Square = tuple[int, int]

_TOP_KEYS = {"name", "description", "max_rounds", "start_round", "map", "units"}
_STATE_KEYS = {"current_hp", "prone", "bleeding", "fatigue", "power_points", "out_of_action"}
_UNIT_KEYS = {"id", "team", "creature", "at", "characteristics", "race", "skills",
              "equipment", "armour", "armour_training", "hp", "riding", "spells",
              "roll_characteristics"} | _STATE_KEYS
_STATES = ("ready", "carried", "sheathed", "hidden")
_ENTRY_KEYS = ("item", "state", "count", "nocked", "loaded", "lit")
_TRAINING = ("none", "light", "moderate", "heavy")


@dataclass(frozen=True)
class UnitSpec:
    id: str
    team: str
    creature: str
    at: Square
    characteristics: tuple[tuple[str, int], ...] = ()
    race: str | None = None
    skills: tuple[tuple[str, int], ...] = ()
    equipment: tuple[EquipmentEntry, ...] | None = None
    armour: str | None = None  # "none" removes the stat block's armour
    armour_training: str | None = None
    hp: int | None = None
    riding: str | None = None
    spells: tuple[str, ...] | None = None
    roll_characteristics: bool = False  # H1: roll 3d6 (SIZ 2d6+6) with the battle's dice
    # current state (a situation to study); None = the stat block's full value
    current_hp: int | None = None
    prone: bool = False
    bleeding: bool = False
    fatigue: str = "fresh"
    power_points: int | None = None
    out_of_action: bool = False


@dataclass(frozen=True)
class Scenario:
    name: str
    max_rounds: int
    grid: GridMap
    units: tuple[UnitSpec, ...]
    source: str
    text: str
    description: str = ""
    start_round: int = 1

    @property
    def teams(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for u in self.units:
            seen.setdefault(u.team, None)
        return tuple(seen)


#: The folder of shipped scenarios: rules data, beside the content (issue 47).
SCENARIO_DIR = Path(__file__).resolve().parent / "data" / "scenarios"


def scenario_dir() -> Path:
    """The folder of shipped scenarios (``rules/data/scenarios``)."""
    return SCENARIO_DIR


def shipped_scenarios() -> list[str]:
    """Names of the shipped scenarios, sorted."""
    return sorted(p.stem for p in scenario_dir().glob("*.toml"))


def resolve_scenario(name_or_path: str | Path) -> Path:
    """A shipped scenario name or a path to a TOML file -> the file's path."""
    _need(isinstance(name_or_path, str | Path), str(name_or_path), "name",
          "a shipped scenario name or a path to a .toml file", f"<{type(name_or_path).__name__}>")
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        if not path.is_file():
            raise ScenarioError(str(path), "file", "an existing scenario file", str(path))
        return path
    candidate = scenario_dir() / f"{name_or_path}.toml"
    if not candidate.is_file():
        raise ScenarioError(
            str(name_or_path), "name", f"a shipped scenario ({', '.join(shipped_scenarios())})"
            " or a path to a .toml file", str(name_or_path)
        )
    return candidate


def _need(cond: bool, src: str, fld: str, expected: str, found: Any) -> None:
    if not cond:
        raise ScenarioError(src, fld, expected, found)


def _int(data: dict[str, Any], key: str, src: str, fld: str, maximum: int = MAX_STAT,
         minimum: int | None = None) -> int:
    """An integer field from ``minimum`` (default ``-maximum``) to ``maximum``
    (rules/limits.py: 32-bit safe in the engine)."""
    v = data[key]
    low = -maximum if minimum is None else minimum
    _need(isinstance(v, int) and not isinstance(v, bool), src, fld, "an integer", v)
    _need(within(v, maximum, low), src, fld, f"an integer from {low} to {maximum}", v)
    return v


def _str(data: dict[str, Any], key: str, src: str, fld: str) -> str:
    v = data[key]
    _need(isinstance(v, str) and v != "", src, fld, "a non-empty string", v)
    return v


def _bool(data: dict[str, Any], key: str, src: str, fld: str) -> bool:
    v = data[key]
    _need(isinstance(v, bool), src, fld, "true or false", v)
    return v


def _int_table(value: Any, src: str, fld: str) -> tuple[tuple[str, int], ...]:
    _need(isinstance(value, dict), src, fld, "a table of name = integer", value)
    for k, x in value.items():
        _need(isinstance(x, int) and not isinstance(x, bool), src, f"{fld}.{k}", "an integer", x)
        _need(within(x, MAX_STAT), src, f"{fld}.{k}",
              f"an integer from {-MAX_STAT} to {MAX_STAT}", x)
    return tuple(value.items())


def _equipment(value: Any, src: str, fld: str, content: Content) -> tuple[EquipmentEntry, ...]:
    _need(isinstance(value, list), src, fld, "an array of item ids or {item, state, count}", value)
    out = []
    for i, e in enumerate(value):
        f = f"{fld}[{i}]"
        if isinstance(e, str):
            e = {"item": e}
        _need(isinstance(e, dict), src, f, "an item id or a table {item, state, count}", e)
        extra = set(e).difference(_ENTRY_KEYS)
        _need(not extra, src, f, f"keys {', '.join(_ENTRY_KEYS)}", ", ".join(sorted(extra)))
        _need("item" in e, src, f"{f}.item", "an item id", "<missing>")
        _need(isinstance(e["item"], str) and content.kind_of(e["item"]) is not None, src,
              f"{f}.item", "a weapon, armour or item id from rules/data", e["item"])
        state = e.get("state", "carried")
        _need(state in _STATES, src, f"{f}.state", f"one of {', '.join(_STATES)}", state)
        count = e.get("count", 1)
        _need(within(count, MAX_STAT, 1), src, f"{f}.count",
              f"an integer from 1 to {MAX_STAT}", count)
        flags = {}
        for flag in ("nocked", "loaded", "lit"):
            if flag in e:
                flags[flag] = _bool(e, flag, src, f"{f}.{flag}")
        out.append(EquipmentEntry(e["item"], state, count, **flags))
    check_equipment(content, out, src, fld, ScenarioError)
    return tuple(out)


def _unit(raw: Any, index: int, src: str, content: Content, grid: GridMap) -> UnitSpec:
    fld = f"units[{index}]"
    _need(isinstance(raw, dict), src, fld, "a table", raw)
    unknown = set(raw) - _UNIT_KEYS
    _need(not unknown, src, f"{fld}.{min(unknown) if unknown else ''}",
          f"one of the unit keys {', '.join(sorted(_UNIT_KEYS))}", min(unknown or {""}))
    for key in ("id", "team", "creature", "at"):
        _need(key in raw, src, f"{fld}.{key}", "a value", "<missing>")
    uid = _str(raw, "id", src, f"{fld}.id")
    fld = f"units[{index}] ({uid})"
    team = _str(raw, "team", src, f"{fld}.team")
    creature = _str(raw, "creature", src, f"{fld}.creature")
    _need(creature in content.creatures, src, f"{fld}.creature",
          f"a creature from creatures.toml ({', '.join(sorted(content.creatures))})", creature)
    at = raw["at"]
    _need(isinstance(at, list) and len(at) == 2
          and all(isinstance(a, int) and not isinstance(a, bool) for a in at),
          src, f"{fld}.at", "[x, y] integers", at)
    sq = (at[0], at[1])
    _need(0 <= sq[0] < grid.width and 0 <= sq[1] < grid.height, src, f"{fld}.at",
          f"a square inside the {grid.width}x{grid.height} map", at)
    _need(not grid.blocks_movement(sq) and not grid.drop_depth(sq), src, f"{fld}.at",
          "a floor square (not a wall, closed door or drop)", at)
    kw: dict[str, Any] = {}
    if "characteristics" in raw:
        chars = _int_table(raw["characteristics"], src, f"{fld}.characteristics")
        names = content.ruleset.characteristics.names
        for k, v in chars:
            _need(k in names, src, f"{fld}.characteristics.{k}",
                  f"one of {', '.join(names)}", k)
            _need(1 <= v <= MAX_CHARACTERISTIC, src, f"{fld}.characteristics.{k}",
                  f"an integer from 1 to {MAX_CHARACTERISTIC}", v)
        kw["characteristics"] = chars
    if "skills" in raw:
        skills = _int_table(raw["skills"], src, f"{fld}.skills")
        for k, v in skills:
            _need(k in content.ruleset.skills, src, f"{fld}.skills.{k}",
                  "a skill from ruleset.toml", k)
            _need(v >= 0, src, f"{fld}.skills.{k}", "a value of at least 0", v)
        kw["skills"] = skills
    if "race" in raw:
        _need(isinstance(raw["race"], str) and raw["race"] in content.races, src, f"{fld}.race",
              f"a race from races.toml ({', '.join(sorted(content.races))})", raw["race"])
        kw["race"] = raw["race"]
    if "equipment" in raw:
        kw["equipment"] = _equipment(raw["equipment"], src, f"{fld}.equipment", content)
    if "armour" in raw:
        a = raw["armour"]
        ok = isinstance(a, str) and (a == "none" or (a in content.armour
                                                     and content.armour[a].slot == "body"))
        _need(ok, src, f"{fld}.armour", "a body armour id from armour.toml or \"none\"", a)
        kw["armour"] = a
    if "armour_training" in raw:
        t = raw["armour_training"]
        _need(t in _TRAINING, src, f"{fld}.armour_training", f"one of {', '.join(_TRAINING)}",
              t)
        kw["armour_training"] = t
    if "hp" in raw:
        hp = _int(raw, "hp", src, f"{fld}.hp")
        _need(hp >= 1, src, f"{fld}.hp", "a positive integer", hp)
        kw["hp"] = hp
    if "roll_characteristics" in raw:
        r = raw["roll_characteristics"]
        _need(isinstance(r, bool), src, f"{fld}.roll_characteristics", "true or false", r)
        kw["roll_characteristics"] = r
    if "riding" in raw:
        kw["riding"] = _str(raw, "riding", src, f"{fld}.riding")
    if "spells" in raw:
        sp = raw["spells"]
        _need(isinstance(sp, list) and all(isinstance(s, str) and s in content.spells
                                           for s in sp), src,
              f"{fld}.spells", "an array of spell ids from spells.toml", sp)
        kw["spells"] = tuple(sp)
    kw |= _state(raw, src, fld, content, creature, kw)
    return UnitSpec(uid, team, creature, sq, **kw)


def _state(raw: dict[str, Any], src: str, fld: str, content: Content, creature: str,
           unit: dict[str, Any]) -> dict[str, Any]:
    """The unit's current-state keys, checked for shape, consistency (H5, H22) and against
    the maxima that ``unit`` (its other keys) fixes whatever the dice roll (H1)."""
    stat = content.creatures[creature]
    rolled = unit.get("roll_characteristics", False)
    known = ({} if rolled else dict(stat.characteristics)) | dict(unit.get("characteristics", ()))
    max_hp = unit.get("hp", None if rolled else hit_points_for(content, known))
    max_pp = power_points_for(stat, known)
    kw: dict[str, Any] = {}
    for key in ("prone", "bleeding", "out_of_action"):
        if key in raw:
            kw[key] = _bool(raw, key, src, f"{fld}.{key}")
    if "fatigue" in raw:
        _need(raw["fatigue"] in FATIGUE_NAMES, src, f"{fld}.fatigue",
              f"one of {', '.join(FATIGUE_NAMES)}", raw["fatigue"])
        kw["fatigue"] = raw["fatigue"]
    if "power_points" in raw:
        pp = kw["power_points"] = _int(raw, "power_points", src, f"{fld}.power_points")
        _need(pp >= 0, src, f"{fld}.power_points", "an integer >= 0", pp)
        _need(max_pp is not None, src, f"{fld}.power_points", "characteristics.pow set too"
              " (roll_characteristics = true rolls POW, the maximum)", pp)
        _need(pp <= max_pp, src, f"{fld}.power_points",
              f"an integer from 0 to the max power points {max_pp}", pp)
    out = kw.get("out_of_action", False)
    if "current_hp" in raw:
        hp = kw["current_hp"] = _int(raw, "current_hp", src, f"{fld}.current_hp")
        _need(hp > 0 or out, src, f"{fld}.current_hp",
              "a positive integer (0 or less needs out_of_action = true, H5)", hp)
        _need(hp <= 0 or not out, src, f"{fld}.current_hp",
              "0 or less for a unit out of action (H5)", hp)
        _need(max_hp is not None, src, f"{fld}.current_hp",
              "hp set too (roll_characteristics = true rolls the maximum)", hp)
        _need(hp >= 0 or "con" in known, src, f"{fld}.current_hp", "characteristics.con set"
              " too for an HP below 0 (roll_characteristics = true rolls CON)", hp)
        low = -known["con"] if "con" in known else 0
        _need(low <= hp <= max_hp, src, f"{fld}.current_hp",
              f"an integer from {low} to the max HP {max_hp}", hp)
    if out:
        _need(kw.get("prone", True), src, f"{fld}.prone",
              "true or nothing for a unit out of action (it lies prone, H5)", False)
        kw["prone"] = True
        kw.setdefault("current_hp", 0)
    return kw


def parse_scenario(text: str | bytes, *, source: str, content: Content) -> Scenario:
    """Parse and validate scenario TOML (str, or UTF-8 bytes). ``source`` names it in
    errors."""
    text = decode_text(text, source, ScenarioError)
    data = parse_toml(text, source, ScenarioError)
    unknown = set(data) - _TOP_KEYS
    _need(not unknown, source, min(unknown or {""}),
          f"one of the scenario keys {', '.join(sorted(_TOP_KEYS))}", min(unknown or {""}))
    for key in ("name", "max_rounds", "map", "units"):
        _need(key in data, source, key, "a value", "<missing>")
    name = _str(data, "name", source, "name")
    max_rounds = _int(data, "max_rounds", source, "max_rounds", MAX_ROUNDS, 1)
    start_round = _int(data, "start_round", source, "start_round", MAX_ROUNDS) \
        if "start_round" in data else 1
    _need(1 <= start_round <= max_rounds, source, "start_round",
          f"an integer from 1 to max_rounds ({max_rounds})", start_round)
    _need(isinstance(data["map"], str), source, "map", "a multi-line string", data["map"])
    grid = parse_map(data["map"], source=source,
                     drop_depth_ft=content.ruleset.misc.default_drop_depth_ft)
    raw_units = data["units"]
    _need(isinstance(raw_units, list) and raw_units, source, "units",
          "a non-empty array of [[units]] tables", raw_units)
    _need(len(raw_units) <= MAX_UNITS, source, "units", f"at most {MAX_UNITS} units",
          f"<{len(raw_units)} units>")
    units = tuple(_unit(u, i, source, content, grid) for i, u in enumerate(raw_units))
    seen_ids: set[str] = set()
    for i, u in enumerate(units):
        _need(u.id not in seen_ids, source, f"units[{i}].id", "a unique id", u.id)
        seen_ids.add(u.id)
    by_id = {u.id: u for u in units}
    squares: dict[Square, str] = {}
    ridden: dict[str, str] = {}
    for i, u in enumerate(units):
        if u.riding is not None:
            _need(not content.creatures[u.creature].mount, source,
                  f"units[{i}] ({u.id}).riding", "a rider that is not a mount itself",
                  u.riding)
            mount = by_id.get(u.riding)
            _need(mount is not None and content.creatures[mount.creature].mount
                  and u.riding != u.id and mount.riding is None, source,
                  f"units[{i}] ({u.id}).riding", "the id of another unit that is a mount"
                  " and rides nothing", u.riding)
            _need(u.riding not in ridden, source, f"units[{i}] ({u.id}).riding",
                  "a mount nobody else rides", f"{u.riding} (ridden by {ridden.get(u.riding)})")
            ridden[u.riding] = u.id
            _need(mount.at == u.at and mount.team == u.team, source,
                  f"units[{i}] ({u.id}).riding", "a mount of the same team on the same square",
                  u.riding)
            _need(not (u.prone or mount.prone), source, f"units[{i}] ({u.id}).riding",
                  "a standing rider on a standing mount (H22)", u.riding)
            continue
        _need(u.at not in squares, source, f"units[{i}] ({u.id}).at",
              "a square no other unit stands on", f"{list(u.at)} (taken by {squares.get(u.at)})")
        squares[u.at] = u.id
    teams = {u.team for u in units}
    _need(len(teams) >= 2, source, "units", "units of at least two teams", sorted(teams))
    down = sorted(teams - {u.team for u in units if not u.out_of_action})
    _need(not down, source, "units", "at least one unit in action in every team", down)
    desc = data.get("description", "")
    _need(isinstance(desc, str), source, "description", "a string", desc)
    return Scenario(name, max_rounds, grid, units, source, text, desc, start_round)


#: the last scenarios parsed by parsed_scenario: (source, text) -> (content, scenario);
#: a Scenario is immutable, so battles of one text share its parse
_PARSED: dict[tuple[str, str | bytes], tuple[Content, Scenario]] = {}
_PARSED_KEPT = 32


def parsed_scenario(text: str | bytes, *, source: str, content: Content) -> Scenario:
    """``parse_scenario(text, source=source, content=content)``, the parse reused while the
    text, its source and the content (the same object) are the same: what battles started
    over and over from one scenario share. A text that does not parse raises each time."""
    if not isinstance(text, (str, bytes)):  # not a text: parse_scenario's error
        return parse_scenario(text, source=source, content=content)
    key = (source, text)
    known = _PARSED.get(key)
    if known is not None and known[0] is content:
        return known[1]
    scenario = parse_scenario(text, source=source, content=content)
    if len(_PARSED) >= _PARSED_KEPT:
        _PARSED.pop(next(iter(_PARSED)))
    _PARSED[key] = (content, scenario)
    return scenario


def load_scenario(name_or_path: str | Path, content: Content) -> Scenario:
    """Read and parse a shipped scenario by name or a scenario file by path (the file is
    read every time; its parse is reused while its bytes and the content are the same)."""
    path = resolve_scenario(name_or_path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ScenarioError(path.name, "file", "a readable scenario file",
                            f"<{exc.strerror}>") from None
    return parsed_scenario(raw, source=path.name, content=content)


def apply_state(combatant: Combatant, spec: UnitSpec) -> None:
    """Give a freshly built ``combatant`` the current state its unit sets (checked when
    the scenario was parsed)."""
    if spec.current_hp is not None:
        combatant.hp = spec.current_hp
    if spec.power_points is not None:
        combatant.power_points = spec.power_points
    combatant.prone = spec.prone
    combatant.bleeding = spec.bleeding
    combatant.fatigue_level = FATIGUE_NAMES.index(spec.fatigue)
    if spec.out_of_action:
        combatant.status = "out"
