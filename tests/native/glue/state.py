"""Test-only reading of native battle states (issue 47: moved out of the shipped package):
a native state's ``to_dict`` / JSON / copy as ``rules.Battle`` writes them
(tests/native/test_battle_state_roundtrip.py, test_native_start.py) and
:class:`NativeEvents`, a read-only sequence over an engine-side event log
(``rules._native.EventLog``) that builds the Python event at an index the first time it
is asked for and keeps it (tests/native/test_records.py); :meth:`NativeEvents.from_events`
goes the other way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from rules.bridge.records import native, shared_records
from rules.events import Event


def to_dict(native: Any, *, events: bool = True) -> dict[str, Any]:
    """``Battle.to_dict(events=events)`` of the battle whose state ``native`` is."""
    return native.to_dict(events=events)


def to_json(native: Any) -> str:
    """``Battle.to_json()`` of the battle whose state ``native`` is."""
    return json.dumps(native.to_dict(), sort_keys=True)


def clone(native: Any) -> Any:
    """An independent copy of ``native`` (``BattleState.copy``)."""
    return native.clone()


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
