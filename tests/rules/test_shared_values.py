"""Immutable values the rules core builds once and shares: door states of a map, legal
actions (built once per kind and fields, kept with the reach result they come from).
Sharing must never change what a query answers."""

from __future__ import annotations

import numpy as np

import rules
from rules import legal
from rules.grid import GridMap


def test_a_door_state_is_one_shared_map_equal_to_a_fresh_one() -> None:
    grid = rules.Battle.from_scenario("skirmish", seed=0).grid
    door = sorted(grid.doors)[0]
    toggled = grid.with_door(door, not grid.doors[door])
    assert toggled != grid
    assert toggled.doors[door] is not grid.doors[door]
    assert toggled.with_door(door, grid.doors[door]) is grid
    assert grid.with_door(door, not grid.doors[door]) is toggled
    fields = (toggled.width, toggled.height, toggled.walls, toggled.closed_doors,
              toggled.open_doors, toggled.difficult, toggled.dark, toggled.drops)
    fresh = GridMap(*fields)  # built apart from every shared map
    assert fresh == toggled and hash(fresh) == hash(toggled) and fresh is not toggled
    for door_state in (grid, toggled, fresh):  # a closed door blocks, an open one not
        assert door_state.blocks_movement(door) is (door in door_state.closed_doors)
    assert grid.blocks_movement(door) is not toggled.blocks_movement(door)
    assert hash(toggled) == hash(fields)  # the dataclass hash of the compared fields
    # every battle of a scenario gets the one parsed map, and so its door states
    again = rules.Battle.from_scenario("skirmish", seed=1).grid
    assert again is grid and again.with_door(door, not grid.doors[door]) is toggled


def _forget_shared(battle: rules.Battle) -> None:
    """Drop every shared action and cached reach result."""
    battle.state.graph.clear_cache()
    for value in vars(legal).values():
        if isinstance(value, legal._Shared):
            value.clear()


def test_shared_actions_and_kept_moves_equal_a_fresh_computation() -> None:
    """At every decision of random battles, the legal actions equal those computed with
    nothing shared or cached (and list each action once)."""
    for scenario, seed in (("skirmish", 3), ("horde", 5), ("cavalry", 1)):
        battle = rules.Battle.from_scenario(scenario, seed=seed)
        rng = np.random.default_rng(seed)
        for step in range(250):
            if battle.is_over:
                break
            acts = battle.legal_actions()
            assert len(set(acts)) == len(acts)
            if step % 5 == 0:
                copy = rules.Battle.from_json(battle.to_json())
                _forget_shared(copy)
                assert copy.legal_actions() == acts
            battle.apply(acts[int(rng.integers(len(acts)))])
