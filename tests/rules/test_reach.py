"""The reach graph: movement costs, blocking and provoked Free Attacks (S17, S18, H12-H14)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.grid import GridMap, Square, chebyshev, parse_map
from rules.reach import ReachGraph, Route, provokers_of, threat_map, threatened_squares


def grid(text: str) -> GridMap:
    return parse_map(text, source="test.toml")


def open_map(w: int, h: int) -> GridMap:
    return GridMap(w, h)


def cost_to(reach: ReachGraph, start: Square, parity: int, dest: Square) -> int:
    route = reach.cheapest(start, parity, dest, 20)
    assert route is not None
    return route.cost


# ---------------------------------------------------------------- costs (S17, S18, H13, H14)


@pytest.mark.parametrize(
    ("start", "parity", "dest", "cost", "end_parity"),
    [
        ((0, 0), 0, (5, 5), 7, 1),  # S18: 1 + 2 + 1 + 2 + 1
        ((0, 0), 1, (5, 5), 8, 0),  # H14: carried parity, 2 + 1 + 2 + 1 + 2
        ((0, 0), 0, (1, 1), 1, 1),
        ((0, 0), 1, (1, 1), 2, 0),
        ((0, 0), 0, (2, 2), 3, 0),
        ((0, 0), 0, (5, 0), 5, 0),  # S17: orthogonal steps cost 1
        ((0, 0), 1, (5, 0), 5, 1),  # orthogonal steps keep the parity
        ((0, 0), 0, (5, 2), 6, 0),  # 2 diagonals (1 + 2) and 3 orthogonals
        ((0, 0), 1, (5, 1), 6, 0),  # with parity 1 the single diagonal costs 2
        ((5, 5), 0, (0, 3), 6, 0),
    ],
)
def test_open_ground_costs_s17_s18_h14(start, parity, dest, cost, end_parity) -> None:
    reach = ReachGraph(open_map(8, 8))
    route = reach.cheapest(start, parity, dest, 20)
    assert route is not None
    assert (route.cost, route.end_parity) == (cost, end_parity)
    assert route.path[0] == start and route.path[-1] == dest == route.destination
    assert reach.path_cost(route.path, parity) == (cost, end_parity)


def test_move_action_budget_s17() -> None:
    # MOV 10 -> 5 squares per move action: orthogonally 5 out, diagonally 3 (1 + 2 + 1 = 4;
    # a 4th diagonal would make 6).
    found = ReachGraph(open_map(11, 11)).reachable((5, 5), 0, 5)
    assert (10, 5) in found and (5, 0) in found
    assert (8, 8) in found and (9, 9) not in found
    assert (5, 5) not in found  # the start is never a destination
    assert len(found) == len(list(found)) == sum(1 for _ in found.items())


@pytest.mark.parametrize(
    ("text", "start", "parity", "dest", "cost"),
    [
        (".~.", (0, 0), 0, (1, 0), 2),  # H13: entering difficult terrain costs double
        (".~.", (0, 0), 0, (2, 0), 3),  # leaving it costs the normal price
        (".;.", (0, 0), 0, (2, 0), 3),  # dark difficult too
        (".:.", (0, 0), 0, (2, 0), 2),  # dark floor is not difficult
        ("..\n.~", (0, 0), 0, (1, 1), 2),  # diagonal costing 1, doubled
        ("..\n.~", (0, 0), 1, (1, 1), 3),  # parity 1: 2 doubled is 4, round the side is 3
        ("...\n..~", (0, 0), 1, (2, 1), 4),  # diagonal 2, then straight into it 1 x 2
    ],
)
def test_difficult_terrain_h13(text, start, parity, dest, cost) -> None:
    assert cost_to(ReachGraph(grid(text)), start, parity, dest) == cost


def test_costs_come_from_the_ruleset_data_s17_s18_h13() -> None:
    reach = ReachGraph(
        grid("....\n...~"), diagonal_costs=(2, 3), difficult_multiplier=3, orthogonal_cost=2
    )
    assert cost_to(reach, (0, 0), 0, (1, 1)) == 2
    assert cost_to(reach, (0, 0), 0, (3, 0)) == 6
    # two orthogonal 2s, then a diagonal 2 into difficult terrain x 3
    assert cost_to(reach, (0, 0), 0, (3, 1)) == 10
    with pytest.raises(ValueError, match="positive integer costs"):
        ReachGraph(GridMap(2, 2), diagonal_costs=(1, 0))
    with pytest.raises(ValueError, match="positive integer costs"):
        ReachGraph(GridMap(2, 2), difficult_multiplier=1.5)  # type: ignore[arg-type]


def test_graph_nodes_carry_parity_and_edges_cost_s18() -> None:
    reach = ReachGraph(grid("#..\n..~"))
    g = reach.graph
    assert (0, 0, 0) not in g and (1, 0, 0) in g and (1, 0, 1) in g
    assert g.number_of_nodes() == 10
    assert g.edges[(1, 0, 0), (2, 1, 1)]["cost"] == 2  # diagonal 1 into difficult
    assert g.edges[(1, 0, 1), (2, 1, 0)]["cost"] == 4  # diagonal 2 into difficult
    assert g.edges[(2, 1, 1), (1, 1, 1)]["cost"] == 1
    assert not g.has_edge((1, 0, 0), (0, 1, 1))  # would cut the wall's corner (H13)
    assert reach.step((1, 0), (2, 1), 1) == (4, 0)
    assert reach.step((1, 0), (0, 1), 0) is None
    with pytest.raises(ValueError, match="illegal step"):
        reach.path_cost(((1, 0), (0, 1)), 0)


# ---------------------------------------------------------------- blocking (H13)

CORNER = """
.#.
...
"""


def test_no_corner_cutting_h13() -> None:
    route = ReachGraph(grid(CORNER)).cheapest((0, 0), 0, (1, 1), 10)
    assert route is not None and route.path == ((0, 0), (0, 1), (1, 1)) and route.cost == 2
    door = ReachGraph(grid(CORNER.replace("#", "+")))
    assert cost_to(door, (0, 0), 0, (1, 1)) == 2
    assert cost_to(door.with_door((1, 0), True), (0, 0), 0, (1, 1)) == 1


def test_allies_passable_not_endable_enemies_block_h13() -> None:
    reach = ReachGraph(grid("#####\n#...#\n#####"))
    allies = reach.reachable((1, 1), 0, 5, no_end=frozenset({(2, 1)}))
    assert (2, 1) not in allies and allies[(3, 1)].cost == 2
    assert allies[(3, 1)].path == ((1, 1), (2, 1), (3, 1))
    enemies = reach.reachable((1, 1), 0, 5, blocked=frozenset({(2, 1)}))
    assert dict(enemies) == {}


def test_doors_block_until_opened_s12_h13() -> None:
    reach = ReachGraph(grid("..+.."))
    assert set(reach.reachable((0, 0), 0, 10)) == {(1, 0)}
    opened = reach.with_door((2, 0), True)
    assert set(opened.reachable((0, 0), 0, 10)) == {(1, 0), (2, 0), (3, 0), (4, 0)}
    assert opened.grid.doors == {(2, 0): True}
    # one graph per door state, shared by the family
    assert reach.with_door((2, 0), True) is opened
    assert opened.with_door((2, 0), False) is reach
    assert set(reach.reachable((0, 0), 0, 10)) == {(1, 0)}


def test_drops_end_a_move_s23() -> None:
    reach = ReachGraph(grid("..3.."))
    found = reach.reachable((0, 0), 0, 10)
    assert set(found) == {(1, 0), (2, 0)}  # the mover falls into the drop and stops
    assert set(reach.reachable((2, 0), 0, 10)) == {(0, 0), (1, 0), (3, 0), (4, 0)}


def test_queries_reject_bad_input() -> None:
    reach = ReachGraph(grid("#.."))
    with pytest.raises(ValueError, match="can stand on"):
        reach.reachable((0, 0), 0, 5)
    with pytest.raises(ValueError, match="parity"):
        reach.reachable((1, 0), 2, 5)
    assert dict(reach.reachable((1, 0), 0, -1)) == {}
    assert dict(reach.reachable((1, 0), 0, 0)) == {}
    found = reach.reachable((1, 0), 0, 1)
    assert "x" not in found and (9, 9) not in found and (1, 0) not in found
    with pytest.raises(KeyError):
        found[(0, 0)]


# ---------------------------------------------------------------- provocation (H12, H13)

ARENA = """
.......
.......
.......
.......
"""


def test_route_round_a_threat_zone_beats_a_cheaper_provoking_one_h13() -> None:
    reach = ReachGraph(grid(ARENA))
    threats = threat_map(reach.grid, {"orc": ((3, 1), 1)})
    blocked = frozenset({(3, 1)})
    plain = reach.cheapest((0, 1), 0, (6, 1), 20, blocked=blocked)
    assert plain is not None and plain.cost == 7 and plain.provokers == ()  # no threats given
    careful = reach.cheapest((0, 1), 0, (6, 1), 20, blocked=blocked, threats=threats)
    assert careful is not None and careful.provokers == ()
    assert careful.cost == 8  # down to row 3, along, back up
    assert all(chebyshev(sq, (3, 1)) > 1 for sq in careful.path[1:-1])
    # with a smaller budget the only routes provoke: the cheapest of them
    tight = reach.cheapest((0, 1), 0, (6, 1), 7, blocked=blocked, threats=threats)
    assert tight is not None and tight.provokers == ("orc",) and tight.cost == 7


def test_each_enemy_provoked_once_per_action_h13() -> None:
    reach = ReachGraph(grid("#######\n#.....#\n#######"))
    threats = {(2, 1): frozenset({"orc"}), (3, 1): frozenset({"orc"}), (4, 1): frozenset({"orc"})}
    route = reach.cheapest((1, 1), 0, (5, 1), 10, threats=threats)
    assert route is not None and route.provokers == ("orc",) and route.cost == 4


def test_leaving_the_start_square_provokes_h13() -> None:
    reach = ReachGraph(grid(ARENA))
    threats = threat_map(reach.grid, {"orc": ((3, 1), 1), "gob": ((0, 3), 1)})
    found = reach.reachable((2, 1), 0, 3, blocked=frozenset({(3, 1), (0, 3)}), threats=threats)
    assert all(route.provokers[:1] == ("orc",) for route in found.values())
    assert found[(1, 1)].provokers == ("orc",)
    # ending on gob's square does not provoke gob: only leaving one does
    assert found[(1, 2)].provokers == ("orc",)
    assert found[(0, 1)].provokers == ("orc",)


def test_provokers_listed_in_order_h13() -> None:
    reach = ReachGraph(grid("#########\n#.......#\n#########"))
    threats = {
        (2, 1): frozenset({"b"}),
        (4, 1): frozenset({"a", "c"}),
    }
    route = reach.cheapest((1, 1), 0, (7, 1), 10, threats=threats)
    assert route is not None and route.provokers == ("b", "a", "c")
    assert provokers_of(route.path, threats) == route.provokers
    assert provokers_of(route.path, None) == ()


def test_fewer_enemies_beats_cheaper_h13() -> None:
    text = """
