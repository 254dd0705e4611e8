"""The reach graph: legal destinations, path costs and provoked Free Attacks (S17, S18, H12-H14).

Nodes are ``(x, y, parity)``: ``parity`` says which of ``diagonal_costs`` the next diagonal
step costs (S18: the 1st diagonal costs 1, the 2nd 2, the 3rd 1, ...). A diagonal step flips
the parity; the count carries across a combatant's movement in one round (H14), so callers
pass the parity in and read :attr:`Route.end_parity` out. Edges carry ``cost``: an orthogonal
step costs ``orthogonal_cost``, a diagonal one ``diagonal_costs[parity]``, and entering
difficult terrain multiplies the step by ``difficult_multiplier`` (H13). Walls and closed
doors are not nodes, and a diagonal step may not cut the corner of one (H13).

The graph is static per map and built once (:class:`ReachGraph`); a door opening or closing
gives another map and another graph (:meth:`ReachGraph.with_door`, cached per door state).
It is built lazily: a node's out-edges enter the networkx graph the first time a search
reaches it, so the first query on a 300x300 map costs its budget-bounded neighbourhood,
not the whole map. Occupancy and threat change per decision: they are query arguments, and
query results are memoised in a bounded LRU cache keyed on the whole query.

Choices the sheet leaves open (documented in the rules docs):

* A drop square (S23) can be entered but not passed through: a mover entering it falls and
  its move ends there. A mover starting on one may leave it.
* The start square is never in a query's result (staying put is not a move).
* Among routes to a destination within the budget the engine takes the one provoking the
  fewest distinct enemies (H13), then the cheapest, then the one whose end parity makes the
  next diagonal cheaper (then parity 0). Remaining ties go to the route found first by a
  search that expands squares in cost order, in order of discovery, and neighbours in
  :data:`rules.grid.KING_STEPS` order (orthogonal before diagonal); a route with threats
  that provoke nobody is the same route as without threats.
* Enemies provoked on leaving one square are listed by id.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import networkx as nx

from rules.grid import GridMap, Square
from rules.reach_search import LIST_NODES, dijkstra, labels
from rules.routes import Reach, Route, Threats, provokers_of
from rules.threat_zones import threat_map, threatened_squares

__all__ = ["Reach", "ReachGraph", "Route", "Threats", "provokers_of", "threat_map",
           "threatened_squares"]
_EMPTY: frozenset = frozenset()
#: About how many search entries (node or label slots) the query cache holds in total.
_CACHE_SLOTS = 1_000_000
#: The same for the searches kept for sharing (recent ones are the ones that get shared).
_STORE_SLOTS = 1_000_000


def _slots(search: tuple) -> int:
    """Entries a search's cost and predecessor tables hold (what the caches bound)."""
    return len(search[2]) + len(search[3])


class _Lazy(dict):
    """A dict that computes a missing value once with ``build(key)`` and keeps it."""

    __slots__ = ("_build",)

    def __init__(self, build: Callable[[Any], Any]) -> None:
        super().__init__()
        self._build = build

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self._build(key)
        return value


