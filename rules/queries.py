"""Read-only questions about a battle: who threatens whom, who may react, what is lit,
where a combatant may go. Legal-action generation and frame stepping both ask these, so
the rules are stated once.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rules.combatant import Combatant, ItemInstance
from rules.grid import chebyshev, line_of_sight
from rules.reach import Reach, threatened_squares

if TYPE_CHECKING:
    from rules.battle import Battle
    from rules.content.schema import Weapon

Square = tuple[int, int]
KING = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))
#: S6/S15/H19: the skill of unarmed fighting; a natural weapon fought with it (a fist)
#: is unarmed, whichever action carries it.
UNARMED_SKILL = "brawl"


def is_unarmed(weapon: Weapon) -> bool:
    """S6/S15: an unarmed natural weapon (a fist); bites, claws and hooves are
    creatures' natural weapons, not unarmed attacks."""
    return weapon.natural and weapon.skill == UNARMED_SKILL


def walk_distance(b: Battle, a: Square, c: Square) -> int:
    """H16/S18: the squares between ``a`` and ``c`` counted as a walk on open ground:
    straight steps 1 each, diagonal steps alternating the ruleset's diagonal costs
    (1, 2, 1, ...), so 15 squares straight diagonal are 22."""
    costs = b.content.ruleset.movement.diagonal_costs
    dx, dy = abs(a[0] - c[0]), abs(a[1] - c[1])
    diagonals = min(dx, dy)
    return max(dx, dy) - diagonals + sum(costs[i % len(costs)] for i in range(diagonals))


def enemies(b: Battle, c: Combatant) -> list[Combatant]:
    """In-action combatants of other teams, in initiative order."""
    return [b.combatants[i] for i in b.initiative_order
            if b.combatants[i].in_action and b.combatants[i].team != c.team]


def threat_squares(b: Battle, c: Combatant, reach: int | None = None) -> frozenset[Square]:
    """H12: the squares ``c`` threatens with its longest ready melee weapon."""
    r = c.reach if reach is None else reach
    if r <= 0:
        return frozenset()
    return threatened_squares(b.grid, c.position, r)


def weapon_reaches(b: Battle, c: Combatant, reach_letter: str, sq: Square) -> bool:
    r = b.content.ruleset.misc.reach_squares[reach_letter]
    return sq in threatened_squares(b.grid, c.position, r)


def can_free_attack(b: Battle, enemy: Combatant, provoker: Combatant) -> bool:
    """S5/H12: ``enemy`` may take a Free Attack at ``provoker`` now."""
    return (
        enemy.team != provoker.team
        and enemy.threatens
        and not enemy.free_attack_used
        and provoker.in_action
        and provoker.position in threat_squares(b, enemy)
    )


def provokers_at(b: Battle, mover: Combatant, sq: Square | None = None) -> list[str]:
    """Enemies that may take a Free Attack at ``mover`` for an action in ``sq``."""
    where = mover.position if sq is None else sq
    out = []
    for e in enemies(b, mover):
        if e.threatens and not e.free_attack_used and where in threat_squares(b, e):
            out.append(e.id)
    return out


def occupied(b: Battle, exclude: tuple[str, ...] = ()) -> dict[Square, Combatant]:
    """Squares nobody may end a move on: held by a living combatant, in action or lying
    out of action (a ridden mount and rider share one). In-action holders win the entry.
    The dead hold no square."""
    out: dict[Square, Combatant] = {}
    for c in b.combatants.values():
        if c.dead or c.id in exclude:
            continue
        if c.in_action or c.position not in out:
            out[c.position] = c
    return out


def mover_of(b: Battle, c: Combatant) -> tuple[Combatant, tuple[str, ...]]:
    """The body that moves for ``c`` (its mount when riding, H22) and the ids moving."""
    if c.riding is not None:
        mount = b.combatants[c.riding]
        return mount, (c.id, mount.id)
    return c, (c.id,)


def routes(b: Battle, c: Combatant, budget: int, provoking: bool) -> Reach:
    """S17/S18/H13/H14: where ``c`` may end a move with ``budget``, by route."""
    _, ids = mover_of(b, c)
    blocked, no_end = set(), set()
    for o in b.combatants.values():
        if o.dead or o.id in ids:
            continue
        if o.in_action and o.team != c.team:
            blocked.add(o.position)  # H13: enemies block
        else:
            no_end.add(o.position)  # allies and the fallen: passed, not ended on
    threats = None
    if provoking:
        threats = {}
        for e in enemies(b, c):
            if e.threatens and not e.free_attack_used:
                for sq in threat_squares(b, e):
                    threats[sq] = threats.get(sq, frozenset()) | {e.id}
    return b.graph.reachable(c.position, c.diagonal_parity, budget,
                             blocked=frozenset(blocked), no_end=frozenset(no_end - blocked),
                             threats=threats)


def move_budget(b: Battle, c: Combatant, full: bool) -> int:
    """S17: floor(MOV/2) squares per MOVE action, MOV for a FULL move; a rider uses its
    mount's (H22)."""
    body, _ = mover_of(b, c)
    return body.mov if full else body.move_squares


def free_adjacent(b: Battle, c: Combatant, avoid_drops: bool = True) -> list[Square]:
    """Squares one legal king step from ``c`` that nobody in action holds (S7 shifts,
    H10 dodges, dismounting)."""
    occ = occupied(b, exclude=(c.id,) + ((c.riding,) if c.riding else ()))
    out = []
    x, y = c.position
    for dx, dy in KING:
        sq = (x + dx, y + dy)
        if not b.grid.in_bounds(sq) or b.grid.blocks_movement(sq):
            continue
        if not b.grid.step_allowed(c.position, sq) or sq in occ:
            continue
        if avoid_drops and b.grid.drop_depth(sq):
            continue
        out.append(sq)
    return out


def is_lit(b: Battle, sq: Square) -> bool:
    """H23: a square is lit unless dark and outside every lit torch's radius."""
    if not b.grid.is_dark(sq):
        return True
    r = b.content.ruleset.misc.torch_radius
    for c in b.combatants.values():
        for inst in c.inventory:
            if inst.lit and _within(c.position, sq, r):
                return True
    return any(inst.lit and inst.square is not None and _within(inst.square, sq, r)
               for inst in b.ground)


def _within(a: Square, b: Square, r: int) -> bool:
    """Euclidean radius in squares (documented choice for H23)."""
    return math.hypot(a[0] - b[0], a[1] - b[1]) <= r + 1e-9


def in_range(b: Battle, shooter: Combatant, target: Combatant, base_range: int) -> int | None:
    """H16: None if out of range or sight, else the range penalty points (0 or -20);
    distance is :func:`walk_distance`."""
    mods = b.content.ruleset.modifiers
    d = walk_distance(b, shooter.position, target.position)
    if d > base_range * mods.long_range_factor:
        return None
    if not line_of_sight(b.grid, shooter.position, target.position):
        return None
    return mods.long_range if d > base_range else 0


def spell_target_ok(b: Battle, caster: Combatant, target: Combatant, spell_range: int) -> bool:
    if spell_range == 0:
        return target.id == caster.id
    if chebyshev(caster.position, target.position) > spell_range:
        return False
    return line_of_sight(b.grid, caster.position, target.position)


def ammo_of(c: Combatant, ammo: str | None) -> ItemInstance | None:
    """The first carried stack of ``ammo`` with something left."""
    if ammo is None:
        return None
    for inst in c.inventory:
        if inst.item == ammo and inst.count > 0 and inst.state != "ground":
            return inst
    return None
