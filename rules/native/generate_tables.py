"""The C++ tables that restate Python ones, written from the Python at build time (issue 47).

rules/native/CMakeLists.txt runs this script before compiling the engine (and again
whenever one of its sources changes)::

    python rules/native/generate_tables.py --root <checkout> --out <build>/generated

It writes two headers, each included by the layer that reads it:

- ``rules_tables.hpp`` (core, from ``rules/actions.py``): ``ActionKind`` and
  ``DecisionKind`` with their names and values, the Action fields each kind carries, the
  ``ACTION_SPECS`` columns the engine reads (category, frame, provokes, rate,
  destination), the generator groups in order (``rules.legal.TURN_GROUPS``, as the
  ``FRAY_TURN_GROUPS`` list of the C++ generators' names) and ``ATTACK_MODES``;
- ``env_tables.hpp`` (env, from ``env/observation.py``): the planes, and the unit and
  global features by name (``FRAY_UNIT_FEATURES``: each one the name of a C++ function
  in env_observation.cpp, so a feature without its C++ fails the build).

Only the standard library is used, because pip builds in an isolated environment that
holds the build requirements alone: ``rules/actions.py`` (which imports nothing but the
standard library) is loaded from its file, without the ``rules`` package and its numpy;
``env/observation.py`` (numpy, gymnasium) is read, not imported: its tables are literal
names, parsed from the syntax tree. A row the script cannot read (a kind without an
``ACTION_SPECS`` row, a feature whose name is not a literal, a column value the engine
has no word for) stops it with a ``TableError`` naming the file and the row, which fails
the build; it never writes a default.

Each header ends with ``FRAY_..._TABLES_DIGEST``, a digest of its tables, which the module
exposes (``rules._native.TABLES_DIGEST``) so that tests/native/test_generated_tables.py
can check that the module was built from the Python tables of the checkout it runs in.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

#: each generated header and the engine layer that may include it
#: (tests/native/test_native_layers.py)
HEADERS = {"rules_tables.hpp": "core", "env_tables.hpp": "env"}
#: the Python files the headers are written from (CMake's DEPENDS)
SOURCES = ("rules/actions.py", "env/observation.py")

#: the words of ACTION_SPECS' columns the engine knows (turns.cpp, legal.cpp, combat.cpp)
CATEGORIES = ("move", "attack", "full", "free", "reaction", "spell", "none")
FRAMES = (None, "move", "act", "ride")
RATES = (None, "half", "whole")
WEAPON_KINDS = ("melee", "missile")


class TableError(Exception):
    """A Python table the script cannot turn into C++ (names the file and the row)."""


def load_actions(root: Path) -> ModuleType:
    """``rules/actions.py`` of the checkout at ``root``, loaded from its file alone."""
    path = root / "rules" / "actions.py"
    name = "_fray_generate_tables_actions"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TableError(f"{path}: cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def _literal_names(tree: ast.Module, path: Path, table: str, pairs: bool) -> list[str]:
    """The names of ``table``, a module-level tuple of literal strings (``pairs``: of
    (literal name, value) pairs), read from the syntax tree of ``path``."""
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
        if isinstance(target, ast.Name) and target.id == table:
            value = node.value
            break
    else:
        raise TableError(f"{path}: no module-level {table} = (...)")
    if not isinstance(value, ast.Tuple):
        raise TableError(f"{path}: {table} is not a tuple literal (line {value.lineno})")
    names = []
    for row in value.elts:
        name = row.elts[0] if pairs and isinstance(row, ast.Tuple) and row.elts else row
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            raise TableError(f"{path}: {table} row at line {row.lineno}: expected a literal "
                             f"name{' first in a (name, value) pair' if pairs else ''}, found "
                             f"{ast.unparse(row)[:60]}")
        if not name.value.isidentifier():
            raise TableError(f"{path}: {table} row at line {row.lineno}: {name.value!r} is "
                             "not an identifier (it names a C++ function or enumerator)")
        names.append(name.value)
    if len(set(names)) != len(names):
        raise TableError(f"{path}: {table} names a row twice: {sorted(names)}")
    return names


def observation_tables(root: Path) -> dict[str, list[str]]:
    """PLANES, the unit and the global features' names, from ``env/observation.py``."""
    path = root / "env" / "observation.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return {"planes": _literal_names(tree, path, "PLANES", pairs=False),
            "units": _literal_names(tree, path, "UNIT_FEATURE_SPECS", pairs=True),
            "globals": _literal_names(tree, path, "GLOBAL_FEATURE_SPECS", pairs=True)}


