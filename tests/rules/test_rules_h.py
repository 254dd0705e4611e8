"""House defaults H1-H25 (RULES.md), tested as engine behaviour in scripted battles.

Every test builds a small inline scenario, fixes initiative and every die it needs with
``battle.dice.force`` and checks the exact outcome: decisions, HP, positions and events.
Data values and the H2/H8 tables are covered in test_content.py and test_dice.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest

import rules
import rules.battle as battle_module
from rules import Action, ActionKind, DecisionKind
from rules import events as ev
from rules.roller import Roller

K = ActionKind
D = DecisionKind

ROOM = """
#########
#.......#
#.......#
#.......#
#########
"""

BIG = """
###########
#.........#
#.........#
#.........#
#.........#
#.........#
#.........#
###########
"""


# ------------------------------------------------------------------ helpers
def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def unit(uid: str, team: str, creature: str, at: tuple[int, int], **kw: Any) -> dict[str, Any]:
    return {"id": uid, "team": team, "creature": creature, "at": list(at), **kw}


def scenario(units: Iterable[dict[str, Any]], map_text: str = ROOM, max_rounds: int = 10) -> str:
    out = ['name = "h-test"', f"max_rounds = {max_rounds}", f'map = """\n{map_text.strip()}\n"""']
    for u in units:
        out.append("[[units]]")
        out += [f"{k} = {_toml(v)}" for k, v in u.items()]
    return "\n".join(out) + "\n"


def make(units: Iterable[dict[str, Any]], map_text: str = ROOM, *, init: Iterable[int] = (),
         max_rounds: int = 10, seed: int = 1) -> rules.Battle:
    """A battle whose initiative d12s (one per unit, in unit order) are ``init``."""
    faces = list(init)

    class _Preloaded(Roller):
        def __init__(self, s: int | None = None) -> None:
            super().__init__(s)
            self.forced = list(faces)

    original = battle_module.Roller
    battle_module.Roller = _Preloaded  # type: ignore[misc]
    try:
        b = rules.Battle.from_toml(scenario(units, map_text, max_rounds), seed=seed)
    finally:
        battle_module.Roller = original  # type: ignore[misc]
    assert b.dice.forced == [], "every initiative face must be used"
    return b


def act(b: rules.Battle, kind: ActionKind, **kw: Any) -> list[ev.Event]:
    """Apply an action that must be legal now."""
    action = Action(kind, **kw)
    assert action in b.legal_actions(), f"{action} not legal for {b.decision}"
    return b.apply(action)


def decline(b: rules.Battle) -> list[ev.Event]:
    return b.apply(Action(K.DECLINE))


def decline_all(b: rules.Battle) -> list[ev.Event]:
    out: list[ev.Event] = []
    while b.decision is not None and b.decision.kind is not D.TURN:
        out += decline(b)
    return out


def end_turn(b: rules.Battle) -> list[ev.Event]:
    return b.apply(Action(K.END_TURN))


def turn_of(b: rules.Battle, actor: str) -> None:
    """End turns until it is ``actor``'s turn (declining any reactions on the way)."""
    for _ in range(100):
        decline_all(b)
        d = b.decision
        assert d is not None, "battle over"
        if d.kind is D.TURN and d.actor == actor:
            return
        end_turn(b)
    raise AssertionError(f"{actor} never got a turn")


def next_turn(b: rules.Battle, actor: str) -> None:
    """End the current turn, then play on until ``actor``'s next turn."""
    decline_all(b)
    end_turn(b)
    turn_of(b, actor)


