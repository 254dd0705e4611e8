"""The native scoring helpers of agents/tactics.py (rules/native/agents/agents_tactics.cpp,
through the ``tactics_*`` functions of ``rules._native``) against agents/tactics.py.

At the turns of seeded random play on every shipped scenario (an attack three times in
four when one is legal, else half the time the move nearest an enemy): ``best_attack``
over the legal MELEE, MISSILE and FULL attacks (the same choice, its value within
1e-12), ``hypothetical_melee`` on every enemy; ``enemies_of``, ``allies_of``,
``threatened_by``, ``incoming`` and ``my_turn_done`` where the decider stands and on
every Shift square, ``reaches`` from those squares; ``route_costs`` of every MOVE square
and ``provoke_cost``. At a Free Attack decision, ``best_attack`` over the Free Attacks
offered.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import rules
import rules.engine
from agents import tactics as t
from rules import odds
from rules.actions import Action, ActionKind, DecisionKind
from rules.grid import chebyshev
from rules.scenario import shipped_scenarios

_MISSING = rules.engine.missing_native("tactics_best_attack", "the native tactics")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)
native = rules.engine.native_module()

K = ActionKind
TOLERANCE = 1e-12
SEEDS = (3, 4)
MAX_DECISIONS = 160
STRIDE = 4


def args(battle: rules.Battle) -> tuple[Any, Any, Any]:
    driver = battle._driver
    return driver.to_native(battle), driver.loop, driver.rules


def close(native: float, python: float, where: str) -> None:
    assert abs(native - python) <= TOLERANCE, f"{where}: native {native!r} vs {python!r}"


def check_best(battle: rules.Battle, actions: list[Action], where: str,
               attacker: str | None = None) -> int:
    exact = t.best_attack(battle, actions, attacker)
    found = native.tactics_best_attack(
        *args(battle), [(a.kind.name, a.target, a.item) for a in actions], attacker)
    if exact is None:
        assert found is None, where
        return 1
    index, value, attack_odds = found
    assert actions[index] == exact.action, where
    close(value, exact.value, f"{where} best value")
    close(attack_odds["expected_damage"], float(exact.odds.expected_damage), where)
    return 3


def check_turn(battle: rules.Battle, legal: list[Action], where: str) -> int:
    me = battle.combatants[battle.decision.actor]
    compared = check_best(battle, [a for a in legal if a.kind in t.ATTACKS], where)
    foes = t.enemies_of(battle, me)
    for foe in foes:
        exact = t.hypothetical_melee(battle, me, foe)
        found = native.tactics_hypothetical_melee(*args(battle), me.id, foe.id)
        if exact is None:
            assert found is None, where
        else:
            assert found[0] == exact.action.item, where
            close(found[1], exact.value, f"{where} hypothetical {foe.id}")
        compared += 2
    squares = [None] + [a.square for a in legal if a.kind is K.SHIFT and a.square is not None]
    for square in squares:
        enemies, allies, threats, danger, done = native.tactics_threats(*args(battle), me.id,
                                                                        square)
        assert enemies == [e.id for e in foes], where
        assert allies == [o.id for o in t.allies_of(battle, me)], where
        here = square or me.position
        assert threats == [e.id for e in t.threatened_by(battle, me, here)], where
        close(danger, t.incoming(battle, me, square), f"{where} incoming {square}")
        assert done == t.my_turn_done(battle, me), where
        for foe in foes:
            assert native.tactics_reaches(*args(battle), me.id, here, foe.id) == t.reaches(
                battle, me, here, foe), where
        compared += 5 + len(foes)
    moves = [a.square for a in legal if a.kind is K.MOVE and a.square is not None]
    if moves:
        exact_costs = t.route_costs(battle, me, moves)
        found_costs = native.tactics_route_costs(*args(battle), me.id, moves, False)
        for square, (count, cost) in exact_costs.items():
            assert found_costs[square][0] == count, where
            close(found_costs[square][1], cost, f"{where} route cost {square}")
            compared += 2
    close(native.tactics_provoke_cost(*args(battle), me.id), t.provoke_cost(battle, me),
          f"{where} provoke cost")
    return compared + 1


def pick(chooser: random.Random, battle: rules.Battle, legal: list[Action]) -> Action:
    """A random legal action; an attack three times in four when there is one, else half
    the time the move that ends nearest an enemy (so that fights come early)."""
    attacks = [a for a in legal if a.kind in odds.ATTACK_KINDS]
    if attacks and chooser.random() < 0.75:
        return chooser.choice(attacks)
    moves = [a for a in legal if a.kind in (K.MOVE, K.FULL_MOVE) and a.square is not None]
    if moves and battle.decision.kind is DecisionKind.TURN and chooser.random() < 0.5:
        me = battle.combatants[battle.decision.actor]
        foes = [e.position for e in t.enemies_of(battle, me)]
        if foes:
            return min(moves, key=lambda a: min(chebyshev(a.square, f) for f in foes))
    return chooser.choice(legal)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("scenario", shipped_scenarios())
def test_tactics_agree(scenario: str, seed: int) -> None:
    battle = rules.Battle.from_scenario(scenario, seed=seed, engine="native")
    chooser = random.Random(f"tactics-{scenario}-{seed}")
    compared = 0
    for decision in range(MAX_DECISIONS):
        if battle.decision is None or battle.is_over:
            break
        legal = battle.legal_actions()
        where = f"{scenario} seed {seed} decision {decision}"
        if battle.decision.kind is DecisionKind.TURN and decision % STRIDE == 0:
            compared += check_turn(battle, legal, where)
        elif battle.decision.kind is DecisionKind.FREE_ATTACK:
            compared += check_best(battle, [a for a in legal if a.kind is K.FREE_ATTACK], where)
        battle.apply(pick(chooser, battle, legal))
    assert compared > 0
