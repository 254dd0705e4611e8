"""A move cut short never ends on a square it could only pass through (H13, H22, issue 22).

Allies (and the fallen) may be passed, not ended on (H13). When a move stops early on such
a square, its bodies (the mover, and the mount it set out on, H22; in action or not) go
back along the path to the last square nobody else holds, together; a thrown rider holds
the square it landed on (H10, H22), so when it landed on the only free square of the
route its mount goes on to the nearest free square instead. One test per way a move is
cut short: the walker falls prone to dodge (H10), is knocked prone by a special crush
(H7), drops out of action (H5); the mount falls prone to dodge and throws its rider
(H10, H22); the rider falls from the saddle to dodge; the rider or the mount drops out
of action (H5, H22), with and without a free square to throw the rider into. Spells,
Ride rolls and the rest never act in the middle of a move: only a Free Attack does
(S3, S5, H13), and a failed Ride roll leaves the pair where it was (S13).

Every test forces its dice (``battle.dice.forcing``); the map is a corridor whose only
threatened square is the ally's, (3, 2), where the mover is attacked.
"""

from __future__ import annotations

from typing import Any

from builders import unit
from scripted import K, act, make, of, one, swordsman, used_up

import rules
from experiments.fuzzing.invariants import check_bodies
from rules import Action
from rules import events as ev

# z, in the pocket above the corridor, threatens only (3, 2), where the ally stands.
CORRIDOR = """
#########
###.#####
#.......#
#########
"""
#: the same, with the pocket under the corridor closed off too (no square but the start
#: for a thrown rider)
SHUT = """
#########
###.#####
##......#
###.#####
#########
"""
ALLY, ENEMY = (3, 2), (3, 1)


def _battle(units: list[dict[str, Any]], map_text: str = CORRIDOR) -> rules.Battle:
    """The mover first (initiative 12), then the others in unit order."""
    faces = [12] + [10 - i for i in range(len(units) - 1)]
    b = make(units, map_text, init=faces)
    assert b.decision == rules.Decision(rules.DecisionKind.TURN, units[0]["id"])
    return b


def _rider(at: tuple[int, int] = (1, 2), **kw: Any) -> list[dict[str, Any]]:
    return [swordsman("r", "party", at, riding="h", skills={"ride": 60, "dodge": 40}, **kw),
            unit("h", "party", "horse", at)]


def _others(enemy: str = "longsword", **ally: Any) -> list[dict[str, Any]]:
    return [swordsman("ally", "party", ALLY, **ally),
            swordsman("z", "monsters", ENEMY,
                      equipment=[{"item": enemy, "state": "ready"}],
                      skills={"sword": 50, "mace": 50, "dodge": 40})]


def _attacked(b: rules.Battle, destination: tuple[int, int], target: str,
              item: str = "z.longsword") -> list[rules.Event]:
    """The mover sets off; z takes its Free Attack on the ally's square."""
    events = act(b, K.MOVE, square=destination)
    assert one(events, ev.Provoked).enemy == "z"
    assert b.combatants[b.current_actor or ""].position == ALLY
    return events + act(b, K.FREE_ATTACK, target=target, item=item)


def _moved(events: list[rules.Event]) -> Any:
    moved = one(events, ev.Moved)
    assert not moved.complete
    return moved


def _way_back(events: list[rules.Event], rider: str = "r", mount: str = "h") -> Any:
    """True logs (issue 47): the thrown rider's landing (its own Moved event, cost 0), the
    mount's way back (the mount's), then the rider's (where it lies): the mount's event."""
    landing, back, rider_end = of(events, ev.Moved)
    assert (landing.actor, landing.cost, len(landing.path)) == (rider, 0, 2)
    assert back.actor == mount and not back.complete
    assert rider_end.actor == rider and rider_end.path == (landing.path[-1],)
    return back


