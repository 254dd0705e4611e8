"""Benchmark of the reach graph (rules.reach): build time, cold and cached queries.

Run ``python -m experiments.benchmarks.reach``. The map is a fixed 30x30 room with walls
sprinkled, some difficult terrain and four enemies (two with reach L); the query is a full
move (budget 10) from the middle. scipy's ``csgraph.dijkstra`` on the same graph (same
nodes and edge costs, ``limit=budget``, from the same start node) is the yardstick when
scipy is installed.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping

import numpy as np

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


def _per_call_us(fn: Callable[[], object], repeats: int, rounds: int = 5) -> float:
    """Best-of-``rounds`` mean time of one call in µs."""
    fn()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn()
        times.append((time.perf_counter() - t0) / repeats)
    return min(times) * 1e6


def run(repeats: int = 200) -> dict[str, float]:
    """Measure; every figure is µs per call except the counts.

    ``cold``: a query with an empty cache whose destinations are listed (``len``), as
    legal-move generation does; ``cold_all_routes`` also builds every Route (path and
    provokers). ``cached``: the same query again. ``*_threats``: with the enemies' threat
    zones (H12, H13), which switches to the label-setting search.
    """
    grid = bench_map()
    builds = []
    for _ in range(3):
        t0 = time.perf_counter()
        reach = ReachGraph(grid)
        builds.append(time.perf_counter() - t0)
    blocked = frozenset(sq for sq, _ in ENEMIES.values())
    threats = threat_map(grid, ENEMIES)

    def cold(th: dict | None, use: Callable[[Mapping], object] = len) -> Callable[[], object]:
        """A query after clearing the cache; ``use`` is what the caller does with it."""

        def call() -> object:
            reach.clear_cache()
            return use(reach.reachable(START, 0, BUDGET, blocked=blocked, threats=th))

        return call

    def all_routes(found: Mapping) -> object:
        return list(found.values())

    def cached(th: dict | None) -> Callable[[], object]:
        return lambda: reach.reachable(START, 0, BUDGET, blocked=blocked, threats=th)

    out: dict[str, float] = {
        "graph_nodes": float(reach.graph.number_of_nodes()),
        "graph_edges": float(reach.graph.number_of_edges()),
        "destinations": float(len(reach.reachable(START, 0, BUDGET, blocked=blocked))),
        "build_us": statistics.median(builds) * 1e6,
        "cold_us": _per_call_us(cold(None), repeats),
        "cold_all_routes_us": _per_call_us(cold(None, all_routes), repeats),
        "cached_us": _per_call_us(cached(None), repeats * 10),
        "cold_threats_us": _per_call_us(cold(threats), repeats),
        "cold_threats_all_routes_us": _per_call_us(cold(threats, all_routes), repeats),
        "cached_threats_us": _per_call_us(cached(threats), repeats * 10),
    }
    out.update(_scipy_figures(reach, blocked, repeats))
    return out


def _scipy_figures(reach: ReachGraph, blocked: frozenset[Square], repeats: int) -> dict:
    try:
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import dijkstra
    except ImportError:
        return {}
    # Same nodes and edges as the reach graph (blocked squares' nodes lose their in-edges,
    # as they cannot be entered), indexed like ReachGraph.index.
    size = 2 * reach.grid.width * reach.grid.height
    rows, cols, costs = [], [], []
    for u, v, cost in reach.graph.edges(data="cost"):
        if (v[0], v[1]) in blocked:
            continue
        rows.append(reach.index(u))
        cols.append(reach.index(v))
        costs.append(float(cost))
    matrix = csr_matrix((costs, (rows, cols)), shape=(size, size))
    source = reach.index((*START, 0))
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
    if "scipy_dijkstra_us" in figures:
        ratio = figures["cold_us"] / figures["scipy_dijkstra_us"]
        print(f"{'cold / scipy':>22}: {ratio:10.2f} x")
    else:
        print("scipy is not installed: no scipy.sparse.csgraph.dijkstra figure")


if __name__ == "__main__":
    main()
