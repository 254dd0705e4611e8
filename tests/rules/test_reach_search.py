"""The reach graph against exhaustive search (Hypothesis): every query's destinations,
routes, costs and provokers match a brute-force relaxation straight from the rules (S17,
S18, H13, H14, S23), threatened squares match H12's definition, and huge maps, searches
shared across queries and narrower searches cut from wider ones give exactly a fresh
search's answers.

The example-based reach tests are in test_reach.py; ``grid`` is in reach_helpers.py.
"""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st
from reach_helpers import grid

from rules.grid import GridMap, Square, chebyshev
from rules.reach import ReachGraph, Route, provokers_of, threatened_squares

# ---------------------------------------------------------------- against exhaustive search


def _brute_force(
    g: GridMap,
    start: Square,
    parity: int,
    budget: int,
    blocked: frozenset[Square],
    threats: dict[Square, frozenset[str]],
    costs: tuple[tuple[int, int], int, int],
) -> dict[Square, dict[tuple[int, frozenset[str]], int]]:
    """Every state (square, parity, provoked set) reachable within ``budget``, with its least
    cost, by exhaustive relaxation straight from the rules (S17, S18, H13, S23)."""
    (d0, d1), multiplier, orthogonal = costs
    best: dict[tuple[Square, int, frozenset[str]], int] = {(start, parity, frozenset()): 0}
    stack = [(start, parity, frozenset(), 0)]
    while stack:
        sq, p, provoked, cost = stack.pop()
        if best[(sq, p, provoked)] < cost:
            continue
        if sq != start and g.drop_depth(sq):
            continue  # fell: the move ends
        now = provoked | threats.get(sq, frozenset())
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                to = (sq[0] + dx, sq[1] + dy)
                if (dx, dy) == (0, 0) or to in blocked or g.blocks_movement(to):
                    continue
                diagonal = dx != 0 and dy != 0
                if diagonal and (
                    g.blocks_movement((sq[0] + dx, sq[1])) or g.blocks_movement((sq[0], sq[1] + dy))
                ):
                    continue
                step = ((d0, d1)[p] if diagonal else orthogonal) * (
                    multiplier if g.is_difficult(to) else 1
                )
                q = 1 - p if diagonal else p
                total = cost + step
                if total <= budget and total < best.get((to, q, now), budget + 1):
                    best[(to, q, now)] = total
                    stack.append((to, q, now, total))
    out: dict[Square, dict[tuple[int, frozenset[str]], int]] = {}
    for (sq, p, provoked), cost in best.items():
        options = out.setdefault(sq, {})
        options[(p, provoked)] = min(cost, options.get((p, provoked), cost))
    return out


@st.composite
def scenarios(draw, armed: bool = False):
    """A small random map and query. ``armed``: bigger open maps where each enemy stands
    on the map (blocking) and threatens its H12 zone, as in play; otherwise threat zones
    are arbitrary sets of squares."""
    low = 4 if armed else 1
    w, h = draw(st.integers(low, 6)), draw(st.integers(low, 6))
    glyphs = st.sampled_from("..............#~+'_;" if armed else "..........#~+'_;")
    rows = ["".join(draw(glyphs) for _ in range(w)) for _ in range(h)]
    g = grid("\n".join(rows))
    free = [sq for sq in g.squares() if not g.blocks_movement(sq)]
    if not free:
        g = GridMap(w, h)
        free = list(g.squares())
    start = draw(st.sampled_from(free))
    others = [sq for sq in free if sq != start]
    few = st.lists(st.sampled_from(others), max_size=3, unique=True) if others else st.just([])
    blocked = set(draw(few))
    no_end = frozenset(draw(few))
    threats: dict[Square, set[str]] = {}
    for enemy in ("e0", "e1", "e2")[: draw(st.integers(1 if armed else 0, 3))]:
        if armed and others:
            origin = draw(st.sampled_from(others))
            blocked.add(origin)
            zone = list(threatened_squares(g, origin, draw(st.integers(1, 2))))
        else:
            zone = draw(st.lists(st.sampled_from(list(g.squares())), max_size=9, unique=True))
        for sq in zone:
            threats.setdefault(sq, set()).add(enemy)
    costs = draw(st.sampled_from([((1, 2), 2, 1), ((1, 2), 3, 1), ((2, 1), 2, 1), ((1, 1), 2, 2)]))
    return (
        g,
        start,
        draw(st.integers(0, 1)),
        draw(st.integers(3 if armed else 0, 8)),
        frozenset(blocked),
        no_end,
        {sq: frozenset(ids) for sq, ids in threats.items()},
        costs,
    )


