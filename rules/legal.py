"""Legal actions: the single source of truth (DESIGN.md). Everything listed here is legal
and ``BattleState.apply`` accepts it; everything else is an ``IllegalActionError``.

Turn actions follow the round budget (S2, :mod:`rules.budget`: one MOVE and one ATTACK,
or two MOVEs, or one FULL action, plus FREE actions once a turn each). They come from
one generator per group named in :data:`rules.actions.ACTION_SPECS`, in the table's
order (``GENERATORS``, ``TURN_GROUPS``). Reactions keep the sheet's own limits (S5,
S8, S9); the frame waiting for one lists them (:mod:`rules.reactions`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rules import queries as q
from rules.actions import ACTION_SPECS, Action, ActionKind, Decision, DecisionKind
from rules.budget import can_spend, free_left, spell_category
from rules.combatant import Combatant
from rules.grid import KING_STEPS_BY_ROW, Square, chebyshev
from rules.routes import Reach
from rules.threat_zones import threatened_squares

if TYPE_CHECKING:
    from rules.state import BattleState

K = ActionKind
#: How many distinct actions of one kind are kept for sharing before starting afresh.
_SHARED_LIMIT = 100_000


class _Shared(dict):
    """The actions of one kind by their fields ``(target, square, item)``, each built once
    and shared: actions are immutable, and a TURN lists up to hundreds of them, so
    finding one costs less than building it again."""

    __slots__ = ("kind",)

    def __init__(self, kind: ActionKind) -> None:
        super().__init__()
        self.kind = kind

    def __missing__(self, fields: tuple[str | None, Square | None, str | None]) -> Action:
        if len(self) >= _SHARED_LIMIT:
            self.clear()
        action = self[fields] = Action(self.kind, *fields)
        return action


_MOVE, _FULL_MOVE, _DISENGAGE = _Shared(K.MOVE), _Shared(K.FULL_MOVE), _Shared(K.DISENGAGE)
_SHIFT = _Shared(K.SHIFT)
_MELEE, _MISSILE, _FULL_ATTACK = (_Shared(kind) for kind in (
    K.MELEE_ATTACK, K.MISSILE_ATTACK, K.FULL_ATTACK))
_UNARMED, _GRAPPLE, _TRIP, _DISARM, _COUP_DE_GRACE = (_Shared(kind) for kind in (
    K.UNARMED_ATTACK, K.GRAPPLE, K.TRIP, K.DISARM, K.COUP_DE_GRACE))
_END_TURN = Action(K.END_TURN)
_FIGHT_DEFENSIVELY = Action(K.FIGHT_DEFENSIVELY)


def actions_for(state: BattleState, decision: Decision) -> list[Action]:
    """The legal actions of ``decision``: the turn logic's for TURN decisions, else the
    top frame's (``frame.legal_actions``)."""
    if decision.kind is DecisionKind.TURN:
        return turn_actions(state, state.combatants[decision.actor])
    return state.stack[-1].legal_actions(state, decision)


# -------------------------------------------------------------------- turn actions
def turn_actions(state: BattleState, actor: Combatant) -> list[Action]:
    """A TURN decision's legal actions: each generator group of ``ACTION_SPECS``, in the
    table's order (a group lists all its kinds, interleaved where they are)."""
    out: list[Action] = []
    for group in TURN_GROUPS:
        out += GENERATORS[group](state, actor)
    return out


def _may_move(actor: Combatant) -> bool:
    """S7/H15/H19: no moving after a Shift, while prone or while grappled."""
    return not actor.shifted_this_round and not actor.prone and actor.grappled_by is None


def _end_turn(state: BattleState, actor: Combatant) -> list[Action]:
    """S2: the turn owner may always end its turn."""
    return [_END_TURN]


