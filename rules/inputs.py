"""What callers hand to the rules core, checked at the edge before anything changes.

``Battle.apply`` accepts any object. :func:`plain_action` rejects anything that is not a
well-formed :class:`~rules.actions.Action` with ``IllegalActionError`` (a kind given as a
string, a list for a square, a float coordinate, a non-Action), and returns a well-formed
one with plain Python values: numpy integers and strings (what env codecs and array
code produce) become ``int`` and ``str``, so events, logs and replays never show
``np.int64(1)``. Whether the action is *legal* is for ``legal_actions()`` to say.
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any

import numpy as np

from rules.actions import Action, ActionKind
from rules.errors import IllegalActionError


def _is_square(value: object) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and all(
        isinstance(v, int) for v in value)


#: Field -> (what it must be, check of its plain value). Other fields: any plain value.
_SHAPES = {
    "square": ("an (x, y) tuple of two integers", _is_square),
    "target": ("a combatant id (a string)", lambda value: isinstance(value, str)),
    "item": ("an item or spell id (a string)", lambda value: isinstance(value, str)),
}


def plain_action(action: object) -> Action:
    """``action`` as an Action of plain ints and strs; IllegalActionError if malformed."""
    if not isinstance(action, Action):
        raise IllegalActionError(
            f"expected a rules.Action, got {type(action).__name__} {action!r}")
    if not isinstance(action.kind, ActionKind):
        raise IllegalActionError(
            f"Action.kind: expected a rules.ActionKind (e.g. ActionKind.MOVE), got "
            f"{action.kind!r}")
    changes: dict[str, Any] = {}
    for spec in dataclasses.fields(action):
        if spec.name == "kind":
            continue
        value = getattr(action, spec.name)
        plain = _plain(value)
        expected, check = _SHAPES.get(spec.name, ("a string, an integer or a tuple of them",
                                                  lambda _: True))
        if plain is _MALFORMED or (plain is not None and not check(plain)):
            raise IllegalActionError(
                f"Action.{spec.name}: expected {expected} or None, got {value!r}")
        if _differs(plain, value):
            changes[spec.name] = plain
    return dataclasses.replace(action, **changes) if changes else action


_MALFORMED = object()


def _plain(value: object) -> object:
    """None, str, int or a tuple of them as plain Python values; _MALFORMED otherwise."""
    if value is None:
        return None
    if isinstance(value, bool | np.bool_):
        return _MALFORMED
    if isinstance(value, str):
        return str(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, tuple):
        items = tuple(_plain(v) for v in value)
        return _MALFORMED if any(v is _MALFORMED for v in items) else items
    return _MALFORMED


def _differs(plain: object, value: object) -> bool:
    """True when ``value`` holds a non-plain type (numpy scalar, str subclass) somewhere."""
    if type(plain) is not type(value):
        return True
    if isinstance(plain, tuple):
        return any(_differs(p, v) for p, v in zip(plain, value, strict=True))  # type: ignore[arg-type]
    return False
