"""The field checks of a saved battle (``rules.save_validation``): JSON types and ranges
(a bool is no integer, a float, NaN or None is none either; strings are valid UTF-8),
failing with one :class:`rules.errors.SaveError`, and the event log's entries (known
event types, exactly their fields, each of its annotated type, integers in 32 bits)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from typing import TYPE_CHECKING, Any, get_type_hints

from rules import limits
from rules.errors import SaveError
from rules.events import EVENT_TYPES

if TYPE_CHECKING:
    from rules.grid import GridMap

Square = tuple[int, int]
#: The largest integer the native engine holds in 32 bits (any number of an event).
INT32 = 2**31 - 1


class Check:
    """The checks of one save, failing with the file's name and the field's path."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, path: str, expected: str, found: Any) -> SaveError:
        return SaveError(self.file, path, expected, found)

    def mapping(self, value: Any, path: str, keys: Iterable[str]) -> dict[str, Any]:
        wanted = tuple(keys)
        if not isinstance(value, dict):
            raise self.fail(path, f"an object with the keys {', '.join(wanted)}", value)
        missing = [key for key in wanted if key not in value]
        if missing:
            raise self.fail(f"{path}.{missing[0]}" if path else missing[0], "a value",
                            "<missing>")
        extra = [key for key in value if key not in wanted]
        if extra:
            raise self.fail(path or "save", f"only the keys {', '.join(wanted)}",
                            f"<the key {extra[0]!r}>")
        return value

    def integer(self, value: Any, path: str, low: int, high: int) -> int:
        if type(value) is not int or not low <= value <= high:
            raise self.fail(path, f"an integer in {low}..{high}", value)
        return value

    def boolean(self, value: Any, path: str) -> bool:
        if type(value) is not bool:
            raise self.fail(path, "true or false", value)
        return value

    def text(self, value: Any, path: str) -> str:
        if type(value) is not str:
            raise self.fail(path, "a string", value)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise self.fail(path, "a string of valid UTF-8", value) from None
        return value

    def choice(self, value: Any, path: str, options: Iterable[str]) -> str:
        allowed = tuple(options)
        if type(value) is not str or value not in allowed:
            shown = ", ".join(allowed) if len(allowed) <= 12 else f"one of {len(allowed)} ids"
            raise self.fail(path, f"one of {shown}", value)
        return value

    def optional_choice(self, value: Any, path: str, options: Iterable[str]) -> str | None:
        return None if value is None else self.choice(value, path, options)

    def listed(self, value: Any, path: str, most: int) -> list[Any]:
        if type(value) is not list or len(value) > most:
            raise self.fail(path, f"a list of at most {most}", value)
        return value

    def square(self, value: Any, path: str, grid: GridMap) -> Square:
        if type(value) is not list or len(value) != 2:
            raise self.fail(path, "a square [x, y]", value)
        x = self.integer(value[0], f"{path}[0]", 0, grid.width - 1)
        y = self.integer(value[1], f"{path}[1]", 0, grid.height - 1)
        return (x, y)

    def ids(self, value: Any, path: str, known: Iterable[str]) -> list[str]:
        ids = tuple(known)
        return [self.choice(cid, f"{path}[{i}]", ids)
                for i, cid in enumerate(self.listed(value, path, limits.MAX_UNITS))]


def check_events(check: Check, events: Any) -> None:
    """The log: known event types with exactly their fields, each of its type. The
    common case (a well-formed event) takes a fast path; anything it does not pass is
    checked again field by field for the message."""
    for i, event in enumerate(check.listed(events, "events", 10**8)):
        if type(event) is dict and _well_formed(event):
            continue
        if not isinstance(event, dict):
            raise check.fail(f"events[{i}]", "an event object", event)
        name = check.choice(event.get("type"), f"events[{i}].type", EVENT_TYPES)
        hints = _event_hints(name)
        check.mapping(event, f"events[{i}]", ("type", *hints))
        for key, hint in hints.items():
            _check_value(check, event[key], f"events[{i}].{key}", hint)


#: Per event type: its keys, and its fields with their annotations (``_event_hints``).
_SHAPES: dict[str, tuple[set[str], tuple[tuple[str, str], ...]]] = {}


def _well_formed(event: dict[str, Any]) -> bool:
    """Whether ``event`` passes every check of :func:`check_events` (the fast path: str,
    int and bool fields inline, the rest by ``_check_value``)."""
    name = event.get("type")
    if type(name) is not str or name not in EVENT_TYPES:
        return False
    shape = _SHAPES.get(name)
    if shape is None:
        hints = _event_hints(name)
        shape = _SHAPES[name] = ({"type", *hints}, tuple(hints.items()))
    keys, hints = shape
    if event.keys() != keys:
        return False
    for key, hint in hints:
        value = event[key]
        kind = type(value)
        if hint == "str" or (hint == "str | None" and value is not None):
            if kind is not str or not (value.isascii() or _utf8(value)):
                return False
        elif hint == "int":
            if kind is not int or not -INT32 - 1 <= value <= INT32:
                return False
        elif hint == "bool":
            if kind is not bool:
                return False
        elif hint != "str | None":
            try:
                _check_value(Check(""), value, key, hint)
            except SaveError:
                return False
    return True


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_HINTS: dict[str, dict[str, str]] = {}


def _event_hints(name: str) -> dict[str, str]:
    """An event type's fields and their annotations, as text (``int``, ``str | None``)."""
    hints = _HINTS.get(name)
    if hints is None:
        cls = EVENT_TYPES[name]
        resolved = get_type_hints(cls)
        hints = {f.name: _hint_text(resolved[f.name]) for f in fields(cls)}
        _HINTS[name] = hints
    return hints


def _hint_text(hint: Any) -> str:
    return hint.__name__ if isinstance(hint, type) else str(hint).replace("typing.", "")


def _check_value(check: Check, value: Any, path: str, hint: str) -> None:
    """A value of an event field of annotation ``hint`` (str, int, bool, squares, tuples
    of those, optional)."""
    if value is None and ("None" in hint):
        return
    if hint in ("str", "str | None"):
        check.text(value, path)
    elif hint == "int":
        check.integer(value, path, -INT32 - 1, INT32)
    elif hint == "bool":
        check.boolean(value, path)
    elif hint.startswith("tuple[tuple[int, int], ...]"):
        for i, square in enumerate(check.listed(value, path, 10**6)):
            _check_pair(check, square, f"{path}[{i}]")
    elif hint.startswith("tuple[int, int]"):
        _check_pair(check, value, path)
    elif hint == "tuple[int, ...]":
        for i, number in enumerate(check.listed(value, path, 10**6)):
            check.integer(number, f"{path}[{i}]", -INT32 - 1, INT32)
    elif hint == "tuple[str, ...]":
        for i, text in enumerate(check.listed(value, path, 10**6)):
            check.text(text, f"{path}[{i}]")
    else:
        raise check.fail(path, f"a value of type {hint}", value)


def _check_pair(check: Check, value: Any, path: str) -> None:
    if type(value) is not list or len(value) != 2:
        raise check.fail(path, "a square [x, y]", value)
    for i in (0, 1):
        check.integer(value[i], f"{path}[{i}]", -INT32 - 1, INT32)