def _walk(state: BattleState, actor: Combatant) -> list[Action]:
    """S12/S14/S17: MOVE and DISENGAGE to any square half the rate reaches, FULL_MOVE to
    any the whole rate reaches."""
    if not _may_move(actor):
        return []
    move, full = can_spend(actor, "move"), can_spend(actor, "full")
    if not (move or full):
        return []
    out: list[Action] = []
    # Where a mover can end does not depend on threats, only which route it takes there
    # does (H13), so the destinations come from the plain search; the provocation-aware
    # route is chosen when the move is applied.
    # the whole rate's search first: the half rate's is cut from it (ReachGraph._narrowed)
    whole = q.routes(state, actor, q.move_budget(state, actor, True), False) if full else None
    half = q.routes(state, actor, q.move_budget(state, actor, False), False)
    if move:
        out += _destinations(half, _MOVE)
    if whole is not None:
        out += _destinations(whole, _FULL_MOVE)
        out += _destinations(half, _DISENGAGE)
    return out


def _destinations(reach: Reach, shared: _Shared) -> tuple[Action, ...]:
    """One action of ``shared``'s kind to each destination of ``reach``, by square (kept
    with the query result, which the reach graph caches per query)."""
    actions = reach.memo.get(shared.kind)
    if actions is None:
        actions = reach.memo[shared.kind] = tuple([  # a list first: no generator to resume
            shared[None, square, None] for square in sorted(reach)])
    return actions


def _shift(state: BattleState, actor: Combatant) -> list[Action]:
    """S7: a Shift to a free, not difficult neighbouring square, once a round, never in a
    round the character moves (nor while riding, H22)."""
    if not _may_move(actor) or actor.moved_this_round \
            or not free_left(state, actor, K.SHIFT) or actor.riding is not None:
        return []
    return [_SHIFT[None, square, None] for square in q.free_adjacent(state, actor)
            if not state.grid.is_difficult(square)]


def melee_targets(state: BattleState, actor: Combatant) -> list[tuple[Combatant, str]]:
    """(enemy, weapon uid) pairs: in-action enemies within a ready melee weapon's reach."""
    return _melee_targets(state, actor, q.enemies(state, actor))


def _melee_zones(state: BattleState, actor: Combatant) -> list[tuple[str, frozenset[Square]]]:
    """(weapon uid, squares it reaches) per ready melee weapon of ``actor`` (H12)."""
    table = state.content.ruleset.misc.reach_squares
    grid, origin = state.grid, actor.position
    return [(inst.uid, threatened_squares(grid, origin, table[weapon.reach]))
            for inst, weapon in actor.ready_melee()]


def _melee_targets(state: BattleState, actor: Combatant, foes: list[Combatant],
                   zones: list[tuple[str, frozenset[Square]]] | None = None,
                   ) -> list[tuple[Combatant, str]]:
    """``melee_targets`` among ``foes`` (``q.enemies``), given the weapons' zones."""
    if zones is None:
        zones = _melee_zones(state, actor)
    return [(enemy, uid) for enemy in foes for uid, zone in zones if enemy.position in zone]


def missile_targets(state: BattleState, actor: Combatant) -> list[tuple[Combatant, str]]:
    """H16: enemies in range and sight of a ready, loaded/nocked missile weapon."""
    return _missile_targets(state, actor, q.enemies(state, actor))


def _missile_targets(state: BattleState, actor: Combatant,
                     foes: list[Combatant]) -> list[tuple[Combatant, str]]:
    """``missile_targets`` among ``foes`` (``q.enemies``)."""
    out = []
    for inst, weapon in actor.ready_weapons():
        if weapon.kind != "missile" or not actor.skill_possible(weapon.skill):
            continue
        if (weapon.reload == "nock" and not inst.nocked) or (
                weapon.reload == "wind" and not inst.loaded):
            continue
        for enemy in foes:
            if q.in_range(state, actor, enemy, weapon.range) is not None:
                out.append((enemy, inst.uid))
    return out


def _adjacent_enemies(state: BattleState, actor: Combatant,
                      foes: list[Combatant]) -> list[Combatant]:
    """In-action enemies (of ``foes``) one step away, with no wall corner between (H19
    manoeuvres)."""
    return [enemy for enemy in foes
            if chebyshev(actor.position, enemy.position) == 1
            and state.grid.step_allowed(actor.position, enemy.position)]


