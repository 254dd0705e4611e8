"""The README never lies: its two set-up commands come first and CI runs the test one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.DOTALL)
    assert block is not None, "README has no bash block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_opens_with_two_setup_commands() -> None:
    cmds = readme_commands()
    assert len(cmds) == 2
    assert cmds[0].startswith("pip install") and cmds[0].endswith("fray demo")
    assert "pytest" in cmds[1] and cmds[1].startswith("pip install")


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert readme_commands()[1] in ci
    assert "ruff check ." in ci
