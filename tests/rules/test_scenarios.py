"""The shipped scenarios (experiments/scenarios, DESIGN.md "Scenario files").

Every scenario loads with the two teams of DESIGN.md, every unit on a floor square and
everyone in the initiative order (S1). Then the themes of skirmish, ambush and horde are
exercised through the public API only (legal actions in, events out): doors and
difficult terrain (S12, H13) in skirmish, missiles from cover (H16) in ambush, a big
melee in horde (H25). The other themes are in test_scenarios_themed.py; the ways of
playing in scenario_helpers.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scenario_helpers import (
    apply_declining,
    charge,
    kind_uniform,
    legal,
    only,
    play,
    to_turn_of,
    uniform,
)

import rules
from rules import ActionKind as K
from rules import DecisionKind as DK
from rules.events import (
    AttackRolled,
    BattleEnded,
    DoorChanged,
    Moved,
)
from rules.grid import chebyshev, line_of_sight

SCENARIOS = rules.shipped_scenarios()
THEMED = ("skirmish", "ambush", "horde", "snake_pit", "cavalry", "crypt", "casters")


# ---------------------------------------------------------------------------- every scenario
def test_the_themed_scenarios_are_shipped() -> None:
    assert set(THEMED) <= set(SCENARIOS)


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_loads_with_two_teams_on_floor(name: str) -> None:
    b = rules.Battle.from_scenario(name, seed=11)
    sc = b.scenario
    assert sc.name == name
    assert sc.description.strip()
    assert 1 <= sc.max_rounds <= 200
    assert set(sc.teams) == {"party", "monsters"}
    teams = {c.team for c in b.combatants.values()}
    assert teams == {"party", "monsters"}
    squares: dict[tuple[int, int], str] = {}
    specs = {u.id: u for u in sc.units}
    for c in b.combatants.values():
        assert b.grid.in_bounds(c.position), c.id
        assert not b.grid.blocks_movement(c.position), f"{c.id} on a wall or closed door"
        assert b.grid.drop_depth(c.position) == 0, f"{c.id} starts over a drop"
        spec = specs[c.id]  # a unit may set its current state (long_fight does)
        assert c.in_action is not spec.out_of_action and c.max_hp > 0 and c.hp <= c.max_hp
        if spec.current_hp is None and not spec.out_of_action and not spec.bleeding:
            assert c.hp == c.max_hp, c.id
        if c.riding is None:
            assert c.position not in squares, f"{c.id} shares {squares.get(c.position)}'s square"
            squares[c.position] = c.id
        else:  # H22: a rider shares its mount's square
            mount = b.combatants[c.riding]
            assert mount.position == c.position and mount.ridden_by == c.id


@pytest.mark.parametrize("name", SCENARIOS)
def test_initiative_order_holds_every_unit_once(name: str) -> None:
    b = rules.Battle.from_scenario(name, seed=5)
    assert sorted(b.initiative_order) == sorted(b.combatants)
    assert len(set(b.initiative_order)) == len(b.initiative_order)
    inits = [b.combatants[i].initiative for i in b.initiative_order]
    assert inits == sorted(inits, reverse=True)  # S1: highest first
    assert b.decision is not None and b.decision.kind is DK.TURN


@pytest.mark.parametrize("name", SCENARIOS)
def test_random_battle_ends_within_max_rounds(name: str) -> None:
    b = play(rules.Battle.from_scenario(name, seed=2), uniform, np.random.default_rng(2))
    assert b.is_over and b.decision is None and b.legal_actions() == []
    assert 1 <= b.round <= b.scenario.max_rounds
    end = b.events[-1]
    assert isinstance(end, BattleEnded)
    assert b.winner in (None, "party", "monsters")
    if b.winner is None:  # H25: a draw only at the round limit (or mutual wipe-out)
        assert b.round == b.scenario.max_rounds or not any(
            c.in_action for c in b.combatants.values())


# ---------------------------------------------------------------------------- skirmish
def test_skirmish_is_mixed_arms_on_a_walled_map() -> None:
    b = rules.Battle.from_scenario("skirmish", seed=0)
    g = b.grid
    assert 18 <= g.width <= 22 and 18 <= g.height <= 22
    assert g.walls and g.closed_doors and g.open_doors and g.difficult
    for team in ("party", "monsters"):
        members = [c for c in b.combatants.values() if c.team == team]
        assert len(members) == 4
        kinds = {b.content.weapons[i.item].kind for c in members for i, _ in
                 c.ready_weapons()}
        assert kinds == {"melee", "missile"}, team


def test_skirmish_doors_open_and_close() -> None:
    """S12: Open/Close Door are MOVE actions; a closed door blocks, an open one does not."""
    b = to_turn_of(rules.Battle.from_scenario("skirmish", seed=1), "dwarf")
    door = (9, 8)
    assert door in b.grid.closed_doors
    beyond = (10, 8)
    assert all(a.square != beyond for a in b.legal_actions() if a.kind is K.MOVE)
    events = apply_declining(b, legal(b, K.OPEN_DOOR, square=door))
    assert only(events, DoorChanged)[0].open is True
    assert b.grid.doors[door] is True
    assert any(a.square == beyond for a in b.legal_actions() if a.kind is K.MOVE)
    # S2: a second MOVE action is left, so the dwarf could shut it again
    assert legal(b, K.CLOSE_DOOR, square=door)

    b = to_turn_of(b, "warrior")
    door = (4, 14)
    assert door in b.grid.open_doors
    events = apply_declining(b, legal(b, K.CLOSE_DOOR, square=door))
    assert only(events, DoorChanged)[0].open is False
    assert b.grid.doors[door] is False
    assert all(a.square[1] > 14 for a in b.legal_actions() if a.kind is K.MOVE)


@pytest.mark.parametrize(("square", "cost"), [((7, 16), 2), ((7, 18), 1), ((6, 18), 1)])
def test_skirmish_difficult_terrain_costs_double(square: tuple[int, int], cost: int) -> None:
    """H13: entering difficult terrain costs double (the Moved event's cost)."""
    b = to_turn_of(rules.Battle.from_scenario("skirmish", seed=3), "elf")
    start = b.combatants["elf"].position
    assert start == (7, 17)
    assert b.grid.is_difficult(square) == (cost == 2)
    moved = only(apply_declining(b, legal(b, K.MOVE, square=square)), Moved)
    assert len(moved) == 1
    assert moved[0].path == (start, square) and moved[0].complete
    assert moved[0].cost == cost
    # and difficult squares are not a Shift (S7) destination
    assert all(not b.grid.is_difficult(a.square) for a in
               rules.Battle.from_scenario("skirmish", seed=3).legal_actions()
               if a.kind is K.SHIFT)


def test_skirmish_random_play_offers_doors() -> None:
    seen: set[K] = set()

    def watch(b: rules.Battle, act: rules.Action) -> None:
        seen.update(a.kind for a in b.legal_actions() if a.kind in (K.OPEN_DOOR,
                                                                     K.CLOSE_DOOR))

    for seed in range(2):
        play(rules.Battle.from_scenario("skirmish", seed=seed), uniform,
             np.random.default_rng(seed), watch)
    assert seen == {K.OPEN_DOOR, K.CLOSE_DOOR}


# ---------------------------------------------------------------------------- ambush
def test_ambush_archers_shoot_from_cover() -> None:
    """H16: goblin archers start out of reach behind a crenellated wall: it hides some of
    the party; after a FREE nock they shoot whoever they see."""
    b = rules.Battle.from_scenario("ambush", seed=4)
    archers = [c for c in b.combatants.values() if c.creature == "goblin_archer"]
    spears = [c for c in b.combatants.values() if c.creature == "goblin"]
    party = [c for c in b.combatants.values() if c.team == "party"]
    assert len(archers) >= 3 and len(spears) >= 3 and 3 <= len(party) <= 5
    for a in archers:
        assert min(chebyshev(a.position, p.position) for p in party) >= 5
        assert not all(line_of_sight(b.grid, a.position, p.position) for p in party)
    shooter = next(a for a in archers
                   if any(line_of_sight(b.grid, a.position, p.position) for p in party))
    to_turn_of(b, shooter.id)
    bow = f"{shooter.id}.short_bow"
    assert not any(a.kind is K.MISSILE_ATTACK for a in b.legal_actions())  # not nocked
    apply_declining(b, legal(b, K.NOCK_ARROW, item=bow))
    shots = [a for a in b.legal_actions() if a.kind is K.MISSILE_ATTACK]
    seen = {p.id for p in party if line_of_sight(b.grid, shooter.position, p.position)}
    assert shots and {a.target for a in shots} == seen
    rolled = only(apply_declining(b, shots[0]), AttackRolled)
    assert rolled[0].attacker == shooter.id and rolled[0].mode == "missile"


def test_ambush_random_play_has_missile_attacks() -> None:
    shots: list[str] = []

    def watch(b: rules.Battle, act: rules.Action) -> None:
        if act.kind is K.MISSILE_ATTACK:
            shots.append(b.combatants[b.decision.actor].creature)

    for seed in range(6):
        play(rules.Battle.from_scenario("ambush", seed=seed), kind_uniform,
             np.random.default_rng(seed), watch)
    assert "goblin_archer" in shots


# ---------------------------------------------------------------------------- horde
def test_horde_is_a_horde() -> None:
    b = rules.Battle.from_scenario("horde", seed=0)
    monsters = [c for c in b.combatants.values() if c.team == "monsters"]
    party = [c for c in b.combatants.values() if c.team == "party"]
    assert len(monsters) >= 12 and len(party) == 4
    assert all(c.creature.startswith("goblin") for c in monsters)
    assert b.grid.width >= 36 and b.grid.height >= 36


def test_horde_charge_battle_terminates() -> None:
    for seed in range(2):
        b = play(rules.Battle.from_scenario("horde", seed=seed),
                 charge, np.random.default_rng(seed))
        assert b.is_over and b.round <= b.scenario.max_rounds
        assert only(b.events, AttackRolled)  # they did meet
