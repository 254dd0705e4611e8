"""Read-only questions about a battle: who threatens whom, who may react, what is lit,
where a combatant may go. Legal-action generation and frame stepping both ask these, so
the rules are stated once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from rules.combatant import Combatant, ItemInstance
from rules.grid import KING_STEPS_BY_ROW, chebyshev, line_of_sight
from rules.reach import Reach, threatened_squares

if TYPE_CHECKING:
    from rules.content.schema import Weapon
    from rules.state import BattleState

Square = tuple[int, int]
#: S6/S15/H19: the skill of unarmed fighting; a natural weapon fought with it (a fist)
#: is unarmed, whichever action carries it.
UNARMED_SKILL = "brawl"


def is_unarmed(weapon: Weapon) -> bool:
    """S6/S15: an unarmed natural weapon (a fist); bites, claws and hooves are
    creatures' natural weapons, not unarmed attacks."""
    return weapon.natural and weapon.skill == UNARMED_SKILL


def walk_distance(state: BattleState, start: Square, end: Square) -> int:
    """H16/S18: the squares between ``start`` and ``end`` counted as a walk on open
    ground: straight steps 1 each, diagonal steps alternating the ruleset's diagonal
    costs (1, 2, 1, ...), so 15 squares straight diagonal are 22."""
    costs = state.content.ruleset.movement.diagonal_costs
    dx, dy = abs(start[0] - end[0]), abs(start[1] - end[1])
    diagonals = min(dx, dy)
    return max(dx, dy) - diagonals + sum(costs[i % len(costs)] for i in range(diagonals))


def enemies(state: BattleState, combatant: Combatant) -> list[Combatant]:
    """In-action combatants of other teams, in initiative order."""
    team = combatant.team
    return [other for other in map(state.combatants.__getitem__, state.initiative_order)
            if other.status == "active" and other.team != team]  # in action (H5)


def threat_squares(state: BattleState, combatant: Combatant,
                   reach: int | None = None) -> frozenset[Square]:
    """H12: the squares ``combatant`` threatens with its longest ready melee weapon."""
    r = combatant.reach if reach is None else reach
    if r <= 0:
        return frozenset()
    return threatened_squares(state.grid, combatant.position, r)


def weapon_reaches(state: BattleState, combatant: Combatant, reach_letter: str,
                   square: Square) -> bool:
    """H12: whether a weapon of reach ``reach_letter`` reaches ``square``."""
    r = state.content.ruleset.misc.reach_squares[reach_letter]
    return square in threatened_squares(state.grid, combatant.position, r)


def can_free_attack(state: BattleState, enemy: Combatant, provoker: Combatant) -> bool:
    """S5/H12: ``enemy`` may take a Free Attack at ``provoker`` now."""
    return (
        enemy.team != provoker.team
        and enemy.threatens
        and not enemy.free_attack_used
        and provoker.in_action
        and provoker.position in threat_squares(state, enemy)
    )


def provokers_at(state: BattleState, mover: Combatant, square: Square | None = None) -> list[str]:
    """Enemies that may take a Free Attack at ``mover`` for an action in ``sq``."""
    where = mover.position if square is None else square
    out = []
    for e in enemies(state, mover):
        if e.threatens and not e.free_attack_used and where in threat_squares(state, e):
            out.append(e.id)
    return out


def occupied(state: BattleState, exclude: tuple[str, ...] = ()) -> dict[Square, Combatant]:
    """Squares nobody may end a move on: held by a living combatant, in action or lying
    out of action (a ridden mount and rider share one). In-action holders win the entry.
    The dead hold no square."""
    out: dict[Square, Combatant] = {}
    for c in state.combatants.values():
        status = c.status  # Combatant.dead / in_action, read once (asked every step)
        if status == "dead" or c.id in exclude:
            continue
        if status == "active" or c.position not in out:
            out[c.position] = c
    return out


def mover_of(state: BattleState, combatant: Combatant) -> tuple[Combatant, tuple[str, ...]]:
    """The body that moves for ``combatant`` (its mount when riding, H22) and the ids moving."""
    if combatant.riding is not None:
        mount = state.combatants[combatant.riding]
        return mount, (combatant.id, mount.id)
    return combatant, (combatant.id,)


#: The reach search of another engine than this module's, by engine name (the native
#: engine's glue, rules.bridge.reach, adds its own when imported, as rules.bridge.driver
#: does: this module imports none of it). A state whose engine has none searches here.
ROUTE_SEARCHES: dict[str, Callable[[BattleState, Combatant, int, bool], Reach]] = {}


def routes(state: BattleState, combatant: Combatant, budget: int, provoking: bool) -> Reach:
    """S17/S18/H13/H14: where ``combatant`` may end a move with ``budget``, by route
    (searched by ``rules/native/core/reach.cpp`` when the native engine runs the battle)."""
    search = ROUTE_SEARCHES.get(state.engine)
    if search is not None:
        return search(state, combatant, budget, provoking)
    blocked, no_end, threats = route_tables(state, combatant, provoking)
    return state.graph.reachable(combatant.position, combatant.diagonal_parity, budget,
                                 blocked=blocked, no_end=no_end, threats=threats)