def of(events: Iterable[ev.Event], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def one(events: Iterable[ev.Event], cls: type) -> Any:
    found = of(events, cls)
    assert len(found) == 1, f"expected one {cls.__name__}, got {found}"
    return found[0]


def kinds(b: rules.Battle) -> set[ActionKind]:
    return {a.kind for a in b.legal_actions()}


def squares(b: rules.Battle, kind: ActionKind) -> set[tuple[int, int]]:
    return {a.square for a in b.legal_actions() if a.kind is kind and a.square is not None}


def used_up(b: rules.Battle) -> None:
    assert b.dice.forced == [], f"unused forced dice: {b.dice.forced}"


# A plain unarmoured human swordsman: STR 10 + SIZ 10 = 20 -> no damage bonus (H6).
def swordsman(uid: str, team: str, at: tuple[int, int], **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "characteristics": {"str": 10, "con": 10, "siz": 10, "dex": 10},
        "armour": "none",
        "equipment": [{"item": "longsword", "state": "ready"}],
        "skills": {"sword": 50, "dodge": 40, "shield": 50},
    }
    base.update(kw)
    return unit(uid, team, "human_warrior", at, **base)


def hit(b: rules.Battle, kind: ActionKind, target: str, item: str | None, *dice: int,
        **kw: Any) -> list[ev.Event]:
    """The turn owner attacks; the target declines every defence; ``dice`` are forced."""
    b.dice.force(*dice)
    out = act(b, kind, target=target, item=item, **kw)
    out += decline_all(b)
    return out


# ================================================================== H5 hit points
def test_H5_hit_points_are_half_siz_rounded_up() -> None:
    b = make([swordsman("a", "party", (1, 1), characteristics={"siz": 13, "str": 10}),
              swordsman("b", "monsters", (5, 1), characteristics={"siz": 10, "str": 10})],
             init=(12, 1))
    assert (b.combatants["a"].max_hp, b.combatants["a"].hp) == (7, 7)
    assert (b.combatants["b"].max_hp, b.combatants["b"].hp) == (5, 5)


def _three(hp: int = 1, con: int = 5) -> rules.Battle:
    """a (party) next to b (monsters, low HP); c (monsters) far away keeps the battle going."""
    return make([
        swordsman("a", "party", (2, 2)),
        swordsman("b", "monsters", (3, 2), hp=hp,
                  characteristics={"str": 10, "siz": 10, "con": con, "dex": 10}),
        swordsman("c", "monsters", (7, 3)),
    ], init=(12, 6, 1))


def test_H5_zero_hp_is_out_of_action_prone_and_skipped() -> None:
    b = _three(hp=3, con=10)
    # sword 50: 30 succeeds; longsword 1d8+1 with a 2 -> 3 damage -> 0 HP.
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 2)
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.damage, dmg.hp) == (3, 3, 0)
    tgt = b.combatants["b"]
    assert tgt.status == "out" and not tgt.in_action and tgt.prone and not tgt.dead
    assert any(isinstance(e, ev.StatusChanged) and e.actor == "b" and e.status == "out of action"
               for e in events)
    # no actions: nobody may target it with a melee attack, and its turn is skipped
    assert not any(a.target == "b" for a in b.legal_actions() if a.kind is K.MELEE_ATTACK)
    events = end_turn(b)
    assert b.decision == rules.Decision(D.TURN, "c")
    assert not any(isinstance(e, ev.TurnStarted) and e.actor == "b" for e in events)
    used_up(b)


def test_H5_out_of_action_takes_no_reactions() -> None:
    b = _three(hp=1, con=10)
    hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 1)
    assert b.combatants["b"].status == "out"
    # a next turn: walking away from b provokes nothing (b threatens nobody)
    next_turn(b, "a")
    events = act(b, K.MOVE, square=(1, 1))
    assert not of(events, ev.Provoked)
    assert b.combatants["a"].position == (1, 1)
    assert b.decision is not None and b.decision.kind is D.TURN


def test_H5_exactly_minus_con_is_out_below_is_dead() -> None:
    b = _three(hp=1, con=5)
    hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 5)  # 6 damage -> -5 HP = -CON
    tgt = b.combatants["b"]
    assert (tgt.hp, tgt.status) == (-5, "out")
    b2 = _three(hp=1, con=5)
    events = hit(b2, K.MELEE_ATTACK, "b", "a.longsword", 30, 6)  # 7 damage -> -6 HP
    tgt = b2.combatants["b"]
    assert (tgt.hp, tgt.status, tgt.dead) == (-6, "dead", True)
    assert [e.status for e in of(events, ev.StatusChanged) if e.actor == "b"][-1] == "dead"


