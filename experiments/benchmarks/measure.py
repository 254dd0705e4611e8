"""What every benchmark shares: a :class:`Figure` (one quantity measured over repeats)
and the timing helpers that produce one.

A figure keeps every repeat's value and reports the median with the min-max range, so a
reader sees the spread of a busy machine next to the central value. A figure that cannot
be measured here (an agent not registered yet, an optional package missing) carries no
values and a ``note`` saying why; it is still printed, so a report always lists the same
rows.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Figure:
    """One measured quantity: ``values`` per repeat (empty when ``note`` says why not)."""

    key: str
    label: str
    unit: str
    values: list[float] = field(default_factory=list)
    note: str = ""

    @property
    def median(self) -> float | None:
        return statistics.median(self.values) if self.values else None

    @property
    def low(self) -> float | None:
        return min(self.values) if self.values else None

    @property
    def high(self) -> float | None:
        return max(self.values) if self.values else None

    def to_dict(self) -> dict:
        """The JSON record of this figure."""
        return {"key": self.key, "label": self.label, "unit": self.unit,
                "median": self.median, "min": self.low, "max": self.high,
                "values": list(self.values), "note": self.note}


def unavailable(key: str, label: str, unit: str, why: str) -> Figure:
    """A figure that could not be measured here, with the reason."""
    return Figure(key, label, unit, [], why)


def rate(work: Callable[[], float], repeats: int) -> list[float]:
    """Per repeat, ``work()``'s count of units done divided by its wall-clock seconds."""
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = work()
        out.append(done / (time.perf_counter() - start))
    return out


def per_call_us(call: Callable[[], object], calls: int, repeats: int,
                clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Per repeat, the mean µs of one ``call()`` over ``calls`` calls (after one warm-up
    call), wall clock by default (``clock=time.process_time``: this process's CPU time,
    a busy machine's preemptions left out)."""
    call()
    out = []
    for _ in range(repeats):
        start = clock()
        for _ in range(calls):
            call()
        out.append((clock() - start) / calls * 1e6)
    return out


def format_number(value: float | None) -> str:
    """A figure value for the table: three significant digits, thousands separated."""
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}" if abs(value) >= 0.1 else f"{value:.3g}"