def route_tables(state: BattleState, combatant: Combatant, provoking: bool
                 ) -> tuple[frozenset[Square], frozenset[Square],
                            dict[Square, frozenset[str]] | None]:
    """H12/H13: the occupancy and threat zones a move of ``combatant`` is searched with:
    ``(blocked, no_end, threats)`` as :meth:`rules.reach.ReachGraph.reachable` takes
    them (``threats`` None unless ``provoking``)."""
    _, ids = mover_of(state, combatant)
    blocked, no_end = set(), set()
    for o in state.combatants.values():
        status = o.status  # Combatant.dead / in_action, read once
        if status == "dead" or o.id in ids:
            continue
        if status == "active" and o.team != combatant.team:
            blocked.add(o.position)  # H13: enemies block
        else:
            no_end.add(o.position)  # allies and the fallen: passed, not ended on
    threats = None
    if provoking:
        threats = {}
        for e in enemies(state, combatant):
            if e.threatens and not e.free_attack_used:
                for sq in threat_squares(state, e):
                    threats[sq] = threats.get(sq, frozenset()) | {e.id}
    return frozenset(blocked), frozenset(no_end - blocked), threats


def move_budget(state: BattleState, combatant: Combatant, full: bool) -> int:
    """S17: floor(MOV/2) squares per MOVE action, MOV for a FULL move; a rider uses its
    mount's (H22)."""
    body, _ = mover_of(state, combatant)
    return body.mov if full else body.move_squares


def free_adjacent(state: BattleState, combatant: Combatant,
                  avoid_drops: bool = True) -> list[Square]:
    """Squares one legal king step from ``combatant`` that nobody in action holds (S7 shifts,
    H10 dodges, dismounting)."""
    occ = occupied(state,
                   exclude=(combatant.id,) + ((combatant.riding,) if combatant.riding else ()))
    out = []
    grid = state.grid
    position = combatant.position
    x, y = position
    for dx, dy in KING_STEPS_BY_ROW:
        sq = (x + dx, y + dy)
        # step_allowed checks that sq is on the map and does not block movement
        if not grid.step_allowed(position, sq) or sq in occ:
            continue
        if avoid_drops and grid.drop_depth(sq):
            continue
        out.append(sq)
    return out


def is_lit(state: BattleState, square: Square) -> bool:
    """H23: a square is lit unless dark and outside every lit torch's radius."""
    if not state.grid.is_dark(square):
        return True
    r = state.content.ruleset.misc.torch_radius
    for c in state.combatants.values():
        for inst in c.inventory:
            if inst.lit and _within(c.position, square, r):
                return True
    return any(inst.lit and inst.square is not None and _within(inst.square, square, r)
               for inst in state.ground)


def _within(first: Square, second: Square, radius: int) -> bool:
    """Euclidean radius in squares (documented choice for H23)."""
    return math.hypot(first[0] - second[0], first[1] - second[1]) <= radius + 1e-9


def in_range(state: BattleState, shooter: Combatant, target: Combatant,
             base_range: int) -> int | None:
    """H16: None if out of range or sight, else the range penalty points (0 or -20);
    distance is :func:`walk_distance`."""
    mods = state.content.ruleset.modifiers
    d = walk_distance(state, shooter.position, target.position)
    if d > base_range * mods.long_range_factor:
        return None
    if not line_of_sight(state.grid, shooter.position, target.position):
        return None
    return mods.long_range if d > base_range else 0


def spell_target_ok(state: BattleState, caster: Combatant, target: Combatant,
                    spell_range: int) -> bool:
    """H18: whether ``target`` is in the spell's range and the caster's sight."""
    if spell_range == 0:
        return target.id == caster.id
    if chebyshev(caster.position, target.position) > spell_range:
        return False
    return line_of_sight(state.grid, caster.position, target.position)


def ammo_of(combatant: Combatant, ammo: str | None) -> ItemInstance | None:
    """The first carried stack of ``ammo`` with something left."""
    if ammo is None:
        return None
    for inst in combatant.inventory:
        if inst.item == ammo and inst.count > 0 and inst.state != "ground":
            return inst
    return None


def way_back(state: BattleState, walked: tuple[Square, ...],
             bodies: tuple[str, ...]) -> tuple[Square, ...]:
    """H13: ``walked`` cut back to the last square nobody but ``bodies`` holds (a thrown
    rider holds the square it landed on). When every square of it is held (a rider
    thrown onto the start square), ``walked`` goes on to the nearest square nobody holds,
    one legal king step at a time, drops avoided (S23); with none on the map it stays."""
    held = occupied(state, exclude=bodies)
    for end in range(len(walked), 0, -1):
        if walked[end - 1] not in held:
            return walked[:end]
    grid = state.grid
    came_from: dict[Square, Square] = {walked[-1]: walked[-1]}
    frontier = [walked[-1]]
    while frontier:
        following: list[Square] = []
        for square in frontier:
            for dx, dy in KING_STEPS_BY_ROW:
                near = (square[0] + dx, square[1] + dy)
                if near in came_from or not grid.step_allowed(square, near) \
                        or grid.drop_depth(near):
                    continue
                came_from[near] = square
                if near not in held:
                    extra = [near]
                    while came_from[extra[-1]] != walked[-1]:
                        extra.append(came_from[extra[-1]])
                    return walked + tuple(reversed(extra))
                following.append(near)
        frontier = following
    return walked
