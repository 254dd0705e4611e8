"""Load and validate the TOML content of a data directory into :mod:`rules.content.schema`.

:func:`build` turns a TOML value into any schema dataclass, guided by the class's type
hints; :func:`load_content` reads the seven content files and cross-checks them. Every
problem raises :class:`~rules.errors.ContentError` naming the file, the dotted field path
(``goblin.equipment[1].state``), what was expected and what was found.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import sys
import tomllib
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin

from rules.content import schema as s
from rules.content.schema import HANDS
from rules.dice import BOUNDED, Dice, DiceBoundsError
from rules.errors import ContentError
from rules.limits import (
    MAX_CHARACTERISTIC,
    MAX_CONTENT_NUMBER,
    MAX_NESTING,
    MAX_STAT,
    nesting_depth,
)

T = TypeVar("T")

DATA_DIR = Path(__file__).resolve().parent.parent / "data"

FILES = (
    "ruleset.toml",
    "races.toml",
    "weapons.toml",
    "armour.toml",
    "items.toml",
    "spells.toml",
    "creatures.toml",
)

MISSING = "<missing>"

# Lower bounds (inclusive) of numeric fields, checked after type conversion. Divisors
# must be positive so the engine never divides by zero; counts and weights not negative.
_MINIMUM: dict[tuple[type, str], float] = {
    (s.SuccessRules, "critical_divisor"): 1,
    (s.SuccessRules, "special_divisor"): 1,
    (s.SuccessRules, "fumble_divisor"): 1,
    (s.SuccessRules, "success_cap"): 1,
    (s.SuccessRules, "auto_success_max"): 0,
    (s.SuccessRules, "auto_fail_min"): 1,
    (s.InitiativeRules, "dex_bonus_divisor"): 1,
    (s.InitiativeRules, "impaired_factor"): 0,
    (s.MovementRules, "move_divisor"): 1,
    (s.MovementRules, "difficult_multiplier"): 1,
    (s.MovementRules, "square_feet"): 1,
    (s.MovementRules, "min_mov"): 0,
    (s.EncumbranceRules, "divisor"): 1,
    (s.EncumbranceRules, "threshold_fraction"): 0,
    (s.EncumbranceRules, "factor"): 0,
    (s.BurdenLevel, "skill_factor"): 0,
    (s.BurdenLevel, "mov_penalty"): 0,
    (s.BurdenLevel, "magic_fumble"): 0,
    (s.FatigueRules, "con_multiplier"): 0,
    (s.FatigueRules, "rounds_per_check"): 1,
    (s.FatigueRules, "fatigued_factor"): 0,
    (s.FatigueRules, "exhausted_factor"): 0,
    (s.FatigueRules, "rest_rounds_fatigued"): 0,
    (s.FatigueRules, "rest_rounds_exhausted"): 0,
    (s.DamageBonusRules, "step"): 1,
    (s.CombatModifiers, "long_range_factor"): 1,
    (s.CombatModifiers, "dark_factor"): 0,
    (s.DefenceRules, "parry_special_factor"): 0,
    (s.DefenceRules, "parry_wear"): 0,
    (s.DefenceRules, "parries_per_round"): 0,
    (s.DefenceRules, "fight_defensively_extra_parries"): 0,
    (s.PoisonRules, "con_multiplier"): 0,
    (s.PoisonRules, "snake_con_multiplier"): 0,
    (s.FallingRules, "feet_per_die"): 1,
    (s.MiscRules, "bleed_per_round"): 0,
    (s.MiscRules, "torch_radius"): 0,
    (s.MiscRules, "free_actions_per_turn"): 1,
    (s.MiscRules, "default_drop_depth_ft"): 0,
    (s.Race, "mov"): 0,
    (s.Weapon, "ap"): 0,
    (s.Weapon, "hands"): 0,
    (s.Weapon, "weight"): 0,
    (s.Weapon, "range"): 0,
    (s.Armour, "ap"): 0,
    (s.Armour, "hands"): 0,
    (s.Armour, "weight"): 0,
    (s.Item, "hands"): 0,
    (s.Item, "weight"): 0,
    (s.Spell, "cost"): 0,
    (s.Spell, "range"): 0,
    (s.Spell, "rounds"): 1,
    (s.Spell, "duration"): 0,
    (s.EquipmentEntry, "count"): 1,
    (s.Creature, "power_points"): 0,
}


# ---------------------------------------------------------------- generic validator


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _shown(value: object) -> object:
    """What an error message shows for a found value."""
    if isinstance(value, dict):
        return "<table>"
    if isinstance(value, list) and len(repr(value)) > 60:
        return f"<array of {len(value)} values>"
    return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    namespace = {**vars(s), **vars(sys.modules[cls.__module__])}
    return typing.get_type_hints(cls, globalns=namespace)


def _quoted(values: Iterable[object]) -> str:
    return ", ".join(repr(v) for v in values)


def _none_stripped(tp: Any) -> Any | None:
    """For ``X | None`` return X; for anything else None."""
    if get_origin(tp) in (typing.Union, types.UnionType):
        rest = [a for a in get_args(tp) if a is not type(None)]
        if len(rest) == 1 and len(get_args(tp)) == 2:
            return rest[0]
        raise TypeError(f"unsupported union in schema: {tp!r}")
    return None


def build(
    cls: type[T],
    value: object,
    file: str,
    path: str = "",
    error: type[ContentError] = ContentError,
) -> T:
    """Build the dataclass ``cls`` from a TOML table ``value``.

    Every field without a default is required, unknown keys are errors, and every value
    is converted by :func:`convert`. ``error`` is the ContentError subclass to raise
    (scenarios pass ``ScenarioError``).
    """
    if not isinstance(value, dict):
        raise error(file, path or "<top level>", "a table", _shown(value))
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for key in value:
        if key not in fields:
            expected = f"one of the known keys {_quoted(fields)}"
            raise error(file, _join(path, key), expected, key)
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for name, f in fields.items():
        where = _join(path, name)
        if name in value:
            got = convert(hints[name], value[name], file, where, error)
            low = _MINIMUM.get((cls, name))
            if low is not None and got is not None and got < low:
                kind = "an integer" if isinstance(got, int) else "a number"
                raise error(file, where, f"{kind} >= {low:g}", got)
            kwargs[name] = got
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise error(file, where, "a value", MISSING)
    return cls(**kwargs)


def convert(
    tp: Any,
    value: object,
    file: str,
    path: str,
    error: type[ContentError] = ContentError,
) -> Any:
    """Convert one TOML value to the type hint ``tp`` or raise ``error``."""
    inner = _none_stripped(tp)
    if inner is not None:
        return convert(inner, value, file, path, error)
    if tp is Dice:
        expected = "dice like '1d8+1'"
        if not isinstance(value, str) or value.strip() == "":
            raise error(file, path, expected, _shown(value))
        try:
            return Dice.parse(value)
        except DiceBoundsError:
            raise error(file, path, BOUNDED, value) from None
        except ValueError:
            raise error(file, path, expected, value) from None
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return build(tp, value, file, path, error)
    origin = get_origin(tp)
    if origin is Literal:
        options = get_args(tp)
        if not any(type(value) is type(o) and value == o for o in options):
            raise error(file, path, f"one of {_quoted(options)}", _shown(value))
        return value
    if origin is tuple:
        args = get_args(tp)
        if not isinstance(value, list):
            raise error(file, path, "an array", _shown(value))
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(
                convert(args[0], v, file, f"{path}[{i}]", error) for i, v in enumerate(value)
            )
        if len(value) != len(args):
            raise error(file, path, f"an array of {len(args)} values", _shown(value))
        return tuple(
            convert(a, v, file, f"{path}[{i}]", error)
            for i, (a, v) in enumerate(zip(args, value, strict=True))
        )
    if origin is dict:
        _, val_tp = get_args(tp)
        if not isinstance(value, dict):
            raise error(file, path, "a table", _shown(value))
        return {k: convert(val_tp, v, file, _join(path, k), error) for k, v in value.items()}
    if tp is bool:
        if not isinstance(value, bool):
            raise error(file, path, "true or false", _shown(value))
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise error(file, path, "an integer", _shown(value))
        if not -MAX_STAT <= value <= MAX_STAT:  # rules/limits.py: 32-bit safe in the engine
            raise error(file, path, f"an integer from {-MAX_STAT} to {MAX_STAT}", value)
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise error(file, path, "a number", _shown(value))
        if not math.isfinite(value):
            raise error(file, path, "a finite number", value)
        if abs(value) > MAX_CONTENT_NUMBER:
            raise error(file, path, f"a number from {-MAX_CONTENT_NUMBER:g} to "
                        f"{MAX_CONTENT_NUMBER:g}", value)
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise error(file, path, "a string", _shown(value))
        return value
    raise TypeError(f"unsupported type hint in schema: {tp!r} (at {file}: {path})")


# ---------------------------------------------------------------- files


def read_toml(path: Path, error: type[ContentError] = ContentError) -> dict[str, Any]:
    """Parse one TOML file; a missing file or bad syntax is a ContentError."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise error(path.name, "file", f"a file in {path.parent}", MISSING) from None
    except OSError as exc:  # a folder of that name, no permission, ...
        raise error(path.name, "file", f"a readable file in {path.parent}",
                    f"<{exc.strerror or type(exc).__name__}>") from None
    return parse_toml(raw, path.name, error)


