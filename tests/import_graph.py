"""The import picture of the four packages (rules, env, agents, experiments), drawn from
their source: every import statement of every module, the ones inside functions too,
those under ``if TYPE_CHECKING:`` aside (they never run). tests/test_architecture.py
fails on any cycle; ``python tests/import_graph.py`` prints them.

An edge goes to the module that holds the imported name: ``from rules import queries``
to ``rules.queries``, ``from rules import Battle`` to ``rules.battle`` (followed through
the package's own re-export, ``from rules.battle import Battle`` in rules/__init__.py),
``import rules`` to the package ``rules`` itself (its __init__).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rules", "env", "agents", "experiments")


def modules(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Every module of the packages by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, ``if TYPE_CHECKING:`` blocks skipped."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                stack.extend(getattr(child, "orelse", []))
            else:
                stack.append(child)


class Graph:
    """module -> the project modules it imports (see the module docstring)."""

    def __init__(self, root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> None:
        self.paths = modules(root, packages)
        self.trees = {name: ast.parse(path.read_text(encoding="utf-8"))
                      for name, path in self.paths.items()}
        self.edges: dict[str, set[str]] = {name: set() for name in self.paths}
        for name, tree in self.trees.items():
            for node in _imports(tree):
                self.edges[name] |= set(self._targets(name, node))
            self.edges[name].discard(name)

    def _package_of(self, module: str) -> str:
        is_package = self.paths[module].name == "__init__.py"
        return module if is_package else module.rpartition(".")[0]

    def _targets(self, module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in self.paths:
                    yield alias.name
            return
        base = node.module or ""
        if node.level:
            package = self._package_of(module)
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{base}" if base else package
        if base not in self.paths:
            return
        for alias in node.names:
            yield self.holder(base, alias.name)

    def holder(self, base: str, name: str, depth: int = 0) -> str:
        """The module that holds ``name`` imported from module ``base``."""
        if f"{base}.{name}" in self.paths:
            return f"{base}.{name}"
        if depth < 5 and self.paths[base].name == "__init__.py":
            for node in _imports(self.trees[base]):
                if isinstance(node, ast.ImportFrom) and any(
                        (alias.asname or alias.name) == name for alias in node.names):
                    targets = list(self._targets(base, node))
                    inner = next((alias.name for alias in node.names
                                  if (alias.asname or alias.name) == name), name)
                    for target in targets:
                        if target.endswith(f".{inner}") and target in self.paths:
                            return target
                    source = node.module if not node.level else None
                    if source is None:
                        package = self._package_of(base)
                        source = f"{package}.{node.module}" if node.module else package
                    if source in self.paths and source != base:
                        return self.holder(source, inner, depth + 1)
        return base

    def cycles(self) -> list[list[str]]:
        """One cycle (a list of modules, the first again at the end) for each group of
        modules that import each other round a circle (strongly connected, Tarjan)."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        groups: list[list[str]] = []
        counter = 0
        sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

        def visit(node: str) -> None:
            nonlocal counter
            index[node] = low[node] = counter
            counter += 1
            stack.append(node)
            on_stack.add(node)
            for target in sorted(self.edges[node]):
                if target not in index:
                    visit(target)
                    low[node] = min(low[node], low[target])
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

        for node in sorted(self.edges):
            if node not in index:
                visit(node)
        return [self._circle(group) for group in sorted(groups)]

    def _circle(self, group: list[str]) -> list[str]:
        """A shortest way round from the group's first module back to it."""
        members = set(group)
        start = group[0]
        came: dict[str, str] = {}
        frontier = [start]
        while frontier:
            following = []
            for node in frontier:
                for target in sorted(self.edges[node] & members):
                    if target == start:
                        path = [node]
                        while path[-1] != start:
                            path.append(came[path[-1]])
                        return [*reversed(path), start]
                    if target not in came:
                        came[target] = node
                        following.append(target)
            frontier = following
        return group


if __name__ == "__main__":
    found = Graph().cycles()
    for circle in found:
        print(" -> ".join(circle))
    print(f"{len(found)} import cycles")
