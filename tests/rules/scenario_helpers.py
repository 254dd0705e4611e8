"""Helpers of the shipped-scenario tests (test_scenarios.py, test_scenarios_themed.py):
three ways of playing (uniform random over the legal actions, uniform over action
*kinds* so rare kinds come up often, a scripted "charge" that closes in and attacks) and
small ways of driving a battle through the public API."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import rules
from rules import ActionKind as K
from rules import DecisionKind as DK
from rules.grid import chebyshev

Policy = Callable[[rules.Battle, np.random.Generator], rules.Action]


def uniform(b: rules.Battle, rng: np.random.Generator) -> rules.Action:
    acts = b.legal_actions()
    return acts[rng.integers(len(acts))]


def kind_uniform(b: rules.Battle, rng: np.random.Generator) -> rules.Action:
    """Random legal play, uniform over the action kinds on offer, then over the actions."""
    acts = b.legal_actions()
    kinds = sorted({a.kind for a in acts}, key=lambda k: k.value)
    kind = kinds[rng.integers(len(kinds))]
    pool = [a for a in acts if a.kind is kind]
    return pool[rng.integers(len(pool))]


def charge(b: rules.Battle, rng: np.random.Generator, light: bool = False) -> rules.Action:
    """Scripted: (light a torch,) attack if possible, nock a bow, else MOVE closer to the
    nearest enemy, else end the turn. Reactions are random."""
    acts = b.legal_actions()
    d = b.decision
    assert d is not None
    if d.kind is not DK.TURN:
        return acts[rng.integers(len(acts))]
    c = b.combatants[d.actor]
    wanted = [(K.LIGHT_TORCH,)] if light else []
    wanted += [(K.MELEE_ATTACK, K.MISSILE_ATTACK), (K.NOCK_ARROW,)]
    for kinds in wanted:
        pool = [a for a in acts if a.kind in kinds]
        if pool:
            return pool[rng.integers(len(pool))]
    foes = [e.position for e in b.combatants.values() if e.in_action and e.team != c.team]
    moves = [a for a in acts if a.kind is K.MOVE]
    if foes and moves:

        def gap(sq: tuple[int, int]) -> int:
            return min(chebyshev(sq, f) for f in foes)

        best = min(moves, key=lambda a: gap(a.square))
        if gap(best.square) < gap(c.position):
            return best
    return rules.Action(K.END_TURN)


def play(
    b: rules.Battle,
    policy: Policy,
    rng: np.random.Generator,
    watch: Callable[[rules.Battle, rules.Action], Callable[[list], None] | None] | None = None,
    limit: int = 200_000,
) -> rules.Battle:
    """Play to the end. ``watch(b, action)`` runs before each apply and may return a
    callback that gets the events the action produced."""
    for _ in range(limit):
        if b.is_over:
            return b
        act = policy(b, rng)
        after = watch(b, act) if watch is not None else None
        events = b.apply(act)
        if after is not None:
            after(events)
    raise AssertionError(f"{b.scenario.name}: no end after {limit} decisions")


def to_turn_of(b: rules.Battle, actor: str) -> rules.Battle:
    """End turns (no reactions can arise) until ``actor`` has a TURN decision."""
    for _ in range(200):
        d = b.decision
        assert d is not None, "the battle ended"
        if d.kind is DK.TURN and d.actor == actor:
            return b
        assert d.kind is DK.TURN
        b.apply(rules.Action(K.END_TURN))
    raise AssertionError(f"{actor} never got a turn")


def apply_declining(b: rules.Battle, action: rules.Action) -> list:
    """Apply ``action`` and DECLINE every reaction it causes; all events produced."""
    events = b.apply(action)
    while b.decision is not None and b.decision.kind is not DK.TURN:
        events += b.apply(rules.Action(K.DECLINE))
    return events


def only(events: list, cls: type) -> list:
    return [e for e in events if isinstance(e, cls)]


def legal(b: rules.Battle, kind: K, **fields) -> rules.Action:
    """The legal action of ``kind`` with the given fields (exactly one)."""
    found = [a for a in b.legal_actions() if a.kind is kind
             and all(getattr(a, k) == v for k, v in fields.items())]
    assert len(found) == 1, f"{kind.name} {fields} not legal: {b.legal_actions()}"
    return found[0]
