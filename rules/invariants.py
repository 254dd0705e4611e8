"""The rules' facts that hold after every event (H13, H22, true logs), checked by the
fuzzer on the Python engine (:mod:`experiments.fuzzing.invariants` re-exports them, its
hook runs them after every event) and by the native engine's own twin
(``rules/native/core/invariants.cpp``, when a battle loop watches): rules facts, so their home
is the rules core on both sides (issue 47), not the fuzzer.

A failed check raises :class:`rules.errors.InvariantViolation` naming the invariant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.errors import InvariantViolation
from rules.events import Event, Moved

if TYPE_CHECKING:
    from rules.battle import Battle


def check_bodies(battle: Battle, finished: str | None = None) -> None:
    """H13/H22: no two bodies in action share a square, except a rider and its own mount.

    The bodies of a move under way (a move frame on the stack: its actor, and the mount
    it rides or set out on) may stand on an ally's square they are passing; ``finished``
    names the actor of a move that has just ended (its Moved event), whose bodies count
    again. Cheap enough to run after every event (the fuzzer's ``Checker``)."""
    combatants = battle.combatants
    passing: set[str] = set()
    for frame in battle.stack:
        if frame.type == "move" and frame.actor != finished:
            passing.add(frame.actor)
            for mount in (combatants[frame.actor].riding, getattr(frame, "mount", None)):
                if mount is not None:
                    passing.add(mount)
    held: dict[tuple[int, int], str] = {}
    for c in combatants.values():
        if c.status != "active" or c.id in passing:
            continue
        if c.riding is not None:  # a rider on its mount in action counts as one body
            mount = combatants[c.riding]
            if mount.status == "active" and mount.position == c.position:
                continue
        other = held.get(c.position)
        if other is not None:
            raise InvariantViolation("one-body-per-square", f"{c.id} and {other} both "
                                     f"stand on {c.position} (H13, H22)")
        held[c.position] = c.id


def check_moved(battle: Battle, event: Event) -> None:
    """True logs: a Moved event's actor stands on the event's last square after it (a
    thrown rider's landing and its mount's way back are events of their own, H22).
    Cheap enough to run after every event (the fuzzer's ``Checker``)."""
    if isinstance(event, Moved):
        where = battle.combatants[event.actor].position
        if where != event.path[-1]:
            raise InvariantViolation("moved-where-it-stands", f"{event} but {event.actor} "
                                     f"stands on {where}")


def watch_natively(battle: Battle) -> bool:
    """Have the native engine check :func:`check_bodies` and :func:`check_moved` after
    every event of ``battle`` from now on (``rules/native/core/invariants.cpp``; a broken one
    raises :class:`rules.errors.InvariantViolation` from ``apply``). False (nothing done)
    when ``battle`` runs on the Python engine (the fuzzer's event hook checks it there)."""
    from rules.bridge.driver import watch_bodies

    return watch_bodies(battle)