def _check_route(reach: ReachGraph, route: Route, start, parity, blocked, threats) -> None:
    g = reach.grid
    path = route.path
    assert path[0] == start and path[-1] == route.destination
    for a, b in pairwise(path):
        assert chebyshev(a, b) == 1 and g.step_allowed(a, b)  # contiguous, no wall, no corner
        assert b not in blocked
        assert a == start or not g.drop_depth(a)  # nobody walks on after falling (S23)
    assert reach.path_cost(path, parity) == (route.cost, route.end_parity)
    assert route.provokers == provokers_of(path, threats)


@settings(max_examples=700, deadline=None)
@given(st.one_of(scenarios(), scenarios(armed=True)))
def test_reachable_matches_exhaustive_search(case) -> None:
    """S17, S18, H13, H14 against an exhaustive search: same destinations, and for each
    the fewest enemies provoked, then the least cost, then the better end parity; every
    route is a legal walk whose cost and provokers recompute exactly."""
    g, start, parity, budget, blocked, no_end, threats, costs = case
    (d0, d1), multiplier, orthogonal = costs
    reach = ReachGraph(g, (d0, d1), multiplier, orthogonal_cost=orthogonal)
    rank = {0: d0, 1: d1}
    for given_threats in ({}, threats):
        found = reach.reachable(
            start, parity, budget, blocked=blocked, no_end=no_end, threats=given_threats
        )
        states = _brute_force(g, start, parity, budget, blocked, given_threats, costs)
        expected = set(states) - {start} - no_end
        assert set(found) == expected
        assert len(found) == len(expected)
        for sq, route in found.items():
            _check_route(reach, route, start, parity, blocked, given_threats)
            # fewest enemies provoked, then cheapest, then the cheaper next diagonal (H13, H14)
            optimum = min(
                (len(provoked), cost, rank[p], p) for (p, provoked), cost in states[sq].items()
            )
            got = (len(route.provokers), route.cost, rank[route.end_parity], route.end_parity)
            assert got == optimum
        assert found == reach.reachable(
            start, parity, budget, blocked=blocked, no_end=no_end, threats=given_threats
        )


@st.composite
def reach_cases(draw):
    w, h = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    rows = ["".join(draw(st.sampled_from("...#+'~")) for _ in range(w)) for _ in range(h)]
    g = grid("\n".join(rows))
    origin = (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))
    return g, origin, draw(st.integers(1, 2))


@settings(max_examples=200, deadline=None)
@given(reach_cases())
def test_threatened_squares_match_definition_h12(case) -> None:
    g, origin, reach_squares = case
    one = {sq for sq in g.squares() if chebyshev(sq, origin) == 1 and g.step_allowed(origin, sq)}
    expected = set(one)
    if reach_squares == 2:
        expected |= {
            sq
            for mid in one
            for sq in g.squares()
            if chebyshev(sq, mid) == 1 and g.step_allowed(mid, sq)
        }
    expected.discard(origin)
    assert threatened_squares(g, origin, reach_squares) == expected


def _shifted(g: GridMap, by: int, size: int) -> GridMap:
    """``g`` moved ``by`` squares right and down inside a ``size`` x ``size`` open map, with
    a ring of walls round it standing for the small map's edge."""
    def move(squares):
        return frozenset((x + by, y + by) for x, y in squares)

    ring = {(x, y) for x in range(by - 1, by + g.width + 1) for y in (by - 1, by + g.height)}
    ring |= {(x, y) for y in range(by - 1, by + g.height + 1) for x in (by - 1, by + g.width)}
    return GridMap(size, size, walls=move(g.walls) | ring, closed_doors=move(g.closed_doors),
                   open_doors=move(g.open_doors), difficult=move(g.difficult),
                   dark=move(g.dark), drops={(x + by, y + by): d for (x, y), d in g.drops})


@settings(max_examples=150, deadline=None)
@given(st.one_of(scenarios(), scenarios(armed=True)))
def test_huge_maps_give_the_same_routes_as_small_ones(case) -> None:
    """A map too big for list tables (the search keeps dicts of what it touches) finds
    exactly the routes of the same few squares on a small map (S17, S18, H13, H14)."""
    g, start, parity, budget, blocked, no_end, threats, costs = case
    (d0, d1), multiplier, orthogonal = costs
    by = 75
    huge = ReachGraph(_shifted(g, by, 160), (d0, d1), multiplier, orthogonal_cost=orthogonal)
    small = ReachGraph(g, (d0, d1), multiplier, orthogonal_cost=orthogonal)

    def move(sq: Square) -> Square:
        return (sq[0] + by, sq[1] + by)

    for given_threats in ({}, threats):
        expected = {
            move(sq): (r.cost, tuple(map(move, r.path)), r.provokers, r.end_parity)
            for sq, r in small.reachable(start, parity, budget, blocked=blocked,
                                         no_end=no_end, threats=given_threats).items()
        }
        found = huge.reachable(
            move(start), parity, budget, blocked=frozenset(map(move, blocked)),
            no_end=frozenset(map(move, no_end)),
            threats={move(sq): ids for sq, ids in given_threats.items()})
        assert {sq: (r.cost, r.path, r.provokers, r.end_parity)
                for sq, r in found.items()} == expected
        assert list(found) == list(expected)  # same order of discovery