def decode_text(
    raw: bytes | str, file: str, error: type[ContentError] = ContentError
) -> str:
    """TOML text from bytes (UTF-8) or str; a leading UTF-8 byte-order mark is dropped.

    Anything else (non-UTF-8 bytes, None, a number) is ``FILE: toml: expected UTF-8
    text, got ...``."""
    if isinstance(raw, bytes | bytearray | memoryview):
        data = bytes(raw)
        try:
            raw = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            found = f"<byte 0x{data[exc.start]:02x} at offset {exc.start}, not UTF-8>"
            raise error(file, "toml", "UTF-8 text", found) from None
    if not isinstance(raw, str):
        raise error(file, "toml", "UTF-8 text (str or bytes)", f"<{type(raw).__name__}>")
    return raw.removeprefix("\ufeff")


def parse_toml(
    raw: bytes | str, file: str, error: type[ContentError] = ContentError
) -> dict[str, Any]:
    """Parse TOML text; a syntax error becomes ``FILE: toml: expected valid TOML, ...``."""
    text = decode_text(raw, file, error)
    nested = f"valid TOML with arrays and tables nested at most {MAX_NESTING} deep"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(file, "toml", "valid TOML", f"<{exc}>") from None
    except RecursionError:
        raise error(file, "toml", nested, "<nested deeper than Python can read>") from None
    if nesting_depth(data) > MAX_NESTING:
        raise error(file, "toml", nested, "<nested deeper>")
    return data


