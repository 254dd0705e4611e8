"""House rules corrected in this round, in scripted battles: the dodger's choice of
disadvantage (H10, with riders, H22), missile range counted as a walk (H16), manoeuvres
that can be parried or dodged (H19), and the once-per-turn limit on voluntary FREE
actions only (H25).

Every test fixes initiative and every die it needs and checks decisions, HP, positions
and events exactly.
"""

from __future__ import annotations

from typing import Any

import pytest
from scripted import (
    D,
    K,
    act,
    archer,
    decline_all,
    end_turn,
    make,
    of,
    one,
    swordsman,
    used_up,
)

import rules
from rules import Action
from rules import events as ev


def _dodges(b: rules.Battle) -> list[Action]:
    return [a for a in b.legal_actions() if a.kind is K.DODGE]


def _duel(b_first: bool = False, **bkw: Any) -> rules.Battle:
    """a (longsword 50) at (2, 2) against b (dodge 40, nothing to parry with) at (3, 2)."""
    kw: dict[str, Any] = {"hp": 20, "equipment": []}
    kw.update(bkw)
    return make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2), **kw)],
                init=(1, 12) if b_first else (12, 1))


# ================================================================== H10 dodge
def test_H10_the_dodger_chooses_its_disadvantage_among_those_open() -> None:
    b = _duel()
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert b.decision == rules.Decision(D.DODGE, "b", "a")
    assert _dodges(b) == [Action(K.DODGE, square=sq) for sq in  # not closer to a
                          ((2, 1), (3, 1), (4, 1), (4, 2), (2, 3), (3, 3), (4, 3))] + [
        Action(K.DODGE)]  # or falling prone
    b.dice.force(30, 5)  # dodge 30 vs 40: success; longsword 5 + 1 = 6, all dodged
    events = b.apply(Action(K.DODGE))  # falling prone, though a Shift was open
    assert one(events, ev.DodgeRolled).disadvantage == "prone"
    c = b.combatants["b"]
    assert (c.position, c.prone, c.shifted_this_round, c.hp) == ((3, 2), True, False, 20)
    used_up(b)


def test_H10_with_neither_disadvantage_open_there_is_no_dodge() -> None:
    b = _duel(b_first=True)
    act(b, K.FALL_PRONE)  # prone: it can neither shift (H15) nor fall
    end_turn(b)
    b.dice.force(30, 5)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert b.decision == rules.Decision(D.TURN, "a")  # no DODGE decision: straight to damage
    assert not of(events, ev.DodgeRolled)
    assert one(events, ev.DamageDealt).damage == 6
    used_up(b)


def test_H10_S10_fight_defensively_lets_a_prone_fighter_dodge() -> None:
    b = _duel(b_first=True)
    act(b, K.FALL_PRONE)
    act(b, K.FIGHT_DEFENSIVELY)
    end_turn(b)
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert b.decision == rules.Decision(D.DODGE, "b", "a")
    assert _dodges(b) == [Action(K.DODGE)]
    b.dice.force(30, 5)
    events = b.apply(Action(K.DODGE))
    assert one(events, ev.DodgeRolled).disadvantage == "none"
    assert one(events, ev.DamageDealt).damage == 0
    assert b.combatants["b"].position == (3, 2)
    used_up(b)


def _rider(map_text: str | None = None) -> rules.Battle:
    units = [swordsman("a", "party", (2, 1)),
             swordsman("r", "monsters", (1, 1), riding="h", hp=20, equipment=[]),
             {"id": "h", "team": "monsters", "creature": "horse", "at": [1, 1]}]
    if map_text is None:
        return make(units, init=(12, 1, 2))
    return make(units, map_text, init=(12, 1, 2))


def test_H10_H22_a_rider_dodges_by_falling_from_the_saddle() -> None:
    b = _rider()
    b.dice.force(30)
    act(b, K.MELEE_ATTACK, target="r", item="a.longsword")
    assert b.decision == rules.Decision(D.DODGE, "r", "a")
    assert _dodges(b) == [Action(K.DODGE)]  # a rider does not shift; it may fall
    b.dice.force(30, 5)
    events = b.apply(Action(K.DODGE))
    assert one(events, ev.DodgeRolled).disadvantage == "saddle"
    r, h = b.combatants["r"], b.combatants["h"]
    assert (r.riding, h.ridden_by, r.prone) == (None, None, True)
    assert r.position == (1, 2) and h.position == (1, 1)  # a free neighbouring square
    assert one(events, ev.DamageDealt).damage == 0
    used_up(b)


def test_H10_H22_a_boxed_in_rider_cannot_dodge() -> None:
    b = _rider("####\n#..#\n####\n")  # the rider's only neighbour is its attacker
    b.dice.force(30, 5)
    act(b, K.MELEE_ATTACK, target="r", item="a.longsword")
    assert b.decision == rules.Decision(D.TURN, "a")
    assert b.combatants["r"].riding == "h" and b.combatants["r"].hp == 14
    used_up(b)


# ================================================================== H16 missiles
OPEN = "\n".join(["#" * 22] + ["#" + "." * 20 + "#"] * 20 + ["#" * 22]) + "\n"


