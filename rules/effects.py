"""What each turn action does once its Free Attacks are over (S7, S10-S16, H16-H24).

Each effect re-checks what the interruption may have changed (a shooter who dodged may
have lost its line of sight) and wastes the action with a logged reason instead of
breaking a rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rules import combat, harm
from rules import queries as q
from rules.actions import Action, ActionKind
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
    from rules.battle import Battle

K = ActionKind
L = SuccessLevel
Effect = Callable[["Battle", Combatant, Action, dict[str, Any]], None]


def apply_effect(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    _EFFECTS[a.kind](b, c, a, f)


def _lost(b: Battle, c: Combatant, why: str) -> None:
    b.emit(Concentration, actor=c.id, what=f"action lost: {why}")


def _target(b: Battle, a: Action) -> Combatant:
    return b.combatants[a.target or ""]


# ------------------------------------------------------------------ attacks
def _melee(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    combat.push_attack(b, c, _target(b, a), a.item, "melee")


def _unarmed(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    t = _target(b, a)
    if not t.in_action:
        return _lost(b, c, "target out of action")
    combat.push_attack(b, c, t, None, "unarmed")


def _shoot(b: Battle, c: Combatant, a: Action, points: int, mode: str) -> None:
    """H16: range (-20 out to 2 x range), line of sight, ammunition; thrown weapons land
    in the target's square."""
    t = _target(b, a)
    inst = c.item(a.item or "")
    if inst is None or not t.in_action:
        return _lost(b, c, "no weapon or no target")
    w = b.content.weapons[inst.item]
    penalty = q.in_range(b, c, t, w.range)
    if penalty is None:
        return _lost(b, c, "target out of range or sight")
    inst.nocked = False
    inst.loaded = False
    if not w.thrown:
        combat.push_attack(b, c, t, inst.uid, mode, points + penalty, inst.item)
        return
    thrown = inst
    if inst.count > 1:  # H16/H21: one weapon of a stack is thrown, the rest stay in hand
        inst.count -= 1
        thrown = replace(inst, uid=_fresh_uid(b, inst.uid), count=1)
    else:
        c.inventory.remove(inst)
    combat.push_attack(b, c, t, thrown.uid, mode, points + penalty, inst.item)
    thrown.state, thrown.square = "ground", t.position
    b.ground.append(thrown)
    b.emit(ItemMoved, actor=c.id, item=thrown.uid, state_from="ready", state_to="ground",
           square=t.position)


def _fresh_uid(b: Battle, base: str) -> str:
    """An item uid not yet used in the battle, for one item split off a stack."""
    used = {i.uid for i in b.ground} | {
        i.uid for cb in b.combatants.values() for i in cb.inventory}
    n = 2
    while f"{base}.{n}" in used:
        n += 1
    return f"{base}.{n}"


