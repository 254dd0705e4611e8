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
- Events: :class:`NativeEvents` is a read-only sequence over an engine-side event log
  (``rules._native.EventLog``) that builds the Python event at an index the first time it
  is asked for and keeps it; a battle whose events nobody reads pays for no Python event.
  :meth:`NativeEvents.from_events` goes the other way (``from_json`` restoring a log).

The C++ kinds and event classes are checked against :mod:`rules.actions` and
:mod:`rules.events` when a ``Records`` is made (names, values and fields, in order): a
kind or field added on one side only fails there, with both names.
"""

from __future__ import annotations

import atexit
import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from rules import engine
from rules.actions import Action, ActionKind, Decision, DecisionKind
from rules.events import EVENT_TYPES, Event

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


class NativeEvents(Sequence[Event]):
    """A battle's events, read from the engine's log: ``len``, indexing (negative too),
    slices (a list, as a list's slice), iteration and ``==`` with any sequence of events
    behave as on the list of :mod:`rules.events` objects the Python engine keeps.

    The event at an index is built when first asked for and kept (``built`` counts them).
    """

    __slots__ = ("_log",)

    def __init__(self, log: Any) -> None:
        self._log = log  # rules._native.EventLog

    @classmethod
    def from_events(cls, events: Iterable[Event], records: Any = None) -> NativeEvents:
        """Python events -> a native log (``records`` defaults to :func:`shared_records`).
        The events given are not kept: reading one builds it anew from its record."""
        log = native().EventLog(shared_records() if records is None else records)
        log.extend(events)
        return cls(log)

    @property
    def log(self) -> Any:
        """The engine-side ``rules._native.EventLog``."""
        return self._log

    @property
    def built(self) -> int:
        """How many Python events were built so far."""
        return self._log.built

    def __len__(self) -> int:
        return len(self._log)

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self._log))
            if step == 1:
                return self._log.get_range(start, stop) if start < stop else []
            return [self._log.get(i) for i in range(start, stop, step)]
        size = len(self._log)
        position = index.__index__()
        if position < 0:
            position += size
        if not 0 <= position < size:
            raise IndexError("event index out of range")
        return self._log.get(position)

    def __iter__(self) -> Iterator[Event]:
        index = 0
        while index < len(self._log):  # events appended meanwhile are yielded too
            yield self._log.get(index)
            index += 1

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(
            mine == theirs for mine, theirs in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __repr__(self) -> str:
        return f"NativeEvents({len(self)} events, {self.built} built)"

    def to_dicts(self) -> list[dict[str, Any]]:
        """``[event_to_dict(e) for e in self]``, built from the records without keeping
        any Python event."""
        return [self._log.dict(i) for i in range(len(self._log))]

    def copy(self) -> NativeEvents:
        """An independent log of the same events (full chunks shared), none built."""
        return NativeEvents(self._log.copy())
