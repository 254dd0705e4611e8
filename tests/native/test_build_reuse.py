"""The native engine builds once across pip installs (issue 50).

The README's second command (`pip install -e ".[test,rl,ray]"` after `pip install -e .`)
recompiled the whole engine, for two reasons, both from pip building every install in a
new isolated environment (/tmp/pip-build-env-<random>/):

- nanobind's sources and headers came from that environment: every compile command
  changed. CMakeLists.txt now copies nanobind into the build directory.
- scikit-build-core, seeing a new environment, deletes the build directory's top-level
  CMakeCache.txt and CMakeFiles/, where the objects were. The engine's targets are now
  defined in rules/native/CMakeLists.txt, so their objects are under rules/native/.

This configures (no compiling: about a second each) one build directory with nanobind
at one place, then as pip and scikit-build-core do for the next install (the first
environment removed, the cache cleared) with nanobind at another, and checks that ninja's
commands are the same and that no compiled object lies where the clearing reaches.
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


def _objects(build: Path) -> list[str]:
    targets = subprocess.run(["ninja", "-C", str(build), "-t", "targets", "all"],
                             check=True, capture_output=True, text=True).stdout
    return [line.split(":")[0] for line in targets.splitlines()
            if line.split(":")[0].endswith(".o")]


def test_a_second_isolated_build_environment_reuses_every_object(tmp_path):
    package = Path(nanobind.__file__).parent
    first, second = tmp_path / "first-env", tmp_path / "second-env"
    shutil.copytree(package, first / "nanobind")
    shutil.copytree(package, second / "nanobind")
    build = tmp_path / "build"
    commands_first = _configure(build, first)
    assert str(first) not in commands_first
    objects = _objects(build)
    assert any("nanobind" in name for name in objects)
    assert any("_native.dir" in name for name in objects)
    # what scikit-build-core clears when the isolated environment changed (its cmake.py)
    cleared = [name for name in objects if name.startswith("CMakeFiles/")]
    assert cleared == []
    shutil.rmtree(first)  # pip deletes its isolated environment after the install
    (build / "CMakeCache.txt").unlink()
    shutil.rmtree(build / "CMakeFiles")
    commands_second = _configure(build, second)
    assert commands_second == commands_first
    assert _objects(build) == objects
