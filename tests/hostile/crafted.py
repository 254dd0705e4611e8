"""Crafted hostile inputs shared by tests/hostile (issue 46): content folders, scenarios,
replays and model files edited the way a stranger's file could be."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from rules.content.loader import DATA_DIR
from rules.scenario import scenario_dir


def content_folder(tmp_path: Path, file: str | None = None, pattern: str = "",
                   replacement: str = "", name: str = "content") -> Path:
    """A copy of the shipped content with ``pattern`` replaced once in ``file``."""
    folder = tmp_path / name
    shutil.copytree(DATA_DIR, folder)
    if file is not None:
        path = folder / file
        text, count = re.subn(pattern, replacement, path.read_text(encoding="utf-8"), count=1,
                              flags=re.MULTILINE)
        assert count == 1, (file, pattern)
        path.write_text(text, encoding="utf-8")
    return folder


def scenario_file(tmp_path: Path, pattern: str = "", replacement: str = "",
                  base: str = "duel", name: str = "crafted.toml") -> Path:
    """The shipped scenario ``base`` with ``pattern`` replaced once (or added at the end
    when ``pattern`` is empty)."""
    text = (scenario_dir() / f"{base}.toml").read_text(encoding="utf-8")
    if pattern:
        text, count = re.subn(pattern, replacement, text, count=1, flags=re.MULTILINE)
        assert count == 1, pattern
    else:
        text += replacement
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def replay_data() -> dict[str, Any]:
    """A short real replay of duel (random against random), as its JSON data."""
    from experiments.replay import play

    _, replay = play("duel", 3, {"party": "random", "monsters": "random"})
    return replay.to_dict()


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def deep_json(depth: int) -> str:
    """A JSON array nested ``depth`` deep."""
    return "[" * depth + "]" * depth