def test_H16_range_counts_diagonals_as_a_walk() -> None:
    # sling range 12 (24 at -20); straight diagonals of 8, 9, 15 and 17 squares are
    # 12, 13, 22 and 25 squares
    b = make([archer("s", "party", (1, 1), weapon="sling", ammo="sling_stone"),
              swordsman("d8", "monsters", (9, 9)), swordsman("d9", "monsters", (10, 10)),
              swordsman("d15", "monsters", (16, 16)), swordsman("d17", "monsters", (18, 18))],
             OPEN, init=(12, 4, 3, 2, 1))
    act(b, K.NOCK_ARROW, item="s.sling")
    targets = {a.target for a in b.legal_actions() if a.kind is K.MISSILE_ATTACK}
    assert targets == {"d8", "d9", "d15"}
    chances = {}
    for target in ("d8", "d9", "d15"):
        probe = b.clone()
        probe.dice.force(95)
        chances[target] = one(act(probe, K.MISSILE_ATTACK, target=target, item="s.sling"),
                              ev.AttackRolled).chance
    assert chances == {"d8": 50, "d9": 30, "d15": 30}


# ================================================================== H19 manoeuvres
def _wrestlers() -> rules.Battle:
    return make([swordsman("a", "party", (2, 2), equipment=[],
                           characteristics={"str": 16, "siz": 14, "con": 10, "dex": 10},
                           skills={"brawl": 50, "grapple": 50, "sword": 50}),
                 swordsman("b", "monsters", (3, 2), hp=20)], init=(12, 1))


def test_H19_a_parried_trip_is_defeated_before_the_resistance_roll() -> None:
    b = _wrestlers()
    b.dice.force(30)
    act(b, K.TRIP, target="b")
    b.apply(Action(K.DECLINE))  # S6: the trip provokes; b lets it go
    assert b.decision == rules.Decision(D.PARRY, "b", "a")
    b.dice.force(30)  # sword 50: the parry succeeds
    events = b.apply(Action(K.PARRY, item="b.longsword"))
    assert b.decision == rules.Decision(D.TURN, "a")  # no dodge needed, no resistance
    defeated = one(events, ev.ManoeuvreDefeated)
    assert (defeated.manoeuvre, defeated.defence) == ("trip", "parry")
    assert not of(events, ev.Resisted) and not b.combatants["b"].prone
    used_up(b)


def test_H19_a_dodged_grapple_is_defeated_before_the_resistance_roll() -> None:
    b = _wrestlers()
    b.dice.force(30)
    act(b, K.GRAPPLE, target="b")
    b.apply(Action(K.DECLINE))  # S6: the grapple provokes; b lets it go
    b.apply(Action(K.DECLINE))  # no parry
    assert b.decision == rules.Decision(D.DODGE, "b", "a")
    b.dice.force(30)
    events = b.apply(Action(K.DODGE))
    assert one(events, ev.ManoeuvreDefeated).defence == "dodge"
    assert not of(events, ev.Resisted) and b.combatants["b"].grappled_by is None
    used_up(b)


@pytest.mark.parametrize(("dodge_square", "resisted"), [((3, 1), True), ((4, 2), False)])
def test_H19_a_failed_defence_leaves_the_resistance_roll(dodge_square: tuple[int, int],
                                                         resisted: bool) -> None:
    # a failed dodge still pays its Shift; a target carried out of reach escapes the hold
    b = _wrestlers()
    b.dice.force(30)
    act(b, K.GRAPPLE, target="b")
    b.apply(Action(K.DECLINE))  # S6: the grapple provokes; b lets it go
    b.dice.force(90)  # the parry fails
    b.apply(Action(K.PARRY, item="b.longsword"))
    b.dice.force(90, *((50,) if resisted else ()))  # the dodge fails; STR 16 vs 10: 80%
    events = b.apply(Action(K.DODGE, square=dodge_square))
    assert bool(of(events, ev.Resisted)) is resisted
    assert (b.combatants["b"].grappled_by == "a") is resisted
    if not resisted:
        assert one(events, ev.ManoeuvreDefeated).defence == "distance"
    used_up(b)


# ================================================================== H25 once per turn
def test_H25_the_once_per_turn_limit_covers_voluntary_free_actions_only() -> None:
    kit = [{"item": "longsword", "state": "ready"}, {"item": "buckler", "state": "ready"}]
    b = make([swordsman("a", "party", (2, 2), hp=20, equipment=kit),
              swordsman("g", "monsters", (3, 2)), swordsman("h", "monsters", (1, 2))],
             init=(12, 2, 1))
    act(b, K.SPEAK)
    act(b, K.SHEATHE_WEAPON, item="a.buckler")  # provokes g, then h
    b.dice.force(30, 90)  # g hits; the parry fails
    act(b, K.FREE_ATTACK, target="a", item="g.longsword")
    b.apply(Action(K.PARRY, item="a.longsword"))
    b.dice.force(90, 1)  # the dodge fails; 1 + 1 = 2 damage
    b.apply(Action(K.DODGE, square=(2, 1)))
    b.dice.force(30)  # h hits: the parry of the round is spent, a second dodge is not
    act(b, K.FREE_ATTACK, target="a", item="h.longsword")
    assert b.decision == rules.Decision(D.DODGE, "a", "h")
    b.dice.force(90, 1)
    b.apply(Action(K.DODGE))
    decline_all(b)
    assert b.decision == rules.Decision(D.TURN, "a")
    a = b.combatants["a"]
    assert a.free_used == ["speak"] and a.hp == 16  # the reactions are not counted
    kinds = {x.kind for x in b.legal_actions()}
    assert K.SPEAK not in kinds and K.DROP_ITEM in kinds
    used_up(b)
