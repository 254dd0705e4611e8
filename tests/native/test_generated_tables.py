"""The C++ tables written from the Python at build time (rules/native/generate_tables.py,
issue 47): the module was built from this checkout's tables (the digests it carries are
the ones the generator gives now), its kinds, modes and features are Python's, every
Python agent with a native twin is in the native registry, and the generator stops, naming
the file and the row, on a table it cannot take (never writing a default)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import rules.engine

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    path = ROOT / "rules" / "native" / "generate_tables.py"
    spec = importlib.util.spec_from_file_location("generate_tables", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate_tables = _generator()


def _digests(headers: dict[str, str]) -> dict[str, str]:
    return {name: re.search(r'#define FRAY_\w+_DIGEST "(\w+)"', text).group(1)
            for name, text in headers.items()}


def _checkout_copy(tmp_path: Path) -> Path:
    """The generator's sources copied under ``tmp_path`` (to break one of them)."""
    for source in generate_tables.SOURCES:
        (tmp_path / source).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / source, tmp_path / source)
    return tmp_path


def _edit(root: Path, source: str, old: str, new: str) -> None:
    path = root / source
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not once in {source}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_module_was_built_from_this_checkouts_tables() -> None:
    missing = rules.engine.missing_native("TABLES_DIGEST", "the generated tables")
    if missing is not None:
        pytest.skip(missing)
    built = rules.engine.native_module().TABLES_DIGEST
    assert built == _digests(generate_tables.render(ROOT)), (
        "rules._native was built from other Python tables than this checkout's: rebuild it")


def test_the_headers_carry_the_python_tables() -> None:
    from env.observation import GLOBAL_FEATURES, PLANES, UNIT_FEATURES
    from rules.actions import ACTION_SPECS, ATTACK_MODES, ActionKind, DecisionKind
    from rules.legal import TURN_GROUPS

    headers = generate_tables.render(ROOT)
    core, env = headers["rules_tables.hpp"], headers["env_tables.hpp"]
    enum = re.search(r"enum class ActionKind : std::uint8_t \{(.*?)\};", core, re.S).group(1)
    assert re.findall(r"\w+", enum) == [kind.name for kind in ActionKind]
    assert f"ACTION_KIND_COUNT = {len(ActionKind)};" in core
    assert f"DECISION_KIND_COUNT = {len(DecisionKind)};" in core
    rows = re.findall(r"\{(\"\w*\", (?:true|false), .*?)\} /\* (\w+) \*/", core)
    assert [name for _, name in rows] == [kind.name for kind in ActionKind]
    for row, name in rows:
        spec = ACTION_SPECS[ActionKind[name]]
        assert row.startswith(f'"{spec.category}", {str(spec.provokes).lower()}, ')
    groups = re.search(r"#define FRAY_TURN_GROUPS\(X\)(.*?)\n\n", core, re.S).group(1)
    assert re.findall(r"X\((\w+)\)", groups) == list(TURN_GROUPS)
    modes = re.search(r"enum class AttackMode : std::uint8_t \{(.*?)\};", core).group(1)
    assert re.findall(r"\w+", modes) == list(ATTACK_MODES)
    units = re.search(r"#define FRAY_UNIT_FEATURES\(X\)(.*?)\n//", env, re.S).group(1)
    assert re.findall(r"X\((\w+)\)", units) == list(UNIT_FEATURES)
    glob = re.search(r"#define FRAY_GLOBAL_FEATURES\(X\)(.*?)\n\n", env, re.S).group(1)
    assert re.findall(r"X\((\w+)\)", glob) == list(GLOBAL_FEATURES)
    planes = re.search(r"enum Plane : int \{(.*?)\};", env, re.S).group(1)
    assert re.findall(r"\w+", planes) == [plane.upper() for plane in PLANES] + ["PLANE_COUNT"]


def test_every_python_agent_with_a_native_twin_is_in_the_native_registry() -> None:
    missing = rules.engine.missing_native("NativeAgent", "the native agents")
    if missing is not None:
        pytest.skip(missing)
    import agents  # noqa: F401  (every agent class defined)
    from agents.base import SeededAgent
    from agents.tactician import Tactician

    def classes(base: type) -> list[type]:
        return [base] + [sub for direct in base.__subclasses__() for sub in classes(direct)]

    twins = {cls.__dict__.get("native_name") for cls in classes(SeededAgent)}
    twins.add(Tactician(0, step_back=True).native_agent_name())
    twins.discard(None)
    assert len(twins) >= 6  # random, berserker, tactician (and its variant), skirmisher, defender
    known = rules.engine.native_module().NativeAgent.known()
    assert twins <= set(known), sorted(twins - set(known))
    assert len(known) == len(set(known))


def test_an_unchanged_header_is_not_written_again(tmp_path: Path) -> None:
    written = generate_tables.write(ROOT, tmp_path)
    assert sorted(path.name for path in written) == sorted(generate_tables.HEADERS)
    assert generate_tables.write(ROOT, tmp_path) == []


def test_the_generator_runs_on_the_standard_library_alone(tmp_path: Path) -> None:
    """As pip's isolated build environment runs it: no site-packages (numpy, gymnasium),
    no PYTHONPATH (-I: isolated mode, -S: no site)."""
    script = ROOT / "rules" / "native" / "generate_tables.py"
    done = subprocess.run([sys.executable, "-I", "-S", str(script), "--root", str(ROOT),
                           "--out", str(tmp_path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert {path.name: path.read_text(encoding="utf-8") for path in tmp_path.iterdir()} \
        == generate_tables.render(ROOT)


def test_a_kind_without_an_action_specs_row_stops_the_generator(tmp_path, capsys) -> None:
    root = _checkout_copy(tmp_path / "checkout")
    _edit(root, "rules/actions.py", '    K.SPEAK: _row("free", False, (), (), ("S16", "H24"), '
          '"speak"),\n', "")
    status = generate_tables.main(["--root", str(root), "--out", str(tmp_path / "out")])
    assert status == 1
    assert capsys.readouterr().err.strip() == (
        "generate_tables.py: rules/actions.py: ACTION_SPECS has no row for ['SPEAK']")
    assert not (tmp_path / "out" / "rules_tables.hpp").exists()


def test_a_column_word_the_engine_does_not_know_stops_the_generator(tmp_path) -> None:
    root = _checkout_copy(tmp_path)
    _edit(root, "rules/actions.py", '"mount", frame="ride")', '"mount", frame="fly")')
    with pytest.raises(generate_tables.TableError,
                       match=r"ACTION_SPECS\[MOUNT\]\.frame is 'fly'; the engine knows "):
        generate_tables.render(root)


def test_a_feature_without_a_literal_name_stops_the_generator(tmp_path) -> None:
    root = _checkout_copy(tmp_path)
    _edit(root, "env/observation.py", '("in_dark", lambda', '(f"in_{\'dark\'}", lambda')
    with pytest.raises(generate_tables.TableError,
                       match=r"env/observation.py: UNIT_FEATURE_SPECS row at line \d+: expected "
                             r"a literal name first in a \(name, value\) pair"):
        generate_tables.render(root)
