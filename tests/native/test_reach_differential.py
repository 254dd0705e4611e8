"""The native reach search (rules/native/core/reach.cpp, reach_search.cpp, reach_sweep.cpp and
routes.cpp, through rules/bridge/reach.py) against the Python one (rules/reach.py), route
for route (S17, S18, H12-H14, S23).

Compared: every destination in the order first reached, and for each its cost, path, end
parity and the enemies its path provokes, in order. Where: at every TURN decision of
random-play battles on every shipped scenario (the actor's MOVE and FULL_MOVE budgets,
with and without threats, with its diagonal parity and the other one), and on
Hypothesis-generated small maps, occupancies, threat zones and movement costs.

Timing (not a test): ``python tests/native/test_reach_differential.py`` plays the same
battles and times both searches on the queries met (docs/architecture.md, "Native
engine").
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import agents
import rules
import rules.engine
from rules import DecisionKind
from rules import queries as q
from rules.grid import GridMap, Square
from rules.reach import ReachGraph
from rules.routes import Route

_MISSING = rules.engine.missing_native("ReachGraph", "the reach search")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)
native = rules.engine.native_module()

from rules.bridge import reach as native_reach  # noqa: E402  (needs the module checked above)

#: Random-play battles per shipped scenario (FRAY_REACH_SEEDS of them, 1 unless set), and
#: the decisions played in each at most.
SEEDS = range(1, 1 + int(os.environ.get("FRAY_REACH_SEEDS", "1")))
MAX_DECISIONS = 300
#: Queries per TURN decision: MOVE and FULL_MOVE budgets, plain and provoking, with the
#: actor's parity and the other one.
QUERIES_PER_POSITION = 8


def python_routes(found: object) -> dict[Square, Route]:
    """A Python query result with every route built, in its order."""
    return {square: found[square] for square in found}  # type: ignore[index]


def assert_same(expected: dict[Square, Route], actual: dict[Square, Route],
                where: str) -> None:
    assert list(actual) == list(expected), f"{where}: destinations differ"
    for square, route in expected.items():
        assert actual[square] == route, f"{where}: route to {square}"


def turn_queries(battle: rules.Battle) -> Iterator[tuple]:
    """The reach queries of the actor at a TURN decision: (graph, start, parity, budget,
    blocked, no_end, threats), as rules.queries.routes asks them."""
    state = battle.state
    actor = state.combatants[battle.decision.actor]
    for provoking in (False, True):
        blocked, no_end, threats = q.route_tables(state, actor, provoking)
        for full in (False, True):
            budget = q.move_budget(state, actor, full)
            for parity in (actor.diagonal_parity, 1 - actor.diagonal_parity):
                yield (state.graph, actor.position, parity, budget, blocked, no_end, threats)


def random_play(scenario: str, seed: int) -> Iterator[rules.Battle]:
    """The battle at every TURN decision of a random-play game (agents.make('random'))."""
    battle = rules.Battle.from_scenario(scenario, seed=seed)
    agent = agents.make("random", seed=seed)
    for _ in range(MAX_DECISIONS):
        decision = battle.decision
        if decision is None:
            return
        if decision.kind is DecisionKind.TURN:
            yield battle
        battle.apply(agent.act(battle))


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_random_play_positions_agree(scenario: str) -> None:
    positions = queries = provoked = 0
    for seed in SEEDS:
        for battle in random_play(scenario, seed):
            positions += 1
            for graph, start, parity, budget, blocked, no_end, threats in turn_queries(battle):
                expected = python_routes(graph.reachable(
                    start, parity, budget, blocked=blocked, no_end=no_end, threats=threats))
                actual = native_reach.reachable(graph, start, parity, budget, blocked=blocked,
                                                no_end=no_end, threats=threats)
                assert_same(expected, actual, f"{scenario} seed {seed} round {battle.round} "
                            f"{battle.decision.actor} parity {parity} budget {budget}")
                queries += 1
                provoked += sum(bool(route.provokers) for route in actual.values())
    print(f"\n{scenario}: {positions} positions, {queries} queries ({provoked} routes "
          "provoking), 0 differences")
    assert positions >= 20 * len(SEEDS) and queries == QUERIES_PER_POSITION * positions
    assert provoked > 0, "no route provoked anyone: the threat search went untested"


def test_routes_adapter_matches_queries_routes() -> None:
    battle = rules.Battle.from_scenario("duel", seed=4)
    state = battle.state
    actor = state.combatants[battle.decision.actor]
    for provoking in (False, True):
        for full in (False, True):
            budget = q.move_budget(state, actor, full)
            assert_same(python_routes(q.routes(state, actor, budget, provoking)),
                        native_reach.routes(state, actor, budget, provoking), "duel")


# ------------------------------------------------------------------ generated maps
GLYPHS = "....~~#+'_"
COSTS = st.tuples(st.sampled_from([(1, 2), (2, 1), (1, 1), (2, 3)]),
                  st.integers(1, 3), st.integers(1, 2))
#: Ids whose sorted order is not their order of creation (provokers are listed by id).
ENEMY_IDS = ("orc10", "orc2", "Ogre", "bat", "a", "z9")


@st.composite
def maps(draw: st.DrawFn, largest: int = 7) -> GridMap:
    width, height = draw(st.integers(1, largest)), draw(st.integers(1, largest))
    glyph = {(x, y): draw(st.sampled_from(GLYPHS)) for y in range(height) for x in range(width)}
    of = lambda wanted: frozenset(sq for sq, g in glyph.items() if g == wanted)  # noqa: E731
    return GridMap(width, height, walls=of("#"), closed_doors=of("+"), open_doors=of("'"),
                   difficult=of("~"), drops=tuple((sq, 10) for sq in sorted(of("_"))))


def squares_near(grid: GridMap) -> st.SearchStrategy[Square]:
    """Squares of the map and one beyond each edge (the search ignores those)."""
    return st.tuples(st.integers(-1, grid.width), st.integers(-1, grid.height))


@st.composite
def queries(draw: st.DrawFn, enemies: tuple[str, ...] = ENEMY_IDS,
            largest: int = 7) -> tuple:
    grid = draw(maps(largest))
    open_squares = [sq for sq in grid.squares() if not grid.blocks_movement(sq)]
    assume(open_squares)
    start = draw(st.sampled_from(open_squares))
    near = squares_near(grid)
    blocked = draw(st.frozensets(near, max_size=6))
    no_end = draw(st.frozensets(near, max_size=6)) - blocked
    threats = None
    if draw(st.booleans()):
        threats = {}
        for enemy in draw(st.lists(st.sampled_from(enemies), unique=True, max_size=len(enemies))):
            for square in draw(st.frozensets(near, max_size=9)):
                threats[square] = threats.get(square, frozenset()) | {enemy}
        if draw(st.booleans()) and open_squares:
            threats[draw(st.sampled_from(open_squares))] = frozenset()  # an empty group
    return grid, start, draw(st.integers(0, 1)), draw(st.integers(-1, 12)), blocked, \
        no_end, threats, draw(COSTS)


def check_query(grid: GridMap, start: Square, parity: int, budget: int,
                blocked: frozenset[Square], no_end: frozenset[Square],
                threats: dict | None, costs: tuple) -> None:
    diagonal_costs, multiplier, orthogonal = costs
    graph = ReachGraph(grid, diagonal_costs, multiplier, orthogonal_cost=orthogonal)
    expected = python_routes(graph.reachable(start, parity, budget, blocked=blocked,
                                             no_end=no_end, threats=threats))
    actual = native_reach.reachable(graph, start, parity, budget, blocked=blocked,
                                    no_end=no_end, threats=threats)
    assert_same(expected, actual, grid.to_text())
    compiled = native_reach.native_graph(graph)
    for route in actual.values():
        assert compiled.path_cost(route.path, parity) == graph.path_cost(route.path, parity)
        assert route.cost == graph.path_cost(route.path, parity)[0]
    check_cheapest(compiled, grid, start, parity, budget, blocked, no_end, threats, expected)
    check_destinations(graph, compiled, start, parity, budget, blocked, no_end)
    check_free_destinations(compiled, grid, start, parity, budget, blocked, no_end, threats,
                            expected)


def check_destinations(graph: ReachGraph, compiled: object, start: Square, parity: int,
                       budget: int, blocked: frozenset[Square],
                       no_end: frozenset[Square]) -> None:
    """The native ``destinations`` (the turn's listing: a sweep over bitboards on maps up
    to 1,024 squares, the search beyond) gives the plain query's destinations in (x, y)
    order with the costs of the routes the Python search chose."""
    found = graph.reachable(start, parity, budget, blocked=blocked, no_end=no_end)
    expected = [(square, found[square].cost) for square in sorted(found)]
    indices = native_reach._indices
    actual = compiled.destinations(  # type: ignore[attr-defined]
        start, parity, budget, indices(graph.grid, blocked), indices(graph.grid, no_end))
    assert actual == expected, graph.grid.to_text()


def check_free_destinations(compiled: object, grid: GridMap, start: Square, parity: int,
                            budget: int, blocked: frozenset[Square], no_end: frozenset[Square],
                            threats: dict | None, expected: dict[Square, Route]) -> None:
    """The native ``free_destinations`` (a sweep that never leaves a threatened square on
    maps up to 1,024 squares, the search beyond) gives, in (x, y) order with their costs,
    exactly the destinations whose route the Python search chose provokes nobody."""
    squares, enemies, ids = native_reach.compile_threats(grid, threats)
    indices = native_reach._indices
    actual = compiled.free_destinations(  # type: ignore[attr-defined]
        start, parity, budget, indices(grid, blocked), indices(grid, no_end), squares, enemies,
        ids)
    wanted = [(square, route.cost) for square, route in sorted(expected.items())
              if not route.provokers]
    assert actual == wanted, grid.to_text()


def check_cheapest(compiled: object, grid: GridMap, start: Square, parity: int, budget: int,
                   blocked: frozenset[Square], no_end: frozenset[Square], threats: dict | None,
                   expected: dict[Square, Route]) -> None:
    """The native ``cheapest`` (a search that stops once the destination's route is
    settled, nothing kept) gives every square the route the whole Python search chose to
    it, and None where it chose none (the start, squares no move ends on, beyond reach,
    off the map)."""
    squares, enemies, ids = native_reach.compile_threats(grid, threats)
    indices = native_reach._indices  # the adapter's own square encoding
    for y in range(-1, grid.height + 1):
        for x in range(-1, grid.width + 1):
            found = compiled.cheapest(  # type: ignore[attr-defined]
                start, parity, (x, y), budget, indices(grid, blocked), indices(grid, no_end),
                squares, enemies, ids)
            route = expected.get((x, y))
            assert found == (None if route is None else (
                route.destination, route.cost, route.path, route.provokers, route.end_parity)), \
                (x, y)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(queries())
def test_generated_maps_agree(query: tuple) -> None:
    check_query(*query)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(queries(enemies=tuple(f"e{n:03d}" for n in range(140)), largest=10))
def test_more_enemies_than_one_mask_word_agree(query: tuple) -> None:
    check_query(*query)


@st.composite
def large_maps(draw: st.DrawFn) -> GridMap:
    """Maps of up to about 1,200 squares, some wider than a 64-bit word (a step then moves
    bits a whole word and more), their glyphs drawn by a seeded generator (a draw per
    square would overflow Hypothesis's buffer), walls sparser than on the small maps."""
    width = draw(st.integers(8, 130))
    height = draw(st.integers(1, max(1, 1_200 // width)))
    generator = random.Random(draw(st.integers(0, 2**32)))
    glyphs = "........~~#+'_"
    glyph = {(x, y): generator.choice(glyphs) for y in range(height) for x in range(width)}
    of = lambda wanted: frozenset(sq for sq, g in glyph.items() if g == wanted)  # noqa: E731
    return GridMap(width, height, walls=of("#"), closed_doors=of("+"), open_doors=of("'"),
                   difficult=of("~"), drops=tuple((sq, 10) for sq in sorted(of("_"))))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(large_maps(), st.data())
def test_destinations_on_larger_maps_agree(grid: GridMap, data: st.DataObject) -> None:
    """Maps of many 64-bit words (the sweep shifts bits across words), rows longer than a
    word, and maps past the sweep's 1,024 squares (the search then), with budgets
    crossing them."""
    open_squares = [sq for sq in grid.squares() if not grid.blocks_movement(sq)]
    assume(open_squares)
    diagonal_costs, multiplier, orthogonal = data.draw(COSTS)
    graph = ReachGraph(grid, diagonal_costs, multiplier, orthogonal_cost=orthogonal)
    compiled = native_reach.native_graph(graph)
    near = squares_near(grid)
    for _ in range(3):
        start = data.draw(st.sampled_from(open_squares))
        blocked = data.draw(st.frozensets(near, max_size=12))
        no_end = data.draw(st.frozensets(near, max_size=12)) - blocked
        parity, budget = data.draw(st.integers(0, 1)), data.draw(st.integers(-1, 40))
        check_destinations(graph, compiled, start, parity, budget, blocked, no_end)
        # threat zones: the sweep that never leaves them, and the routes provoking nobody
        threats = {square: frozenset(data.draw(st.sets(st.sampled_from(ENEMY_IDS), min_size=1)))
                   for square in data.draw(st.frozensets(st.sampled_from(open_squares),
                                                         max_size=40))}
        expected = python_routes(graph.reachable(start, parity, budget, blocked=blocked,
                                                 no_end=no_end, threats=threats))
        check_free_destinations(compiled, grid, start, parity, budget, blocked, no_end,
                                threats, expected)


@pytest.mark.parametrize(("width", "height"), [(65, 15), (100, 10), (128, 8), (1024, 1),
                                             (33, 31), (32, 33)])
def test_destinations_on_wide_and_edge_sized_maps_agree(width: int, height: int) -> None:
    """Rows of exactly one and two words, longer than a word, one row of 1,024 squares
    (the sweep's largest map), and a map just past it (the search)."""
    generator = random.Random(width * 1_000 + height)
    glyph = {(x, y): generator.choice("........~~#'_") for y in range(height)
             for x in range(width)}
    of = lambda wanted: frozenset(sq for sq, g in glyph.items() if g == wanted)  # noqa: E731
    grid = GridMap(width, height, walls=of("#"), open_doors=of("'"), difficult=of("~"),
                   drops=tuple((sq, 10) for sq in sorted(of("_"))))
    graph = ReachGraph(grid)
    compiled = native_reach.native_graph(graph)
    open_squares = sorted(sq for sq in grid.squares() if not grid.blocks_movement(sq))
    for start in generator.sample(open_squares, 4):
        for budget in (3, 12, 40):
            parity, blocked = generator.randint(0, 1), frozenset(generator.sample(open_squares, 5))
            check_destinations(graph, compiled, start, parity, budget, blocked, frozenset())
            threats = {square: frozenset(generator.sample(ENEMY_IDS, 2))
                       for square in generator.sample(open_squares, 30)}
            expected = python_routes(graph.reachable(start, parity, budget, blocked=blocked,
                                                     threats=threats))
            check_free_destinations(compiled, grid, start, parity, budget, blocked,
                                    frozenset(), threats, expected)


@settings(max_examples=100, deadline=None)
@given(maps(), st.data())
def test_single_steps_agree(grid: GridMap, data: st.DataObject) -> None:
    graph = ReachGraph(grid)
    compiled = native_reach.native_graph(graph)
    for _ in range(10):
        a = data.draw(squares_near(grid))
        b = data.draw(st.tuples(st.integers(a[0] - 2, a[0] + 2), st.integers(a[1] - 2, a[1] + 2)))
        parity = data.draw(st.integers(0, 2))
        assert compiled.step(a, b, parity) == graph.step(a, b, parity), (a, b, parity)


def test_bad_queries_raise_value_error_like_python() -> None:
    graph = ReachGraph(GridMap(3, 1, walls={(2, 0)}))
    for start, parity, budget in (((0, 0), 2, 3), ((2, 0), 0, 3), ((5, 0), 0, 3),
                                  ((0, 0), 0, 2.5)):
        with pytest.raises(ValueError) as python_error:
            graph.reachable(start, parity, budget)
        with pytest.raises(ValueError) as native_error:
            native_reach.reachable(graph, start, parity, budget)
        assert str(native_error.value) == str(python_error.value)
    assert native_reach.reachable(graph, (0, 0), 0, -1) == {}
    assert native_reach.reachable(graph, (0, 0), 0, 10**4) == python_routes(
        graph.reachable((0, 0), 0, 10**4))


# ------------------------------------------------------------------ timing (not a test)
def _time_queries(rounds: int = 3) -> None:
    """Time both searches on the queries of the random-play battles above (CPU µs per
    query, best of ``rounds``: CPU time, since the machine is shared), each answer used
    twice: its destinations listed (what legal actions ask) and every route built.
    Python's search runs uncached (its query cache cleared before each query); the native
    one through the adapter (tables compiled per query) and alone (tables compiled
    before, routes as tuples)."""
    met = [query for scenario in rules.shipped_scenarios() for seed in SEEDS
           for battle in random_play(scenario, seed) for query in turn_queries(battle)]
    compiled = []
    for graph, start, parity, budget, blocked, no_end, threats in met:
        squares, enemies, ids = native_reach.compile_threats(graph.grid, threats)
        compiled.append((native_reach.native_graph(graph), start, parity, budget,
                         native_reach._indices(graph.grid, blocked),
                         native_reach._indices(graph.grid, no_end), squares, enemies, ids))

    def python(build: bool) -> None:
        for graph, start, parity, budget, blocked, no_end, threats in met:
            graph.clear_cache()
            found = graph.reachable(start, parity, budget, blocked=blocked, no_end=no_end,
                                    threats=threats)
            python_routes(found) if build else list(found)

    def adapter(build: bool) -> None:
        for graph, start, parity, budget, blocked, no_end, threats in met:
            found = native_reach.reachable(graph, start, parity, budget, blocked=blocked,
                                           no_end=no_end, threats=threats)
            python_routes(found) if build else list(found)

    def alone(build: bool) -> None:
        for graph, *arguments in compiled:
            found = graph.reachable(*arguments)
            [found.route(n) for n in range(len(found))] if build else found.index()

    print(f"{len(met)} reach queries ({sum(1 for query in met if query[-1])} with threats) "
          f"from random play of {len(rules.shipped_scenarios())} scenarios x {len(SEEDS)} "
          f"seed(s); CPU µs per query, best of {rounds}:")
    for build, what in ((False, "destinations listed"), (True, "every route built")):
        timed = {}
        for name, run in (("python", python), ("native via adapter", adapter),
                          ("native alone", alone)):
            best = float("inf")
            for _ in range(rounds):
                began = time.thread_time()
                run(build)
                best = min(best, time.thread_time() - began)
            timed[name] = best / len(met) * 1e6
        print(f"  {what}: " + ", ".join(
            f"{name} {micros:.1f} ({timed['python'] / micros:.1f}x)"
            for name, micros in timed.items()))


if __name__ == "__main__":
    _time_queries()
