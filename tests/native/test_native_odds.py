"""The native odds (rules/native/odds_*.cpp through tests/native/glue/odds.py, in double
precision) against :mod:`rules.odds` (exact Fractions): every value within 1e-12.

Where: at every reaction and every fifth turn of seeded random play on every shipped
scenario (an attack three times in four when one is legal, else half the time the move
nearest an enemy, so that fights come early), every question the tactician
(agents/tactician.py, agents/tactics.py) asks of :mod:`rules.odds` there, and more:

- at a TURN: ``attack_odds`` of every legal attack for every defence choice (and each
  parry item the target may use), ``attack_odds`` with a named attacker (the tactician's
  ``hypothetical_melee`` and ``incoming``: every ready melee weapon of either side on
  every enemy), ``route_risks`` of every MOVE and FULL_MOVE square, ``action_risk``;
- at a FREE_ATTACK: ``attack_odds`` of each Free Attack offered;
- at a PARRY or DODGE: ``pending_attack`` and ``pending_hit_odds`` for every defence and
  each parry item;
- everywhere: ``parry_options`` (melee and missile) and ``dodge_chance`` of everyone,
  and ``free_attack_risk`` of the decider against all its enemies in order.

An error (ValueError) must come from both. Then ``dice_distribution`` on Hypothesis dice.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules
import rules.engine
from rules import odds
from rules.actions import Action, ActionKind, DecisionKind
from rules.dice import Dice
from rules.grid import chebyshev
from rules.scenario import shipped_scenarios

_MISSING = rules.engine.missing_native("odds_attack", "the native odds")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)

from tests.native.glue import odds as native_odds  # noqa: E402  (needs the module checked above)

K = ActionKind
TOLERANCE = 1e-12
#: Random-play seeds and the decisions played per shipped scenario (every reaction
#: checked, and every STRIDE-th turn).
SEEDS = (3, 4, 5)
MAX_DECISIONS = 200
STRIDE = 5


class Tally:
    """How many values were compared and the largest difference seen."""

    def __init__(self) -> None:
        self.values = 0
        self.largest = 0.0
        self.where = ""

    def close(self, native: float, exact: Fraction | int, where: str) -> None:
        difference = abs(native - float(exact))
        self.values += 1
        if difference > self.largest:
            self.largest, self.where = difference, where
        assert difference <= TOLERANCE, f"{where}: native {native!r} vs exact {exact}"

    def distribution(self, native: dict[int, float], exact: dict[int, Fraction], where: str
                     ) -> None:
        for value in sorted(set(native) | set(exact)):
            self.close(native.get(value, 0.0), exact.get(value, Fraction(0)), f"{where}[{value}]")


def compare_attack(tally: Tally, native: dict[str, Any], exact: odds.AttackOdds,
                   where: str) -> None:
    assert native["chance"] == exact.chance, where
    assert native["parry_chance"] == exact.parry_chance, where
    assert native["dodge_chance"] == exact.dodge_chance, where
    for level, p in exact.levels.items():
        tally.close(native["levels"][level.name], p, f"{where} level {level.name}")
    tally.distribution(native["damage"], exact.damage, f"{where} damage")
    for field in ("drops", "kills", "bleeds", "knocked_down", "expected_damage", "hit", "wounds"):
        tally.close(native[field], getattr(exact, field), f"{where} {field}")


def compare_risk(tally: Tally, native: dict[str, Any], exact: odds.Risk, where: str) -> None:
    assert native["provokers"] == exact.provokers, where
    tally.distribution(native["damage"], exact.damage, f"{where} damage")
    for field in ("wounds", "drops", "stops", "expected_damage"):
        tally.close(native[field], getattr(exact, field), f"{where} {field}")


def both(python: Any, native: Any) -> tuple[Any, Any] | None:
    """Both answers, or None when both raise ValueError (one raising alone fails)."""
    try:
        exact = python()
    except ValueError:
        with pytest.raises(ValueError):
            native()
        return None
    return exact, native()


def check_attack(tally: Tally, battle: rules.Battle, action: Action, where: str,
                 attacker: str | None = None) -> None:
    target = battle.combatants[action.target or ""]
    for defence in odds.DEFENCES:
        found = both(
            lambda d=defence: odds.attack_odds(battle, action, d, attacker=attacker),
            lambda d=defence: native_odds.attack_odds(battle, action, d, attacker=attacker))
        if found is not None:
            compare_attack(tally, found[1], found[0], f"{where} {action} {defence}")
    missile = False
    if action.item is not None and attacker is None:
        inst = battle.combatants[battle.decision.actor].item(action.item)
        weapon = battle.content.weapons.get(inst.item) if inst is not None else None
        missile = weapon is not None and weapon.kind == "missile"
    for item in odds.parry_options(battle, target, missile):
        found = both(lambda i=item: odds.attack_odds(battle, action, "parry", i, attacker),
                     lambda i=item: native_odds.attack_odds(battle, action, "parry", i, attacker))
        if found is not None:
            compare_attack(tally, found[1], found[0], f"{where} {action} parry {item}")


def check_everyone(tally: Tally, battle: rules.Battle, where: str) -> None:
    for c in battle.combatants.values():
        for missile in (False, True):
            exact = odds.parry_options(battle, c, missile)
            assert native_odds.parry_options(battle, c.id, missile) == exact, where
        assert native_odds.dodge_chance(battle, c.id) == odds.dodge_chance(battle, c), where
        tally.values += 3


def check_turn(tally: Tally, battle: rules.Battle, legal: list[Action], where: str) -> None:
    me = battle.combatants[battle.decision.actor]
    for action in legal:
        if action.kind in odds.ATTACK_KINDS:
            check_attack(tally, battle, action, where)
    foes = [o for o in battle.combatants.values() if o.in_action and o.team != me.team]
    for foe in foes:  # tactics.hypothetical_melee and tactics.incoming
        for inst, _ in me.ready_melee():
            check_attack(tally, battle, Action(K.MELEE_ATTACK, target=foe.id, item=inst.uid),
                         where, attacker=me.id)
        for inst, _ in foe.ready_melee():
            check_attack(tally, battle, Action(K.MELEE_ATTACK, target=me.id, item=inst.uid),
                         where, attacker=foe.id)
    for full, kind in ((False, K.MOVE), (True, K.FULL_MOVE)):
        squares = [a.square for a in legal if a.kind is kind and a.square is not None]
        if not squares:
            continue
        for defence in ("none", "both"):
            exact = odds.route_risks(battle, me.id, squares, full=full, defence=defence)
            native = native_odds.route_risks(battle, me.id, squares, full=full, defence=defence)
            assert list(native) == list(exact), where
            for square, risk in exact.items():
                compare_risk(tally, native[square], risk, f"{where} route {square} {full}")
    for defence in odds.DEFENCES:
        compare_risk(tally, native_odds.action_risk(battle, me.id, defence),
                     odds.action_risk(battle, me.id, defence), f"{where} action risk {defence}")


def check_reaction(tally: Tally, battle: rules.Battle, legal: list[Action], where: str) -> None:
    d = battle.decision
    if d.kind is DecisionKind.FREE_ATTACK:
        for action in legal:
            if action.kind is K.FREE_ATTACK:
                check_attack(tally, battle, action, where)
        return
    hit = odds.pending_attack(battle)
    native_hit = native_odds.pending_attack(battle)
    if hit is None:
        assert native_hit is None, where
        return
    assert native_hit == {field: getattr(hit, field) for field in native_hit}, where
    items = [a.item for a in legal if a.kind is K.PARRY]
    asks = [(defence, None) for defence in odds.DEFENCES] + [("parry", i) for i in items]
    for defence, item in asks:
        found = both(lambda d=defence, i=item: odds.pending_hit_odds(battle, d, i),
                     lambda d=defence, i=item: native_odds.pending_hit_odds(battle, d, i))
        if found is not None:
            compare_attack(tally, found[1], found[0], f"{where} pending {defence} {item}")


def check_decision(tally: Tally, battle: rules.Battle, where: str) -> None:
    legal = battle.legal_actions()
    me = battle.combatants[battle.decision.actor]
    if battle.decision.kind is DecisionKind.TURN:
        check_turn(tally, battle, legal, where)
    else:
        check_reaction(tally, battle, legal, where)
    check_everyone(tally, battle, where)
    enemies = [o.id for o in map(battle.combatants.__getitem__, battle.initiative_order)
               if o.in_action and o.team != me.team]
    compare_risk(tally, native_odds.free_attack_risk(battle, me.id, enemies, "both"),
                 odds.free_attack_risk(battle, me.id, enemies, "both"), f"{where} free risk")


def pick(chooser: random.Random, battle: rules.Battle, legal: list[Action]) -> Action:
    """A random legal action; an attack three times in four when there is one, else half
    the time the move that ends nearest an enemy (so that fights, and with them parries
    and dodges, come early)."""
    attacks = [a for a in legal if a.kind in odds.ATTACK_KINDS]
    if attacks and chooser.random() < 0.75:
        return chooser.choice(attacks)
    moves = [a for a in legal if a.kind in (K.MOVE, K.FULL_MOVE) and a.square is not None]
    if moves and battle.decision.kind is DecisionKind.TURN and chooser.random() < 0.5:
        me = battle.combatants[battle.decision.actor]
        foes = [o.position for o in battle.combatants.values()
                if o.in_action and o.team != me.team]
        if foes:
            return min(moves, key=lambda a: min(chebyshev(a.square, f) for f in foes))
    return chooser.choice(legal)


@pytest.fixture(scope="module")
def tally() -> Tally:
    found = Tally()
    yield found
    print(f"\nnative odds: {found.values} values compared, largest difference "
          f"{found.largest:.3g} ({found.where})")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("scenario", shipped_scenarios())
def test_odds_agree_on_random_play(scenario: str, seed: int, tally: Tally) -> None:
    battle = rules.Battle.from_scenario(scenario, seed=seed, engine="native")
    chooser = random.Random(f"{scenario}-{seed}")
    before = tally.values
    for decision in range(MAX_DECISIONS):
        if battle.decision is None or battle.is_over:
            break
        if decision % STRIDE == 0 or battle.decision.kind is not DecisionKind.TURN:
            check_decision(tally, battle, f"{scenario} decision {decision}")
        battle.apply(pick(chooser, battle, battle.legal_actions()))
    assert tally.values > before


def test_native_odds_need_a_native_battle() -> None:
    battle = rules.Battle.from_scenario("duel", seed=1, engine="python")
    with pytest.raises(ValueError, match="native engine"):
        native_odds.action_risk(battle, battle.decision.actor)


def test_defence_names_are_checked() -> None:
    battle = rules.Battle.from_scenario("duel", seed=1, engine="native")
    with pytest.raises(ValueError, match="defence"):
        native_odds.action_risk(battle, battle.decision.actor, "block")


terms = st.lists(st.tuples(st.sampled_from((1, -1)), st.integers(1, 3),
                           st.sampled_from((1, 2, 3, 4, 6, 8, 10, 12, 20))), max_size=3)


@settings(max_examples=60, deadline=None)
@given(terms=terms, constant=st.integers(-4, 6))
def test_dice_distribution(terms: list[tuple[int, int, int]], constant: int) -> None:
    dice = Dice(tuple(terms), constant)
    exact = odds.dice_distribution(dice)
    native = native_odds.dice_distribution(dice)
    Tally().distribution(native, exact, str(dice))
