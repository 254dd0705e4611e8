"""The map and the read-only queries on the native engine (rules/native/core/grid.cpp,
threat_zones.cpp, queries.cpp through tests/native/glue/queries.py) against the Python
reference (rules/grid.py, rules/threat_zones.py, rules/queries.py), answer for answer.

Where: at every decision of seeded random play (uniform over ``battle.legal_actions()``)
on every shipped scenario, and on a variant of every other decision's state (a combatant
dead, one fallen on another's square, a Free Attack used, torches lit, carried and on the
ground): every query of ``rules.queries`` but ``routes`` (which
tests/native/test_reach_differential.py checks) for every combatant, every pair of
combatants, and every square within two squares of each combatant (the map's edges and
beyond included); ``is_lit`` on every square of the map. Lists must come in the same
order; sets (threat zones, route tables) must be equal. Then on Hypothesis-generated maps
(every glyph, doors opened and closed in place): ``line_of_sight``, ``step_allowed``,
``neighbours``, ``blocks_movement`` and ``threatened_squares``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules
import rules.engine
from rules import queries as q
from rules.combatant import ItemInstance
from rules.grid import GLYPHS, GridMap, chebyshev, line_of_sight
from rules.scenario import shipped_scenarios
from rules.state import BattleState
from rules.threat_zones import threatened_squares

_MISSING = rules.engine.missing_native("QueryView", "the native queries")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)
native = rules.engine.native_module()

from tests.native.glue import queries as native_queries  # noqa: E402  (needs the module checked above)

Square = tuple[int, int]
#: Random-play seed and decisions played per shipped scenario.
SEED = 1
MAX_DECISIONS = 40
#: Base ranges asked of in_range, spell ranges of spell_target_ok.
BASE_RANGES = (0, 2, 6, 15)
SPELL_RANGES = (0, 1, 4, 12)


def window(square: Square, radius: int = 2) -> list[Square]:
    x, y = square
    return [(x + dx, y + dy) for dy in range(-radius, radius + 1)
            for dx in range(-radius, radius + 1)]


def check_combatant(state: BattleState, view: Any, index: int, where: str) -> int:
    """Every one-combatant query of combatant ``index``; the answers compared."""
    combatants = list(state.combatants.values())
    combatant = combatants[index]
    asked = 0
    assert view.enemies(index) == [e.id for e in q.enemies(state, combatant)], where
    for reach in (None, 0, 1, 2, 3):
        assert sorted(view.threat_squares(index, reach)) == sorted(
            q.threat_squares(state, combatant, reach)), f"{where} reach {reach}"
    body, ids = q.mover_of(state, combatant)
    assert view.mover_of(index) == (body.id, ids), where
    for provoking in (False, True):
        blocked, no_end, threats = view.route_tables(index, provoking)
        expected = q.route_tables(state, combatant, provoking)
        assert (frozenset(blocked), frozenset(no_end), threats) == expected, where
        assert len(blocked) == len(expected[0]) and len(no_end) == len(expected[1]), where
    for full in (False, True):
        assert view.move_budget(index, full) == q.move_budget(state, combatant, full), where
    for avoid_drops in (False, True):
        assert view.free_adjacent(index, avoid_drops) == q.free_adjacent(
            state, combatant, avoid_drops), f"{where} avoid_drops {avoid_drops}"
    for ammo in [None, "no_such_item", *{inst.item for inst in combatant.inventory}]:
        found = q.ammo_of(combatant, ammo)
        expected_index = None if found is None else next(
            i for i, inst in enumerate(combatant.inventory) if inst is found)
        assert view.ammo_of(index, ammo) == expected_index, f"{where} ammo {ammo}"
    assert view.provokers_at(index) == q.provokers_at(state, combatant), where
    letters = state.content.ruleset.misc.reach_squares
    for square in window(combatant.position):
        assert view.provokers_at(index, square) == q.provokers_at(state, combatant, square), (
            f"{where} provokers at {square}")
        for letter in letters:
            assert view.weapon_reaches(index, letter, square) == q.weapon_reaches(
                state, combatant, letter, square), f"{where} {letter} reaches {square}"
        asked += 1 + len(letters)
    for other_index, other in enumerate(combatants):
        pair = f"{where} -> {other.id}"
        assert view.can_free_attack(index, other_index) == q.can_free_attack(
            state, combatant, other), pair
        assert view.walk_distance(combatant.position, other.position) == q.walk_distance(
            state, combatant.position, other.position), pair
        for base_range in BASE_RANGES:
            assert view.in_range(index, other_index, base_range) == q.in_range(
                state, combatant, other, base_range), f"{pair} range {base_range}"
        for spell_range in SPELL_RANGES:
            assert view.spell_target_ok(index, other_index, spell_range) == q.spell_target_ok(
                state, combatant, other, spell_range), f"{pair} spell range {spell_range}"
        asked += 2 + len(BASE_RANGES) + len(SPELL_RANGES)
    return asked + 20


def check_state(state: BattleState, where: str) -> int:
    """Every query at one decision; the number of answers compared."""
    view = native_queries.native_view(state)
    combatants = list(state.combatants.values())
    asked = 0
    for exclude in [(), *((c.id,) for c in combatants)]:
        assert view.occupied(exclude) == [
            (square, holder.id) for square, holder in q.occupied(state, exclude).items()], (
            f"{where} occupied but {exclude}")
        asked += 1
    grid = state.grid
    for square in grid.squares():
        assert view.is_lit(square) == q.is_lit(state, square), f"{where} lit {square}"
        asked += 1
    for index, combatant in enumerate(combatants):
        asked += check_combatant(state, view, index, f"{where} {combatant.id}")
        bodies = q.mover_of(state, combatant)[1]
        held = tuple(c.position for c in combatants if not c.dead)
        for walked in ((combatant.position,), (*held, combatant.position), held):
            if walked:
                assert view.way_back(walked, bodies) == q.way_back(state, walked, bodies), (
                    f"{where} way back {walked} for {bodies}")
                asked += 1
    return asked


def variant(state: BattleState, decision: int) -> BattleState:
    """A copy of ``state`` with what random play rarely reaches early: a combatant dead,
    another out of action on an active one's square, a Free Attack used, every carried
    torch lit and a lit torch on the ground (H5, H12, H13, H23)."""
    new = state.copy()
    combatants = list(new.combatants.values())
    count = len(combatants)
    combatants[decision % count].status = "dead"
    fallen = combatants[(decision + 1) % count]
    fallen.status = "out"
    fallen.position = combatants[(decision + 2) % count].position
    combatants[(decision + 3) % count].free_attack_used = True
    for combatant in combatants:
        for inst in combatant.inventory:
            inst.lit = inst.lit or inst.item == "torch"
    grid = new.grid
    new.ground = [ItemInstance(uid="dropped_torch", item="torch", state="ground", lit=True,
                               square=(decision * 7 % grid.width, decision * 3 % grid.height))]
    return new


@pytest.mark.parametrize("scenario", shipped_scenarios())
def test_every_query_at_every_decision(scenario: str) -> None:
    battle = rules.Battle.from_scenario(scenario, seed=SEED, engine="python")
    chooser = random.Random(SEED)
    weapons = battle.state.content.weapons
    view = native_queries.native_view(battle.state)
    for name, weapon in weapons.items():
        assert view.is_unarmed(name) == q.is_unarmed(weapon), name
    asked = 0
    for decision in range(MAX_DECISIONS):
        asked += check_state(battle.state, f"{scenario} decision {decision}")
        if decision % 2 == 0:
            asked += check_state(variant(battle.state, decision),
                                 f"{scenario} decision {decision} variant")
        if battle.is_over:
            break
        battle.apply(chooser.choice(battle.legal_actions()))
    assert asked > 0


# ------------------------------------------------------------------ generated maps

@st.composite
def maps(draw: st.DrawFn, largest: int = 8) -> GridMap:
    """Maps of every glyph (walls, doors both ways, difficult, dark, drops of any depth)."""
    width, height = draw(st.integers(1, largest)), draw(st.integers(1, largest))
    glyphs = list(GLYPHS)
    weights = st.sampled_from(glyphs[:4] * 3 + glyphs[4:])
    glyph = {(x, y): draw(weights) for y in range(height) for x in range(width)}
    of = lambda wanted: frozenset(sq for sq, g in glyph.items() if g in wanted)  # noqa: E731
    drops = tuple((sq, 10 if g == "_" else int(g) * 10) for sq, g in sorted(glyph.items())
                  if g == "_" or g.isdigit())
    return GridMap(width, height, walls=of("#"), closed_doors=of("+"), open_doors=of("'"),
                   difficult=of("~;"), dark=of(":;"), drops=drops)


def squares_near(grid: GridMap) -> st.SearchStrategy[Square]:
    """Squares of the map and up to two beyond each edge."""
    return st.tuples(st.integers(-2, grid.width + 1), st.integers(-2, grid.height + 1))


def own_grid(grid: GridMap) -> Any:
    return native.Grid(grid.width, grid.height, grid.walls, grid.closed_doors, grid.open_doors,
                       grid.difficult, grid.dark, grid.drops)


def check_map(grid: GridMap, compiled: Any, data: st.DataObject) -> None:
    for square in ((x, y) for y in range(-1, grid.height + 1) for x in range(-1, grid.width + 1)):
        assert compiled.blocks_movement(square) == grid.blocks_movement(square), square
        assert compiled.in_bounds(square) == grid.in_bounds(square), square
        assert compiled.is_dark(square) == grid.is_dark(square), square
        assert compiled.drop_depth(square) == grid.drop_depth(square), square
        assert compiled.neighbours(square) == grid.neighbours(square), square
        for near in window(square, 1):
            assert compiled.step_allowed(square, near) == grid.step_allowed(square, near), (
                square, near)
    for _ in range(25):
        viewer, seen = data.draw(squares_near(grid)), data.draw(squares_near(grid))
        assert native.line_of_sight(compiled, viewer, seen) == line_of_sight(
            grid, viewer, seen), (viewer, seen)
        assert native.chebyshev(viewer, seen) == chebyshev(viewer, seen)
    for _ in range(6):
        origin, reach = data.draw(squares_near(grid)), data.draw(st.integers(0, 3))
        walked = native.threatened_squares(compiled, origin, reach)
        assert len(walked) == len(set(walked))
        assert frozenset(walked) == threatened_squares(grid, origin, reach), (origin, reach)


@settings(max_examples=100, deadline=None)
@given(maps(), st.data())
def test_generated_maps_agree(grid: GridMap, data: st.DataObject) -> None:
    assert native_queries.native_grid(grid) is native_queries.native_grid(grid)
    compiled = own_grid(grid)  # changed below: not the shared one
    check_map(grid, compiled, data)
    doors = sorted(grid.doors)
    if doors:  # S12: doors opened and closed in place, as GridMap.with_door gives them
        for square in data.draw(st.lists(st.sampled_from(doors), max_size=4)):
            opened = square in grid.closed_doors
            grid = grid.with_door(square, opened)
            compiled.open_door(square, opened)
        check_map(grid, compiled, data)


def test_open_door_refuses_a_square_without_a_door() -> None:
    compiled = own_grid(GridMap(3, 3, walls={(1, 1)}))
    with pytest.raises(ValueError, match="no door"):
        compiled.open_door((1, 1), True)
    with pytest.raises(ValueError, match="no door"):
        GridMap(3, 3, walls={(1, 1)}).with_door((1, 1), True)