.....
.....
.....
"""
    reach = ReachGraph(grid(text))
    # straight along row 0 provokes two; the long way round provokes only "c".
    threats = {
        (1, 0): frozenset({"a"}),
        (2, 0): frozenset({"b"}),
        (1, 1): frozenset({"c"}),
        (1, 2): frozenset({"c"}),
        (2, 1): frozenset({"c"}),
        (2, 2): frozenset({"c"}),
    }
    route = reach.cheapest((0, 0), 0, (4, 0), 10, threats=threats)
    assert route is not None and route.provokers == ("c",)
    assert route.cost > 4


def test_no_op_threats_give_the_plain_routes_h13() -> None:
    reach = ReachGraph(grid(ARENA))
    far = {(6, 3): frozenset({"x"})}
    plain = reach.reachable((0, 0), 0, 6)
    with_threats = reach.reachable((0, 0), 0, 6, threats=far)
    assert dict(plain) == {sq: r for sq, r in with_threats.items()}


# ---------------------------------------------------------------- threatened squares (H12)

REACH = """
.......
.......
...#...
.......
.......
.......
"""


def box(x0: int, y0: int, x1: int, y1: int) -> set[Square]:
    return {(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)}


@pytest.mark.parametrize(
    ("origin", "reach_squares", "zone"),
    [
        ((3, 4), 1, box(2, 3, 4, 5) - {(3, 4)}),  # S or M: the eight neighbours
        ((0, 0), 1, {(1, 0), (0, 1), (1, 1)}),
        # the wall (3, 2) is not threatened, nor (3, 1) and (3, 3) round its corners
        ((2, 2), 1, box(1, 1, 3, 3) - {(2, 2), (3, 2), (3, 1), (3, 3)}),
        ((3, 3), 1, box(2, 2, 4, 4) - {(3, 3), (3, 2), (2, 2), (4, 2)}),
        # L: the 5x5 box less the origin, the wall and the row the wall hides
        ((3, 3), 2, box(1, 1, 5, 5) - {(3, 3), (3, 2)} - box(1, 1, 5, 1)),
        ((3, 4), 2, box(1, 2, 5, 5) - {(3, 4), (3, 2)}),
    ],
)
def test_threatened_squares_h12(origin, reach_squares, zone) -> None:
    g = grid(REACH)
    assert threatened_squares(g, origin, reach_squares) == zone


def test_reach_stops_at_walls_and_corners_h12_h13() -> None:
    g = grid(REACH)
    long = threatened_squares(g, (3, 4), 2)
    assert (3, 2) not in long  # the wall
    assert (2, 2) in long and (4, 2) in long  # round the wall's side
    corner = grid(".#\n..")
    assert threatened_squares(corner, (0, 0), 1) == {(0, 1)}  # not round the wall's corner
    door = grid(".+.")
    assert threatened_squares(door, (0, 0), 2) == frozenset()
    assert threatened_squares(door.with_door((1, 0), True), (0, 0), 2) == {(1, 0), (2, 0)}


def test_threat_map_merges_enemies_h12() -> None:
    g = grid(ARENA)
    threats = threat_map(g, {"a": ((1, 1), 1), "b": ((3, 1), 1)})
    assert threats[(2, 1)] == {"a", "b"}
    assert threats[(0, 0)] == {"a"} and threats[(4, 2)] == {"b"}
    assert (1, 1) not in threats and (3, 1) not in threats  # own squares
    assert len(threats) == 5 * 3 - 2


# ---------------------------------------------------------------- caching


def test_query_cache_is_keyed_on_the_whole_query_h13() -> None:
    reach = ReachGraph(grid(ARENA), cache_size=2)
    a = reach.reachable((0, 0), 0, 5)
    assert reach.reachable((0, 0), 0, 5) is a
    assert reach.reachable((0, 0), 0, 5, blocked={(1, 0)}) is not a  # type: ignore[arg-type]
    assert reach.reachable((0, 0), 0, 5, threats={(0, 0): frozenset({"x"})}) is not a
    assert reach.reachable((0, 0), 0, 5) is not a  # evicted (LRU of 2)
    reach.clear_cache()
    assert dict(reach.reachable((0, 0), 0, 5)) == dict(a)


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