def _missile(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    _shoot(b, c, a, 0, "missile")


def _full_attack(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """H17: one attack at +20; an aimed shot loses the +20 if its aim was broken (S11)."""
    bonus = b.content.ruleset.modifiers.full_attack
    inst = c.item(a.item or "")
    if inst is None:
        return _lost(b, c, "weapon gone")
    if b.content.weapons[inst.item].kind == "missile":
        _shoot(b, c, a, 0 if c.concentration_broken else bonus, "full_missile")
        return
    t = _target(b, a)
    if not q.weapon_reaches(b, c, b.content.weapons[inst.item].reach, t.position):
        return _lost(b, c, "target out of reach")
    combat.push_attack(b, c, t, a.item, "full_melee", bonus)


def _manoeuvre(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    combat.manoeuvre(b, c, a)


def _fight_defensively(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """S10: until the start of the fighter's next turn, one parry beyond the normal limit
    and a next dodge that pays no disadvantage."""
    c.extra_parries = b.content.ruleset.defence.fight_defensively_extra_parries
    c.dodge_waived = True
    b.emit(StatusChanged, actor=c.id, status="fighting defensively", cause="S10")


def _coup_de_grace(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """H5: Coup-de-Grace kills an out-of-action target."""
    t = _target(b, a)
    if t.status != "out":
        return _lost(b, c, "target not helpless")
    harm.kill(b, t, f"coup-de-grace by {c.id}")


# ------------------------------------------------------------------ care and magic
def _first_aid(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """H20: a First Aid success heals 1d3 HP and stops bleeding."""
    t = _target(b, a)
    if harm.roll_skill(b, c, "first_aid", f"on {t.id}").succeeded:
        if t.bleeding:
            t.bleeding = False
            b.emit(StatusChanged, actor=t.id, status="no longer bleeding", cause="first aid")
        harm.heal(b, t, b.dice.roll(b.content.ruleset.misc.first_aid_heal)[0], "first aid")


def spell_effect(b: Battle, caster: Combatant, target: Combatant, spell_id: str,
                 level: SuccessLevel) -> None:
    """H18: damage (armour applies unless the spell ignores it; a critical does maximum
    and ignores armour), heal, or a buff of skill points for some rounds."""
    sp = b.content.spells[spell_id]
    spell = item_label(spell_id)
    if sp.effect == "buff":
        target.buffs.append((sp.modifier, b.round + sp.duration - 1))
        b.emit(StatusChanged, actor=target.id, status=f"under {spell}",
               cause=f"{sp.modifier:+d} to skills until round {b.round + sp.duration - 1}")
        return
    if sp.dice is None:  # unreachable: the loader requires dice for damage and heal
        return
    if level is L.CRITICAL:
        amount, faces = sp.dice.maximum, ()
    else:
        amount, faces = b.dice.roll(sp.dice)
    if sp.effect == "heal":
        harm.heal(b, target, amount, spell)
        return
    armour = 0 if (sp.ignores_armour or level is L.CRITICAL) else min(amount,
                                                                      target.armour_points)
    damage = max(0, amount - armour)
    harm.deal_damage(b, caster, target, damage, f"{spell} from {caster.id}",
                       rolled=amount, dice=faces, parried=0, dodged=0, armour=armour,
                       effect=f"spell {spell}")


def _cast(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """H18: casting time, power points, magic fumble from armour burden; S11 aborts."""
    sp = b.content.spells[a.item or ""]
    spell = item_label(a.item or "")
    t = _target(b, a)
    if c.concentration_broken:
        c.casting = None
        return _lost(b, c, f"{spell} aborted (S11)")
    if sp.casting == "rounds":
        if c.casting is None:
            c.casting = {"spell": a.item, "target": a.target, "done": 0, "round": b.round}
        c.casting["done"] += 1
        c.casting["round"] = b.round
        if c.casting["done"] < sp.rounds:
            b.emit(Concentration, actor=c.id,
                   what=f"casting {spell} ({c.casting['done']}/{sp.rounds})")
            return
        c.casting = None
    if t.dead or (sp.effect != "heal" and not t.in_action) or not q.spell_target_ok(
            b, c, t, sp.range):
        return _lost(b, c, f"{spell} has no valid target")
    if c.power_points < sp.cost:  # H18: PP spent on other spells while it was being cast
        return _lost(b, c, f"not enough power points for {spell}")
    if sp.components:
        c.components_ready = False
    chance = c.skill("cast", b.round)
    roll = b.dice.d100()
    level = success_level(roll, chance, b.content.ruleset.success, c.magic_fumble)
    cost = sp.cost if level.succeeded else min(sp.cost, b.content.ruleset.misc.failed_cast_cost)
    c.power_points -= cost
    b.emit(SpellCast, caster=c.id, spell=a.item, target=t.id, chance=chance, roll=roll,
           level=level.name, cost=cost)
    if level.succeeded:
        spell_effect(b, c, t, a.item or "", level)


def _use_item(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """S15: drink a potion (heals its dice) or read a scroll (its spell, no roll, no PP)."""
    inst = c.item(a.item or "")
    if inst is None:
        return _lost(b, c, "item gone")
    it = b.content.items[inst.item]
    inst.count -= 1
    if inst.count <= 0:
        c.inventory.remove(inst)
    if it.kind == "potion" and it.heal is not None:
        harm.heal(b, c, b.dice.roll(it.heal)[0], item_label(inst.item))
    elif it.kind == "scroll" and it.spell is not None:
        t = _target(b, a)
        b.emit(SpellCast, caster=c.id, spell=it.spell, target=t.id, chance=0, roll=0,
               level="SCROLL", cost=0)
        if not t.dead:
            spell_effect(b, c, t, it.spell, L.SUCCESS)


# ------------------------------------------------------------------ equipment (H21)
def _move_item(b: Battle, c: Combatant, uid: str, to: str) -> None:
    inst = c.item(uid)
    if inst is None:
        return
    old, inst.state = inst.state, to
    b.emit(ItemMoved, actor=c.id, item=uid, state_from=old, state_to=to, square=None)


def _ready(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """S12: drawing a hidden weapon needs a Sleight roll."""
    inst = c.item(a.item or "")
    if inst is None:
        return
    if inst.state == "hidden" and not harm.roll_skill(b, c, "sleight", "draw").succeeded:
        return _lost(b, c, f"fumbled drawing {inst.uid}")
    _move_item(b, c, inst.uid, "ready")


def _sheathe(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    inst = c.item(a.item or "")
    if inst is not None:
        _move_item(b, c, inst.uid, "sheathed" if inst.item in b.content.weapons else "carried")


def _drop(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    harm.drop_item(b, c, a.item or "", "")


def _pick_up(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """H21: a picked-up weapon or shield goes to hand if a hand is free, else the pack."""
    inst = next((g for g in b.ground if g.uid == a.item and g.square == c.position), None)
    if inst is None:
        return _lost(b, c, "the item is no longer at hand")
    b.ground.remove(inst)
    cw = b.content
    hands = (cw.weapons[inst.item].hands if inst.item in cw.weapons
             else cw.armour[inst.item].hands if inst.item in cw.armour
             else cw.items[inst.item].hands)
    holdable = inst.item in cw.weapons or inst.item in cw.armour or inst.lit
    to = "ready" if holdable and hands <= 2 - c.hands_used() else "carried"
    if not holdable:
        inst.lit = False
    inst.state, inst.square = to, None
    c.inventory.append(inst)
    b.emit(ItemMoved, actor=c.id, item=inst.uid, state_from="ground", state_to=to,
           square=c.position)


def _light_torch(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """H23: a lit torch is held in a hand and lights 4 squares around its carrier."""
    inst = c.item(a.item or "")
    if inst is None:
        return
    inst.lit = True
    _move_item(b, c, inst.uid, "ready")


def _load(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """H16: bows and slings are nocked (FREE); crossbows wound and loaded (FULL)."""
    inst = c.item(a.item or "")
    if inst is None:
        return
    w = b.content.weapons[inst.item]
    ammo = q.ammo_of(c, w.ammo)
    if ammo is None:
        return _lost(b, c, "no ammunition")
    ammo.count -= 1
    if ammo.count <= 0:
        c.inventory.remove(ammo)
    if a.kind is K.NOCK_ARROW:
        inst.nocked = True
    else:
        inst.loaded = True
    b.emit(ItemMoved, actor=c.id, item=inst.uid, state_from="ready",
           state_to="nocked" if inst.nocked else "loaded", square=None)


# ------------------------------------------------------------------ position and body
def _shift(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """S7: a 5 ft step, once per round, never provokes."""
    if a.square is None:
        return
    old = c.position
    c.position = a.square
    c.shifted_this_round = True
    harm.release_grapples_by(b, c)
    b.emit(StatusChanged, actor=c.id, status=f"now at {square_text(a.square)}",
           cause=f"shifted from {square_text(old)}")


def _stand(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    c.prone = False
    b.emit(StatusChanged, actor=c.id, status="standing", cause="stood up")


def _prone(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    harm.set_prone(b, c, "fell prone")


def _door(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    if a.square is None:
        return
    opening = a.kind is K.OPEN_DOOR
    b.set_grid(b.grid.with_door(a.square, opening))
    b.emit(DoorChanged, actor=c.id, square=a.square, open=opening)


def _ride(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """S13/H22: a Ride roll. On failure it provokes; with the round whole (nothing but
    this action spent) the failure takes the full round and then completes; otherwise
    the attempt does not complete this round: the turn ends with the character where
    it was."""
    if not f.get("rolled"):
        f["rolled"] = True
        if not harm.roll_skill(b, c, "ride", a.kind.value).succeeded:
            f["force_provoke"] = True
            f["phase"] = "start"
            if c.actions_used == ["move"]:
                c.actions_used = ["full"]
            else:
                f["incomplete"] = True
            return
    if f.get("incomplete"):
        f["end_turn"] = True
        return _lost(b, c, f"{a.kind.value} failed with the round no longer whole (S13)")
    if a.kind is K.MOUNT:
        m = _target(b, a)
        if not m.in_action or m.ridden_by is not None:
            return _lost(b, c, "mount unavailable")
        c.riding, m.ridden_by, c.position = m.id, c.id, m.position
        b.emit(StatusChanged, actor=c.id, status=f"riding {m.id}", cause="mounted")
        return
    if a.square is None or a.square in q.occupied(b, exclude=(c.id, c.riding or "")):
        return _lost(b, c, "no room to dismount")
    m = b.combatants[c.riding or ""]
    c.riding, m.ridden_by, c.position = None, None, a.square
    b.emit(StatusChanged, actor=c.id, status="on foot", cause="dismounted")


def _components(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    c.components_ready = True
    b.emit(StatusChanged, actor=c.id, status="ready with spell components", cause="H18")


def _speak(b: Battle, c: Combatant, a: Action, f: dict[str, Any]) -> None:
    """H24: no game effect but the log line."""
    b.emit(Spoke, actor=c.id)


_EFFECTS: dict[ActionKind, Effect] = {
    K.MELEE_ATTACK: _melee, K.MISSILE_ATTACK: _missile, K.FULL_ATTACK: _full_attack,
    K.UNARMED_ATTACK: _unarmed, K.GRAPPLE: _manoeuvre, K.TRIP: _manoeuvre,
    K.DISARM: _manoeuvre, K.FIGHT_DEFENSIVELY: _fight_defensively,
    K.COUP_DE_GRACE: _coup_de_grace, K.FIRST_AID: _first_aid, K.CAST_SPELL: _cast,
    K.USE_ITEM: _use_item, K.READY_WEAPON: _ready, K.SHEATHE_WEAPON: _sheathe,
    K.DROP_ITEM: _drop, K.PICK_UP: _pick_up, K.LIGHT_TORCH: _light_torch,
    K.LOAD_CROSSBOW: _load, K.NOCK_ARROW: _load, K.SHIFT: _shift, K.STAND_UP: _stand,
    K.FALL_PRONE: _prone, K.OPEN_DOOR: _door, K.CLOSE_DOOR: _door, K.MOUNT: _ride,
    K.DISMOUNT: _ride, K.PREPARE_COMPONENTS: _components, K.SPEAK: _speak,
}
