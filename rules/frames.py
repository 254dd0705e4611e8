"""Work in progress as a stack of plain-data frames, and the round/turn bookkeeping.

Frame types (each a JSON-able dict with a ``type``):

- ``move``: a MOVE, FULL_MOVE or DISENGAGE walking its path square by square; before
  leaving a threatened square it offers each provoked enemy a Free Attack (S5, H13).
- ``act``: any other turn action: the Free Attacks it provokes first (S5, S6), then its
  effect (:mod:`rules.effects`).
- ``offer``: an enemy deciding whether to take its Free Attack (S5).
- ``attack``: one attack roll and the defender's parry and dodge decisions, then damage
  (:mod:`rules.combat`).

``step`` advances the top frame and returns a :class:`Decision` when input is needed;
``answer`` feeds a reaction decision's chosen action to the top frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules import combat, effects, harm
from rules import queries as q
from rules.actions import PROVOKING, Action, ActionKind, Decision, DecisionKind, category_of
from rules.combatant import Combatant
from rules.events import ActionTaken, Concentration, FreeAttackDeclined, Moved, Provoked
from rules.legal import spell_category

if TYPE_CHECKING:
    from rules.state import BattleState as Battle

K = ActionKind
MOVES = {K.MOVE, K.FULL_MOVE, K.DISENGAGE}


def _pop(b: Battle, f: dict[str, Any]) -> None:
    """Pop ``f``, which is always the top frame when its own step finishes it."""
    if not b.stack or b.stack[-1] is not f:
        raise RuntimeError(f"frame {f.get('type')} finished while not on top of the stack")
    b.stack.pop()



# ------------------------------------------------------------------ rounds and turns
def start_round(b: Battle) -> None:
    """Per-round resets (S5, S7, S8, H14), bleeding (H7) and fatigue checks (S21)."""
    rs = b.content.ruleset
    for c in b.combatants.values():
        c.moved_this_round = False
        c.shifted_this_round = False
        c.diagonal_parity = 0
        c.free_attack_used = False
        c.parries_used = 0
        c.buffs = [bf for bf in c.buffs if bf[1] >= b.round]
    for cid in b.initiative_order:
        c = b.combatants[cid]
        if c.bleeding and not c.dead:
            harm.lose_hp(b, c, rs.misc.bleed_per_round, "bleeding")
    every = rs.fatigue.rounds_per_check
    if b.round > 1 and (b.round - 1) % every == 0:
        for cid in b.initiative_order:
            c = b.combatants[cid]
            if c.in_action:
                harm.fatigue_check(b, c)


def start_turn(b: Battle, owner: Combatant) -> None:
    """H25: voluntary FREE actions are once per turn, so they reset each turn; S10:
    Fight Defensively lasts until the start of the fighter's next turn (a ridden mount's
    turn is its rider's, H22)."""
    owner.free_used = []
    for fighter in (owner, b.combatants.get(owner.riding or "")):
        if fighter is not None:
            fighter.extra_parries = 0
            fighter.dodge_waived = False
    owner.actions_used = []
    owner.concentration = None
    owner.concentration_broken = False


def finish_turn(b: Battle, owner: Combatant) -> None:
    """H18: a multi-round casting not continued this round is abandoned."""
    if owner.casting is not None and owner.casting["round"] < b.round:
        owner.casting = None
        b.emit(Concentration, actor=owner.id, what="multi-round casting abandoned")


# ------------------------------------------------------------------ starting actions
def _category(b: Battle, c: Combatant, a: Action) -> str:
    if a.kind is K.CAST_SPELL:
        return spell_category(b, a.item or "")
    return category_of(a.kind)


def _continues_casting(c: Combatant, a: Action) -> bool:
    return (a.kind is K.CAST_SPELL and c.casting is not None
            and c.casting["spell"] == a.item and c.casting["target"] == a.target)


def start_action(b: Battle, c: Combatant, a: Action) -> None:
    """Pay the action's budget (S2, H25) and push the frame that carries it out."""
    if a.kind is K.END_TURN:
        b.end_turn_requested = True
        return
    cat = _category(b, c, a)
    if cat == "free":
        c.free_used.append(a.kind.value)
    elif cat in ("move", "attack", "full"):
        c.actions_used.append(cat)
        if c.casting is not None and not _continues_casting(c, a):
            c.casting = None
            b.emit(Concentration, actor=c.id, what="multi-round casting abandoned")
    b.emit(ActionTaken, actor=c.id, action=str(a))
    if a.kind in MOVES:
        full = a.kind is K.FULL_MOVE
        provoking = a.kind is not K.DISENGAGE
        route = q.routes(b, c, q.move_budget(b, c, full), provoking)[a.square]
        b.stack.append({
            "type": "move", "actor": c.id, "kind": a.kind.value,
            "path": [list(sq) for sq in route.path], "i": 0, "checked": -1,
            "parity": c.diagonal_parity, "provokes": provoking, "provoked": [], "offers": [],
        })
        return
    b.stack.append({"type": "act", "actor": c.id, "action": a.to_dict(), "phase": "start",
                    "offers": []})


def provokes(b: Battle, a: Action, frame: dict[str, Any]) -> bool:
    """S6/S15/S13: whether this action provokes Free Attacks; a melee attack with an
    unarmed natural weapon (a fist) provokes like any unarmed attack."""
    if frame.get("force_provoke"):
        return True
    if a.kind is K.MELEE_ATTACK:
        inst = b.combatants[frame["actor"]].item(a.item or "")
        weapon = b.content.weapons.get(inst.item) if inst is not None else None
        return weapon is not None and q.is_unarmed(weapon)
    if a.kind is K.CAST_SPELL:
        sp = b.content.spells[a.item or ""]
        return sp.provokes and sp.casting != "free"
    if a.kind is K.USE_ITEM:
        return True
    return a.kind in PROVOKING