def _attacks(state: BattleState, actor: Combatant) -> list[Action]:
    """S15 ATTACK actions, then the FULL_ATTACK and COUP_DE_GRACE of S14 (they share the
    weapon targets)."""
    attack, full = can_spend(actor, "attack"), can_spend(actor, "full")
    if not (attack or full):
        return []
    out: list[Action] = []
    foes = q.enemies(state, actor)
    zones = _melee_zones(state, actor)
    melee = _melee_targets(state, actor, foes, zones)
    missile = _missile_targets(state, actor, foes)
    if attack:
        out += [_MELEE[enemy.id, None, uid] for enemy, uid in melee]
        out += [_MISSILE[enemy.id, None, uid] for enemy, uid in missile]
        out.append(_FIGHT_DEFENSIVELY)
        adjacent = _adjacent_enemies(state, actor, foes)
        if actor.skill_possible(q.UNARMED_SKILL):
            out += [_UNARMED[enemy.id, None, None] for enemy in adjacent]
        for enemy in adjacent:
            if actor.grappled_by == enemy.id or enemy.grappled_by is None:
                out.append(_GRAPPLE[enemy.id, None, None])
        out += [_TRIP[enemy.id, None, None] for enemy in adjacent
                if not enemy.prone and enemy.riding is None]
        out += [_DISARM[enemy.id, None, None] for enemy in adjacent
                if any(not weapon.natural for _, weapon in enemy.ready_weapons())]
    if full:
        out += [_FULL_ATTACK[enemy.id, None, uid] for enemy, uid in melee + missile]
        for other in state.combatants.values():
            if other.status == "out" and other.team != actor.team and any(
                    other.position in zone for _, zone in zones):
                out.append(_COUP_DE_GRACE[other.id, None, None])
    return out


def spell_targets(state: BattleState, caster: Combatant, spell_id: str) -> list[Combatant]:
    """H18: the combatants the spell may target from where the caster stands."""
    spell = state.content.spells[spell_id]
    out = []
    for other in state.combatants.values():
        if spell.target == "self" and other.id != caster.id:
            continue
        if spell.target == "enemy" and (other.team == caster.team or not other.in_action):
            continue
        if spell.target == "ally" and other.team != caster.team:
            continue
        if other.dead or (spell.effect != "heal" and not other.in_action):
            continue
        if q.spell_target_ok(state, caster, other, spell.range):
            out.append(other)
    return out


def _spells(state: BattleState, actor: Combatant) -> list[Action]:
    """H18: the next round of a multi-round casting first, then every spell affordable in
    the budget left, on each valid target."""
    out: list[Action] = []
    casting = actor.casting
    spells = state.content.spells
    if (casting is not None and casting["round"] < state.round and can_spend(actor, "full")
            and actor.power_points >= spells[casting["spell"]].cost
            and any(target.id == casting["target"]
                    for target in spell_targets(state, actor, casting["spell"]))
            ):  # H18: continued only while its target is still a valid one (alive, in range)
        out.append(Action(K.CAST_SPELL, target=casting["target"], item=casting["spell"]))
    for spell_id in actor.spells:
        spell = spells[spell_id]
        category = spell_category(state, spell_id)
        if casting is not None and casting["spell"] == spell_id:
            continue
        if actor.power_points < spell.cost or (spell.components and not actor.components_ready):
            continue
        if category == "free":
            if not free_left(state, actor, K.CAST_SPELL):
                continue
        elif not can_spend(actor, category):
            continue
        out += [Action(K.CAST_SPELL, target=target.id, item=spell_id)
                for target in spell_targets(state, actor, spell_id)]
    return out


def _use_item(state: BattleState, actor: Combatant) -> list[Action]:
    """S15: drink a potion, or read a scroll at each target of its spell."""
    if not can_spend(actor, "attack"):
        return []
    out: list[Action] = []
    for inst in actor.inventory:
        if inst.item not in state.content.items:
            continue
        item = state.content.items[inst.item]
        if item.kind == "potion":
            out.append(Action(K.USE_ITEM, item=inst.uid))
        elif item.kind == "scroll" and item.spell is not None:
            out += [Action(K.USE_ITEM, target=target.id, item=inst.uid)
                    for target in spell_targets(state, actor, item.spell)]
    return out