class ReachGraph:
    """Movement over one map (S17, S18, H13, H14); build once, query many times.

    The networkx graph is grown lazily: a node's out-edges are added (and compiled into
    integer tuples for the search) the first time a search reaches the node, so a query
    on a large map touches only its budget-bounded neighbourhood. :attr:`graph` returns
    the whole graph, completing it on first access.
    """

    def __init__(
        self,
        grid: GridMap,
        diagonal_costs: tuple[int, int] = (1, 2),
        difficult_multiplier: int = 2,
        *,
        orthogonal_cost: int = 1,
        cache_size: int = 4096,
        _family: dict[GridMap, ReachGraph] | None = None,
    ) -> None:
        numbers = (*diagonal_costs, difficult_multiplier, orthogonal_cost)
        if len(diagonal_costs) != 2 or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in numbers
        ):
            raise ValueError(
                "expected positive integer costs (diagonal_costs a pair), got "
                f"diagonal_costs={diagonal_costs!r}, difficult_multiplier="
                f"{difficult_multiplier!r}, orthogonal_cost={orthogonal_cost!r}"
            )
        self.grid = grid
        self.diagonal_costs: tuple[int, int] = (diagonal_costs[0], diagonal_costs[1])
        self.difficult_multiplier = difficult_multiplier
        self.orthogonal_cost = orthogonal_cost
        self._graph = nx.DiGraph()
        self._complete = False
        width = grid.width
        self._size = 2 * width * grid.height
        #: node index -> (x, y); node index -> ((target, cost), ...) in KING_STEPS order,
        #: None until the node is expanded (:meth:`_edges`); the same but empty on a drop
        #: square (a search never passes through one). Lists: the search indexes them.
        self._square_of: list[Square] | dict[int, Square] = (
            [((i >> 1) % width, (i >> 1) // width) for i in range(self._size)]
            if self._size <= LIST_NODES
            else _Lazy(lambda node_index: ((node_index >> 1) % width, (node_index >> 1) // width)))
        self._adj: list[tuple[tuple[int, int], ...] | None] = [None] * self._size
        self._onward: list[tuple[tuple[int, int], ...] | None] = [None] * self._size
        dc = self.diagonal_costs
        self._parity_rank = (0, 1) if dc[0] <= dc[1] else (1, 0)
        # Results are bounded by count and by the search slots they hold in total (about
        # a million dictionary entries, tens of MB).
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple, Reach] = OrderedDict()
        self._cached_slots = 0
        # (source node, budget, threats) -> [(blocked, search)]: searches shared by queries
        self._searches: OrderedDict[tuple, list[tuple[frozenset[Square], tuple]]] = (
            OrderedDict())
        self._stored_slots = 0
        self._family = {} if _family is None else _family
        self._family[grid] = self

    # ------------------------------------------------------------ construction
    def _add_node(self, node: tuple[int, int, int]) -> None:
        sq = (node[0], node[1])
        self._graph.add_node(
            node, difficult=self.grid.is_difficult(sq), drop_ft=self.grid.drop_depth(sq)
        )

    def _edges(self, node_index: int) -> tuple[tuple[int, int], ...]:
        """Node ``node_index``'s out-edges as ``(target, cost)``, expanding the node if needed."""
        out = self._adj[node_index]
        if out is None:
            out = self._adj[node_index] = self._expand(node_index)
            self._onward[node_index] = (
                () if self.grid.drop_depth(self._square_of[node_index]) else out
            )
        return out

    def _onward_of(self, node_index: int) -> tuple[tuple[int, int], ...]:
        """What a search passing through node ``node_index`` may take (none out of a drop)."""
        self._edges(node_index)
        return self._onward[node_index]  # type: ignore[return-value]

    def _expand(self, node_index: int) -> tuple[tuple[int, int], ...]:
        """Add node ``node_index``'s out-edges to the networkx graph; their compiled ``(target,
        cost)`` tuple in graph (KING_STEPS) order."""
        grid, graph = self.grid, self._graph
        x, y = self._square_of[node_index]
        parity = node_index & 1
        node = (x, y, parity)
        if node not in graph:
            self._add_node(node)
        diagonal = self.diagonal_costs[parity]
        compiled = []
        for tx, ty in grid.neighbours((x, y)):
            factor = self.difficult_multiplier if grid.is_difficult((tx, ty)) else 1
            if tx != x and ty != y:
                target, cost = (tx, ty, 1 - parity), diagonal * factor
            else:
                target, cost = (tx, ty, parity), self.orthogonal_cost * factor
            if target not in graph:
                self._add_node(target)
            graph.add_edge(node, target, cost=cost)
            # the node's edges enter the graph only here, once, so graph.adj[node] lists
            # exactly these, in this order
            compiled.append((self.index(target), cost))
        return tuple(compiled)

    @property
    def graph(self) -> nx.DiGraph:
        """The whole networkx graph: nodes ``(x, y, parity)`` with ``difficult`` and
        ``drop_ft``, edges with ``cost`` (built in full on first access)."""
        if not self._complete:
            for x, y in self.grid.squares():
                if not self.grid.blocks_movement((x, y)):
                    for parity in (0, 1):
                        self._edges(self.index((x, y, parity)))
            self._complete = True
        return self._graph

    def index(self, node: tuple[int, int, int]) -> int:
        """The integer index of node ``(x, y, parity)`` used by the fast search."""
        x, y, parity = node
        return (y * self.grid.width + x) * 2 + parity

    def with_grid(self, grid: GridMap) -> ReachGraph:
        """The reach graph of ``grid`` (same map, other door states) with the same costs."""
        found = self._family.get(grid)
        if found is None:
            found = ReachGraph(
                grid,
                self.diagonal_costs,
                self.difficult_multiplier,
                orthogonal_cost=self.orthogonal_cost,
                cache_size=self.cache_size,
                _family=self._family,
            )
        return found

    def with_door(self, square: Square, open: bool) -> ReachGraph:
        """The reach graph after the door at ``square`` opens or closes (S12)."""
        return self.with_grid(self.grid.with_door(square, open))

    # ------------------------------------------------------------ single steps
    def step(self, origin: Square, destination: Square, parity: int) -> tuple[int, int] | None:
        """``(cost, parity after)`` of one step from ``origin`` to ``destination``, or None if
        illegal."""
        if (
            not self.grid.in_bounds(origin)
            or self.grid.blocks_movement(origin)
            or parity not in (0, 1)
        ):
            return None
        edges = self._edges(self.index((*origin, parity)))  # the node's edges in the graph
        if not self.grid.in_bounds(destination):
            return None
        square = self.index((*destination, 0))
        for after in (1 - parity, parity):  # a diagonal flips the parity, a straight step not
            for target, cost in edges:
                if target == square + after:
                    return cost, after
        return None

    def path_cost(self, path: tuple[Square, ...], parity: int) -> tuple[int, int]:
        """``(cost, end parity)`` of walking ``path``; ``ValueError`` on an illegal step."""
        cost = 0
        for a, b in pairwise(path):
            step = self.step(a, b, parity)
            if step is None:
                raise ValueError(f"illegal step {a} -> {b}")
            cost += step[0]
            parity = step[1]
        return cost, parity

    # ------------------------------------------------------------ queries
    def clear_cache(self) -> None:
        """Forget memoised query results (the static graph stays)."""
        self._cache.clear()
        self._cached_slots = 0
        self._searches.clear()
        self._stored_slots = 0

    def reachable(
        self,
        start: Square,
        parity: int,
        budget: int,
        *,
        blocked: frozenset[Square] = _EMPTY,
        no_end: frozenset[Square] = _EMPTY,
        threats: Threats | None = None,
    ) -> Reach:
        """Every square a mover at ``start`` can end on for at most ``budget`` (S17, H13).

        ``parity`` is the diagonal parity carried in (H14). ``blocked`` squares cannot be
        entered (enemies); ``no_end`` squares may be passed but not ended on (allies);
        ``threats`` maps a square to the ids of the enemies threatening it (H12) and makes
        the route to each destination the one provoking fewest enemies, then the cheapest.
        The start square is not in the result. The result is a read-only mapping
        destination -> :class:`Route` whose routes are built on first access; equal queries
        return the same (cached) object.
        """
        threat_key = (
            frozenset((sq, frozenset(ids)) for sq, ids in threats.items() if ids)
            if threats
            else _EMPTY
        )
        if not isinstance(blocked, frozenset):
            blocked = frozenset(blocked)
        if not isinstance(no_end, frozenset):
            no_end = frozenset(no_end)
        key = (start, parity, budget, blocked, no_end, threat_key)
        cache = self._cache
        hit = cache.get(key)
        if hit is not None:
            cache.move_to_end(key)
            return hit
        result = self._search(start, parity, budget, blocked, no_end, threat_key)
        cache[key] = result
        self._cached_slots += result.slots
        while len(cache) > self.cache_size or (self._cached_slots > _CACHE_SLOTS
                                               and len(cache) > 1):
            _, old = cache.popitem(last=False)
            self._cached_slots -= old.slots
        return result

    def cheapest(
        self,
        start: Square,
        parity: int,
        dest: Square,
        budget: int,
        *,
        blocked: frozenset[Square] = _EMPTY,
        no_end: frozenset[Square] = _EMPTY,
        threats: Threats | None = None,
    ) -> Route | None:
        """The chosen route to ``dest`` (see :meth:`reachable`), or None if out of reach."""
        found = self.reachable(
            start, parity, budget, blocked=blocked, no_end=no_end, threats=threats
        )
        return found.get(dest)

    # ------------------------------------------------------------ the search
    def _search(
        self,
        start: Square,
        parity: int,
        budget: int,
        blocked: frozenset[Square],
        no_end: frozenset[Square],
        threats: frozenset[tuple[Square, frozenset[str]]],
    ) -> Reach:
        if parity not in (0, 1):
            raise ValueError(f"expected parity 0 or 1, got {parity!r}")
        if not isinstance(budget, int):
            raise ValueError(f"expected an integer budget, got {budget!r}")
        if not self.grid.in_bounds(start) or self.grid.blocks_movement(start):
            raise ValueError(f"start {start} is not a square a combatant can stand on")
        width, height = self.grid.width, self.grid.height
        source = self.index((*start, parity))
        if budget < 0:
            return Reach(self, source, budget, no_end, {}, ([], [], [], []))
        # The search does not depend on no_end (only the result's filter does), and a plain
        # one not on blocked squares it never comes near: share it (see _unaffected).
        key = (source, budget, threats)
        search = self._stored(key, budget, blocked, not threats)
        if search is None and not threats:
            search = self._narrowed(source, budget, blocked)
        if search is None:
            forbidden = [(y * width + x) * 2 for x, y in blocked
                         if 0 <= x < width and 0 <= y < height]
            if not threats:
                settled, dist, pred = dijkstra(self, source, budget, forbidden)
                search = (settled, range(self._size), dist, pred)
            else:
                ids = sorted({e for _, group in threats for e in group})
                bit = {e: 1 << n for n, e in enumerate(ids)}
                masks: dict[int, int] = {}
                for (x, y), group in threats:
                    if 0 <= x < width and 0 <= y < height:
                        masks[y * width + x] = sum(bit[e] for e in group)
                search = labels(self, source, budget, forbidden, masks)
            self._store(key, blocked, search)
        return Reach(self, source, budget, no_end, dict(threats), search)

    def _stored(self, key: tuple, budget: int, blocked: frozenset[Square],
                plain: bool) -> tuple | None:
        """A stored search valid for ``blocked`` under ``key``, or None."""
        entries = self._searches.get(key)
        if entries is None:
            return None
        self._searches.move_to_end(key)
        for old, search in entries:
            if old == blocked or (plain and self._unaffected(search[2], budget, old,
                                                              blocked)):
                return search
        return None

    def _narrowed(self, source: int, budget: int, blocked: frozenset[Square]) -> tuple | None:
        """A stored plain search from ``source`` with a larger budget, cut down to
        ``budget`` (a MOVE's search from the FULL_MOVE's), or None.

        Dial's search settles buckets in cost order and a larger budget only adds work
        beyond the smaller one: every cost and predecessor up to ``budget`` and the order
        nodes are settled in are those of the smaller search, so the smaller search is
        the larger one's settled prefix read with the smaller budget."""
        for wider in range(budget + 1, 2 * budget + 2):  # FULL_MOVE budget: MOV, MOVE's x2
            search = self._stored((source, wider, _EMPTY), budget, blocked, True)
            if search is not None:
                settled, node_of, dist, pred = search
                end = bisect_right(settled, budget, key=dist.__getitem__)
                return settled[:end], node_of, dist, pred
        return None

    def _store(self, key: tuple, blocked: frozenset[Square], search: tuple) -> None:
        """Keep ``search`` (up to 4 per key; bounded like the query cache)."""
        entries = self._searches.setdefault(key, [])
        entries.append((blocked, search))
        self._stored_slots += _slots(search)
        if len(entries) > 4:
            self._stored_slots -= _slots(entries.pop(0)[1])
        while self._stored_slots > _STORE_SLOTS and len(self._searches) > 1:
            _, dropped = self._searches.popitem(last=False)
            self._stored_slots -= sum(_slots(search) for _, search in dropped)

    def _unaffected(self, dist: list[int] | dict[int, int], budget: int,
                    old: frozenset[Square], new: frozenset[Square]) -> bool:
        """Whether a plain search blocked by ``old`` runs exactly the same blocked by ``new``
        (conservatively): every newly blocked square was out of reach, and every square no
        longer blocked has no king neighbour the search reached with budget left to step."""
        width, height = self.grid.width, self.grid.height
        for x, y in new - old:
            if 0 <= x < width and 0 <= y < height:
                i = (y * width + x) * 2
                if 0 <= dist[i] <= budget or 0 <= dist[i + 1] <= budget:
                    return False
        near = budget - 1  # every step costs at least 1
        for x, y in old - new:
            for ny in range(max(0, y - 1), min(height, y + 2)):
                for nx_ in range(max(0, x - 1), min(width, x + 2)):
                    i = (ny * width + nx_) * 2
                    if 0 <= dist[i] <= near or 0 <= dist[i + 1] <= near:
                        return False
        return True
