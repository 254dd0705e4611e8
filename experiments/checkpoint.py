"""Checkpoints of long jobs, so that ``--resume`` continues a killed driver.

One mechanism for every job that has ``--resume`` (``fray balance``'s ``batches.jsonl``
and ``run.json``, ``fray fuzz``'s ``battles.jsonl`` and ``campaign.json``, ``fray
headroom``'s and the training evaluation's logs):

- each piece of finished work is appended to a JSON-lines log as it finishes (flushed),
  and :func:`read_records` reads them back; a half-written last line (the one a killed
  run was writing) is dropped and cut from the file;
- the job's arguments are kept in a JSON file beside it, and :func:`check_arguments`
  refuses to resume work done with other arguments.

A job is deterministic given its arguments, so a resumed run redoes the plan from the
start and reads the work already done from the log instead of doing it again: the same
result as a run never killed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import rules


class ResumeError(rules.FrayError):
    """A checkpoint that cannot be resumed: other arguments, a damaged log."""


def read_records(path: Path, error: type[rules.FrayError] = ResumeError
                 ) -> list[dict[str, Any]]:
    """The records logged in ``path`` (none when it does not exist). A half-written last
    line is dropped (and cut from the file, so the log goes on cleanly); a bad line
    before it is ``error``, naming the file and the line."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        try:
            if not line.endswith("\n"):
                raise ValueError("unterminated line")
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("not an object")
        except ValueError:
            if number == len(lines):
                path.write_text("".join(lines[:-1]), encoding="utf-8")
                break  # the line a killed run was writing
            raise error(f"{path}: line {number}: expected a JSON record, got "
                        f"{line[:60]!r}") from None
        records.append(record)
    return records


def append_record(handle: Any, record: Mapping[str, Any]) -> None:
    """One record on an open log, flushed (it survives the driver being killed)."""
    handle.write(json.dumps(dict(record)) + "\n")
    handle.flush()


def holds_work(log: Path) -> bool:
    """The log exists and is not empty."""
    return log.exists() and log.stat().st_size > 0


def check_arguments(path: Path, arguments: Mapping[str, Any], *, resume: bool, log: Path,
                    error: type[rules.FrayError] = ResumeError,
                    refuse_new: bool = False, what: str = "run") -> None:
    """Write the job's ``arguments`` to ``path``. With ``resume`` and work in ``log``, the
    arguments stored there must be the same (and be there); without ``resume``, a
    ``refuse_new`` job refuses a log that holds work (others start it anew)."""
    work = holds_work(log)
    if work and not resume and refuse_new:
        raise error(f"{log.parent}: already holds a {what} ({log.name}); pass --resume to "
                    f"continue it, or choose a new --out")
    if resume and work:
        if not path.exists():
            raise error(f"{path}: expected the arguments of the {what} to resume, "
                        f"found none")
        stored = json.loads(path.read_text(encoding="utf-8"))
        for key, value in arguments.items():
            if stored.get(key) != value:
                raise error(f"{path}: {key}: this {what} was run with {stored.get(key)!r}, "
                            f"got {value!r}; resume with the same arguments or choose a "
                            f"new --out")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(arguments), indent=1) + "\n", encoding="utf-8")