def _table_of(cls: type[T], data: Mapping[str, object], file: str) -> dict[str, T]:
    return {key: build(cls, entry, file, key) for key, entry in data.items()}


def load_content(directory: Path | str | None = None) -> s.Content:
    """Read, validate and cross-check every content file of ``directory``.

    ``directory`` defaults to the shipped ``rules/data``. Raises ContentError on the
    first problem found.
    """
    root = Path(directory) if directory is not None else DATA_DIR
    raw = {name: read_toml(root / name) for name in FILES}
    ruleset = build(s.Ruleset, raw["ruleset.toml"], "ruleset.toml")
    content = s.Content(
        ruleset=ruleset,
        races=_table_of(s.Race, raw["races.toml"], "races.toml"),
        weapons=_table_of(s.Weapon, raw["weapons.toml"], "weapons.toml"),
        armour=_table_of(s.Armour, raw["armour.toml"], "armour.toml"),
        items=_table_of(s.Item, raw["items.toml"], "items.toml"),
        spells=_table_of(s.Spell, raw["spells.toml"], "spells.toml"),
        creatures=_table_of(s.Creature, raw["creatures.toml"], "creatures.toml"),
    )
    check_content(content)
    return content


# ---------------------------------------------------------------- cross-checks


def _exact_keys(keys: Iterable[str], wanted: Iterable[str], file: str, path: str) -> None:
    """The keys must be exactly ``wanted``: a missing or an extra key is an error."""
    keys, wanted = list(keys), list(wanted)
    for key in keys:
        if key not in wanted:
            raise ContentError(
                file, _join(path, key), f"one of the known keys {_quoted(wanted)}", key
            )
    for key in wanted:
        if key not in keys:
            raise ContentError(file, _join(path, key), "a value", MISSING)