# ================================================================== on foot
def test_H13_H10_a_walker_falling_prone_to_dodge_stops_on_the_last_free_square() -> None:
    b = _battle([swordsman("w", "party", (1, 2)), *_others()])
    with b.dice.forcing(30, 90, 3):  # hit; the dodge fails; 3 damage
        events = _attacked(b, (5, 2), "w")
        events += act(b, K.DECLINE)  # no parry
        events += act(b, K.DODGE)  # the fall
    moved = _moved(events)
    assert moved.path == ((1, 2), (2, 2))
    w = b.combatants["w"]
    assert (w.position, w.prone, w.hp) == ((2, 2), True, 1)  # 5 HP - (3 + 1), 1d8+1
    check_bodies(b)
    used_up(b)


def test_H13_H7_a_walker_knocked_prone_by_a_special_crush_stops_on_the_last_free_square(
        ) -> None:
    b = _battle([swordsman("w", "party", (1, 2)), *_others("mace")])
    # a special hit (5 <= 50/5), no parry, no dodge; 4 damage (die 2, mace 1d8+2);
    # the knockdown check (CON 10 vs 4: 80%) fails on 96
    with b.dice.forcing(5, 2, 96):
        events = _attacked(b, (5, 2), "w", "z.mace")
        events += act(b, K.DECLINE) + act(b, K.DECLINE)
    assert [e.cause for e in of(events, ev.StatusChanged)] == ["special crush"]
    assert _moved(events).path == ((1, 2), (2, 2))
    w = b.combatants["w"]
    assert (w.position, w.prone, w.in_action) == ((2, 2), True, True)
    check_bodies(b)
    used_up(b)


def test_H13_H5_a_walker_dropped_out_of_action_lies_on_the_last_free_square() -> None:
    b = _battle([swordsman("w", "party", (1, 2), hp=3), *_others()])
    with b.dice.forcing(30, 5):  # hit, 5 damage: 3 HP -> -2, out of action
        events = _attacked(b, (5, 2), "w")
        events += act(b, K.DECLINE) + act(b, K.DECLINE)
    w = b.combatants["w"]
    assert w.status == "out"
    assert _moved(events).path == ((1, 2), (2, 2))
    assert w.position == (2, 2)  # not under the ally at (3, 2)
    used_up(b)


# ================================================================== mounted (H22)
def test_H13_H22_a_mount_falling_prone_to_dodge_throws_its_rider_and_steps_back() -> None:
    """The `cavalry` finding: the horse falls to dodge on the ally's square."""
    b = _battle(_rider((1, 2)) + _others())
    with b.dice.forcing(30, 90, 3):  # hit the horse; its dodge fails; 3 damage
        events = _attacked(b, (5, 2), "h")
        events += act(b, K.DODGE)  # the horse has nothing to parry with
    r, h = b.combatants["r"], b.combatants["h"]
    assert any(e.status == "off h" for e in of(events, ev.StatusChanged))
    assert r.riding is None and r.prone and h.prone
    assert r.position == (2, 2)  # thrown into the first free neighbour of (3, 2)
    # the horse goes back past its thrown rider to the start: (3, 2) and (2, 2) are held
    assert _way_back(events).path == ((1, 2),)
    assert h.position == (1, 2)
    check_bodies(b)
    used_up(b)


def test_H13_H22_a_rider_falling_from_the_saddle_to_dodge_leaves_its_mount_stepping_back(
        ) -> None:
    b = _battle(_rider((1, 2)) + _others())
    with b.dice.forcing(30, 90, 3):  # hit the rider; its dodge fails; 3 damage
        events = _attacked(b, (5, 2), "r")
        events += act(b, K.DECLINE)  # no parry
        events += act(b, K.DODGE)  # from the saddle
    assert one([e for e in events if isinstance(e, ev.DodgeRolled)],
               ev.DodgeRolled).disadvantage == "saddle"
    r, h = b.combatants["r"], b.combatants["h"]
    assert (r.position, r.prone, r.riding) == ((2, 2), True, None)
    assert (h.position, h.prone, h.ridden_by) == ((1, 2), False, None)
    check_bodies(b)
    used_up(b)


