"""DESIGN.md "Layout": rules imports nothing above it; env imports only rules (never
``agents``: docs/architecture.md, "env never imports agents")."""

from __future__ import annotations

import ast
import re
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


#: The packages above rules/: they use the native engine through ``rules.bridge``'s public
#: names only (issue 47).
ABOVE_RULES = ("env", "agents", "experiments")
PRIVATE_ENGINE_FIELD = "_driver"  # Battle's native driver, and anything named like it
#: Ray's ``ray.init(log_to_driver=...)`` keyword (Ray's "driver" is the process that starts
#: it): the one word containing the field's name that is allowed, as a whole word
RAY_KEYWORD = re.compile(r"\blog_to_driver\b")


def bridge_public_names() -> set[str]:
    """``rules.bridge.__all__``, read from its source (nothing imported)."""
    tree = ast.parse((ROOT / "rules" / "bridge" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "__all__"):
            return set(ast.literal_eval(node.value))
    raise AssertionError("rules/bridge/__init__.py has no __all__")


def bridge_misuses(source: str, public: set[str]) -> list[str]:
    """What a module above rules/ must not do, as ``line: what``: name the private engine
    field (``_driver``, anywhere in its text), import a module inside ``rules.bridge``, or
    import or read a ``rules.bridge`` name outside its ``__all__``."""
    found = [f"{number}: names {PRIVATE_ENGINE_FIELD}"
             for number, line in enumerate(source.splitlines(), 1)
             if PRIVATE_ENGINE_FIELD in RAY_KEYWORD.sub("", line)]
    tree = ast.parse(source)
    bridge_names = {"bridge"}  # local names bound to the package rules.bridge
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("rules.bridge."):
                found.append(f"{node.lineno}: imports {node.module}")
            elif node.module == "rules.bridge":
                found += [f"{node.lineno}: imports rules.bridge.{alias.name}"
                          for alias in node.names if alias.name not in public]
            elif node.module == "rules":
                bridge_names |= {alias.asname or alias.name for alias in node.names
                                 if alias.name == "bridge"}
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("rules.bridge."):
                    found.append(f"{node.lineno}: imports {alias.name}")
                elif alias.name == "rules.bridge" and alias.asname:
                    bridge_names.add(alias.asname)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr in public:
            continue
        owner = node.value
        if (isinstance(owner, ast.Name) and owner.id in bridge_names) or (
                isinstance(owner, ast.Attribute) and owner.attr == "bridge"
                and isinstance(owner.value, ast.Name) and owner.value.id == "rules"):
            found.append(f"{node.lineno}: reads rules.bridge.{node.attr}")
    return found


def test_env_agents_and_experiments_use_the_bridge_by_its_public_names() -> None:
    """Issue 47, one seam: no module of env/, agents/ or experiments/ names ``_driver``
    (``grep -rn _driver env agents experiments`` finds nothing) or reaches into the
    bridge past ``rules.bridge.__all__``."""
    public = bridge_public_names()
    found = [f"{path.relative_to(ROOT).as_posix()}:{entry}"
             for package in ABOVE_RULES for path in sorted((ROOT / package).rglob("*.py"))
             for entry in bridge_misuses(path.read_text(encoding="utf-8"), public)]
    assert not found, "private engine glue used outside rules/:\n" + "\n".join(found)


def test_the_bridge_check_sees_every_way_in() -> None:
    public = {"twin_of"}
    assert bridge_misuses("from rules import bridge\nbridge.twin_of(agent)\n", public) == []
    assert bridge_misuses("ray.init(log_to_driver=False)\n", public) == []  # Ray's word
    planted = {
        "battle._driver.loop\n": "1: names _driver",
        "from rules.bridge.driver import NativeDriver\n": "1: imports rules.bridge.driver",
        "import rules.bridge.agents\n": "1: imports rules.bridge.agents",
        "from rules.bridge import twin_of, engine_parts\n":
            "1: imports rules.bridge.engine_parts",
        "from rules import bridge as glue\nglue.native_parts(b)\n":
            "2: reads rules.bridge.native_parts",
        "import rules\nrules.bridge.start.started_driver(s)\n": "2: names _driver",
        "import rules\nrules.bridge.start\n": "2: reads rules.bridge.start",
        "ray.init(log_to_driver=False)\nbattle._driver\n": "2: names _driver",
        "ray.init(log_to_driver=False, x=b._driver)\n": "1: names _driver",
        "def f():\n    from rules import bridge\n    return bridge.driver\n":
            "3: reads rules.bridge.driver",
    }
    for source, expected in planted.items():
        assert expected in bridge_misuses(source, public), source


def test_the_bridge_sits_below_battle() -> None:
    """Issue 47: ``rules.battle`` imports the bridge; no bridge module reaches
    ``rules.battle`` (imports inside functions too, ``TYPE_CHECKING`` aside), and the
    shipped package holds no test-only glue module (they live in tests/native/glue/)."""
    graph = Graph()
    bridge = sorted(name for name in graph.edges if name.startswith("rules.bridge"))
    assert bridge, "no rules.bridge modules"
    reaching = []
    for start in bridge:
        seen, frontier = {start}, [start]
        while frontier:
            following = [target for node in frontier for target in graph.edges[node]
                         if target not in seen]
            seen.update(following)
            frontier = following
        if "rules.battle" in seen:
            reaching.append(start)
    assert not reaching, f"bridge modules importing rules.battle: {reaching}"
    assert any(target.startswith("rules.bridge") for target in graph.edges["rules.battle"])
    flat = sorted(path.name for path in (ROOT / "rules").glob("native_*.py"))
    assert not flat, f"native glue outside rules/bridge/: {flat}"


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
