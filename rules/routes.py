"""Query results of the reach graph: :class:`Route` and the lazy :class:`Reach` mapping.

Split from :mod:`rules.reach` (which searches) because a result is its own concept: it
answers membership and route choice from the search's arrays and builds a route's path
and provokers (H13) only when asked.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.grid import Square

if TYPE_CHECKING:
    from rules.reach import ReachGraph

Threats = Mapping[Square, frozenset[str]]


@dataclass(frozen=True, slots=True)
class Route:
    """A chosen way to one destination: ``path`` runs from the start to it, both included."""

    destination: Square
    cost: int
    path: tuple[Square, ...]
    provokers: tuple[str, ...]
    end_parity: int


class Reach(Mapping[Square, Route]):
    """The result of :meth:`ReachGraph.reachable`: destination -> :class:`Route`, read-only.

    Membership and the choice of route are answered from the search's arrays; a
    :class:`Route` (its path and provokers) is built the first time it is asked for, so
    listing destinations costs no route building. Iteration follows the order in which
    destinations were first reached (cheapest first).
    """

    __slots__ = ("_best", "_budget", "_cost_of", "_front", "_graph", "_mask_of",
                 "_no_end", "_node_of", "_paths", "_pred_of", "_routes", "_settled",
                 "_source", "_threats", "memo", "slots")

    def __init__(
        self,
        graph: ReachGraph,
        source: int,
        budget: int,
        no_end: frozenset[Square],
        threats: dict[Square, frozenset[str]],
        search: tuple,
    ) -> None:
        # search: (settled labels, node_of, cost_of, pred_of[, mask_of, front]) per label.
        # A plain search has no masks: its labels are node indices and cost_of is the
        # distance table (budget + 1 unreached, -1 forbidden; a list, or a dict on huge
        # maps). Otherwise front lists the labels surviving at each node.
        self._graph = graph
        self._source = source
        self._budget = budget
        self._no_end = no_end
        self._threats = threats
        self._settled, self._node_of, self._cost_of, self._pred_of = search[:4]
        self._mask_of: list[int] | None = search[4] if len(search) > 4 else None
        self._front: dict[int, list[int]] = search[5] if len(search) > 4 else {}
        self._best: dict[Square, None] | None = None
        self._paths: dict[int, tuple[Square, ...]] = {}
        self._routes: dict[Square, Route] = {}
        #: what callers derive from this result and keep with it (the legal moves it
        #: gives), since equal queries return this same cached object
        self.memo: dict[object, object] = {}
        #: how many search entries this result holds (the query cache bounds their sum)
        self.slots = len(self._cost_of) + len(self._pred_of)

    def _label(self, sq: object) -> int:
        """The label of the route chosen to ``sq``, or -1 if ``sq`` is not a destination."""
        grid = self._graph.grid
        try:
            x, y = sq  # type: ignore[misc]
            inside = 0 <= x < grid.width and 0 <= y < grid.height
        except (TypeError, ValueError):
            return -1
        if not inside or sq in self._no_end:
            return -1
        node = (y * grid.width + x) * 2
        if node == self._source & ~1 or self._budget < 0:
            return -1
        return self._pick(node)

    def _pick(self, node: int) -> int:
        """The chosen label at square node pair (node, node + 1), or -1 (see module doc)."""
        prank = self._graph._parity_rank
        cost_of = self._cost_of
        if self._mask_of is None:
            budget = self._budget
            d0, d1 = cost_of[node], cost_of[node + 1]
            ok0, ok1 = 0 <= d0 <= budget, 0 <= d1 <= budget
            if ok0 and ok1:
                if d0 != d1:
                    return node if d0 < d1 else node + 1
                return node if prank[0] < prank[1] else node + 1
            return node if ok0 else node + 1 if ok1 else -1
        front, mask_of = self._front, self._mask_of
        best, best_rank = -1, None
        for parity in (0, 1):
            for lab in front.get(node + parity, ()):
                rank = (mask_of[lab].bit_count(), cost_of[lab], prank[parity], lab)
                if best_rank is None or rank < best_rank:
                    best, best_rank = lab, rank
        return best

    def _keys(self) -> dict[Square, None]:
        """The destinations, in the order first reached (a dict used as an ordered set)."""
        if self._best is None:
            square_of, settled = self._graph._square_of, self._settled
            # labels are nodes in a plain search; map them to nodes otherwise
            nodes = settled if self._mask_of is None else map(self._node_of.__getitem__, settled)
            keys = dict.fromkeys(map(square_of.__getitem__, nodes))
            keys.pop(square_of[self._source], None)
            for sq in self._no_end:
                keys.pop(sq, None)
            self._best = keys
        return self._best

    def __getitem__(self, sq: Square) -> Route:
        route = self._routes.get(sq)
        if route is None:
            lab = self._label(sq)
            if lab < 0:
                raise KeyError(sq)
            route = self._route(lab)
            self._routes[sq] = route
        return route

    def _route(self, lab: int) -> Route:
        # Paths share prefixes: memoise each label's path on the way back from ``lab``.
        square_of, node_of, pred_of = self._graph._square_of, self._node_of, self._pred_of
        paths = self._paths
        todo = []
        at = lab
        while at >= 0 and at not in paths:
            todo.append(at)
            at = pred_of[at]
        path = paths[at] if at >= 0 else ()
        for step in reversed(todo):
            path = (*path, square_of[node_of[step]])
            paths[step] = path
        provokers = provokers_of(path, self._threats)
        return Route(path[-1], self._cost_of[lab], path, provokers, node_of[lab] & 1)

    def __contains__(self, sq: object) -> bool:
        return self._label(sq) >= 0

    def __iter__(self) -> Iterator[Square]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def __repr__(self) -> str:
        return f"Reach({dict(self.items())!r})"


def provokers_of(path: tuple[Square, ...], threats: Threats | None) -> tuple[str, ...]:
    """Enemies a mover provokes walking ``path`` (H13): leaving a threatened square (the
    start included) provokes each enemy threatening it, each enemy at most once; enemies
    provoked by the same step are listed by id."""
    if not threats:
        return ()
    seen: set[str] = set()
    order: list[str] = []
    for sq in path[:-1]:
        group = threats.get(sq)
        if group:
            for e in sorted(group - seen):
                seen.add(e)
                order.append(e)
    return tuple(order)
