"""The reach graph's two searches (S17, S18, H12-H14, S23), apart from its queries and
caches in :mod:`rules.reach` (which calls them): Dial's bucket-queue Dijkstra without
threats and the label-setting search over provoked sets with them. Both read the graph's
lazily built edges (``graph._edges``, ``graph._onward`` / ``_onward_of``: none out of a
drop square but the start's). ``rules/native/core/reach_search.cpp`` is their C++ twin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rules.reach import ReachGraph

#: Up to this many nodes (a 100x100 map) the search keeps its tables in lists, beyond in dicts.
LIST_NODES = 20_000


class Default(dict):
    """A dict whose missing keys read as ``default`` (without being stored)."""

    __slots__ = ("_default",)

    def __init__(self, default: int) -> None:
        super().__init__()
        self._default = default

    def __missing__(self, key: int) -> int:
        return self._default


def table(size: int, default: int) -> list[int] | dict[int, int]:
    """A per-node table of the search, ``default`` everywhere: a list on maps up to
    :data:`LIST_NODES` nodes (fastest), else a dict holding only what the search
    touches (so a query on a huge map costs its neighbourhood, not the map)."""
    if size <= LIST_NODES:
        return [default] * size
    return Default(default)


def dijkstra(
    graph: ReachGraph, source: int, budget: int, forbidden: list[int]
) -> tuple[list[int], list[int] | dict[int, int], list[int] | dict[int, int]]:
    """Dial's bucket-queue Dijkstra over node indices: settled order, dist, pred.

    ``dist`` is ``budget + 1`` for nodes not reached and -1 for forbidden ones.
    """
    onward = graph._onward
    limit = budget + 1
    dist = table(graph._size, limit)
    for i in forbidden:
        dist[i] = dist[i + 1] = -1
    dist[source] = 0
    pred = table(graph._size, -1)
    buckets: list[list[int]] = [[] for _ in range(limit)]
    settled = [source]
    for v, w in graph._edges(source):  # the source leaves even a drop square
        if w < dist[v]:
            dist[v] = w
            pred[v] = source
            buckets[w].append(v)
    for c in range(1, limit):
        for u in buckets[c]:
            if dist[u] != c:
                continue
            settled.append(u)
            out = onward[u]
            if out is None:
                out = graph._onward_of(u)
            for v, w in out:
                nd = c + w
                if nd < dist[v]:
                    dist[v] = nd
                    pred[v] = u
                    buckets[nd].append(v)
    return settled, dist, pred


def labels(
    graph: ReachGraph, source: int, budget: int, forbidden: list[int], masks: dict[int, int]
) -> tuple[list[int], list[int], list[int], list[int], list[int], dict[int, list[int]]]:
    """Label-setting search over (node, provoked set) with Pareto pruning (H13).

    A label dominates another at the same node if its provoked set is a subset and its
    cost is no higher. Labels are expanded in cost order, so a settled label is never
    dominated later. Returns the settled labels; per label its node, cost, predecessor
    label and provoked set; and the surviving labels per node.
    """
    onward, adj_source = graph._onward, graph._edges(source)
    limit = budget + 1
    # free[v]: cost of v's label that provoked nobody (it dominates every label at v
    # costing as much or more); budget + 1 if none yet, 0 for forbidden nodes.
    free = table(graph._size, limit)
    for i in forbidden:
        free[i] = free[i + 1] = 0
    free[source] = 0
    # same[mask][v]: cost of the cheapest label at v with that provoked set (a killed
    # label stays a valid witness: whatever killed it dominates the same labels).
    same: dict[int, list[int] | dict[int, int]] = {0: free}
    node_of, cost_of, mask_of, pred_of = [source], [0], [0], [-1]
    dead = [False]
    front: dict[int, list[int]] = {source: [0]}
    buckets: list[list[int]] = [[] for _ in range(limit)]
    buckets[0].append(0)
    settled: list[int] = []
    for c in range(limit):
        for lab in buckets[c]:
            if dead[lab]:
                continue
            settled.append(lab)
            u = node_of[lab]
            m = mask_of[lab] | masks.get(u >> 1, 0)
            cheapest = same.get(m)
            if cheapest is None:
                cheapest = same[m] = table(graph._size, limit)
            out = adj_source if u == source else onward[u]
            if out is None:
                out = graph._onward_of(u)
            for v, w in out:
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
