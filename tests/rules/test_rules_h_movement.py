"""House rules H12-H14 in scripted battles: reach and who threatens, movement that
provokes Free Attacks (order, once per enemy, a mover stopped by a knockdown or by going
out of action), doors, walls, corners, allies, enemies and difficult terrain on the way,
and the diagonal count carried across moves.

Every test builds a small inline scenario, fixes initiative and every die it needs and
checks the exact outcome: decisions, HP, positions and events.

The reach graph itself (costs, routes, threatened squares) is tested on its own in
test_reach.py and test_reach_search.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import decline, unit
from scripted import (
    BIG,
    D,
    K,
    act,
    hit,
    make,
    next_turn,
    of,
    one,
    squares,
    swordsman,
    used_up,
)

import rules
from rules import Action
from rules import events as ev


# ================================================================== H12 reach
def test_H12_long_reach_attacks_two_squares_away_medium_only_adjacent() -> None:
    b = make([swordsman("a", "party", (1, 2), skills={"spear": 50},
                        equipment=[{"item": "long_spear", "state": "ready"},
                                   {"item": "longsword", "state": "carried"}]),
              swordsman("b", "monsters", (3, 3)),
              swordsman("c", "monsters", (4, 2))], init=(12, 2, 1))
    targets = {(a.target, a.item) for a in b.legal_actions() if a.kind is K.MELEE_ATTACK}
    assert targets == {("b", "a.long_spear")}  # 2 away diagonally yes, 3 away no
    act(b, K.SHIFT, square=(2, 2))  # "up to 2 squares": adjacent targets too
    targets = {a.target for a in b.legal_actions() if a.kind is K.MELEE_ATTACK}
    assert targets == {"b", "c"}
    b2 = make([swordsman("a", "party", (1, 2)), swordsman("b", "monsters", (3, 3)),
               swordsman("c", "monsters", (2, 3))], init=(12, 2, 1))
    targets = {a.target for a in b2.legal_actions() if a.kind is K.MELEE_ATTACK}
    assert targets == {"c"}  # medium reach: the adjacent diagonal only


def _leave(threat: dict[str, Any], mover_at: tuple[int, int], dest: tuple[int, int],
           setup: Any = None) -> tuple[rules.Battle, list[ev.Event]]:
    """b (first in initiative) walks from ``mover_at`` to ``dest`` past a at (2, 2)."""
    b = make([swordsman("a", "party", (2, 2), **threat),
              swordsman("b", "monsters", mover_at)], init=(1, 12))
    if setup is not None:
        setup(b)
    events = act(b, K.MOVE, square=dest)
    return b, events


@pytest.mark.parametrize(("threat", "mover_at", "provokes"), [
    ({}, (3, 2), True),  # M reach: adjacent
    ({}, (3, 3), True),  # diagonals too
    ({"skills": {"spear": 50}, "equipment": [{"item": "long_spear", "state": "ready"}]},
     (4, 2), True),  # L reach: 2 squares
    ({}, (4, 2), False),  # M reach does not reach 2 squares
    ({"equipment": [{"item": "longsword", "state": "sheathed"}]}, (3, 2), False),
    ({"equipment": [{"item": "short_bow", "state": "ready"}]}, (3, 2), False),
    ({"creature": "wolf"}, (3, 2), True),  # natural weapons count
])
def test_H12_who_threatens(threat: dict[str, Any], mover_at: tuple[int, int],
                           provokes: bool) -> None:
    threat = dict(threat)
    if "creature" in threat:
        b = make([unit("a", "party", threat["creature"], (2, 2)),
                  swordsman("b", "monsters", mover_at)], init=(1, 12))
        events = act(b, K.MOVE, square=(7, 2))
    else:
        b, events = _leave(threat, mover_at, (7, 2))
    assert bool(of(events, ev.Provoked)) is provokes
    expected = rules.Decision(D.FREE_ATTACK, "a", "b") if provokes else \
        rules.Decision(D.TURN, "b")
    assert b.decision == expected


def test_H12_prone_or_out_of_action_enemies_do_not_threaten() -> None:
    def prone(b: rules.Battle) -> None:
        b.combatants["a"].prone = True

    b, events = _leave({}, (3, 2), (7, 2), prone)
    assert not of(events, ev.Provoked) and b.combatants["b"].position == (7, 2)

    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2)),
              swordsman("c", "monsters", (7, 1))], init=(12, 6, 1))
    hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 8)  # 9 damage: b is out
    # b, now out of action, threatens nobody: a walks off without a Free Attack offer
    assert b.combatants["b"].status == "out"
    next_turn(b, "a")
    assert not of(act(b, K.MOVE, square=(5, 3)), ev.Provoked)


def test_H12_walls_block_reach() -> None:
    m = """
