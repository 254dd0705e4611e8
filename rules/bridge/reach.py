"""The reach search on the native engine (issue 23): ``rules/native/core/reach.cpp`` run over
tables compiled here from a :class:`~rules.grid.GridMap`, the occupancy and the threat
zones (S17, S18, H12-H14, S23).

:mod:`rules.reach` stays the reference. ``rules.queries.routes`` asks this search for a
native battle's state (importing this module adds it to ``rules.queries.ROUTE_SEARCHES``;
:mod:`rules.bridge.driver` does). Its answers are those of
:meth:`rules.reach.ReachGraph.reachable` route for route (every destination in the same
order, its cost, path, end parity and provoked enemies in order), which
``tests/native/test_reach_differential.py`` checks on every shipped scenario. An answer
is a :class:`NativeReach`, a read-only mapping ``destination -> Route`` like the
:class:`rules.routes.Reach` it mirrors: the search runs at once, and a route's Python
objects are built the first time it is asked for.

The tables: the map as three byte strings of ``width * height`` squares in reading order
(blocks movement: walls and closed doors; difficult terrain; drops), compiled once per
map and movement costs; per query the squares enemies hold (never entered), the squares
allies and the fallen hold (passed, not ended on) and the threat zones as (square, enemy)
pairs, enemies numbered in the order of their ids (the order provokers of one step are
listed in).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from rules import engine
from rules import queries as q
from rules.combatant import Combatant
from rules.grid import GridMap, Square
from rules.reach import ReachGraph
from rules.routes import Route, Threats
from rules.state import BattleState

_EMPTY: frozenset = frozenset()
#: Compiled maps kept (door states of the maps in use), as rules.state keeps reach graphs.
_COMPILED_KEPT = 16
_COMPILED: OrderedDict[tuple, object] = OrderedDict()
#: Answers kept (as rules.reach.ReachGraph keeps its own): equal queries on one compiled
#: map give the same NativeReach, whose memo then serves every clone that asks again.
_ANSWERS_KEPT = 4096
_ANSWERS: OrderedDict[tuple, NativeReach] = OrderedDict()


class NativeReach(Mapping[Square, Route]):
    """The answer of :func:`reachable`: destination -> :class:`Route`, read-only, iterating
    in the order destinations were first reached (as :class:`rules.routes.Reach`)."""

    __slots__ = ("_found", "_index", "_routes", "memo")

    def __init__(self, found: object) -> None:
        self._found = found  # rules._native.ReachResult
        self._index: dict[Square, int] = found.index()  # type: ignore[attr-defined]
        self._routes: dict[Square, Route] = {}
        #: what callers derive from this answer and keep with it (as Reach.memo)
        self.memo: dict[object, object] = {}

    def __getitem__(self, square: Square) -> Route:
        route = self._routes.get(square)
        if route is None:
            route = self._routes[square] = Route(
                *self._found.route(self._index[square]))  # type: ignore[attr-defined]
        return route

    def __contains__(self, square: object) -> bool:
        try:
            return square in self._index
        except TypeError:  # unhashable: no square
            return False

    def __iter__(self) -> Iterator[Square]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __repr__(self) -> str:
        return f"NativeReach({dict(self.items())!r})"


def _native() -> Any:
    """The compiled module, holding the reach search (``rules.engine.require_native``)."""
    return engine.require_native("ReachGraph", "the reach search")


def compile_map(grid: GridMap, diagonal_costs: tuple[int, int] = (1, 2),
                difficult_multiplier: int = 2, orthogonal_cost: int = 1) -> object:
    """The native ``ReachGraph`` of ``grid`` with these movement costs (S17, S18, H13);
    kept for the next query on the same map and costs."""
    key = (grid, tuple(diagonal_costs), difficult_multiplier, orthogonal_cost)
    found = _COMPILED.get(key)
    if found is not None:
        _COMPILED.move_to_end(key)
        return found
    width = grid.width
    blocks, difficult, drop = (bytearray(width * grid.height) for _ in range(3))
    for table, squares in ((blocks, grid.walls | grid.closed_doors),
                           (difficult, grid.difficult),
                           (drop, (square for square, depth in grid.drops if depth))):
        for x, y in squares:
            table[y * width + x] = 1
    found = _native().ReachGraph(
        width, grid.height, bytes(blocks), bytes(difficult), bytes(drop), orthogonal_cost,
        tuple(diagonal_costs), difficult_multiplier)
    while len(_COMPILED) >= _COMPILED_KEPT:
        _COMPILED.popitem(last=False)
    _COMPILED[key] = found
    return found


def native_graph(graph: ReachGraph) -> object:
    """The native ``ReachGraph`` of a Python one: same map, same costs."""
    return compile_map(graph.grid, graph.diagonal_costs, graph.difficult_multiplier,
                       graph.orthogonal_cost)


def _indices(grid: GridMap, squares: Iterable[Square]) -> list[int]:
    """Map indices (y * width + x) of the squares on the map (the search ignores others)."""
    width, height = grid.width, grid.height
    return [y * width + x for x, y in squares if 0 <= x < width and 0 <= y < height]


def compile_threats(grid: GridMap, threats: Threats | None
                    ) -> tuple[list[int], list[int], list[str]]:
    """H12: ``threats`` (square -> ids of the enemies threatening it) as parallel lists of
    squares and enemy numbers, and the enemy ids in number order (sorted)."""
    if not threats:
        return [], [], []
    ids = sorted({enemy for group in threats.values() for enemy in group})
    number = {enemy: n for n, enemy in enumerate(ids)}
    width, height = grid.width, grid.height
    squares: list[int] = []
    enemies: list[int] = []
    for (x, y), group in threats.items():
        if group and 0 <= x < width and 0 <= y < height:
            for enemy in group:
                squares.append(y * width + x)
                enemies.append(number[enemy])
    return squares, enemies, ids


def reachable(graph: ReachGraph, start: Square, parity: int, budget: int, *,
              blocked: frozenset[Square] = _EMPTY, no_end: frozenset[Square] = _EMPTY,
              threats: Threats | None = None) -> NativeReach:
    """:meth:`rules.reach.ReachGraph.reachable` on the native engine: destination ->
    :class:`Route`, in the order first reached. ``ValueError`` as there for a bad parity,
    budget or start."""
    if parity not in (0, 1):
        raise ValueError(f"expected parity 0 or 1, got {parity!r}")
    if not isinstance(budget, int):
        raise ValueError(f"expected an integer budget, got {budget!r}")
    grid = graph.grid
    compiled = native_graph(graph)
    threat_key = (frozenset((square, frozenset(ids)) for square, ids in threats.items() if ids)
                  if threats else _EMPTY)
    key = (compiled, start, parity, budget, frozenset(blocked), frozenset(no_end), threat_key)
    found = _ANSWERS.get(key)
    if found is not None:
        _ANSWERS.move_to_end(key)
        return found
    squares, enemies, ids = compile_threats(grid, threats)
    found = _ANSWERS[key] = NativeReach(compiled.reachable(  # type: ignore[attr-defined]
        start, parity, budget, _indices(grid, blocked), _indices(grid, no_end), squares,
        enemies, ids))
    while len(_ANSWERS) > _ANSWERS_KEPT:
        _ANSWERS.popitem(last=False)
    return found


def routes(state: BattleState, combatant: Combatant, budget: int,
           provoking: bool) -> NativeReach:
    """:func:`rules.queries.routes` on the native engine (S17/S18/H13/H14): where
    ``combatant`` may end a move with ``budget``, by route, searched with the same
    occupancy and threat zones."""
    blocked, no_end, threats = q.route_tables(state, combatant, provoking)
    return reachable(state.graph, combatant.position, combatant.diagonal_parity, budget,
                     blocked=blocked, no_end=no_end, threats=threats)


q.ROUTE_SEARCHES["native"] = routes  # rules.queries.routes on native battles