def _concentration(b: Battle, c: Combatant, a: Action) -> str | None:
    """S11/H17: casting, and an aimed shot (a missile Full Attack), need concentration."""
    if a.kind is K.CAST_SPELL and b.content.spells[a.item or ""].casting != "free":
        return "cast"
    if a.kind is K.FULL_ATTACK:
        inst = c.item(a.item or "")
        if inst is not None and b.content.weapons[inst.item].kind == "missile":
            return "aim"
    return None


# ------------------------------------------------------------------ stepping
def step(b: Battle, frame: dict[str, Any]) -> Decision | None:
    return _STEP[frame["type"]](b, frame)


def answer(b: Battle, frame: dict[str, Any], action: Action) -> None:
    if frame["type"] == "offer":
        _answer_offer(b, frame, action)
    else:
        combat.answer_attack(b, frame, action)


def _push_offer(b: Battle, enemy: str, actor: str) -> None:
    b.stack.append({"type": "offer", "enemy": enemy, "actor": actor})


def _step_offer(b: Battle, f: dict[str, Any]) -> Decision | None:
    enemy, prov = b.combatants[f["enemy"]], b.combatants[f["actor"]]
    if not q.can_free_attack(b, enemy, prov):
        b.stack.pop()
        return None
    return Decision(DecisionKind.FREE_ATTACK, enemy.id, prov.id)


def _answer_offer(b: Battle, f: dict[str, Any], action: Action) -> None:
    b.stack.pop()
    enemy = b.combatants[f["enemy"]]
    if action.kind is K.DECLINE:
        b.emit(FreeAttackDeclined, enemy=enemy.id, actor=f["actor"])
        return
    enemy.free_attack_used = True
    combat.push_attack(b, enemy, b.combatants[action.target or ""], action.item, "free")


def _step_act(b: Battle, f: dict[str, Any]) -> Decision | None:
    c = b.combatants[f["actor"]]
    a = Action.from_dict(f["action"])
    phase = f["phase"]
    if phase == "start":
        if provokes(b, a, f):
            conc = _concentration(b, c, a)
            if conc is not None:
                c.concentration, c.concentration_broken = conc, False
            f["offers"] = q.provokers_at(b, c)
            for e in f["offers"]:
                b.emit(Provoked, actor=c.id, enemy=e)
        f["phase"] = "provoke"
        return None
    if phase == "provoke":
        if not c.in_action:
            c.concentration = None
            b.stack.pop()
            return None
        if f["offers"]:
            _push_offer(b, f["offers"].pop(0), c.id)
            return None
        f["phase"] = "effect"
        return None
    if phase == "effect":
        f["phase"] = "done"
        effects.apply_effect(b, c, a, f)
        return None
    c.concentration = None
    c.concentration_broken = False
    _pop(b, f)
    if f.get("end_turn"):  # S13: a failed mount with the round no longer whole
        b.end_turn_requested = True
    return None


def _step_move(b: Battle, f: dict[str, Any]) -> Decision | None:
    c = b.combatants[f["actor"]]
    _body, ids = q.mover_of(b, c)
    path = f["path"]
    i = f["i"]
    here = tuple(path[i])
    if not c.in_action or c.prone or c.position != here:
        _finish_move(b, f, complete=False)
        return None
    last = len(path) - 1
    if f["provokes"] and f["checked"] != i and i < last:
        f["checked"] = i
        new = [e for e in q.provokers_at(b, c) if e not in f["provoked"]]
        f["provoked"] += new
        f["offers"] += new
        for e in new:
            b.emit(Provoked, actor=c.id, enemy=e)
    if f["offers"]:
        _push_offer(b, f["offers"].pop(0), c.id)
        return None
    if i == last:
        _finish_move(b, f, complete=True)
        return None
    nxt = (path[i + 1][0], path[i + 1][1])
    holder = q.occupied(b, exclude=ids).get(nxt)
    if holder is not None and ((holder.in_action and holder.team != c.team) or i + 1 == last):
        _finish_move(b, f, complete=False)
        return None
    for cid in ids:
        b.combatants[cid].position = nxt
    harm.release_grapples_by(b, c)
    f["i"] = i + 1
    depth = b.grid.drop_depth(nxt)
    if depth:
        _finish_move(b, f, complete=i + 1 == last)
        for cid in ids:
            harm.fall(b, b.combatants[cid], depth)
    return None


def _finish_move(b: Battle, f: dict[str, Any], complete: bool) -> None:
    """End the move. A mover cut short on a square an ally holds (allies may be passed,
    not ended on, H13) steps back along its path to the last square it may end on."""
    c = b.combatants[f["actor"]]
    walked = tuple((p[0], p[1]) for p in f["path"][: f["i"] + 1])
    _, ids = q.mover_of(b, c)
    if c.in_action and c.position == walked[-1]:
        held = q.occupied(b, exclude=ids)
        while len(walked) > 1 and walked[-1] in held:
            walked = walked[:-1]
        for cid in ids:
            b.combatants[cid].position = walked[-1]
    cost, parity = b.graph.path_cost(walked, f["parity"])
    c.diagonal_parity = parity
    c.moved_this_round = True
    b.emit(Moved, actor=c.id, path=walked, cost=cost, complete=complete)
    _pop(b, f)


_STEP = {"move": _step_move, "act": _step_act, "offer": _step_offer,
         "attack": combat.step_attack}