def _check_ruleset(ruleset: s.Ruleset) -> None:
    f = "ruleset.toml"
    _exact_keys(ruleset.burden, ("none", "light", "moderate", "heavy"), f, "burden")  # S20
    _exact_keys(ruleset.misc.reach_squares, ("S", "M", "L"), f, "misc.reach_squares")  # H12
    for i, key in enumerate(ruleset.misc.damage_bonus_applies_to):  # H6
        if key not in ("melee", "thrown", "missile"):
            where = f"misc.damage_bonus_applies_to[{i}]"
            raise ContentError(f, where, "one of 'melee', 'thrown', 'missile'", key)
    names = ruleset.characteristics.names  # H1
    if not names:
        raise ContentError(f, "characteristics.names", "a non-empty array", names)
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ContentError(f, f"characteristics.names[{i}]", "a name not yet listed", name)
    if not ruleset.movement.diagonal_costs:  # S18
        raise ContentError(f, "movement.diagonal_costs", "a non-empty array", [])
    for i, cost in enumerate(ruleset.movement.diagonal_costs):
        if cost < 1:
            raise ContentError(f, f"movement.diagonal_costs[{i}]", "an integer >= 1", cost)
    table = ruleset.damage_bonus.table  # H6
    if not table:
        raise ContentError(f, "damage_bonus.table", "a non-empty array", [])
    for i in range(1, len(table)):
        if table[i].max <= table[i - 1].max:
            where = f"damage_bonus.table[{i}].max"
            raise ContentError(f, where, f"an integer > {table[i - 1].max}", table[i].max)
    if ruleset.success.auto_fail_min <= ruleset.success.auto_success_max:  # H2
        expected = f"an integer > auto_success_max ({ruleset.success.auto_success_max})"
        raise ContentError(f, "success.auto_fail_min", expected, ruleset.success.auto_fail_min)
    turn = ruleset.fatigue.rounds_per_check * ruleset.time.seconds_per_round  # S22
    if turn != ruleset.time.exploration_turn_seconds:
        expected = (
            f"fatigue.rounds_per_check x time.seconds_per_round "
            f"({ruleset.fatigue.rounds_per_check} x {ruleset.time.seconds_per_round} = {turn})"
        )
        raise ContentError(f, "time.exploration_turn_seconds", expected,
                           ruleset.time.exploration_turn_seconds)
    for i, skill in enumerate(ruleset.falling.reduction_skills):  # S23
        _need_skill(ruleset, skill, f, f"falling.reduction_skills[{i}]")


def _need_skill(ruleset: s.Ruleset, skill: str, file: str, path: str) -> None:
    if skill not in ruleset.skills:
        raise ContentError(file, path, "a skill defined in ruleset.toml [skills]", skill)


def _check_weapons(content: s.Content) -> None:
    f = "weapons.toml"
    for wid, w in content.weapons.items():
        _need_skill(content.ruleset, w.skill, f, f"{wid}.skill")
        if w.kind == "missile" and w.range < 1:  # H16
            raise ContentError(f, f"{wid}.range", "an integer >= 1 for a missile", w.range)
        if w.thrown and w.kind != "missile":
            raise ContentError(f, f"{wid}.kind", "'missile' for a thrown weapon", w.kind)
        if w.ammo is not None and (
            w.ammo not in content.items or content.items[w.ammo].kind != "ammo"
        ):
            raise ContentError(f, f"{wid}.ammo", "an ammo id from items.toml", w.ammo)
        if w.reload in ("nock", "wind") and w.ammo is None:  # H16
            raise ContentError(f, f"{wid}.ammo", f"an ammo id for reload {w.reload!r}", MISSING)


def _check_armour(content: s.Content) -> None:
    f = "armour.toml"
    for aid, a in content.armour.items():
        if a.slot == "shield" and a.skill is None:  # H9
            raise ContentError(f, f"{aid}.skill", "a parry skill for a shield", MISSING)
        if a.skill is not None:
            _need_skill(content.ruleset, a.skill, f, f"{aid}.skill")
        for i, skill in enumerate(a.impossible):  # S20
            _need_skill(content.ruleset, skill, f, f"{aid}.impossible[{i}]")
        for skill in a.skill_factors:  # S20
            _need_skill(content.ruleset, skill, f, f"{aid}.skill_factors.{skill}")
        if a.slot != "body" and a.burden != "none":
            expected = "'none' for armour not worn on the body"
            raise ContentError(f, f"{aid}.burden", expected, a.burden)


def _check_items(content: s.Content) -> None:
    f = "items.toml"
    for iid, it in content.items.items():
        if it.kind == "potion" and it.heal is None:
            raise ContentError(f, f"{iid}.heal", "healing dice for a potion", MISSING)
        if it.kind == "scroll" and it.spell is None:
            raise ContentError(f, f"{iid}.spell", "a spell id for a scroll", MISSING)
        if it.spell is not None and it.spell not in content.spells:
            raise ContentError(f, f"{iid}.spell", "a spell defined in spells.toml", it.spell)
    seen = {"weapons.toml": content.weapons, "armour.toml": content.armour}
    for file, table in (("armour.toml", content.armour), ("items.toml", content.items)):
        for key in table:
            for other, other_table in seen.items():
                if other != file and key in other_table:
                    expected = f"an id not already used in {other}"
                    raise ContentError(file, key, expected, key)