def _components(state: BattleState, actor: Combatant) -> list[Action]:
    """H18: prepare spell components once (FREE) when a known spell needs them."""
    if (any(state.content.spells[spell].components for spell in actor.spells)
            and not actor.components_ready and free_left(state, actor, K.PREPARE_COMPONENTS)):
        return [Action(K.PREPARE_COMPONENTS)]
    return []


def readiable(state: BattleState, actor: Combatant) -> list[str]:
    """S12/H21: stowed weapons and shields that fit in the free hands."""
    free_hands = 2 - actor.hands_used()
    content = state.content
    out = []
    for inst in actor.inventory:
        if inst.state not in ("carried", "sheathed", "hidden"):
            continue
        if inst.item in content.weapons:
            hands = content.weapons[inst.item].hands
        elif inst.item in content.armour and content.armour[inst.item].slot == "shield":
            hands = content.armour[inst.item].hands
        else:
            continue
        if hands <= free_hands:
            out.append(inst.uid)
    return out


def _ready(state: BattleState, actor: Combatant) -> list[Action]:
    """S12/H21: ready a stowed weapon or shield that fits in the free hands."""
    if not can_spend(actor, "move"):
        return []
    return [Action(K.READY_WEAPON, item=uid) for uid in readiable(state, actor)]


def _sheathe(state: BattleState, actor: Combatant) -> list[Action]:
    """S12/H21: sheathe or stow a ready weapon (not a natural one) or shield."""
    if not can_spend(actor, "move"):
        return []
    content = state.content
    out: list[Action] = []
    for inst in actor.inventory:
        if inst.state != "ready":
            continue
        is_weapon = inst.item in content.weapons and not content.weapons[inst.item].natural
        is_shield = inst.item in content.armour and content.armour[inst.item].slot == "shield"
        if is_weapon or is_shield:
            out.append(Action(K.SHEATHE_WEAPON, item=inst.uid))
    return out


def _pick_up(state: BattleState, actor: Combatant) -> list[Action]:
    """S12/H21: pick up an item lying in the actor's square."""
    if not can_spend(actor, "move"):
        return []
    return [Action(K.PICK_UP, item=item.uid) for item in state.ground
            if item.square == actor.position]


def _drop(state: BattleState, actor: Combatant) -> list[Action]:
    """S16/H21: drop any carried item but a natural weapon (FREE, once a turn)."""
    if not free_left(state, actor, K.DROP_ITEM):
        return []
    weapons = state.content.weapons
    return [Action(K.DROP_ITEM, item=inst.uid) for inst in actor.inventory
            if not (inst.item in weapons and weapons[inst.item].natural)]


def _reload(state: BattleState, actor: Combatant) -> list[Action]:
    """H16: nock a bow or sling (FREE) or wind a crossbow (FULL), weapon by weapon."""
    out: list[Action] = []
    for inst, weapon in actor.ready_weapons():
        ammo = q.ammo_of(actor, weapon.ammo)
        if weapon.reload == "nock" and not inst.nocked and ammo is not None and free_left(
                state, actor, K.NOCK_ARROW):
            out.append(Action(K.NOCK_ARROW, item=inst.uid))
        if (weapon.reload == "wind" and not inst.loaded and ammo is not None
                and can_spend(actor, "full")):
            out.append(Action(K.LOAD_CROSSBOW, item=inst.uid))
    return out


def _light_torch(state: BattleState, actor: Combatant) -> list[Action]:
    """H23: light a torch held ready or that fits in the free hands (FULL)."""
    if not can_spend(actor, "full"):
        return []
    items = state.content.items
    free_hands = 2 - actor.hands_used()
    return [Action(K.LIGHT_TORCH, item=inst.uid) for inst in actor.inventory
            if inst.item in items and items[inst.item].kind == "torch" and not inst.lit
            and (inst.state == "ready" or free_hands >= items[inst.item].hands)]