def _word(value: Any, known: Iterable[Any], what: str, row: str) -> Any:
    if value not in tuple(known):
        raise TableError(f"rules/actions.py: ACTION_SPECS[{row}].{what} is {value!r}; the "
                         f"engine knows {list(known)} (add the C++ for it, then the word here)")
    return value


def _string(value: str | None) -> str:
    return '""' if value is None else f'"{value}"'


def _array(type_: str, name: str, size: str, items: list[str], per_line: int = 1) -> str:
    lines = [", ".join(items[i:i + per_line]) + "," for i in range(0, len(items), per_line)]
    body = "\n".join(f"    {line}" for line in lines)
    return f"inline constexpr std::array<{type_}, {size}> {name} = {{{{\n{body}\n}}}};\n"


def _x_list(macro: str, names: list[str]) -> str:
    body = " \\\n".join(f"  X({name})" for name in names)
    return f"#define {macro}(X) \\\n{body}\n"


def rules_tables(actions: ModuleType) -> str:
    """The body of rules_tables.hpp (see the module's docstring)."""
    kinds = list(actions.ActionKind)
    specs = actions.ACTION_SPECS
    missing = [kind.name for kind in kinds if kind not in specs]
    if missing:
        raise TableError(f"rules/actions.py: ACTION_SPECS has no row for {missing}")
    out = ["namespace fray::actions {\n",
           "// rules.actions.ActionKind, in member order (the env codec's block order).\n",
           "enum class ActionKind : std::uint8_t {\n"
           + "".join(f"  {kind.name},\n" for kind in kinds) + "};\n",
           f"inline constexpr std::size_t ACTION_KIND_COUNT = {len(kinds)};\n",
           _array("std::string_view", "ACTION_KIND_NAMES", "ACTION_KIND_COUNT",
                  [f'"{kind.name}"' for kind in kinds], 4),
           _array("std::string_view", "ACTION_KIND_VALUES", "ACTION_KIND_COUNT",
                  [f'"{kind.value}"' for kind in kinds], 4),
           "\n// rules.actions.FIELDS as bits, and the fields each kind may carry.\n",
           "enum FieldBit : std::uint8_t { "
           + ", ".join(f"{field.upper()} = {1 << i}" for i, field in enumerate(actions.FIELDS))
           + " };\n"]
    fields = []
    for kind in kinds:
        bits = [field.upper() for field in actions.FIELDS if field in specs[kind].fields]
        fields.append(f"{' | '.join(bits) or '0'} /* {kind.name} */")
    out.append(_array("std::uint8_t", "ACTION_FIELDS", "ACTION_KIND_COUNT", fields))
    out.append("\n// The ACTION_SPECS columns the engine reads, one row per kind in ActionKind "
               "order\n// (\"\" for None); turns.cpp and legal.cpp turn the words into their "
               "enums at\n// compile time, so a word they do not know fails the build.\n"
               "struct ActionSpecRow {\n  std::string_view category;\n  bool provokes;\n"
               "  std::string_view frame;\n  std::string_view rate;\n  bool destination;\n"
               "  std::string_view generator;\n};\n")
    rows = []
    for kind in kinds:
        spec = specs[kind]
        rows.append("{" + ", ".join((
            _string(_word(spec.category, CATEGORIES, "category", kind.name)),
            "true" if spec.provokes else "false",
            _string(_word(spec.frame, FRAMES, "frame", kind.name)),
            _string(_word(spec.rate, RATES, "rate", kind.name)),
            "true" if spec.destination else "false",
            _string(spec.generator))) + f"}} /* {kind.name} */")
    out.append(_array("ActionSpecRow", "ACTION_SPEC_ROWS", "ACTION_KIND_COUNT", rows))
    decisions = list(actions.DecisionKind)
    missing = [kind.name for kind in decisions if kind not in actions.DECISION_SPECS]
    if missing:
        raise TableError(f"rules/actions.py: DECISION_SPECS has no row for {missing}")
    out += ["\n// rules.actions.DecisionKind, in member order (the env's index order).\n",
            "enum class DecisionKind : std::uint8_t { "
            + ", ".join(kind.name for kind in decisions) + " };\n",
            f"inline constexpr std::size_t DECISION_KIND_COUNT = {len(decisions)};\n",
            _array("std::string_view", "DECISION_KIND_NAMES", "DECISION_KIND_COUNT",
                   [f'"{kind.name}"' for kind in decisions], 4),
            _array("std::string_view", "DECISION_KIND_VALUES", "DECISION_KIND_COUNT",
                   [f'"{kind.value}"' for kind in decisions], 4),
            "}  // namespace fray::actions\n\n"]
    groups = list(dict.fromkeys(spec.generator for spec in specs.values()
                                if spec.generator is not None))
    out.append("// rules.legal.TURN_GROUPS: the legal-action generator groups in ACTION_SPECS "
               "order,\n// each the name of its generator in legal.cpp.\n")
    out.append(_x_list("FRAY_TURN_GROUPS", groups))
    modes = actions.ATTACK_MODES
    out += ["\nnamespace fray::frames {\n",
            "// rules.actions.ATTACK_MODES, in order: each mode, the kind that rolls it, "
            "whether it is a\n// missile attack and whether it is a manoeuvre (H19).\n",
            "enum class AttackMode : std::uint8_t { " + ", ".join(modes) + " };\n",
            f"inline constexpr std::size_t ATTACK_MODE_COUNT = {len(modes)};\n",
            _array("std::string_view", "kAttackModeNames", "ATTACK_MODE_COUNT",
                   [f'"{mode}"' for mode in modes], 5),
            _array("actions::ActionKind", "kAttackModeKinds", "ATTACK_MODE_COUNT",
                   [f"actions::ActionKind::{spec.kind.name}" for spec in modes.values()], 2),
            _array("bool", "kAttackModeMissile", "ATTACK_MODE_COUNT",
                   ["true" if spec.missile else "false" for spec in modes.values()], 9),
            _array("bool", "kAttackModeManoeuvre", "ATTACK_MODE_COUNT",
                   ["true" if spec.manoeuvre else "false" for spec in modes.values()], 9),
            "}  // namespace fray::frames\n"]
    return "".join(out)


