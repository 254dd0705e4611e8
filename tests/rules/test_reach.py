"""The reach graph by example: movement costs (S17, S18, H13, H14), blocking by walls,
corners, doors, allies, enemies and drops (H13, S12, S23), provoked Free Attacks (H12,
H13), threatened squares (H12) and the query cache.

The property tests against an exhaustive search, and the searches shared or cut from
wider ones, are in test_reach_search.py; ``grid`` is in reach_helpers.py.
"""

from __future__ import annotations

import pytest
from reach_helpers import grid

from rules.grid import GridMap, Square, chebyshev
from rules.reach import ReachGraph, provokers_of, threat_map, threatened_squares


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