def _stand_up(state: BattleState, actor: Combatant) -> list[Action]:
    """H15: standing up is a MOVE action."""
    return [Action(K.STAND_UP)] if actor.prone and can_spend(actor, "move") else []


def _fall_prone(state: BattleState, actor: Combatant) -> list[Action]:
    """H15: falling prone is FREE (once a turn), not from the saddle."""
    if not actor.prone and free_left(state, actor, K.FALL_PRONE) and actor.riding is None:
        return [Action(K.FALL_PRONE)]
    return []


def _doors(state: BattleState, actor: Combatant) -> list[Action]:
    """S12: open a closed neighbouring door, or close an open one nothing stands in."""
    if not can_spend(actor, "move") or actor.prone:
        return []
    out: list[Action] = []
    x, y = actor.position
    occupied = q.occupied(state)
    doors = state.grid.doors
    for dx, dy in KING_STEPS_BY_ROW:
        square = (x + dx, y + dy)
        if square not in doors:
            continue
        if not doors[square]:
            out.append(Action(K.OPEN_DOOR, square=square))
        elif square not in occupied and not any(
                item.square == square for item in state.ground) and not any(
                other.position == square for other in state.combatants.values()):
            out.append(Action(K.CLOSE_DOOR, square=square))
    return out


def _mount(state: BattleState, actor: Combatant) -> list[Action]:
    """S13/H22: mount a free, standing, neighbouring mount of the team (one rider)."""
    if (not can_spend(actor, "move") or actor.prone or actor.riding is not None
            or actor.ridden_by is not None or actor.grappled_by is not None
            or actor.is_mount):
        return []
    return [Action(K.MOUNT, target=mount.id) for mount in state.combatants.values()
            if mount.is_mount and mount.in_action and mount.ridden_by is None
            and mount.riding is None and mount.team == actor.team and not mount.prone
            and chebyshev(mount.position, actor.position) == 1]


def _dismount(state: BattleState, actor: Combatant) -> list[Action]:
    """S13/H22: dismount into a free neighbouring square."""
    if not can_spend(actor, "move") or actor.prone or actor.riding is None:
        return []
    return [Action(K.DISMOUNT, square=square) for square in q.free_adjacent(state, actor)]


def _first_aid(state: BattleState, actor: Combatant) -> list[Action]:
    """H20: First Aid (FULL) on oneself or a hurt or bleeding neighbouring ally."""
    if not can_spend(actor, "full"):
        return []
    return [Action(K.FIRST_AID, target=other.id) for other in state.combatants.values()
            if other.team == actor.team and not other.dead
            and (other.hp < other.max_hp or other.bleeding)
            and (other.id == actor.id or chebyshev(other.position, actor.position) <= 1)]


def _speak(state: BattleState, actor: Combatant) -> list[Action]:
    """H24: speaking is FREE, once a turn."""
    return [Action(K.SPEAK)] if free_left(state, actor, K.SPEAK) else []


Generator = Callable[["BattleState", Combatant], list[Action]]
#: The legal-action generator of each group named in ``ACTION_SPECS``.
GENERATORS: dict[str, Generator] = {
    "end_turn": _end_turn, "walk": _walk, "shift": _shift, "attacks": _attacks,
    "spells": _spells, "use_item": _use_item, "components": _components,
    "ready": _ready, "sheathe": _sheathe, "pick_up": _pick_up, "drop": _drop,
    "reload": _reload, "light_torch": _light_torch, "stand_up": _stand_up,
    "fall_prone": _fall_prone, "doors": _doors, "mount": _mount, "dismount": _dismount,
    "first_aid": _first_aid, "speak": _speak,
}
#: The generator groups in ``ACTION_SPECS`` order: the order of a TURN's legal actions.
TURN_GROUPS: tuple[str, ...] = tuple(dict.fromkeys(
    spec.generator for spec in ACTION_SPECS.values() if spec.generator is not None))
