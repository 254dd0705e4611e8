"""docs/balance.md's walk-through runs: its TOML blocks are written to the files they name
and its bash blocks run in order in a fresh folder (``fray`` as ``python -m
experiments.cli``), each succeeding; the report it tells the reader to open exists."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Balance a new monster"


def walkthrough() -> list[tuple[str, str]]:
    """(kind, text) of the section's code blocks, in order."""
    text = (ROOT / "docs" / "balance.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION):]
    section = section[:section.index("\n## ", len(SECTION))]
    return re.findall(r"```(bash|toml)\n(.*?)```", section, re.DOTALL)


def test_the_walkthrough_has_every_step() -> None:
    blocks = walkthrough()
    commands = " ".join(text for kind, text in blocks if kind == "bash")
    assert "fray knobs" in commands and "fray balance" in commands
    assert sum(kind == "toml" for kind, _ in blocks) == 2


def test_every_command_of_the_walkthrough_runs(tmp_path: Path) -> None:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    for kind, text in walkthrough():
        if kind == "toml":
            name = re.match(r"# FILE: (\S+)\n", text)
            assert name is not None, f"a TOML block names no file: {text[:40]!r}"
            (tmp_path / name.group(1)).write_text(text, encoding="utf-8")
            continue
        for line in text.strip().splitlines():
            command = re.sub(r"^fray ", f"{sys.executable} -m experiments.cli ", line)
            command = re.sub(r"^python ", f"{sys.executable} ", command)
            done = subprocess.run(command, shell=True, cwd=tmp_path, env=environment,
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, f"{line}\n{done.stderr[-2000:]}"
    result = json.loads((tmp_path / "hobgoblin-run" / "balance.json").read_text())
    assert (tmp_path / "hobgoblin-run" / "report.html").exists()
    assert set(result["recommended"]) == {"creatures.hobgoblin.skills.sword",
                                          "creatures.hobgoblin.characteristics.con",
                                          "creatures.hobgoblin.skills.listen"}
    assert result["knobs"]["creatures.hobgoblin.skills.listen"]["identical"]
