"""The paths a user hands ``fray``, checked at the edge (issue 50): argparse ``type=``
functions, so a bad path is one line naming the option, exit 2, before any work.

- :func:`output_folder` (``--out`` of tournament, demo, fuzz, sweep, ladder, exploits,
  compare, train): created with its parents when the command writes; refused when it, or
  a folder above it, is a file.
- :func:`output_file` (``--gif``, ``--html``, ``--json``, headroom's ``--out``): refused
  when it is a folder, or when the folder above its own folder does not exist: fray
  creates at most the file's own folder (``--html pages/duel.html`` makes ``pages/``), not
  a tree (a typo in a path would otherwise leave a tree of empty folders).
- :func:`input_file` (a replay to read): refused when it is a folder (a missing file is
  the reader's message).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def _file_above(path: Path) -> Path | None:
    """The nearest existing path above ``path``, when it is a file rather than a folder."""
    for parent in path.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


def output_folder(value: str) -> str:
    """``value`` if fray can make it a folder (it is one, or it and its missing parents
    can be created); ``argparse.ArgumentTypeError`` otherwise."""
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: expected a folder, found a file")
    above = _file_above(path)
    if above is not None:
        raise argparse.ArgumentTypeError(f"{value}: {above} is a file, not a folder")
    return value


def output_file(value: str) -> str:
    """``value`` if it names a file in an existing folder; ``argparse.ArgumentTypeError``
    otherwise."""
    path = Path(value)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: expected a file, found a folder")
    above = _file_above(path)
    if above is not None:
        raise argparse.ArgumentTypeError(f"{value}: {above} is a file, not a folder")
    if not path.parent.is_dir() and not path.parent.parent.is_dir():
        raise argparse.ArgumentTypeError(
            f"{value}: the folder {path.parent.parent} does not exist (fray creates at most "
            "the file's own folder)")
    return value


def input_file(value: str) -> str:
    """``value`` unless it is a folder (``argparse.ArgumentTypeError``)."""
    if Path(value).is_dir():
        raise argparse.ArgumentTypeError(f"{value}: expected a file, found a folder")
    return value
