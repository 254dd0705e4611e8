"""The records the native engine and Python exchange (issue 23): actions, decisions and
events, as ``rules/native/core/actions.hpp`` and ``rules/native/core/events.hpp`` hold them, seen
from Python.

A :func:`new_records` object (``rules._native.Records``) holds one name table: every
string id an Action, Decision or event carries (combatant ids, item uids, content ids,
status words, success levels...) is interned to a small integer, so the engine compares
and hashes names as integers. It converts both ways:

- ``records.action(action)`` -> an ``ActionRecord`` and ``records.python_action(record)``
  -> the :class:`rules.actions.Action` equal to it. The Python Action built for a record is
  cached and returned again for an equal record (the same object), so listing the legal
  actions costs a hash lookup per action; ``records.actions(...)`` /
  ``records.python_actions(...)`` do a whole list at once. Decisions likewise.
- Events: a native state's log (``rules._native.EventLog``) interns its events' names
  in the same table and builds a Python event when it is read.

The C++ kinds and event classes are checked against :mod:`rules.actions` and
:mod:`rules.events` when a ``Records`` is made (names, values and fields, in order): a
kind or field added on one side only fails there, with both names.
"""

from __future__ import annotations

import atexit
import dataclasses
from typing import Any

from rules import engine
from rules.actions import Action, ActionKind, Decision, DecisionKind
from rules.events import EVENT_TYPES

_shared: list[Any] = []
#: Dropped at exit, before the extension is torn down (nanobind reports an instance that
#: a module global keeps alive then as a leak).
atexit.register(_shared.clear)


def native() -> Any:
    """The compiled module, holding the records (``rules.engine.require_native``)."""
    return engine.require_native("Records", "the records")


def event_fields() -> list[tuple[str, ...]]:
    """Each event class's field names, in ``EVENT_TYPES`` order."""
    return [tuple(field.name for field in dataclasses.fields(cls))
            for cls in EVENT_TYPES.values()]


def new_records() -> Any:
    """A new ``rules._native.Records``: an empty name table and action cache."""
    return native().Records(list(ActionKind), list(DecisionKind), Action, Decision,
                            list(EVENT_TYPES.values()), event_fields())


def shared_records() -> Any:
    """One ``Records`` for the process (names are ids and words from content and
    scenarios, so the table stays bounded; agents' free-text reasons are not interned)."""
    if not _shared:
        _shared.append(new_records())
    return _shared[0]
