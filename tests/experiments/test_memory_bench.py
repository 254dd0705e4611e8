"""experiments/benchmarks/memory.py: resident memory over many battles (issue 23). The
figure itself is a measurement recorded in docs/performance.md, not asserted here."""

from __future__ import annotations

import io

from experiments.benchmarks import memory


def test_it_reports_the_resident_memory_at_every_tenth() -> None:
    out = io.StringIO()
    marks = memory.run(20, "duel", "python", out)
    lines = out.getvalue().splitlines()
    assert len(marks) == len(lines) == 10
    assert all(mark > 0 for mark in marks)
    assert lines[-1].split()[0] == "20" and "resident" in lines[-1]


def test_resident_memory_is_read_from_the_process() -> None:
    assert 1 < memory.resident_mib() < 1e6