def env_tables(tables: dict[str, list[str]]) -> str:
    """The body of env_tables.hpp (see the module's docstring)."""
    planes = tables["planes"]
    return "".join([
        "namespace fray::env {\n",
        "// env.observation.PLANES, in order.\n",
        "enum Plane : int {\n" + "".join(f"  {name.upper()},\n" for name in planes)
        + "  PLANE_COUNT\n};\n",
        "// len(UNIT_FEATURES) and len(GLOBAL_FEATURES).\n",
        f"inline constexpr int UNIT_FEATURE_COUNT = {len(tables['units'])};\n",
        f"inline constexpr int GLOBAL_FEATURE_COUNT = {len(tables['globals'])};\n",
        "}  // namespace fray::env\n\n",
        "// env.observation.UNIT_FEATURE_SPECS' names, in column order: each the name of its\n"
        "// function in env_observation.cpp (namespace unit_feature).\n",
        _x_list("FRAY_UNIT_FEATURES", tables["units"]),
        "// env.observation.GLOBAL_FEATURE_SPECS' names, in order (namespace global_feature).\n",
        _x_list("FRAY_GLOBAL_FEATURES", tables["globals"]),
    ])


def _header(name: str, sources: str, body: str) -> str:
    digest = hashlib.sha256(body.encode()).hexdigest()[:16]
    macro = f"FRAY_{name.removesuffix('.hpp').upper()}_DIGEST"
    return (f"// {name}: generated by rules/native/generate_tables.py from {sources} at build\n"
            "// time. Do not edit: change the Python and rebuild.\n"
            "#pragma once\n\n#include <array>\n#include <cstddef>\n#include <cstdint>\n"
            f"#include <string_view>\n\n{body}\n#define {macro} \"{digest}\"\n")


def render(root: Path) -> dict[str, str]:
    """Each header's text, from the Python sources of the checkout at ``root``."""
    return {"rules_tables.hpp": _header("rules_tables.hpp", "rules/actions.py",
                                        rules_tables(load_actions(root))),
            "env_tables.hpp": _header("env_tables.hpp", "env/observation.py",
                                      env_tables(observation_tables(root)))}


def write(root: Path, out: Path) -> list[Path]:
    """Write the headers into ``out``; a header whose text is unchanged is left as it is
    (its time too, so nothing that includes it is recompiled). Returns the ones written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render(root).items():
        path = out / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="the checkout")
    parser.add_argument("--out", type=Path, required=True, help="where the headers go")
    args = parser.parse_args(argv)
    try:
        write(args.root, args.out)
    except (TableError, OSError, SyntaxError) as error:
        print(f"generate_tables.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
