"""A Hypothesis stateful test: a ``RuleBasedStateMachine`` drives a Battle through legal
actions (Hypothesis picks which), interleaved with clones and JSON round-trips, and
checks the run-time invariants of experiments.fuzzing.invariants after every step."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

import rules
from experiments.fuzzing.invariants import EventLimits, check_state, state_key


class BattleMachine(RuleBasedStateMachine):
    """One battle plus a copy (a clone or a JSON round-trip) that must follow it."""

    def __init__(self) -> None:
        super().__init__()
        self.battle: rules.Battle | None = None
        self.copy: rules.Battle | None = None
        self.limits: EventLimits | None = None

    @initialize(scenario=st.sampled_from(rules.shipped_scenarios()),
                seed=st.integers(0, 2**31 - 1))
    def start(self, scenario: str, seed: int) -> None:
        self.battle = rules.Battle.from_scenario(scenario, seed=seed)
        self.limits = EventLimits(self.battle)
        self.limits.feed(self.battle.events)

    @precondition(lambda self: self.battle is not None and not self.battle.is_over)
    @rule(pick=st.integers(0, 10**6))
    def act(self, pick: int) -> None:
        """Apply any legal action; a copy being followed must give the same events."""
        assert self.battle is not None and self.limits is not None
        acts = self.battle.legal_actions()
        action = acts[pick % len(acts)]
        events = self.battle.apply(action)
        self.limits.feed(events)
        if self.copy is not None:
            assert self.copy.apply(action) == events

    @precondition(lambda self: self.battle is not None and not self.battle.is_over)
    @rule(by_json=st.booleans())
    def take_copy(self, by_json: bool) -> None:
        """Start following a clone or a JSON round-trip of the battle as it is now."""
        assert self.battle is not None
        if by_json:
            text = self.battle.to_json()
            self.copy = rules.Battle.from_json(text)
            assert self.copy.to_json() == text
        else:
            self.copy = self.battle.clone()

    @precondition(lambda self: self.battle is not None and self.battle.is_over)
    @rule()
    def finished(self) -> None:
        """Once over, nothing is legal and applying raises without changing the state."""
        assert self.battle is not None
        assert self.battle.legal_actions() == []
        before = state_key(self.battle)
        with pytest.raises(rules.IllegalActionError, match="the battle is over"):
            self.battle.apply(rules.Action(rules.ActionKind.END_TURN))
        assert state_key(self.battle) == before

    @invariant()
    def invariants_hold(self) -> None:
        if self.battle is None:
            return
        check_state(self.battle)
        if self.copy is not None:
            assert state_key(self.copy) == state_key(self.battle)


BattleMachine.TestCase.settings = settings(
    max_examples=20, stateful_step_count=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
test_battle_machine = BattleMachine.TestCase
