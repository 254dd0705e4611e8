"""What each turn action does once its Free Attacks are over (S7, S10-S16, H16-H24).

Each effect re-checks what the interruption may have changed (a shooter who dodged may
have lost its line of sight) and wastes the action with a logged reason instead of
breaking a rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from rules import harm
from rules import queries as q
from rules.actions import ATTACK_MODES, Action, ActionKind, attack_mode
from rules.attack_frame import push_attack
from rules.combatant import Combatant
from rules.dice import SuccessLevel, success_level
from rules.events import (
    Concentration,
    DoorChanged,
    ItemMoved,
    SpellCast,
    Spoke,
    StatusChanged,
    item_label,
    square_text,
)

if TYPE_CHECKING:
    from rules.frames import ActFrame, RideFrame
    from rules.state import BattleState

K = ActionKind
L = SuccessLevel
#: An effect: what a turn action does once its frame has done its rolls and Free Attacks.
Effect = Callable[["BattleState", Combatant, Action, "ActFrame | RideFrame"], None]


def apply_effect(state: BattleState, actor: Combatant, action: Action,
                 frame: ActFrame | RideFrame) -> None:
    """Carry out the effect of ``action`` (its Free Attacks are over)."""
    EFFECTS[action.kind](state, actor, action, frame)


def lost(state: BattleState, actor: Combatant, why: str) -> None:
    """Waste the action with a logged reason (what the interruption changed)."""
    state.emit(Concentration, actor=actor.id, what=f"action lost: {why}")


def _target(state: BattleState, action: Action) -> Combatant:
    """The combatant ``action`` targets."""
    return state.combatants[action.target or ""]


# ------------------------------------------------------------------ attacks
def _melee(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """S15: a melee attack with the chosen weapon."""
    push_attack(state, actor, _target(state, action), action.item,
                       attack_mode(K.MELEE_ATTACK))


def _unarmed(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """S15/H19: an unarmed attack, lost if the target is out of action."""
    t = _target(state, action)
    if not t.in_action:
        return lost(state, actor, "target out of action")
    push_attack(state, actor, t, None, attack_mode(K.UNARMED_ATTACK))


def _shoot(state: BattleState, actor: Combatant, action: Action, points: int, mode: str) -> None:
    """H16: range (-20 out to 2 x range), line of sight, ammunition; thrown weapons land
    in the target's square."""
    t = _target(state, action)
    inst = actor.item(action.item or "")
    if inst is None or not t.in_action:
        return lost(state, actor, "no weapon or no target")
    w = state.content.weapons[inst.item]
    penalty = q.in_range(state, actor, t, w.range)
    if penalty is None:
        return lost(state, actor, "target out of range or sight")
    inst.nocked = False
    inst.loaded = False
    if not w.thrown:
        push_attack(state, actor, t, inst.uid, mode, points + penalty, inst.item)
        return
    thrown = inst
    if inst.count > 1:  # H16/H21: one weapon of a stack is thrown, the rest stay in hand
        inst.count -= 1
        thrown = replace(inst, uid=_fresh_uid(state, inst.uid), count=1)
    else:
        actor.inventory.remove(inst)
    push_attack(state, actor, t, thrown.uid, mode, points + penalty, inst.item)
    thrown.state, thrown.square = "ground", t.position
    state.ground.append(thrown)
    state.emit(ItemMoved, actor=actor.id, item=thrown.uid, state_from="ready", state_to="ground",
           square=t.position)


def _fresh_uid(state: BattleState, base: str) -> str:
    """An item uid not yet used in the battle, for one item split off a stack."""
    used = {i.uid for i in state.ground} | {
        i.uid for cb in state.combatants.values() for i in cb.inventory}
    n = 2
    while f"{base}.{n}" in used:
        n += 1
    return f"{base}.{n}"