def test_H5_coup_de_grace_kills_out_of_action_target() -> None:
    b = _three(hp=1, con=10)
    hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 1)  # 2 damage -> -1 HP, out
    assert b.combatants["b"].status == "out"
    # a FULL action: not possible after this turn's attack
    assert K.COUP_DE_GRACE not in kinds(b)
    next_turn(b, "a")
    assert b.round == 2
    assert Action(K.COUP_DE_GRACE, target="b") in b.legal_actions()
    events = act(b, K.COUP_DE_GRACE, target="b")
    assert b.combatants["b"].dead
    assert any(isinstance(e, ev.StatusChanged) and e.actor == "b" and e.status == "dead"
               for e in events)
    assert b.combatants["b"].hp == -1  # killed outright, not by damage
    # only out-of-action targets qualify: c is in action and never listed
    next_turn(b, "a")
    assert not any(a.kind is K.COUP_DE_GRACE for a in b.legal_actions())


# ================================================================== H6 damage
def test_H6_damage_is_weapon_dice_plus_damage_bonus_minus_armour() -> None:
    b = make([
        swordsman("a", "party", (2, 2), characteristics={"str": 16, "siz": 14, "con": 10}),
        swordsman("b", "monsters", (3, 2), hp=20, armour="leather", armour_training="light"),
    ], init=(12, 1))
    # STR+SIZ 30 -> +1d4. longsword 1d8+1: d8 5 -> 6, d4 3 -> 9; leather AP 2 -> 7.
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 5, 3)
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.armour, dmg.damage, dmg.hp) == (9, (5, 3), 2, 7, 13)
    assert b.combatants["b"].hp == 13
    used_up(b)


def test_H6_negative_damage_bonus_never_below_zero() -> None:
    b = make([
        unit("a", "party", "human_warrior", (2, 2), armour="none",
             characteristics={"str": 5, "siz": 6, "con": 10, "dex": 10},
             equipment=[{"item": "dagger", "state": "ready"}], skills={"dagger": 50}),
        swordsman("b", "monsters", (3, 2)),
    ], init=(12, 1))
    # STR+SIZ 11 -> -1d6. dagger 1d4+2: d4 1 -> 3, -d6 6 -> -3 -> 0.
    events = hit(b, K.MELEE_ATTACK, "b", "a.dagger", 30, 1, 6)
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.damage, dmg.hp) == (0, 0, 5)
    assert b.combatants["b"].hp == 5
    used_up(b)


def test_H6_armour_can_absorb_everything_but_not_heal() -> None:
    b = make([
        swordsman("a", "party", (2, 2)),
        swordsman("b", "monsters", (3, 2), armour="plate_mail", armour_training="heavy"),
    ], init=(12, 1))
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 2)  # 3 vs AP 7
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.armour, dmg.damage, dmg.hp) == (3, 3, 0, 5)


def _archer(uid: str, team: str, at: tuple[int, int], weapon: str = "short_bow",
            ammo: str = "arrow", **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "characteristics": {"str": 16, "siz": 14, "con": 10, "dex": 10},
        "armour": "none",
        "equipment": [{"item": weapon, "state": "ready"}, {"item": ammo, "count": 5}],
        "skills": {"bow": 50, "crossbow": 50, "sling": 50, "throw": 50, "dodge": 30},
    }
    base.update(kw)
    return unit(uid, team, "human_archer", at, **base)


def test_H6_bows_get_no_damage_bonus() -> None:
    b = make([_archer("a", "party", (1, 2)),
              swordsman("b", "monsters", (5, 2), hp=20)], init=(12, 1))
    act(b, K.NOCK_ARROW, item="a.short_bow")
    # short bow 1d6+1: 4 -> 5 and no damage-bonus die although STR+SIZ is 30
    events = hit(b, K.MISSILE_ATTACK, "b", "a.short_bow", 30, 4)
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.damage) == (5, (4,), 5)
    used_up(b)


def test_H6_thrown_weapons_get_the_damage_bonus() -> None:
    b = make([
        _archer("a", "party", (1, 2), equipment=[{"item": "javelin", "state": "ready"}]),
        swordsman("b", "monsters", (5, 2), hp=20)], init=(12, 1))
    events = hit(b, K.MISSILE_ATTACK, "b", "a.javelin", 30, 4, 2)  # 1d8 4 + 1d4 2
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.damage) == (6, (4, 2), 6)
    # the javelin lands in the target's square
    assert [(g.uid, g.square) for g in b.ground] == [("a.javelin", (5, 2))]
    used_up(b)