def test_H13_H22_a_rider_dropped_out_of_action_leaves_its_mount_stepping_back() -> None:
    """The `stable` finding: the rider falls out of action during the Free Attack."""
    b = _battle(_rider((1, 2), hp=2) + _others())
    with b.dice.forcing(30, 5):  # hit the rider: 2 HP -> -3, out of action
        events = _attacked(b, (5, 2), "r")
        events += act(b, K.DECLINE) + act(b, K.DECLINE)
    r, h = b.combatants["r"], b.combatants["h"]
    assert r.status == "out" and r.riding is None and r.position == (2, 2)
    assert h.in_action and h.position == (1, 2)
    assert _way_back(events).path == ((1, 2),)
    check_bodies(b)
    used_up(b)


def test_H13_H22_a_mount_dropped_out_of_action_throws_its_rider_and_its_body_steps_back(
        ) -> None:
    b = _battle(_rider((1, 2)) + _others())
    b.combatants["h"].hp = 2
    with b.dice.forcing(30, 5):  # hit the horse: 2 HP -> -3, out of action
        events = _attacked(b, (5, 2), "h")
        events += act(b, K.DECLINE)
    r, h = b.combatants["r"], b.combatants["h"]
    assert h.status == "out" and r.in_action and r.prone and r.riding is None
    assert r.position == (2, 2) and h.position == (1, 2)
    check_bodies(b)
    used_up(b)


def test_H13_H22_a_rider_with_no_square_to_be_thrown_into_steps_back_with_its_fallen_mount(
        ) -> None:
    """With no free neighbour the rider stays with its fallen mount (H22), and both go
    back together past two allies to the last square of the route nobody else holds."""
    units = _rider((1, 2)) + _others()
    units += [swordsman("ally_2", "party", (2, 2)), swordsman("ally_3", "party", (4, 2))]
    b = _battle(units)
    b.combatants["h"].hp = 2
    with b.dice.forcing(30, 5):  # hit the horse: 2 HP -> -4, out of action; no dodge
        events = _attacked(b, (6, 2), "h")  # (3, 2)'s free neighbours: none
    r, h = b.combatants["r"], b.combatants["h"]
    assert h.status == "out" and r.in_action and r.prone and r.riding is None
    assert _moved(events).path == ((1, 2),)
    assert r.position == h.position == (1, 2)
    check_bodies(b)
    used_up(b)


def test_H13_H22_a_thrown_rider_on_the_start_square_sends_its_mount_on_to_a_free_square(
        ) -> None:
    """The rider, thrown into the only free square behind (the start), holds it; the
    horse may end nowhere on its route, so it goes on to the nearest free square."""
    b = _battle(_rider((2, 2)) + _others())
    with b.dice.forcing(30, 90, 3):
        events = _attacked(b, (6, 2), "h")
        events += act(b, K.DODGE)
    r, h = b.combatants["r"], b.combatants["h"]
    assert r.position == (2, 2) and r.prone
    assert _way_back(events).path == ((2, 2), (3, 2), (4, 2))
    assert h.position == (4, 2) and h.prone
    check_bodies(b)
    used_up(b)


def test_S13_a_failed_dismount_with_the_round_no_longer_whole_leaves_the_pair_in_place(
        ) -> None:
    """A Ride roll never moves a body through a square: a failed Dismount leaves the pair
    on its square (S13)."""
    b = _battle([*_rider((1, 2)), swordsman("z", "monsters", (7, 2))])
    act(b, K.MOVE, square=(2, 2))
    with b.dice.forcing(99):
        act(b, K.DISMOUNT, square=(3, 2))
    r, h = b.combatants["r"], b.combatants["h"]
    assert r.riding == "h" and r.position == h.position == (2, 2)
    assert b.decision == rules.Decision(rules.DecisionKind.TURN, "z")
    check_bodies(b)
    assert Action(K.END_TURN) in b.legal_actions()
    used_up(b)
