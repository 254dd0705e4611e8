"""Legal actions: the single source of truth (DESIGN.md). Everything listed here is legal
and ``Battle.apply`` accepts it; everything else is an ``IllegalActionError``.

Turn actions follow the round budget (S2): one MOVE and one ATTACK (either order), or two
MOVEs, or one FULL action, plus FREE actions, each voluntary FREE action at most once per
turn (H25). Reactions keep the sheet's own limits (S5, S8, S9).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules import queries as q
from rules.actions import Action, ActionKind, Decision, DecisionKind
from rules.combatant import Combatant
from rules.grid import chebyshev

if TYPE_CHECKING:
    from rules.battle import Battle

K = ActionKind


def can_spend(c: Combatant, category: str) -> bool:
    """S2: whether the budget left this turn allows an action of ``category``.

    S3: an ATTACK fits before or after a MOVE; a MOVE is one atomic action (its path is
    walked to the end or cut short), so nothing can be done in the middle of one.
    """
    used = c.actions_used
    if category == "move":
        return used in ([], ["move"], ["attack"])
    if category == "attack":
        return used in ([], ["move"])
    if category == "full":
        return not used
    return True


def free_left(c: Combatant, kind: ActionKind) -> bool:
    """H25: each voluntary FREE action at most once per turn (reactions are not FREE
    actions in this sense: they keep their own limits, S5, S8, S9)."""
    return kind.value not in c.free_used


def spell_category(b: Battle, spell_id: str) -> str:
    casting = b.content.spells[spell_id].casting
    return {"free": "free", "attack": "attack", "full": "full", "rounds": "full"}[casting]


def actions_for(b: Battle, d: Decision) -> list[Action]:
    if d.kind is DecisionKind.TURN:
        return turn_actions(b, b.combatants[d.actor])
    frame = b.stack[-1]
    if d.kind is DecisionKind.FREE_ATTACK:
        return free_attack_actions(b, frame)
    if d.kind is DecisionKind.PARRY:
        return parry_actions(b, frame)
    return dodge_actions(b, frame)


# -------------------------------------------------------------------- reactions
def free_attack_actions(b: Battle, frame: dict) -> list[Action]:
    """S5: one melee attack with a ready weapon that reaches the provoker (or its mount)."""
    enemy = b.combatants[frame["enemy"]]
    provoker = b.combatants[frame["actor"]]
    targets = [provoker]
    if provoker.riding is not None:
        targets.append(b.combatants[provoker.riding])
    out = []
    for t in targets:
        for inst, w in enemy.ready_melee():
            if q.weapon_reaches(b, enemy, w.reach, t.position):
                out.append(Action(K.FREE_ATTACK, target=t.id, item=inst.uid))
    out.append(Action(K.DECLINE))
    return out


def parry_items(b: Battle, defender: Combatant, missile: bool) -> list[str]:
    """S8/H9: ready weapons that can parry, and shields; only shields parry missiles."""
    out = []
    for inst in defender.inventory:
        if inst.state != "ready":
            continue
        if inst.item in b.content.armour:
            a = b.content.armour[inst.item]
            if a.slot == "shield" and a.skill and defender.skill_possible(a.skill):
                out.append(inst.uid)
        elif inst.item in b.content.weapons and not missile:
            w = b.content.weapons[inst.item]
            if w.parry and not w.natural and w.kind == "melee":
                out.append(inst.uid)
    return out


def can_parry(b: Battle, defender: Combatant, missile: bool) -> bool:
    """S8/S10: one parry attempt per hit, one per round plus Fight Defensively's extra
    (which lasts until the start of the fighter's next turn); never limited per turn."""
    normal = b.content.ruleset.defence.parries_per_round
    return (defender.in_action
            and (defender.parries_used < normal or defender.extra_parries > 0)
            and bool(parry_items(b, defender, missile)))


def parry_actions(b: Battle, frame: dict) -> list[Action]:
    defender = b.combatants[frame["target"]]
    items = parry_items(b, defender, frame["missile"])
    return [Action(K.PARRY, item=uid) for uid in items] + [Action(K.DECLINE)]


def dodge_squares(b: Battle, defender: Combatant, attacker: Combatant) -> list[tuple[int, int]]:
    """H10: squares one shift away and not closer to the attacker; none if the Shift is
    spent, the defender moved this round or is moving now (S7: no Shift in a round the
    character otherwise moves), is prone (H15: no moving before standing up), grappled,
    or rides or is ridden (H22: a shift would split the pair)."""
    moving = any(f["type"] == "move" and f["actor"] == defender.id for f in b.stack)
    if (defender.shifted_this_round or defender.moved_this_round or moving or defender.prone
            or defender.grappled_by is not None or defender.riding is not None
            or defender.ridden_by is not None):
        return []
    here = chebyshev(defender.position, attacker.position)
    return [sq for sq in q.free_adjacent(b, defender)
            if chebyshev(sq, attacker.position) >= here]


def can_fall_to_dodge(b: Battle, defender: Combatant) -> bool:
    """H10/H22: falling prone is open while standing; a rider (or the mount under one)
    falls from the saddle, which needs a free neighbouring square for the rider."""
    if defender.prone:
        return False
    if defender.riding is None and defender.ridden_by is None:
        return True
    rider = defender if defender.riding is not None else b.combatants[defender.ridden_by or ""]
    return bool(q.free_adjacent(b, rider))


def dodge_options(b: Battle, defender: Combatant, attacker: Combatant) -> list[Action]:
    """S9/H10/S10: one dodge attempt per hit, for every hit. The dodger chooses its
    disadvantage: a Shift back (DODGE with the square) or falling prone (DODGE without a
    square). Under Fight Defensively the one DODGE without a square pays nothing. Empty
    when no disadvantage is open."""
    if not defender.in_action:
        return []
    if defender.dodge_waived:
        return [Action(K.DODGE)]
    acts = [Action(K.DODGE, square=sq) for sq in dodge_squares(b, defender, attacker)]
    if can_fall_to_dodge(b, defender):
        acts.append(Action(K.DODGE))
    return acts


def dodge_actions(b: Battle, frame: dict) -> list[Action]:
    """The DODGE decision of an attack frame: the open choices, or DECLINE."""
    defender = b.combatants[frame["target"]]
    attacker = b.combatants[frame["attacker"]]
    return [*dodge_options(b, defender, attacker), Action(K.DECLINE)]


def can_dodge(b: Battle, defender: Combatant, attacker: Combatant) -> bool:
    """S9/H10: a dodge is offered when some disadvantage is open (or waived, S10)."""
    return bool(dodge_options(b, defender, attacker))


# -------------------------------------------------------------------- turn actions
def turn_actions(b: Battle, c: Combatant) -> list[Action]:
    out: list[Action] = [Action(K.END_TURN)]
    out += _movement(b, c)
    out += _attacks(b, c)
    out += _spells_and_items(b, c)
    out += _equipment(b, c)
    out += _misc(b, c)
    return out


def _may_move(c: Combatant) -> bool:
    """S7/H15/H19: no moving after a Shift, while prone or while grappled."""
    return not c.shifted_this_round and not c.prone and c.grappled_by is None


def _movement(b: Battle, c: Combatant) -> list[Action]:
    out: list[Action] = []
    if not _may_move(c):
        return out
    # Where a mover can end does not depend on threats, only which route it takes there
    # does (H13), so the destinations come from the plain search; the provocation-aware
    # route is chosen when the move is applied.
    half = sorted(q.routes(b, c, q.move_budget(b, c, False), False)) if can_spend(
        c, "move") or can_spend(c, "full") else []
    if can_spend(c, "move"):
        out += [Action(K.MOVE, square=sq) for sq in half]
    if can_spend(c, "full"):
        full = sorted(q.routes(b, c, q.move_budget(b, c, True), False))
        out += [Action(K.FULL_MOVE, square=sq) for sq in full]
        out += [Action(K.DISENGAGE, square=sq) for sq in half]
    if not c.moved_this_round and free_left(c, K.SHIFT) and c.riding is None:
        for sq in q.free_adjacent(b, c):
            if not b.grid.is_difficult(sq):
                out.append(Action(K.SHIFT, square=sq))
    return out


def melee_targets(b: Battle, c: Combatant) -> list[tuple[Combatant, str]]:
    """(enemy, weapon uid) pairs: in-action enemies within a ready melee weapon's reach."""
    out = []
    for e in q.enemies(b, c):
        for inst, w in c.ready_melee():
            if q.weapon_reaches(b, c, w.reach, e.position):
                out.append((e, inst.uid))
    return out


def missile_targets(b: Battle, c: Combatant) -> list[tuple[Combatant, str]]:
    """H16: enemies in range and sight of a ready, loaded/nocked missile weapon."""
    out = []
    for inst, w in c.ready_weapons():
        if w.kind != "missile" or not c.skill_possible(w.skill):
            continue
        if (w.reload == "nock" and not inst.nocked) or (w.reload == "wind" and not inst.loaded):
            continue
        for e in q.enemies(b, c):
            if q.in_range(b, c, e, w.range) is not None:
                out.append((e, inst.uid))
    return out


def _adjacent_enemies(b: Battle, c: Combatant) -> list[Combatant]:
    return [e for e in q.enemies(b, c) if chebyshev(c.position, e.position) == 1
            and b.grid.step_allowed(c.position, e.position)]


def _attacks(b: Battle, c: Combatant) -> list[Action]:
    out: list[Action] = []
    melee = melee_targets(b, c)
    missile = missile_targets(b, c)
    if can_spend(c, "attack"):
        out += [Action(K.MELEE_ATTACK, target=e.id, item=uid) for e, uid in melee]
        out += [Action(K.MISSILE_ATTACK, target=e.id, item=uid) for e, uid in missile]
        out.append(Action(K.FIGHT_DEFENSIVELY))
        adjacent = _adjacent_enemies(b, c)
        if c.skill_possible(q.UNARMED_SKILL):
            out += [Action(K.UNARMED_ATTACK, target=e.id) for e in adjacent]
        for e in adjacent:
            if c.grappled_by == e.id or e.grappled_by is None:
                out.append(Action(K.GRAPPLE, target=e.id))
        out += [Action(K.TRIP, target=e.id) for e in adjacent
                if not e.prone and e.riding is None]
        out += [Action(K.DISARM, target=e.id) for e in adjacent
                if any(not w.natural for _, w in e.ready_weapons())]
    if can_spend(c, "full"):
        out += [Action(K.FULL_ATTACK, target=e.id, item=uid) for e, uid in melee + missile]
        for o in b.combatants.values():
            if o.status == "out" and o.team != c.team and any(
                    q.weapon_reaches(b, c, w.reach, o.position) for _, w in c.ready_melee()):
                out.append(Action(K.COUP_DE_GRACE, target=o.id))
    return out


def spell_targets(b: Battle, c: Combatant, spell_id: str) -> list[Combatant]:
    sp = b.content.spells[spell_id]
    out = []
    for o in b.combatants.values():
        if sp.target == "self" and o.id != c.id:
            continue
        if sp.target == "enemy" and (o.team == c.team or not o.in_action):
            continue
        if sp.target == "ally" and o.team != c.team:
            continue
        if o.dead or (sp.effect != "heal" and not o.in_action):
            continue
        if q.spell_target_ok(b, c, o, sp.range):
            out.append(o)
    return out


def _spells_and_items(b: Battle, c: Combatant) -> list[Action]:
    out: list[Action] = []
    casting = c.casting
    if (casting is not None and casting["round"] < b.round and can_spend(c, "full")
            and c.power_points >= b.content.spells[casting["spell"]].cost
            and any(t.id == casting["target"] for t in spell_targets(b, c, casting["spell"]))
            ):  # H18: continued only while its target is still a valid one (alive, in range)
        out.append(Action(K.CAST_SPELL, target=casting["target"], item=casting["spell"]))
    for sid in c.spells:
        sp = b.content.spells[sid]
        cat = spell_category(b, sid)
        if casting is not None and casting["spell"] == sid:
            continue
        if c.power_points < sp.cost or (sp.components and not c.components_ready):
            continue
        if cat == "free":
            if not free_left(c, K.CAST_SPELL):
                continue
        elif not can_spend(c, cat):
            continue
        out += [Action(K.CAST_SPELL, target=t.id, item=sid) for t in spell_targets(b, c, sid)]
    if can_spend(c, "attack"):
        for inst in c.inventory:
            if inst.item not in b.content.items:
                continue
            it = b.content.items[inst.item]
            if it.kind == "potion":
                out.append(Action(K.USE_ITEM, item=inst.uid))
            elif it.kind == "scroll" and it.spell is not None:
                out += [Action(K.USE_ITEM, target=t.id, item=inst.uid)
                        for t in spell_targets(b, c, it.spell)]
    if (any(b.content.spells[s].components for s in c.spells) and not c.components_ready
            and free_left(c, K.PREPARE_COMPONENTS)):
        out.append(Action(K.PREPARE_COMPONENTS))
    return out


def readiable(b: Battle, c: Combatant) -> list[str]:
    """S12/H21: stowed weapons and shields that fit in the free hands."""
    free_hands = 2 - c.hands_used()
    out = []
    for inst in c.inventory:
        if inst.state not in ("carried", "sheathed", "hidden"):
            continue
        if inst.item in b.content.weapons:
            hands = b.content.weapons[inst.item].hands
        elif inst.item in b.content.armour and b.content.armour[inst.item].slot == "shield":
            hands = b.content.armour[inst.item].hands
        else:
            continue
        if hands <= free_hands:
            out.append(inst.uid)
    return out


def _equipment(b: Battle, c: Combatant) -> list[Action]:
    out: list[Action] = []
    cw = b.content
    if can_spend(c, "move"):
        out += [Action(K.READY_WEAPON, item=uid) for uid in readiable(b, c)]
        for inst in c.inventory:
            if inst.state != "ready":
                continue
            is_weapon = inst.item in cw.weapons and not cw.weapons[inst.item].natural
            is_shield = inst.item in cw.armour and cw.armour[inst.item].slot == "shield"
            if is_weapon or is_shield:
                out.append(Action(K.SHEATHE_WEAPON, item=inst.uid))
        out += [Action(K.PICK_UP, item=g.uid) for g in b.ground if g.square == c.position]
    if free_left(c, K.DROP_ITEM):
        for inst in c.inventory:
            if inst.item in cw.weapons and cw.weapons[inst.item].natural:
                continue
            out.append(Action(K.DROP_ITEM, item=inst.uid))
    free_hands = 2 - c.hands_used()
    for inst, w in c.ready_weapons():
        ammo = q.ammo_of(c, w.ammo)
        if w.reload == "nock" and not inst.nocked and ammo is not None and free_left(
                c, K.NOCK_ARROW):
            out.append(Action(K.NOCK_ARROW, item=inst.uid))
        if (w.reload == "wind" and not inst.loaded and ammo is not None
                and can_spend(c, "full")):
            out.append(Action(K.LOAD_CROSSBOW, item=inst.uid))
    if can_spend(c, "full"):
        for inst in c.inventory:
            if (inst.item in cw.items and cw.items[inst.item].kind == "torch" and not inst.lit
                    and (inst.state == "ready" or free_hands >= cw.items[inst.item].hands)):
                out.append(Action(K.LIGHT_TORCH, item=inst.uid))
    return out


def _misc(b: Battle, c: Combatant) -> list[Action]:
    out: list[Action] = []
    if c.prone and can_spend(c, "move"):
        out.append(Action(K.STAND_UP))
    if not c.prone and free_left(c, K.FALL_PRONE) and c.riding is None:
        out.append(Action(K.FALL_PRONE))
    if can_spend(c, "move") and not c.prone:
        x, y = c.position
        occ = q.occupied(b)
        for dx, dy in q.KING:
            sq = (x + dx, y + dy)
            doors = b.grid.doors
            if sq in doors:
                if doors[sq]:
                    if sq not in occ and not any(g.square == sq for g in b.ground) and not any(
                            o.position == sq for o in b.combatants.values()):
                        out.append(Action(K.CLOSE_DOOR, square=sq))
                else:
                    out.append(Action(K.OPEN_DOOR, square=sq))
        if (c.riding is None and c.ridden_by is None and c.grappled_by is None
                and not c.is_mount):
            for m in b.combatants.values():
                if (m.is_mount and m.in_action and m.ridden_by is None and m.riding is None
                        and m.team == c.team and not m.prone
                        and chebyshev(m.position, c.position) == 1):  # H22: one rider
                    out.append(Action(K.MOUNT, target=m.id))
        if c.riding is not None:
            out += [Action(K.DISMOUNT, square=sq) for sq in q.free_adjacent(b, c)]
    if can_spend(c, "full"):
        for o in b.combatants.values():
            if o.team != c.team or o.dead or (o.hp >= o.max_hp and not o.bleeding):
                continue
            if o.id == c.id or chebyshev(o.position, c.position) <= 1:
                out.append(Action(K.FIRST_AID, target=o.id))
    if free_left(c, K.SPEAK):
        out.append(Action(K.SPEAK))
    return out
