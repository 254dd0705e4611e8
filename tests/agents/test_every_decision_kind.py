"""Every shipped agent answers every decision kind with a legal action (issue 22 part 2),
and an agent meeting a decision kind it has no rule for answers by the default rule
(``rules.actions.default_answer``) instead of crashing."""

from __future__ import annotations

import random
from enum import Enum

import pytest

import agents
import rules
from rules import Action, ActionKind, Decision, DecisionKind
from rules.actions import DECISION_SPECS, default_answer

K = ActionKind
#: The shipped agents, mcts with a tiny budget (``learned:duel`` plays duel states only).
AGENTS = ("random", "berserker", "tactician", "skirmisher", "defender", "pack",
          "mcts(iterations=2,rollout_depth=2)", "per_unit(default=berserker)")
PER_KIND = 3  # states kept per (scenario, decision kind)


def _states(scenario: str, seed: int, limit: int = 3000) -> dict[DecisionKind, list]:
    """Clones of a seeded random battle of ``scenario`` at its first decisions of each kind."""
    found: dict[DecisionKind, list] = {kind: [] for kind in DecisionKind}
    battle = rules.Battle.from_scenario(scenario, seed=seed)
    pick = random.Random(seed)
    for _ in range(limit):
        if battle.is_over:
            battle = rules.Battle.from_scenario(scenario, seed=seed + 1000 + _)
            continue
        kept = found[battle.decision.kind]
        if len(kept) < PER_KIND:
            kept.append(battle.clone())
        if all(len(states) >= PER_KIND for states in found.values()):
            break
        actions = battle.legal_actions()
        battle.apply(actions[pick.randrange(len(actions))])
    return found


@pytest.fixture(scope="module")
def states() -> dict[str, dict[DecisionKind, list]]:
    return {scenario: _states(scenario, seed=3) for scenario in ("duel", "skirmish", "cavalry")}


def test_random_play_meets_every_decision_kind(states) -> None:
    for kind in DecisionKind:
        assert any(found[kind] for found in states.values()), kind
    assert set(DECISION_SPECS) == set(DecisionKind)


@pytest.mark.parametrize("name", AGENTS)
def test_every_agent_answers_every_decision_kind_legally(name: str, states) -> None:
    answered: set[DecisionKind] = set()
    for found in states.values():
        for kind, battles in found.items():
            for battle in battles:
                agent = agents.make(name, seed=1)
                action = agent.act(battle.clone())
                assert action in battle.legal_actions(), (name, kind, action)
                answered.add(kind)
    assert answered == set(DecisionKind)


def test_the_learned_duel_agent_answers_every_decision_kind_legally(states) -> None:
    pytest.importorskip("sb3_contrib")
    agent = agents.make("learned:duel", seed=1)
    for kind, battles in states["duel"].items():
        assert battles, kind
        for battle in battles:
            assert agent.act(battle.clone()) in battle.legal_actions(), kind


# ------------------------------------------------------------------ a new decision kind
class _NewKind(Enum):
    """A throwaway decision kind (say a riposte offered at a Free Attack's place)."""

    RIPOSTE = "riposte"


def test_default_answer_declines_when_it_can_else_takes_the_first_action() -> None:
    decline = Action(K.DECLINE)
    assert default_answer([Action(K.PARRY, item="a"), decline]) is decline
    assert default_answer([Action(K.END_TURN), Action(K.SPEAK)]) == Action(K.END_TURN)


@pytest.mark.parametrize("name", AGENTS)
def test_an_agent_meeting_a_decision_kind_it_does_not_know_answers_by_the_default(
        name: str, states, monkeypatch: pytest.MonkeyPatch) -> None:
    """The battle waits at a Free Attack offer, relabelled with a kind no agent knows and
    that has a row in the table (as a new kind would): the agents answer legally."""
    monkeypatch.setitem(DECISION_SPECS, _NewKind.RIPOSTE,
                        rules.actions.DecisionSpec((K.FREE_ATTACK, K.DECLINE), None, ("S5",)))
    offers = [battle for found in states.values() for battle in found[DecisionKind.FREE_ATTACK]]
    assert offers
    for offer in offers:
        # a decision kind the native engine has never heard of: relabelled in Python
        battle = rules.Battle.from_json(offer.to_json(), engine="python")
        real = battle.decision
        battle._decision = Decision(_NewKind.RIPOSTE, real.actor, real.source)  # type: ignore[arg-type]
        legal = battle.legal_actions()
        action = agents.make(name, seed=1).act(battle)
        assert action in legal
        if name in ("berserker", "tactician", "skirmisher", "defender", "pack"):
            assert action == Action(K.DECLINE)