def _check_spells(content: s.Content) -> None:
    f = "spells.toml"
    for sid, sp in content.spells.items():
        if sp.effect in ("damage", "heal") and sp.dice is None:  # H18
            raise ContentError(f, f"{sid}.dice", f"dice for a {sp.effect} spell", MISSING)
        if sp.effect == "buff" and sp.duration < 1:
            raise ContentError(f, f"{sid}.duration", "an integer >= 1 for a buff", sp.duration)


def _check_creatures(content: s.Content) -> None:
    f = "creatures.toml"
    r = content.ruleset
    for cid, cr in content.creatures.items():
        if cr.race not in content.races:
            raise ContentError(f, f"{cid}.race", "a race defined in races.toml", cr.race)
        _exact_keys(cr.characteristics, r.characteristics.names, f, f"{cid}.characteristics")
        for name, value in cr.characteristics.items():
            if not 0 <= value <= MAX_CHARACTERISTIC:
                raise ContentError(f, f"{cid}.characteristics.{name}",
                                   f"an integer from 0 to {MAX_CHARACTERISTIC}", value)
        for skill, value in cr.skills.items():
            _need_skill(r, skill, f, f"{cid}.skills.{skill}")
            if value < 0:
                raise ContentError(f, f"{cid}.skills.{skill}", "an integer >= 0", value)
        for i, entry in enumerate(cr.equipment):
            if content.kind_of(entry.item) is None:
                expected = "an id from weapons.toml, armour.toml or items.toml"
                raise ContentError(f, f"{cid}.equipment[{i}].item", expected, entry.item)
        check_equipment(content, cr.equipment, f, f"{cid}.equipment")
        if cr.armour is not None and (
            cr.armour not in content.armour or content.armour[cr.armour].slot != "body"
        ):
            expected = "a body armour id from armour.toml"
            raise ContentError(f, f"{cid}.armour", expected, cr.armour)
        for i, spell in enumerate(cr.spells):
            if spell not in content.spells:
                expected = "a spell defined in spells.toml"
                raise ContentError(f, f"{cid}.spells[{i}]", expected, spell)


def check_equipment(
    content: s.Content,
    entries: Sequence[s.EquipmentEntry],
    file: str,
    path: str,
    error: type[ContentError] = ContentError,
) -> None:
    """What a unit carries makes sense (S12, H16, H21, H23): body armour is worn, not an
    entry; ready items fit in ``HANDS`` hands; only a ready bow or sling is nocked, a
    ready crossbow loaded and a ready torch lit. Entries' item ids must exist."""
    for i, entry in enumerate(entries):
        where = f"{path}[{i}]"
        armour = content.armour.get(entry.item)
        if armour is not None and armour.slot == "body":
            expected = "a weapon, shield, helmet, gauntlets or item (body armour goes in armour)"
            raise error(file, f"{where}.item", expected, entry.item)
        weapon = content.weapons.get(entry.item)
        item = content.items.get(entry.item)
        flags = (
            ("nocked", weapon is not None and weapon.reload == "nock", "bow or sling"),
            ("loaded", weapon is not None and weapon.reload == "wind", "crossbow"),
            ("lit", item is not None and item.kind == "torch", "torch"),
        )
        for flag, fits, what in flags:
            if getattr(entry, flag) and not (fits and entry.state == "ready"):
                raise error(file, f"{where}.{flag}", f"true only on a ready {what}",
                            f"<{entry.item}, {entry.state}>")
    ready = [(e.item, content.hands_of(e.item)) for e in entries if e.state == "ready"]
    hands = sum(n for _, n in ready)
    if hands > HANDS:
        listed = ", ".join(f"{item} ({n})" for item, n in ready if n)
        raise error(file, path, f"ready items that fit in {HANDS} hands",
                    f"<{listed}: {hands} hands>")


def check_content(content: s.Content) -> None:
    """Cross-check the tables of ``content`` against each other; raise ContentError."""
    _check_ruleset(content.ruleset)
    _check_weapons(content)
    _check_armour(content)
    _check_spells(content)
    _check_items(content)
    _check_creatures(content)
