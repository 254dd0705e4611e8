"""The native engine's fallback (issue 23): without rules._native fray runs on the Python
engine, and says so in one line only when something asks for the native engine."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from rules import engine

ROOT = Path(__file__).resolve().parents[2]
#: Makes `import rules._native` fail as it does where the extension was not built.
BLOCK_NATIVE = "import sys; sys.modules['rules._native'] = None\n"


@pytest.fixture
def without_native(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rules._native", None)
    monkeypatch.setattr(engine, "_loaded", {})
    monkeypatch.setattr(engine, "_missing_reason", {})
    monkeypatch.setattr(engine, "_warned", [])
    monkeypatch.delenv(engine.ENVIRONMENT_VARIABLE, raising=False)


def test_missing_native_falls_back_with_one_warning(
        without_native: None, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="fray.engine")
    assert engine.native_module() is None
    assert not engine.native_available()
    assert engine.resolve() == "python"
    assert engine.resolve("native") == "python"
    assert len(caplog.records) == 1
    message = caplog.records[0].getMessage()
    assert "\n" not in message
    assert "native engine is not available (ModuleNotFoundError" in message  # why
    assert "rules._native" in message
    assert "C++20 compiler" in message and "pip install -e ." in message  # how


def test_asking_for_python_never_warns(
        without_native: None, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.WARNING, logger="fray.engine")
    assert engine.resolve("python") == "python"
    monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, "python")
    assert engine.resolve() == "python"
    assert caplog.records == []


def test_the_environment_picks_the_engine(
        without_native: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, "native")
    assert engine.resolve() == "python"  # asked for, not built: the fallback
    monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, "cython")
    expected = "FRAY_ENGINE: expected 'native' or 'python', got 'cython'"
    with pytest.raises(ValueError, match=expected):
        engine.resolve()
    with pytest.raises(ValueError, match="engine: expected 'native' or 'python', got 'C'"):
        engine.resolve("C")


def test_native_is_the_default_when_built(monkeypatch: pytest.MonkeyPatch) -> None:
    if not engine.native_available():
        pytest.skip("the native engine is not built (no C++ compiler at install)")
    monkeypatch.delenv(engine.ENVIRONMENT_VARIABLE, raising=False)
    assert engine.resolve() == "native"
    assert engine.resolve("python") == "python"


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True)


def test_a_process_without_native_prints_one_line_and_plays_on() -> None:
    """In a fresh process (no logging set up): importing prints nothing; the first battle
    (native by default) prints one line on stderr and plays on the Python engine; later
    requests print nothing more."""
    out = run_python(BLOCK_NATIVE + "import rules, rules.engine\n")
    assert out.stderr == ""
    out = run_python(
        BLOCK_NATIVE
        + "import rules\n"
        "battle = rules.Battle.from_scenario('duel', seed=1)\n"
        "battle.apply(battle.legal_actions()[0])\n"
        "again = rules.Battle.from_scenario('duel', seed=2, engine='native')\n"
        "print(battle.engine, again.engine)\n")
    assert out.stdout.split() == ["python", "python"]
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fray: the native engine is not available")
    out = run_python(
        BLOCK_NATIVE
        + "import rules.engine\n"
        "print(rules.engine.resolve(), rules.engine.resolve('native'), rules.engine.resolve())\n")
    assert out.stdout.split() == ["python", "python", "python"]
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fray: the native engine is not available")


def test_a_native_part_names_why_it_cannot_run(without_native: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """rules.engine.require_native: the one check every rules/native_*.py adapter makes."""
    with pytest.raises(RuntimeError, match="native engine is not available"):
        engine.require_native("Roster", "the engine state")
    stale = type(sys)("rules._native")  # a module built before the engine state existed
    monkeypatch.setitem(engine._loaded, engine.NATIVE_MODULE, stale)
    assert engine.missing_native("Roster", "the engine state") == (
        "rules._native was built before the engine state: run `pip install -e .` again in "
        "the checkout")
    with pytest.raises(RuntimeError, match="built before the engine state"):
        engine.require_native("Roster", "the engine state")
    stale.Roster = object  # type: ignore[attr-defined]
    assert engine.require_native("Roster", "the engine state") is stale


def test_an_installed_copy_is_told_to_reinstall_not_to_run_pip_install_e(
        without_native: None, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Issue 50: a non-editable install has no rules/native/ sources (wheel.exclude), so
    `pip install -e .` there would install whatever folder the user is in."""
    assert "pip install -e ." in engine.fallback_message()  # this checkout
    installed = tmp_path / "site-packages" / "rules"
    installed.mkdir(parents=True)
    monkeypatch.setattr(engine, "__file__", str(installed / "engine.py"))
    message = engine.fallback_message()
    assert "pip install -e" not in message
    assert "reinstall fray from its source folder" in message
