"""Threat zones (H12): the squares a combatant threatens, and the ``threats`` argument of
:meth:`rules.reach.ReachGraph.reachable` built from them. Reach walks legal king steps
on the bare map (walls and closed doors stop it, corners are not cut), so a zone is
cached per map, square and reach. :mod:`rules.reach` re-exports both functions.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from functools import lru_cache

from rules.grid import GridMap, Square


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