#######
#.....#
###.###
#.....#
#######
"""
    b = make([swordsman("a", "party", (1, 1), skills={"spear": 50},
                        equipment=[{"item": "long_spear", "state": "ready"}]),
              swordsman("b", "monsters", (1, 3))], m, init=(12, 1))
    assert not any(a.kind is K.MELEE_ATTACK for a in b.legal_actions())


# ================================================================== H13 movement provokes
def test_H13_free_attack_comes_before_the_mover_leaves_then_the_move_completes() -> None:
    b, events = _leave({}, (3, 2), (6, 2))
    p = one(events, ev.Provoked)
    assert (p.actor, p.enemy) == ("b", "a")
    assert b.decision == rules.Decision(D.FREE_ATTACK, "a", "b")
    assert b.combatants["b"].position == (3, 2)  # still in the square it is leaving
    assert Action(K.FREE_ATTACK, target="b", item="a.longsword") in b.legal_actions()
    b.dice.force(60)  # a misses
    events = b.apply(Action(K.FREE_ATTACK, target="b", item="a.longsword"))
    assert one(events, ev.AttackRolled).mode == "free"
    moved = one(events, ev.Moved)
    assert moved.complete and moved.path[0] == (3, 2) and moved.path[-1] == (6, 2)
    assert b.combatants["b"].position == (6, 2)
    assert b.combatants["a"].free_attack_used
    used_up(b)


def test_H13_each_enemy_provoked_at_most_once_per_action() -> None:
    b, events = _leave({"skills": {"spear": 50},
                        "equipment": [{"item": "long_spear", "state": "ready"}]},
                       (3, 1), (3, 3))
    assert len(of(events, ev.Provoked)) == 1
    events = decline(b)  # a lets b go; b still walks through a's threatened squares
    moved = one(events, ev.Moved)
    assert moved.path == ((3, 1), (3, 2), (3, 3)) and moved.complete
    assert not of(events, ev.Provoked)
    assert b.decision == rules.Decision(D.TURN, "b")


def test_H13_every_threatening_enemy_gets_its_offer_in_initiative_order() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("c", "party", (2, 3)),
              swordsman("b", "monsters", (3, 2))], init=(6, 8, 12))
    events = act(b, K.MOVE, square=(6, 2))
    assert [e.enemy for e in of(events, ev.Provoked)] == ["c", "a"]
    assert b.decision == rules.Decision(D.FREE_ATTACK, "c", "b")
    b.apply(Action(K.DECLINE))
    assert b.decision == rules.Decision(D.FREE_ATTACK, "a", "b")
    events = b.apply(Action(K.DECLINE))
    assert one(events, ev.Moved).complete and b.combatants["b"].position == (6, 2)


def test_H13_mover_knocked_prone_stops_where_it_is() -> None:
    b, _ = _leave({"equipment": [{"item": "mace", "state": "ready"}], "skills": {"mace": 50}},
                  (3, 2), (7, 2))
    b.dice.force(8)  # special crush
    b.apply(Action(K.FREE_ATTACK, target="b", item="a.mace"))
    b.dice.force(1, 99)  # mace 1d8+2 -> 3; knockdown CON 10 vs 3 = 85%: 99 fails
    events = decline(b)
    assert b.combatants["b"].prone
    moved = one(events, ev.Moved)
    assert (moved.path, moved.complete) == (((3, 2),), False)
    assert b.combatants["b"].position == (3, 2)
    assert b.decision == rules.Decision(D.TURN, "b")
    used_up(b)


def test_H13_mover_dropped_out_of_action_stops_where_it_is() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=2),
              swordsman("c", "monsters", (7, 1))], init=(1, 12, 2))
    act(b, K.MOVE, square=(6, 3))
    b.dice.force(30)
    b.apply(Action(K.FREE_ATTACK, target="b", item="a.longsword"))
    b.dice.force(4)  # 5 damage
    events = decline(b)
    assert b.combatants["b"].status == "out"
    moved = one(events, ev.Moved)
    assert (moved.path, moved.complete) == (((3, 2),), False)
    assert b.combatants["b"].position == (3, 2)
    assert b.decision == rules.Decision(D.TURN, "c")


DOOR_MAP = """
#######
#..#..#
#..+..#
#..#..#
#######
"""


def test_H13_closed_doors_and_walls_block_movement_until_opened() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (5, 1))],
             DOOR_MAP, init=(12, 1))
    assert all(sq[0] < 3 for sq in squares(b, K.FULL_MOVE))
    events = act(b, K.OPEN_DOOR, square=(3, 2))
    assert one(events, ev.DoorChanged).open
    assert {(3, 2), (4, 2), (4, 3)} <= squares(b, K.MOVE)
    assert (4, 1) in squares(b, K.MOVE)  # via the door: (3, 2) -> (4, 1) is no corner cut


def test_H13_diagonals_cannot_cut_a_wall_corner() -> None:
    m = """
