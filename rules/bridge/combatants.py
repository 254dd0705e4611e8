"""The engine's state on the native engine (issue 23): compiled content and combatants
(``rules/native/core/content.cpp`` and ``rules/native/core/combatant.cpp``), built from the Python
objects, with every derived value of :class:`rules.combatant.Combatant` (S17, S19-S21,
H3-H6, H12) computed in C++ with the same arithmetic in the same order.

:mod:`rules.combatant` stays the reference; :mod:`rules.bridge.battle_state` builds every
native battle's roster with this module.
``tests/native/test_combatant_differential.py`` checks that both agree exactly.

- :func:`compile_content` compiles a :class:`~rules.content.Content` once (cached per
  Content object): its ids interned to small integers, table by table, in dict order.
- :func:`native_roster` builds a battle's combatants (in the order given: scenario
  order) as one ``rules._native.Roster``; :func:`native_combatant` one combatant alone.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

from rules import engine
from rules.combatant import Combatant
from rules.content import Content

#: id(content) -> (a weak reference to it, its compiled tables); an entry goes with its
#: Content object.
_COMPILED: dict[int, tuple[weakref.ReferenceType[Content], Any]] = {}


def _module() -> Any:
    """The compiled module, holding the engine state (``rules.engine.require_native``)."""
    return engine.require_native("Roster", "the engine state")


def compile_content(content: Content) -> Any:
    """``content`` as the engine's compiled tables (a ``rules._native.CompiledContent``),
    compiled once per Content object."""
    key = id(content)
    kept = _COMPILED.get(key)
    if kept is not None and kept[0]() is content:
        return kept[1]
    compiled = _module().CompiledContent(content)

    def forget(_: object, key: int = key) -> None:
        _COMPILED.pop(key, None)

    _COMPILED[key] = (weakref.ref(content, forget), compiled)
    return compiled


def _compiled_for(combatants: list[Combatant], compiled: Any | None) -> Any:
    if compiled is not None:
        return compiled
    if not combatants:
        raise ValueError("native_roster: no combatants and no compiled content")
    return compile_content(combatants[0].c)


def native_roster(combatants: Iterable[Combatant], compiled: Any | None = None) -> Any:
    """The combatants (in the order given) as a ``rules._native.Roster``; ``compiled``
    defaults to the first combatant's content, compiled."""
    listed = list(combatants)
    return _module().Roster(_compiled_for(listed, compiled), listed)


def native_combatant(combatant: Combatant, compiled: Any | None = None) -> Any:
    """One combatant as a ``rules._native.Roster`` of one (index 0); the other
    combatants it names (grappled_by, riding, ...) are ids of the roster's table."""
    return native_roster([combatant], compiled)
