"""Knobs: values of the content or the scenario that ``fray balance`` may turn.

A knob is ``KEY=LOW..HIGH[:STEP]`` (every value from LOW to HIGH by STEP; whole numbers
step by 1 unless STEP says, decimals by a tenth of the range) or ``KEY=a|b|c`` (a choice
list). KEY is a dotted path:

- ``ruleset.defence.parries_per_round``, ``creatures.orc.characteristics.con``,
  ``creatures.goblin.skills.short_sword``, ``weapons.longsword.range``...: FILE.PATH, a
  value of the content file FILE.toml (``ruleset``, ``creatures``, ``weapons``,
  ``armour``, ``items``, ``races``, ``spells``);
- ``scenario.max_rounds``: a top-level value of the scenario file;
- ``scenario.units.orc_1.creature=orc|hobgoblin``: a value of the unit with that id, its
  own or its creature's (``scenario.units.orc_1.skills.axe``, ``...characteristics.con``,
  ``...hp``: the unit's override, which a shipped scenario can carry);
  ``scenario.units.orc_1.present=true|false`` keeps or removes the unit.

A *setting* gives each knob one of its values. :func:`write_setting` writes it out as a
content folder (the base folder's files, those a knob touches rewritten by
:func:`experiments.comparison.sweep.write_content_variant`, the one home of how ``fray
sweep --set`` changes content) and a scenario file, both checked by loading them.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import rules
from experiments.balance.content_cache import loaded_content
from experiments.comparison.sweep import (
    SweepError,
    leaves,
    set_value,
    toml_text,
    write_content_variant,
)
from rules.content.loader import FILES
from rules.limits import MAX_KNOB_VALUES
from rules.scenario import resolve_scenario

CONTENT_FILES = tuple(name.removesuffix(".toml") for name in FILES)
SCENARIO = "scenario"
PRESENT = "present"

Setting = dict[str, Any]


class KnobError(rules.FrayError):
    """A ``--knob`` that names no value, or whose range or choices do not fit it."""


@dataclass(frozen=True)
class Knob:
    """One knob: its key, the values it may take (in order) and whether they are ordered
    numbers (a range) or a choice list."""

    key: str
    values: tuple[Any, ...]
    numeric: bool

    def index(self, value: Any) -> int:
        """The position of ``value`` among the knob's values."""
        return self.values.index(value)

    def step_from(self, value: Any, steps: int) -> Any | None:
        """The value ``steps`` places away from ``value`` (None past either end)."""
        where = self.index(value) + steps
        return self.values[where] if 0 <= where < len(self.values) else None


# ---------------------------------------------------------------- reading values


