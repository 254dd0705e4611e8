"""rules/native/ laid out by layer (issue 47), the C++ mirroring the Python packages:
``core/`` (the rules core, one file per Python rules module), ``agents/`` (the agent
twins), ``env/`` (the env twins), ``play/`` (whole battles in the engine) and
``bindings/`` (the nanobind module). Each layer includes only the layers below it; the
core includes nothing from the others."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

NATIVE = Path(__file__).resolve().parents[2] / "rules" / "native"
#: what each layer may include (itself and the layers below it)
ALLOWED = {
    "core": {"core"},
    "agents": {"core", "agents"},
    "env": {"core", "agents", "env"},
    "play": {"core", "agents", "play"},
    "bindings": {"core", "agents", "env", "play", "bindings"},
}
INCLUDE = re.compile(r'^#include "([^"]+)"', re.MULTILINE)


def _generated_headers() -> dict[str, str]:
    """The headers generate_tables.py writes into the build, each with its layer."""
    spec = importlib.util.spec_from_file_location("generate_tables", NATIVE / "generate_tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.HEADERS)


def _layer_of() -> dict[str, str]:
    return {path.name: layer for layer in ALLOWED
            for path in (NATIVE / layer).iterdir() if path.suffix in (".cpp", ".hpp")} \
        | _generated_headers()


def test_every_source_sits_in_a_layer_folder() -> None:
    loose = sorted(path.name for path in NATIVE.iterdir()
                   if path.suffix in (".cpp", ".hpp"))
    assert not loose, f"sources outside the layer folders: {loose}"
    assert sorted(path.name for path in NATIVE.iterdir()
                  if path.is_dir() and path.name != "__pycache__") == sorted(ALLOWED)


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_includes_only_the_layers_below_it(layer: str) -> None:
    where = _layer_of()
    wrong = []
    for path in sorted((NATIVE / layer).iterdir()):
        for header in INCLUDE.findall(path.read_text(encoding="utf-8")):
            target = where.get(Path(header).name)
            if target is None:
                wrong.append(f"{path.name}: {header} is no engine header")
            elif target not in ALLOWED[layer]:
                wrong.append(f"{path.name} ({layer}) includes {header} ({target})")
    assert not wrong, "\n".join(wrong)
