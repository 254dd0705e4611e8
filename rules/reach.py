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
Occupancy and threat change per decision: they are query arguments, and query results are
memoised in a bounded LRU cache keyed on the whole query.

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

from collections import OrderedDict, deque
from collections.abc import Mapping
from functools import lru_cache
from itertools import pairwise

import networkx as nx

from rules.grid import GridMap, Square
from rules.routes import Reach, Route, Threats, provokers_of

__all__ = ["Reach", "ReachGraph", "Route", "Threats", "provokers_of", "threat_map",
           "threatened_squares"]
_EMPTY: frozenset = frozenset()


class ReachGraph:
    """Movement over one map (S17, S18, H13, H14); build once, query many times."""

    def __init__(
        self,
        grid: GridMap,
        diagonal_costs: tuple[int, int] = (1, 2),
        difficult_multiplier: int = 2,
        *,
        orthogonal_cost: int = 1,
        cache_size: int | None = None,
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
        self.graph: nx.DiGraph = self._build_graph()
        self._compile()
        # A cached plain result holds two lists of 2 x width x height slots: by default
        # bound the cache to about a million slots (~8 MB), 64 to 4096 results.
        if cache_size is None:
            cache_size = min(4096, max(64, 1_000_000 // (2 * self._size)))
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple, Reach] = OrderedDict()
        self._family = {} if _family is None else _family
        self._family[grid] = self

    # ------------------------------------------------------------ construction
    def _build_graph(self) -> nx.DiGraph:
        grid, dc = self.grid, self.diagonal_costs
        graph = nx.DiGraph()
        for sq in grid.squares():
            if grid.blocks_movement(sq):
                continue
            for parity in (0, 1):
                graph.add_node(
                    (*sq, parity),
                    difficult=grid.is_difficult(sq),
                    drop_ft=grid.drop_depth(sq),
                )
        for x, y, parity in list(graph.nodes):
            for tx, ty in grid.neighbours((x, y)):
                factor = self.difficult_multiplier if grid.is_difficult((tx, ty)) else 1
                if tx != x and ty != y:
                    graph.add_edge((x, y, parity), (tx, ty, 1 - parity), cost=dc[parity] * factor)
                else:
                    cost = self.orthogonal_cost * factor
                    graph.add_edge((x, y, parity), (tx, ty, parity), cost=cost)
        return graph

    def _compile(self) -> None:
        """Integer node indices and neighbour tuples derived from :attr:`graph`.

        ``_adj[i]`` lists ``(target, cost)`` out of node ``i`` in graph (KING_STEPS) order;
        ``_onward`` is the same except that a drop square has none: a search never passes
        through one (it is only left when the mover starts on it).
        """
        width = self.grid.width
        size = 2 * width * self.grid.height
        self._size = size
        self._square_of: list[Square] = [((i >> 1) % width, (i >> 1) // width) for i in range(size)]
        self._adj: list[tuple[tuple[int, int], ...]] = [()] * size
        self._onward: list[tuple[tuple[int, int], ...]] = [()] * size
        for node, out in self.graph.adj.items():
            i = self.index(node)
            self._adj[i] = tuple((self.index(v), d["cost"]) for v, d in out.items())
            if not self.graph.nodes[node]["drop_ft"]:
                self._onward[i] = self._adj[i]
        dc = self.diagonal_costs
        self._parity_rank = (0, 1) if dc[0] <= dc[1] else (1, 0)

    def _adjacency_from(self, source: int) -> list[tuple[tuple[int, int], ...]]:
        """The adjacency a search from ``source`` uses (``_onward``, but ``source`` leaves)."""
        adj = self._onward
        if adj[source] is not self._adj[source]:
            adj = adj.copy()
            adj[source] = self._adj[source]
        return adj

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
    def step(self, a: Square, b: Square, parity: int) -> tuple[int, int] | None:
        """``(cost, parity after)`` of one step from ``a`` to ``b``, or None if illegal."""
        for after in (1 - parity, parity):  # a diagonal flips the parity, a straight step not
            data = self.graph.get_edge_data((*a, parity), (*b, after))
            if data is not None:
                return data["cost"], after
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
        if len(cache) > self.cache_size:
            cache.popitem(last=False)
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
        forbidden = [(y * width + x) * 2 for x, y in blocked if 0 <= x < width and 0 <= y < height]
        if budget < 0:
            return Reach(self, source, budget, no_end, {}, ([], [], [], []))
        if not threats:
            settled, dist, pred = self._dijkstra(source, budget, forbidden)
            search = (settled, range(self._size), dist, pred)
            return Reach(self, source, budget, no_end, {}, search)
        ids = sorted({e for _, group in threats for e in group})
        bit = {e: 1 << n for n, e in enumerate(ids)}
        masks: dict[int, int] = {}
        for (x, y), group in threats:
            if 0 <= x < width and 0 <= y < height:
                masks[y * width + x] = sum(bit[e] for e in group)
        search = self._labels(source, budget, forbidden, masks)
        return Reach(self, source, budget, no_end, dict(threats), search)

    def _dijkstra(
        self, source: int, budget: int, forbidden: list[int]
    ) -> tuple[list[int], list[int], list[int]]:
        """Dial's bucket-queue Dijkstra over node indices: settled order, dist, pred.

        ``dist`` is ``budget + 1`` for nodes not reached and -1 for forbidden ones.
        """
        adj = self._adjacency_from(source)
        dist = [budget + 1] * self._size
        pred = [-1] * self._size
        for i in forbidden:
            dist[i] = dist[i + 1] = -1
        dist[source] = 0
        buckets: list[list[int]] = [[] for _ in range(budget + 1)]
        buckets[0].append(source)
        settled: list[int] = []
        for c in range(budget + 1):
            for u in buckets[c]:
                if dist[u] != c:
                    continue
                settled.append(u)
                for v, w in adj[u]:
                    nd = c + w
                    if nd < dist[v]:
                        dist[v] = nd
                        pred[v] = u
                        buckets[nd].append(v)
        return settled, dist, pred

    def _labels(
        self, source: int, budget: int, forbidden: list[int], masks: dict[int, int]
    ) -> tuple[list[int], list[int], list[int], list[int], list[int], dict[int, list[int]]]:
        """Label-setting search over (node, provoked set) with Pareto pruning (H13).

        A label dominates another at the same node if its provoked set is a subset and its
        cost is no higher. Labels are expanded in cost order, so a settled label is never
        dominated later. Returns the settled labels; per label its node, cost, predecessor
        label and provoked set; and the surviving labels per node.
        """
        adj = self._adjacency_from(source)
        # free[v]: cost of v's label that provoked nobody (it dominates every label at v
        # costing as much or more); budget + 1 if none yet, 0 for forbidden nodes.
        free = [budget + 1] * self._size
        for i in forbidden:
            free[i] = free[i + 1] = 0
        free[source] = 0
        # same[mask][v]: cost of the cheapest label at v with that provoked set (a killed
        # label stays a valid witness: whatever killed it dominates the same labels).
        same: dict[int, list[int]] = {0: free}
        node_of, cost_of, mask_of, pred_of = [source], [0], [0], [-1]
        dead = [False]
        front: dict[int, list[int]] = {source: [0]}
        buckets: list[list[int]] = [[] for _ in range(budget + 1)]
        buckets[0].append(0)
        settled: list[int] = []
        for c in range(budget + 1):
            for lab in buckets[c]:
                if dead[lab]:
                    continue
                settled.append(lab)
                u = node_of[lab]
                m = mask_of[lab] | masks.get(u >> 1, 0)
                cheapest = same.get(m)
                if cheapest is None:
                    cheapest = same[m] = [budget + 1] * self._size
                for v, w in adj[u]:
                    nd = c + w
                    if nd >= free[v] or nd >= cheapest[v]:
                        continue
                    cheapest[v] = nd
                    new = len(node_of)
                    labs = front.get(v)
                    if labs is None:
                        front[v] = [new]
                    else:
                        if m and any(cost_of[o] <= nd and mask_of[o] | m == m for o in labs):
                            continue  # an existing label dominates the new one
                        keep = []
                        for o in labs:
                            if cost_of[o] >= nd and mask_of[o] | m == mask_of[o]:
                                dead[o] = True  # the new label dominates it
                            else:
                                keep.append(o)
                        keep.append(new)
                        front[v] = keep
                    buckets[nd].append(new)
                    node_of.append(v)
                    cost_of.append(nd)
                    mask_of.append(m)
                    pred_of.append(lab)
                    dead.append(False)
        return settled, node_of, cost_of, pred_of, mask_of, front


@lru_cache(maxsize=8192)
def threatened_squares(grid: GridMap, origin: Square, reach_squares: int) -> frozenset[Square]:
    """Squares a combatant at ``origin`` with reach ``reach_squares`` threatens (H12).

    Reach S and M are 1 (the eight neighbours), L is 2. A square is threatened if at most
    ``reach_squares`` legal king steps away: reach does not pass walls or closed doors and
    does not cut their corners (H13). Difficult terrain, drops and other combatants do not
    stop reach. The origin itself is not included.
    """
    seen = {origin}
    frontier = deque([(origin, 0)])
    while frontier:
        sq, depth = frontier.popleft()
        if depth == reach_squares:
            continue
        for nb in grid.neighbours(sq):
            if nb not in seen:
                seen.add(nb)
                frontier.append((nb, depth + 1))
    seen.discard(origin)
    return frozenset(seen)


def threat_map(
    grid: GridMap, threateners: Mapping[str, tuple[Square, int]]
) -> dict[Square, frozenset[str]]:
    """The ``threats`` argument of :meth:`ReachGraph.reachable` from ``id -> (square, reach)``
    of the enemies that threaten (H12: in action, standing, holding a ready melee weapon)."""
    acc: dict[Square, set[str]] = {}
    for enemy, (origin, reach) in threateners.items():
        for sq in threatened_squares(grid, origin, reach):
            acc.setdefault(sq, set()).add(enemy)
    return {sq: frozenset(ids) for sq, ids in acc.items()}
