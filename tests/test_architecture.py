"""DESIGN.md "Layout": rules imports nothing above it; env imports only rules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_RULES = {"gymnasium", "pettingzoo", "torch", "env", "agents", "experiments",
                      "stable_baselines3", "sb3_contrib", "ray", "matplotlib", "random"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("path", sorted((ROOT / "rules").rglob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_rules_imports_nothing_above_it(path: Path) -> None:
    bad = imported_roots(path) & FORBIDDEN_IN_RULES
    assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("path", sorted((ROOT / "env").rglob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_env_imports_only_rules_of_the_project(path: Path) -> None:
    bad = imported_roots(path) & {"experiments"}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_importing_rules_loads_no_forbidden_module() -> None:
    """At run time too: importing rules (and playing a battle) pulls in none of them."""
    code = (
        "import sys, rules\n"
        "b = rules.Battle.from_scenario('duel', seed=1)\n"
        "b.apply(b.legal_actions()[0])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{sorted(FORBIDDEN_IN_RULES - {'random'})!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout.strip() == ""