def _missile(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """S15/H16: a missile attack (see ``_shoot``)."""
    _shoot(state, actor, action, 0, attack_mode(K.MISSILE_ATTACK))


def _full_attack(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H17: one attack at +20; an aimed shot loses the +20 if its aim was broken (S11)."""
    bonus = state.content.ruleset.modifiers.full_attack
    inst = actor.item(action.item or "")
    if inst is None:
        return lost(state, actor, "weapon gone")
    weapon_kind = state.content.weapons[inst.item].kind
    mode = attack_mode(K.FULL_ATTACK, weapon_kind)
    if ATTACK_MODES[mode].missile:
        _shoot(state, actor, action, 0 if actor.concentration_broken else bonus, mode)
        return
    t = _target(state, action)
    if not q.weapon_reaches(state, actor, state.content.weapons[inst.item].reach, t.position):
        return lost(state, actor, "target out of reach")
    push_attack(state, actor, t, action.item, mode, bonus)


def _manoeuvre(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H19: grapple, trip, disarm: an attack roll the target may parry or dodge like any
    hit, then (unless a parry or dodge succeeded) a resistance roll
    (``combat.resolve``)."""
    target = _target(state, action)
    weapon = next(((i, w) for i, w in actor.ready_melee() if not w.natural), None)
    if action.kind is K.GRAPPLE:
        skill = "grapple"
    elif action.kind is K.DISARM and weapon is not None:
        skill = weapon[1].skill
    else:
        skill = q.UNARMED_SKILL
    held = weapon if action.kind is K.DISARM else None  # H11: a fumbled disarm drops it
    push_attack(state, actor, target, held[0].uid if held else None,
                       attack_mode(action.kind), weapon_id=held[0].item if held else None,
                       skill=skill)


def _fight_defensively(state: BattleState, actor: Combatant, action: Action,
                       frame: ActFrame) -> None:
    """S10: until the start of the fighter's next turn, one parry beyond the normal limit
    and a next dodge that pays no disadvantage."""
    actor.extra_parries = state.content.ruleset.defence.fight_defensively_extra_parries
    actor.dodge_waived = True
    state.emit(StatusChanged, actor=actor.id, status="fighting defensively", cause="S10")


def _coup_de_grace(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H5: Coup-de-Grace kills an out-of-action target."""
    t = _target(state, action)
    if t.status != "out":
        return lost(state, actor, "target not helpless")
    harm.kill(state, t, f"coup-de-grace by {actor.id}")


# ------------------------------------------------------------------ care and magic
def _first_aid(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H20: a First Aid success heals 1d3 HP and stops bleeding."""
    t = _target(state, action)
    if harm.roll_skill(state, actor, "first_aid", f"on {t.id}").succeeded:
        if t.bleeding:
            t.bleeding = False
            state.emit(StatusChanged, actor=t.id, status="no longer bleeding", cause="first aid")
        harm.heal(state, t, state.dice.roll(state.content.ruleset.misc.first_aid_heal)[0],
                  "first aid")


def spell_effect(state: BattleState, caster: Combatant, target: Combatant, spell_id: str,
                 level: SuccessLevel) -> None:
    """H18: damage (armour applies unless the spell ignores it; a critical does maximum
    and ignores armour), heal, or a buff of skill points for some rounds."""
    sp = state.content.spells[spell_id]
    spell = item_label(spell_id)
    if sp.effect == "buff":
        target.buffs.append((sp.modifier, state.round + sp.duration - 1))
        state.emit(StatusChanged, actor=target.id, status=f"under {spell}",
               cause=f"{sp.modifier:+d} to skills until round {state.round + sp.duration - 1}")
        return
    if sp.dice is None:  # unreachable: the loader requires dice for damage and heal
        return
    if level is L.CRITICAL:
        amount, faces = sp.dice.maximum, ()
    else:
        amount, faces = state.dice.roll(sp.dice)
    if sp.effect == "heal":
        harm.heal(state, target, amount, spell)
        return
    armour = 0 if (sp.ignores_armour or level is L.CRITICAL) else min(amount,
                                                                      target.armour_points)
    damage = max(0, amount - armour)
    harm.deal_damage(state, caster, target, damage, f"{spell} from {caster.id}",
                       rolled=amount, dice=faces, parried=0, dodged=0, armour=armour,
                       effect=f"spell {spell}")


def _cast(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H18: casting time, power points, magic fumble from armour burden; S11 aborts."""
    sp = state.content.spells[action.item or ""]
    spell = item_label(action.item or "")
    t = _target(state, action)
    if actor.concentration_broken:
        actor.casting = None
        return lost(state, actor, f"{spell} aborted (S11)")
    if sp.casting == "rounds":
        if actor.casting is None:
            actor.casting = {"spell": action.item, "target": action.target, "done": 0,
                             "round": state.round}
        actor.casting["done"] += 1
        actor.casting["round"] = state.round
        if actor.casting["done"] < sp.rounds:
            state.emit(Concentration, actor=actor.id,
                   what=f"casting {spell} ({actor.casting['done']}/{sp.rounds})")
            return
        actor.casting = None
    if t.dead or (sp.effect != "heal" and not t.in_action) or not q.spell_target_ok(
            state, actor, t, sp.range):
        return lost(state, actor, f"{spell} has no valid target")
    if actor.power_points < sp.cost:  # H18: PP spent on other spells while it was being cast
        return lost(state, actor, f"not enough power points for {spell}")
    if sp.components:
        actor.components_ready = False
    chance = actor.skill("cast", state.round)
    roll = state.dice.d100()
    level = success_level(roll, chance, state.content.ruleset.success, actor.magic_fumble)
    cost = sp.cost if level.succeeded else min(sp.cost, state.content.ruleset.misc.failed_cast_cost)
    actor.power_points -= cost
    state.emit(SpellCast, caster=actor.id, spell=action.item, target=t.id, chance=chance, roll=roll,
           level=level.name, cost=cost)
    if level.succeeded:
        spell_effect(state, actor, t, action.item or "", level)


def _use_item(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """S15: drink a potion (heals its dice) or read a scroll (its spell, no roll, no PP)."""
    inst = actor.item(action.item or "")
    if inst is None:
        return lost(state, actor, "item gone")
    it = state.content.items[inst.item]
    inst.count -= 1
    if inst.count <= 0:
        actor.inventory.remove(inst)
    if it.kind == "potion" and it.heal is not None:
        harm.heal(state, actor, state.dice.roll(it.heal)[0], item_label(inst.item))
    elif it.kind == "scroll" and it.spell is not None:
        t = _target(state, action)
        state.emit(SpellCast, caster=actor.id, spell=it.spell, target=t.id, chance=0, roll=0,
               level="SCROLL", cost=0)
        if not t.dead:
            spell_effect(state, actor, t, it.spell, L.SUCCESS)


# ------------------------------------------------------------------ equipment (H21)
def _move_item(state: BattleState, actor: Combatant, uid: str, to: str) -> None:
    """H21: move an item of the actor's to another state, logged."""
    inst = actor.item(uid)
    if inst is None:
        return
    old, inst.state = inst.state, to
    state.emit(ItemMoved, actor=actor.id, item=uid, state_from=old, state_to=to, square=None)


def _ready(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """S12: drawing a hidden weapon needs a Sleight roll."""
    inst = actor.item(action.item or "")
    if inst is None:
        return
    if inst.state == "hidden" and not harm.roll_skill(state, actor, "sleight", "draw").succeeded:
        return lost(state, actor, f"fumbled drawing {inst.uid}")
    _move_item(state, actor, inst.uid, "ready")


def _sheathe(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """S12/H21: sheathe a weapon, or stow a shield."""
    inst = actor.item(action.item or "")
    if inst is not None:
        _move_item(state, actor, inst.uid,
                   "sheathed" if inst.item in state.content.weapons else "carried")


def _drop(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """S16/H21: drop an item in the actor's square."""
    harm.drop_item(state, actor, action.item or "", "")


def _pick_up(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H21: a picked-up weapon or shield goes to hand if a hand is free, else the pack."""
    inst = next((item for item in state.ground
                 if item.uid == action.item and item.square == actor.position), None)
    if inst is None:
        return lost(state, actor, "the item is no longer at hand")
    state.ground.remove(inst)
    cw = state.content
    hands = (cw.weapons[inst.item].hands if inst.item in cw.weapons
             else cw.armour[inst.item].hands if inst.item in cw.armour
             else cw.items[inst.item].hands)
    holdable = inst.item in cw.weapons or inst.item in cw.armour or inst.lit
    to = "ready" if holdable and hands <= 2 - actor.hands_used() else "carried"
    if not holdable:
        inst.lit = False
    inst.state, inst.square = to, None
    actor.inventory.append(inst)
    state.emit(ItemMoved, actor=actor.id, item=inst.uid, state_from="ground", state_to=to,
           square=actor.position)


def _light_torch(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H23: a lit torch is held in a hand and lights 4 squares around its carrier."""
    inst = actor.item(action.item or "")
    if inst is None:
        return
    inst.lit = True
    _move_item(state, actor, inst.uid, "ready")


def _load(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H16: bows and slings are nocked (FREE); crossbows wound and loaded (FULL)."""
    inst = actor.item(action.item or "")
    if inst is None:
        return
    w = state.content.weapons[inst.item]
    ammo = q.ammo_of(actor, w.ammo)
    if ammo is None:
        return lost(state, actor, "no ammunition")
    ammo.count -= 1
    if ammo.count <= 0:
        actor.inventory.remove(ammo)
    if action.kind is K.NOCK_ARROW:
        inst.nocked = True
    else:
        inst.loaded = True
    state.emit(ItemMoved, actor=actor.id, item=inst.uid, state_from="ready",
           state_to="nocked" if inst.nocked else "loaded", square=None)


# ------------------------------------------------------------------ position and body
def _shift(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """S7: a 5 ft step, once per round, never provokes."""
    if action.square is None:
        return
    old = actor.position
    actor.position = action.square
    actor.shifted_this_round = True
    harm.release_grapples_by(state, actor)
    state.emit(StatusChanged, actor=actor.id, status=f"now at {square_text(action.square)}",
           cause=f"shifted from {square_text(old)}")


def _stand(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H15: stand up."""
    actor.prone = False
    state.emit(StatusChanged, actor=actor.id, status="standing", cause="stood up")


def _prone(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H15: fall prone on purpose."""
    harm.set_prone(state, actor, "fell prone")


def _door(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """S12: open or close a neighbouring door (the state swaps its map)."""
    if action.square is None:
        return
    opening = action.kind is K.OPEN_DOOR
    state.set_grid(state.grid.with_door(action.square, opening))
    state.emit(DoorChanged, actor=actor.id, square=action.square, open=opening)


def _mount(state: BattleState, actor: Combatant, action: Action, frame: RideFrame) -> None:
    """S13/H22: after a Ride roll (:class:`rules.frames.RideFrame`), mount the target."""
    m = _target(state, action)
    if not m.in_action or m.ridden_by is not None:
        return lost(state, actor, "mount unavailable")
    actor.riding, m.ridden_by, actor.position = m.id, actor.id, m.position
    state.emit(StatusChanged, actor=actor.id, status=f"riding {m.id}", cause="mounted")


def _dismount(state: BattleState, actor: Combatant, action: Action, frame: RideFrame) -> None:
    """S13/H22: after a Ride roll (:class:`rules.frames.RideFrame`), dismount into the
    chosen square."""
    if actor.riding is None:  # thrown from the saddle meanwhile (a saddle-fall dodge, H10)
        return lost(state, actor, "no longer mounted")
    if action.square is None or action.square in q.occupied(state, exclude=(actor.id,
                                                                            actor.riding)):
        return lost(state, actor, "no room to dismount")
    m = state.combatants[actor.riding]
    actor.riding, m.ridden_by, actor.position = None, None, action.square
    state.emit(StatusChanged, actor=actor.id, status="on foot", cause="dismounted")


def _components(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H18: prepare spell components."""
    actor.components_ready = True
    state.emit(StatusChanged, actor=actor.id, status="ready with spell components", cause="H18")


def _speak(state: BattleState, actor: Combatant, action: Action, frame: ActFrame) -> None:
    """H24: no game effect but the log line."""
    state.emit(Spoke, actor=actor.id)


#: The effect of each turn action kind (moves and END_TURN have none: their frame is
#: the effect).
EFFECTS: dict[ActionKind, Effect] = {
    K.MELEE_ATTACK: _melee, K.MISSILE_ATTACK: _missile, K.FULL_ATTACK: _full_attack,
    K.UNARMED_ATTACK: _unarmed, K.GRAPPLE: _manoeuvre, K.TRIP: _manoeuvre,
    K.DISARM: _manoeuvre, K.FIGHT_DEFENSIVELY: _fight_defensively,
    K.COUP_DE_GRACE: _coup_de_grace, K.FIRST_AID: _first_aid, K.CAST_SPELL: _cast,
    K.USE_ITEM: _use_item, K.READY_WEAPON: _ready, K.SHEATHE_WEAPON: _sheathe,
    K.DROP_ITEM: _drop, K.PICK_UP: _pick_up, K.LIGHT_TORCH: _light_torch,
    K.LOAD_CROSSBOW: _load, K.NOCK_ARROW: _load, K.SHIFT: _shift, K.STAND_UP: _stand,
    K.FALL_PRONE: _prone, K.OPEN_DOOR: _door, K.CLOSE_DOOR: _door, K.MOUNT: _mount,
    K.DISMOUNT: _dismount, K.PREPARE_COMPONENTS: _components, K.SPEAK: _speak,
}
