"""Benchmark of the reach graph (rules.reach): build time, cold and cached queries.

Run ``python -m experiments.benchmarks.reach``. The map is a fixed 30x30 room with walls
sprinkled, some difficult terrain and four enemies (two with reach L); the query is a full
move (budget 10) from the middle. scipy's ``csgraph.dijkstra`` on the same graph (same
nodes and edge costs, ``limit=budget``, from the same start node) is the yardstick.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping

import numpy as np

from experiments.benchmarks.measure import Figure, per_call_us
from rules.grid import GridMap, Square
from rules.reach import ReachGraph, threat_map

SIZE = 30
BUDGET = 10
START: Square = (15, 15)
ENEMIES: dict[str, tuple[Square, int]] = {
    "orc_1": ((18, 15), 1),
    "orc_2": ((13, 18), 1),
    "ogre": ((15, 11), 2),
    "pike": ((11, 13), 2),
}


def bench_map(seed: int = 1) -> GridMap:
    """The benchmark map: border walls, ~12% inner walls, ~10% difficult terrain."""
    rng = np.random.default_rng(seed)
    keep_clear = {START} | {sq for sq, _ in ENEMIES.values()}
    walls, difficult = set(), set()
    for y in range(SIZE):
        for x in range(SIZE):
            if x in (0, SIZE - 1) or y in (0, SIZE - 1):
                walls.add((x, y))
            elif (x, y) in keep_clear:
                continue
            else:
                roll = rng.random()
                if roll < 0.12:
                    walls.add((x, y))
                elif roll < 0.22:
                    difficult.add((x, y))
    return GridMap(SIZE, SIZE, walls=frozenset(walls), difficult=frozenset(difficult))


def _cold(reach: ReachGraph, blocked: frozenset[Square], threats: dict | None,
          use: Callable[[Mapping], object] = len) -> Callable[[], object]:
    """A query after clearing the cache; ``use`` is what the caller does with the result
    (``len``: list the destinations, as legal-move generation does)."""

    def call() -> object:
        reach.clear_cache()
        return use(reach.reachable(START, 0, BUDGET, blocked=blocked, threats=threats))

    return call


def _all_routes(found: Mapping) -> object:
    return list(found.values())


def figures(quick: bool) -> list[Figure]:
    """The reach figures of ``fray bench``: µs per query, median of repeats.

    ``cold``: a query with an empty cache, its destinations listed; ``all routes``: every
    Route (path and provokers) built too; ``cached``: the same query again; ``threats``:
    with the enemies' threat zones (H12, H13), the label-setting search. ``whole graph``
    is the networkx graph of the whole map built at once (a search builds only what it
    reaches). scipy's Dijkstra runs on the same nodes and edges.
    """
    calls, repeats = (50, 3) if quick else (300, 5)
    grid = bench_map()
    reach = ReachGraph(grid)
    blocked = frozenset(sq for sq, _ in ENEMIES.values())
    threats = threat_map(grid, ENEMIES)

    def whole_graph() -> object:
        return ReachGraph(grid).graph

    def cached(th: dict | None) -> Callable[[], object]:
        return lambda: reach.reachable(START, 0, BUDGET, blocked=blocked, threats=th)

    label = f"reach {SIZE}x{SIZE} budget {BUDGET}"
    out = [
        Figure("reach.cold_us", f"{label}: cold query", "µs",
               per_call_us(_cold(reach, blocked, None), calls, repeats)),
        Figure("reach.cached_us", f"{label}: cached query", "µs",
               per_call_us(cached(None), calls * 10, repeats)),
        Figure("reach.cold_all_routes_us", f"{label}: cold, all routes built", "µs",
               per_call_us(_cold(reach, blocked, None, _all_routes), calls, repeats)),
        Figure("reach.cold_threats_us", f"{label}: cold query with threats", "µs",
               per_call_us(_cold(reach, blocked, threats), calls, repeats)),
        Figure("reach.cached_threats_us", f"{label}: cached query with threats", "µs",
               per_call_us(cached(threats), calls * 10, repeats)),
        Figure("reach.whole_graph_ms", f"{label}: whole networkx graph", "ms",
               [us / 1000 for us in per_call_us(whole_graph, 1, repeats)]),
    ]
    matrix, source = scipy_graph(reach, blocked)
    from scipy.sparse.csgraph import dijkstra

    out.append(Figure("reach.scipy_us", f"{label}: scipy csgraph.dijkstra", "µs",
                      per_call_us(lambda: dijkstra(matrix, indices=source, limit=BUDGET),
                                  calls, repeats)))
    return out


def scipy_graph(reach: ReachGraph, blocked: frozenset[Square]) -> tuple[object, int]:
    """The reach graph as a scipy CSR matrix indexed like ``ReachGraph.index`` (blocked
    squares' nodes lose their in-edges: they cannot be entered) and the start's index."""
    from scipy.sparse import csr_matrix

    size = 2 * reach.grid.width * reach.grid.height
    rows, cols, costs = [], [], []
    for u, v, cost in reach.graph.edges(data="cost"):
        if (v[0], v[1]) in blocked:
            continue
        rows.append(reach.index(u))
        cols.append(reach.index(v))
        costs.append(float(cost))
    return csr_matrix((costs, (rows, cols)), shape=(size, size)), reach.index((*START, 0))


def _per_call_us(fn: Callable[[], object], repeats: int, rounds: int = 5) -> float:
    """Best-of-``rounds`` mean time of one call in µs."""
    return min(per_call_us(fn, repeats, rounds))


def run(repeats: int = 200) -> dict[str, float]:
    """Best-of-5 µs per call of each query kind (see :func:`figures`) and the counts."""
    grid = bench_map()
    builds = []
    for _ in range(3):
        t0 = time.perf_counter()
        reach = ReachGraph(grid)
        reach.graph  # noqa: B018 (builds the whole graph)
        builds.append(time.perf_counter() - t0)
    blocked = frozenset(sq for sq, _ in ENEMIES.values())
    threats = threat_map(grid, ENEMIES)

    def cached(th: dict | None) -> Callable[[], object]:
        return lambda: reach.reachable(START, 0, BUDGET, blocked=blocked, threats=th)

    out: dict[str, float] = {
        "graph_nodes": float(reach.graph.number_of_nodes()),
        "graph_edges": float(reach.graph.number_of_edges()),
        "destinations": float(len(reach.reachable(START, 0, BUDGET, blocked=blocked))),
        "build_us": statistics.median(builds) * 1e6,
        "cold_us": _per_call_us(_cold(reach, blocked, None), repeats),
        "cold_all_routes_us": _per_call_us(_cold(reach, blocked, None, _all_routes), repeats),
        "cached_us": _per_call_us(cached(None), repeats * 10),
        "cold_threats_us": _per_call_us(_cold(reach, blocked, threats), repeats),
        "cold_threats_all_routes_us": _per_call_us(
            _cold(reach, blocked, threats, _all_routes), repeats),
        "cached_threats_us": _per_call_us(cached(threats), repeats * 10),
    }
    out.update(_scipy_figures(reach, blocked, repeats))
    return out


def _scipy_figures(reach: ReachGraph, blocked: frozenset[Square], repeats: int) -> dict:
    from scipy.sparse.csgraph import dijkstra

    matrix, source = scipy_graph(reach, blocked)
    return {
        "scipy_dijkstra_us": _per_call_us(
            lambda: dijkstra(matrix, indices=source, limit=BUDGET), repeats
        ),
        "scipy_dijkstra_pred_us": _per_call_us(
            lambda: dijkstra(matrix, indices=source, limit=BUDGET, return_predecessors=True),
            repeats,
        ),
    }


def main() -> None:
    figures = run()
    for name, value in figures.items():
        if name.endswith("_us"):
            print(f"{name[:-3]:>22}: {value:10.1f} µs")
        else:
            print(f"{name:>22}: {value:10.0f}")
    ratio = figures["cold_us"] / figures["scipy_dijkstra_us"]
    print(f"{'cold / scipy':>22}: {ratio:10.2f} x")


if __name__ == "__main__":
    main()