@settings(max_examples=120, deadline=None)
@given(st.one_of(scenarios(), scenarios(armed=True)), st.data())
def test_shared_searches_match_fresh_ones(case, data) -> None:
    """Queries on one graph share searches across no_end and far-off blocked squares; each
    answer is exactly a fresh graph's, routes and order of discovery included."""
    g, start, parity, budget, _, _, threats, costs = case
    (d0, d1), multiplier, orthogonal = costs
    shared = ReachGraph(g, (d0, d1), multiplier, orthogonal_cost=orthogonal)
    free = [sq for sq in g.squares() if not g.blocks_movement(sq) and sq != start]
    some = st.lists(st.sampled_from(free), max_size=4, unique=True) if free else st.just([])
    for _ in range(4):
        blocked, no_end = frozenset(data.draw(some)), frozenset(data.draw(some))
        for given_threats in ({}, threats):
            query = {"blocked": blocked, "no_end": no_end, "threats": given_threats}
            fresh = ReachGraph(g, (d0, d1), multiplier, orthogonal_cost=orthogonal)
            expected = list(fresh.reachable(start, parity, budget, **query).items())
            assert list(shared.reachable(start, parity, budget, **query).items()) == expected


def test_a_far_off_blocker_reuses_the_search_h13() -> None:
    reach = ReachGraph(grid("." * 12))
    near = reach.reachable((0, 0), 0, 3, blocked=frozenset({(11, 0)}))
    moved = reach.reachable((0, 0), 0, 3, blocked=frozenset({(10, 0)}), no_end={(1, 0)})
    assert dict(moved) == {sq: r for sq, r in near.items() if sq != (1, 0)}
    assert len(reach._searches) == 1  # one search answered both
    cut = reach.reachable((0, 0), 0, 3, blocked=frozenset({(2, 0)}))
    assert set(cut) == {(1, 0)} and len(reach._searches[(0, 3, frozenset())]) == 2


@settings(max_examples=200, deadline=None)
@given(reach_cases(), st.integers(0, 1), st.integers(-1, 1), st.integers(-1, 1))
def test_single_steps_read_the_networkx_graph_s18_h13(case, parity, dx, dy) -> None:
    """``step`` (the compiled edges MoveFrame's path costs use) answers exactly what the
    networkx graph says about the edge: its cost and the parity after, or None."""
    g, origin, _ = case
    reach = ReachGraph(g)
    target = (origin[0] + dx, origin[1] + dy)
    expected = None
    if not g.blocks_movement(origin):
        graph = reach.graph
        for after in (1 - parity, parity):
            data = graph.get_edge_data((*origin, parity), (*target, after))
            if data is not None:
                expected = (data["cost"], after)
                break
    assert reach.step(origin, target, parity) == expected


@settings(max_examples=300, deadline=None)
@given(scenarios(), st.integers(1, 8), st.lists(st.integers(0, 35), max_size=3))
def test_a_narrower_search_cut_from_a_wider_one_is_the_fresh_search(case, extra, moved) -> None:
    """A plain query answered from a stored search with a larger budget (a MOVE's from
    the FULL_MOVE's, possibly with other blocked squares) lists the same destinations in
    the same order with the same routes as a fresh search (S17, S18, H13, H14)."""
    g, start, parity, budget, blocked, no_end, _, costs = case
    (d0, d1), multiplier, orthogonal = costs
    squares = list(g.squares())
    other = frozenset(blocked ^ {squares[i % len(squares)] for i in moved}) - {start}

    def answer(reach: ReachGraph, block: frozenset[Square]) -> list:
        found = reach.reachable(start, parity, budget, blocked=block, no_end=no_end)
        return [(sq, r.cost, r.path, r.provokers, r.end_parity) for sq, r in found.items()]

    for block in (blocked, other):
        shared = ReachGraph(g, (d0, d1), multiplier, orthogonal_cost=orthogonal)
        shared.reachable(start, parity, budget + extra, blocked=blocked, no_end=no_end)
        fresh = ReachGraph(g, (d0, d1), multiplier, orthogonal_cost=orthogonal)
        assert answer(shared, block) == answer(fresh, block)