#####
#...#
#.#.#
#...#
#####
"""
    b = make([swordsman("a", "party", (1, 2)), swordsman("b", "monsters", (3, 3))], m,
             init=(12, 1))
    events = act(b, K.MOVE, square=(2, 1))
    moved = one(events, ev.Moved)
    assert moved.path == ((1, 2), (1, 1), (2, 1)) and moved.cost == 2


CORRIDOR = """
#########
#.......#
#########
"""


def test_H13_allies_may_be_passed_but_not_ended_on() -> None:
    b = make([swordsman("a", "party", (1, 1)), swordsman("ally", "party", (2, 1)),
              swordsman("z", "monsters", (7, 1))], CORRIDOR, init=(12, 6, 1))
    dests = squares(b, K.MOVE)
    assert (2, 1) not in dests and {(3, 1), (4, 1), (5, 1)} <= dests
    events = act(b, K.MOVE, square=(4, 1))
    assert one(events, ev.Moved).path == ((1, 1), (2, 1), (3, 1), (4, 1))


def test_H13_enemies_block() -> None:
    b = make([swordsman("a", "party", (1, 1)), swordsman("z", "monsters", (3, 1))],
             CORRIDOR, init=(12, 1))
    assert squares(b, K.FULL_MOVE) == {(2, 1)}


def test_H13_difficult_terrain_costs_double() -> None:
    m = """
#########
#.~~....#
#########
"""
    b = make([swordsman("a", "party", (1, 1)), swordsman("z", "monsters", (7, 1))], m,
             init=(12, 1))
    assert squares(b, K.MOVE) == {(2, 1), (3, 1), (4, 1)}  # 2 + 2 + 1 = 5
    assert squares(b, K.SHIFT) == set()  # choice: no 5 ft step into difficult terrain
    events = act(b, K.MOVE, square=(4, 1))
    assert one(events, ev.Moved).cost == 5
    flat = make([swordsman("a", "party", (1, 1)), swordsman("z", "monsters", (7, 1))],
                CORRIDOR, init=(12, 1))
    assert squares(flat, K.MOVE) == {(2, 1), (3, 1), (4, 1), (5, 1), (6, 1)}


# ================================================================== H14 diagonal count
def test_H14_diagonal_count_carries_across_two_moves_and_resets_each_round() -> None:
    b = make([swordsman("a", "party", (1, 1)), swordsman("z", "monsters", (9, 6))], BIG,
             init=(12, 1))
    # fresh count: 3 diagonals (1 + 2 + 1) and one straight step = 5 squares' budget
    assert (5, 4) in squares(b, K.MOVE)
    events = act(b, K.MOVE, square=(2, 2))  # one diagonal, cost 1
    assert one(events, ev.Moved).cost == 1
    # the next diagonal costs 2: (2, 2) -> (6, 5) would be 2 + 1 + 2 + 1 = 6
    assert (6, 5) not in squares(b, K.MOVE)
    assert (6, 4) in squares(b, K.MOVE)  # 2 + 1 + 2 = 5
    events = act(b, K.MOVE, square=(4, 4))
    assert one(events, ev.Moved).cost == 3  # 2 + 1
    next_turn(b, "a")  # a new round: the count starts again
    assert b.combatants["a"].diagonal_parity == 0
    assert (8, 7 - 1) in squares(b, K.MOVE)  # (4, 4) -> (8, 6): 1 + 2 + 1 + 1
