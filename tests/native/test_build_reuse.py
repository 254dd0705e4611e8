"""The native engine builds once across pip installs (issue 50).

pip builds every install in a new isolated environment (/tmp/pip-build-env-<random>/)
holding nanobind; when CMake compiled nanobind's sources and headers from there, the
second README command (`pip install -e ".[test,rl,ray]"` after `pip install -e .`) saw
new compile commands and recompiled the whole engine. CMakeLists.txt copies nanobind
into the build directory; this configures (no compiling: about a second) the same build
directory with nanobind at two places, the first removed as pip removes its environment,
and checks that ninja's compile commands did not change.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

nanobind = pytest.importorskip("nanobind")
if shutil.which("cmake") is None or shutil.which("ninja") is None:
    pytest.skip("cmake and ninja are needed to configure the build", allow_module_level=True)


def _configure(build: Path, nanobind_parent: Path) -> str:
    environment = dict(os.environ, PYTHONPATH=str(nanobind_parent))
    subprocess.run(
        ["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
         f"-DPython_EXECUTABLE={sys.executable}"],
        check=True, capture_output=True, env=environment,
    )
    return subprocess.run(
        ["ninja", "-C", str(build), "-t", "commands"],
        check=True, capture_output=True, text=True,
    ).stdout


def test_a_second_isolated_build_environment_keeps_every_compile_command(tmp_path):
    package = Path(nanobind.__file__).parent
    first, second = tmp_path / "first-env", tmp_path / "second-env"
    shutil.copytree(package, first / "nanobind")
    shutil.copytree(package, second / "nanobind")
    build = tmp_path / "build"
    commands_first = _configure(build, first)
    assert str(first) not in commands_first
    shutil.rmtree(first)  # pip deletes its isolated environment after the install
    commands_second = _configure(build, second)
    assert "nanobind" in commands_first and "_native" in commands_first
    assert commands_second == commands_first
