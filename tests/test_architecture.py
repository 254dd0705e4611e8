"""DESIGN.md "Layout": rules imports nothing above it; env imports only rules (never
``agents``: docs/architecture.md, "env never imports agents")."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from import_graph import Graph

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
    bad = imported_roots(path) & {"experiments", "agents"}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_the_import_check_sees_lazy_imports_too() -> None:
    """``imported_roots`` walks the whole tree: an import inside a function counts."""
    source = ROOT / "tests" / "test_architecture.py"
    assert "subprocess" in imported_roots(source)  # imported at the top
    lazy = ast.parse("def f():\n    import agents\n    from agents.base import Agent\n")
    assert {node.names[0].name for node in ast.walk(lazy)
            if isinstance(node, ast.Import | ast.ImportFrom)} == {"agents", "Agent"}


def test_the_shipped_scenarios_are_rules_data() -> None:
    """Issue 47: rules finds its shipped scenarios in rules/data/scenarios and looks for
    no other package (no import-system search in rules/)."""
    from rules.scenario import scenario_dir

    assert scenario_dir() == ROOT / "rules" / "data" / "scenarios"
    assert sorted(path.stem for path in scenario_dir().glob("*.toml"))
    assert not (ROOT / "experiments" / "scenarios").exists()
    searching = [path.name for path in (ROOT / "rules").rglob("*.py")
                 if "find_spec(" in path.read_text(encoding="utf-8")]
    assert not searching, f"rules modules searching for packages: {searching}"


def test_no_import_cycle_among_the_package_modules() -> None:
    """Issue 47: no module of rules, env, agents or experiments imports itself round a
    circle, counting imports inside functions (``TYPE_CHECKING`` blocks aside): the
    import picture of tests/import_graph.py; each cycle is named."""
    cycles = Graph().cycles()
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_check_sees_lazy_imports_and_skips_type_checking(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "first.py").write_text("from pkg import second\n")
    (package / "second.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import third\n"
        "def late():\n    from pkg.first import x\n")
    (package / "third.py").write_text("import pkg.second\n")
    assert Graph(tmp_path, ("pkg",)).cycles() == [["pkg.first", "pkg.second", "pkg.first"]]


def test_env_loads_no_agents_module_at_run_time() -> None:
    """Importing env, then making and stepping an env (Gymnasium and PettingZoo) whose
    opponent is an agent object, loads no module of ``agents`` (nor ``experiments``)."""
    code = (
        "import sys, rules, env\n"
        "from rules import Action, ActionKind, DecisionKind\n"
        "class Passive:\n"
        "    def act(self, battle):\n"
        "        turn = battle.decision.kind is DecisionKind.TURN\n"
        "        return Action(ActionKind.END_TURN if turn else ActionKind.DECLINE)\n"
        "game = env.SkirmishEnv('duel', Passive())\n"
        "obs, _ = game.reset(seed=0)\n"
        "for _ in range(5):\n"
        "    obs, _, done, cut, _ = game.step(int(obs['action_mask'].nonzero()[0][0]))\n"
        "    if done or cut:\n"
        "        obs, _ = game.reset()\n"
        "aec = env.aec_env(scenario='duel')\n"
        "aec.reset(seed=0)\n"
        "aec.step(int(aec.observe(aec.agent_selection)['action_mask'].nonzero()[0][0]))\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('agents', 'experiments'))\n"
        "print(','.join(bad) or 'none')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout.strip() == "none"


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


def single_letter_parameters(path: Path) -> list[str]:
    """``file:line:function:parameter`` for each one-letter parameter (other than ``_``) of
    a function, method or lambda in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                          *(extra for extra in (arguments.vararg, arguments.kwarg) if extra)]
            name = getattr(node, "name", "<lambda>")
            found += [f"{path.relative_to(ROOT).as_posix()}:{node.lineno}:{name}:{parameter.arg}"
                      for parameter in parameters
                      if len(parameter.arg) == 1 and parameter.arg != "_"]
    return found


def test_no_single_letter_parameter_in_any_signature() -> None:
    """Issue 22: full words in every signature (``battle``, not ``b``) in the four packages."""
    found = [entry for package in ("rules", "env", "agents", "experiments")
             for path in sorted((ROOT / package).rglob("*.py"))
             for entry in single_letter_parameters(path)]
    assert not found, "single-letter parameters:\n" + "\n".join(found)