def read_toml(path: Path) -> dict[str, Any]:
    """A parsed TOML file (a KnobError naming the file when it is missing or bad)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KnobError(f"{path}: expected a TOML file, found none") from None
    except tomllib.TOMLDecodeError as exc:
        raise KnobError(f"{path}: expected valid TOML, got {exc}") from None


def scenario_path(scenario: str) -> Path:
    """The file of a shipped scenario name or a scenario path."""
    return resolve_scenario(scenario)


def _unit(data: dict[str, Any], unit_id: str, key: str) -> dict[str, Any]:
    units = data.get("units") or []
    for unit in units:
        if isinstance(unit, dict) and unit.get("id") == unit_id:
            return unit
    ids = ", ".join(str(u.get("id")) for u in units if isinstance(u, dict))
    raise KnobError(f"--knob {key}: no unit {unit_id!r} in the scenario; its units: {ids}")


def current_value(key: str, content_dir: Path, scenario: Path) -> Any:
    """The value KEY holds in the base content folder and scenario (KnobError if none)."""
    head, _, rest = key.partition(".")
    if head == SCENARIO:
        data = read_toml(scenario)
        parts = rest.split(".")
        if len(parts) >= 3 and parts[0] == "units":
            return _unit_value(data, parts[1], parts[2:], key, content_dir, scenario)
        found = {k: v for k, v in data.items() if k != "units"}
        return _leaf(leaves(found), rest, key, scenario.name)
    if head not in CONTENT_FILES:
        raise KnobError(f"--knob {key}: expected KEY to start with {SCENARIO} or a content "
                        f"file ({', '.join(CONTENT_FILES)}), got {head!r}")
    return _leaf(leaves(read_toml(content_dir / f"{head}.toml")), rest, key, f"{head}.toml")


def _unit_value(data: dict[str, Any], unit_id: str, path: list[str], key: str,
                content_dir: Path, scenario: Path) -> Any:
    """A unit's value: its own, else its creature's (``skills.axe``, ``characteristics.con``,
    ``armour``...), else for ``hp`` the hit points it musters with."""
    unit = _unit(data, unit_id, key)
    if path == [PRESENT]:
        return True
    dotted = ".".join(path)
    own = leaves(unit)
    if dotted in own:
        return _leaf(own, dotted, key, f"unit {unit_id}")
    creatures = read_toml(content_dir / "creatures.toml")
    creature = creatures.get(str(unit.get("creature")), {})
    known = leaves(creature) if isinstance(creature, dict) else {}
    if dotted in known:
        return _leaf(known, dotted, key, f"creature {unit.get('creature')}")
    if dotted == "hp":
        battle = rules.Battle.from_toml(scenario.read_text(encoding="utf-8"), seed=0,
                                        source=scenario.name, content_dir=str(content_dir))
        return battle.combatants[unit_id].max_hp
    raise KnobError(f"--knob {key}: unit {unit_id} ({unit.get('creature')}) has no value "
                    f"{dotted!r}; its fields: {', '.join(sorted(set(own) | set(known)))}, "
                    f"hp, {PRESENT}")


def _leaf(known: dict[str, Any], path: str, key: str, where: str) -> Any:
    import difflib

    if path in known:
        value = known[path]
        if isinstance(value, list | dict):
            raise KnobError(f"--knob {key}: expected a key holding one value, found a "
                            f"{type(value).__name__} in {where}")
        return value
    inside = sorted(k for k in known if k.startswith(path + "."))
    if inside:
        raise KnobError(f"--knob {key}: is a table of {where}; turn one of its keys: "
                        f"{', '.join(inside[:6])}")
    close = difflib.get_close_matches(path, list(known), n=4, cutoff=0.6)
    hint = f"; close keys: {', '.join(close)}" if close else ""
    raise KnobError(f"--knob {key}: no such key in {where}{hint}")


# ---------------------------------------------------------------- parsing knobs


def _number(text: str, key: str) -> Decimal:
    try:
        return Decimal(text.strip())
    except InvalidOperation:
        raise KnobError(f"--knob {key}: expected a number, got {text.strip()!r}") from None


def _choice(text: str, original: Any, key: str) -> Any:
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = text  # a bare word: a creature id, a formula name
    if isinstance(original, bool) != isinstance(value, bool) or (
            not isinstance(original, bool) and isinstance(original, int | float)
            and not isinstance(value, int | float)) or (
            isinstance(original, str) and not isinstance(value, str)):
        raise KnobError(f"--knob {key}: expected {type(original).__name__} values (like "
                        f"{original!r}), got {text!r}")
    return float(value) if isinstance(original, float) else value


def parse_knob(text: str, content_dir: Path, scenario: Path) -> Knob:
    """``KEY=LOW..HIGH[:STEP]`` or ``KEY=a|b|c``, checked against the base content and
    scenario (the values' type is the current value's)."""
    key, sep, spec = text.partition("=")
    key, spec = key.strip(), spec.strip()
    if not sep or not key or not spec:
        raise KnobError(f"--knob {text!r}: expected KEY=LOW..HIGH[:STEP] or KEY=a|b "
                        f"(e.g. creatures.orc.skills.scimitar=40..80:5)")
    original = current_value(key, content_dir, scenario)
    if ".." in spec and "|" not in spec:
        if isinstance(original, bool) or not isinstance(original, int | float):
            raise KnobError(f"--knob {key}: a range needs a number; the key holds "
                            f"{original!r}; give a choice list a|b instead")
        bounds, _, step_text = spec.partition(":")
        low_text, _, high_text = bounds.partition("..")
        low, high = _number(low_text, key), _number(high_text, key)
        whole = isinstance(original, int) and low == low.to_integral_value() \
            and high == high.to_integral_value()
        step = _number(step_text, key) if step_text else (
            Decimal(1) if whole else (high - low) / 10)
        if high < low:
            raise KnobError(f"--knob {key}: expected LOW <= HIGH, got {low}..{high}")
        if step <= 0:
            raise KnobError(f"--knob {key}: expected a STEP > 0, got {step}")
        if isinstance(original, int) and not (whole and step == step.to_integral_value()):
            raise KnobError(f"--knob {key}: holds a whole number ({original}); expected "
                            f"whole LOW, HIGH and STEP, got {spec!r}")
        count = int((high - low) / step) + 1
        if count > MAX_KNOB_VALUES:
            raise KnobError(f"--knob {key}: expected at most {MAX_KNOB_VALUES} values, got "
                            f"{count} ({spec})")
        numbers = [low + step * i for i in range(count)]
        values = tuple(int(v) if isinstance(original, int) else float(v) for v in numbers)
        return Knob(key, values, numeric=True)
    items = [item.strip() for item in spec.split("|")]
    if any(not item for item in items):
        raise KnobError(f"--knob {key}: expected choices a|b|c, got {spec!r}")
    if len(items) > MAX_KNOB_VALUES:
        raise KnobError(f"--knob {key}: expected at most {MAX_KNOB_VALUES} choices, got "
                        f"{len(items)}")
    values = tuple(_choice(item, original, key) for item in items)
    if len(set(values)) != len(values):
        raise KnobError(f"--knob {key}: expected distinct choices, got {spec!r}")
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    if numeric:
        values = tuple(sorted(values))
    return Knob(key, values, numeric=numeric)


def parse_knobs(texts: Sequence[str], content_dir: Path, scenario: Path) -> list[Knob]:
    """Every ``--knob``, each key once."""
    knobs = [parse_knob(text, content_dir, scenario) for text in texts]
    keys = [knob.key for knob in knobs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise KnobError(f"--knob: expected each key once, got {', '.join(repeated)} again")
    if not knobs:
        raise KnobError("--knob: expected at least one knob")
    return knobs


# ---------------------------------------------------------------- settings


def setting_id(setting: Mapping[str, Any]) -> str:
    """A short stable name of a setting (its JSON, sha256)."""
    text = json.dumps(dict(setting), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def setting_label(setting: Mapping[str, Any]) -> str:
    """``creatures.orc.characteristics.con=12 scenario.max_rounds=20``."""
    return " ".join(f"{key}={value}" for key, value in setting.items())


def scenario_variant(scenario: Path, changes: Mapping[str, Any]) -> str:
    """The scenario's TOML text with the ``scenario.*`` changes made."""
    data = read_toml(scenario)
    for key, value in changes.items():
        parts = key.split(".")[1:]
        if len(parts) >= 3 and parts[0] == "units":
            unit = _unit(data, parts[1], key)
            if parts[2:] == [PRESENT]:
                if not value:
                    data["units"] = [u for u in data["units"] if u is not unit]
            else:
                node = unit
                for name in parts[2:-1]:
                    node = node.setdefault(name, {})
                node[parts[-1]] = value
        else:
            set_value(data, ".".join(parts), value)
    label = setting_label(changes) or "nothing"
    return toml_text(data, f"generated by fray balance from {scenario}\nchanged: {label}")


def write_setting(setting: Mapping[str, Any], base: Path, scenario: Path,
                  folder: Path) -> tuple[str, str]:
    """``setting`` written as ``folder/content/`` and ``folder/scenario.toml``; (content
    folder, scenario file). Both are checked by loading them: a setting the rules reject
    is a KnobError naming the setting and the rule."""
    by_file: dict[str, dict[str, Any]] = {}
    scenario_changes: dict[str, Any] = {}
    for key, value in setting.items():
        head, _, rest = key.partition(".")
        if head == SCENARIO:
            scenario_changes[key] = value
        else:
            by_file.setdefault(f"{head}.toml", {})[rest] = value
    content = folder / "content"
    try:
        write_content_variant(base, content, by_file, tool="fray balance", check=False)
        text = scenario_variant(scenario, scenario_changes)
        target = folder / "scenario.toml"
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        rules.load_scenario(target, loaded_content(str(content)))
    except (SweepError, rules.FrayError) as exc:
        raise KnobError(f"setting {setting_label(setting)}: {exc}") from None
    return str(content), str(target)
