"""The scripted tactics (issue 9): legal for every decision on every shipped scenario,
deterministic per seed, reasons logged, and the tactician's routes provoke no more Free
Attacks than the reach graph's minimum."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import agents
import rules
from agents import tactics
from experiments.replay import play
from rules import Action, ActionKind, Battle, DecisionKind, odds
from rules import events as ev

K = ActionKind
SCRIPTED = ("tactician", "skirmisher", "defender", "pack")


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_every_scripted_agent_is_legal_for_every_decision(scenario: str) -> None:
    """At every decision (reactions included) each scripted agent of the deciding side is
    asked; its answer must be legal and come with a reason. The battle goes on by one of
    the answers or, one time in three, by a random legal action (to reach odd states)."""
    rng = np.random.default_rng(zlib.crc32(scenario.encode()))
    b = Battle.from_scenario(scenario, seed=int(rng.integers(1000)))
    players = {name: agents.make(name, seed=1) for name in SCRIPTED}
    kinds_seen: set[DecisionKind] = set()
    for step in range(36):
        d = b.decision
        if d is None:
            break
        kinds_seen.add(d.kind)
        legal = b.legal_actions()
        answers = {}
        for name, agent in players.items():
            action = agent.act(b)
            assert action in legal, (name, action, d)
            assert isinstance(agent.reason, str) and agent.reason, (name, d)
            answers[name] = action
        if rng.random() < 1 / 3:
            chosen = legal[int(rng.integers(len(legal)))]
        else:
            chosen = answers[SCRIPTED[step % len(SCRIPTED)]]
        b.apply(chosen)
    assert DecisionKind.TURN in kinds_seen


@pytest.mark.parametrize("name", SCRIPTED)
def test_scripted_agents_answer_reactions_legally(name: str) -> None:
    """Whole duels on both sides against the berserker: every answer legal, and the
    agent met Free Attack, parry and dodge decisions."""
    seen: set[DecisionKind] = set()
    for seed in range(3):
        b = Battle.from_scenario("duel", seed=seed)
        agent = agents.make(name, seed=seed)
        other = agents.make("berserker", seed=seed)
        side = "party" if seed % 2 == 0 else "monsters"
        while b.decision is not None:
            d = b.decision
            player = agent if b.combatants[d.actor].team == side else other
            action = player.act(b)
            assert action in b.legal_actions(), (name, action, d)
            if player is agent:
                seen.add(d.kind)
            b.apply(action, reason=getattr(player, "reason", None))
    assert {DecisionKind.TURN, DecisionKind.PARRY, DecisionKind.DODGE} <= seen, seen


def test_seeded_scripted_agents_are_deterministic() -> None:
    for name in SCRIPTED:
        first, _ = play("skirmish", 4, {"party": name, "monsters": "berserker"},
                        agent_seeds={"party": 9, "monsters": 9})
        again, _ = play("skirmish", 4, {"party": name, "monsters": "berserker"},
                        agent_seeds={"party": 9, "monsters": 9})
        assert first.events == again.events, name


def test_reasons_are_logged_as_events() -> None:
    battle, replay = play("duel", 2, {"party": "tactician", "monsters": "pack"})
    reasons = [e for e in battle.events if isinstance(e, ev.Reasoned)]
    assert len(reasons) == len(replay.actions)
    assert any(r.reason.startswith(("focus", "approach")) for r in reasons)


def _in_reach_candidates(b: Battle, mover: rules.Combatant) -> list[Action]:
    foes = tactics.enemies_of(b, mover)
    return [a for a in b.legal_actions() if a.kind is K.MOVE and a.square is not None
            and any(tactics.reaches(b, mover, a.square, e) for e in foes)]


@pytest.mark.parametrize("scenario", ["skirmish", "horde"])
def test_tactician_routes_provoke_no_more_than_the_minimum(scenario: str) -> None:
    """Every approach MOVE the tactician makes provokes the fewest Free Attacks of any
    MOVE that ends in reach of an enemy (the reach graph's fewest-provoker routes), and
    the engine's Provoked events match that route."""
    checked = 0
    for seed in range(2):
        b = Battle.from_scenario(scenario, seed=seed)
        tactician = agents.make("tactician", seed=seed)
        other = agents.make("berserker", seed=seed)
        for _ in range(400):
            d = b.decision
            if d is None:
                break
            mover = b.combatants[d.actor]
            agent = tactician if mover.team == "party" else other
            action = agent.act(b)
            if agent is tactician and action.kind is K.MOVE and action.square is not None \
                    and (tactician.reason or "").startswith("approach"):
                fewest = min(len(odds.route_risk(b, mover.id, a.square).provokers)
                             for a in _in_reach_candidates(b, mover) if a.square)
                chosen = odds.route_risk(b, mover.id, action.square).provokers
                assert len(chosen) == fewest
                events = b.apply(action)
                provoked = [e.enemy for e in events if isinstance(e, ev.Provoked)]
                assert len(provoked) <= len(chosen)
                checked += 1
                continue
            b.apply(action)
    assert checked > 0


@pytest.mark.parametrize("seed", range(3))
def test_tactician_picks_up_the_melee_weapon_at_its_feet(seed: int) -> None:
    """Disarmed with its weapon on its own square (as after a fumble, H11), the tactician
    picks it up (H21) and holds it ready, instead of fighting on without it."""
    b = Battle.from_scenario("duel", seed=seed)
    d = b.decision
    assert d is not None and d.kind is DecisionKind.TURN
    me = b.combatants[d.actor]
    weapon = me.ready_melee()[0][0].uid
    b.apply(Action(K.DROP_ITEM, item=weapon))  # FREE (S16): the turn goes on
    assert not b.combatants[d.actor].ready_melee()
    tactician = agents.make("tactician", seed=seed)
    action = tactician.act(b)
    assert action == Action(K.PICK_UP, item=weapon)
    assert (tactician.reason or "").startswith("pick up")
    b.apply(action)
    assert [i.uid for i, _ in b.combatants[d.actor].ready_melee()] == [weapon]


def test_tactician_step_back_option_shifts_out_of_reach_instead_of_ending_the_turn() -> None:
    """``tactician(step_back=True)`` (an experiment, off by default): where the tactician
    would end its turn in an enemy's reach with its Shift unspent, it shifts to a
    square no enemy threatens; elsewhere it plays as the tactician does."""
    from agents import tactics

    found = 0
    for seed in range(6):
        b = Battle.from_scenario("duel", seed=seed)
        plain = agents.make("tactician", seed=seed)
        while not b.is_over and found < 3:
            d = b.decision
            action = plain.act(b)
            if d.kind is DecisionKind.TURN and action.kind is K.END_TURN:
                me = b.combatants[d.actor]
                stepping = agents.make("tactician", seed=seed, step_back=True)
                other = stepping.act(b)
                shifts = [a for a in b.legal_actions() if a.kind is K.SHIFT]
                safe = [a for a in shifts if not tactics.threatened_by(b, me, a.square)]
                if tactics.threatened_by(b, me, me.position) and safe:
                    assert other.kind is K.SHIFT and other in safe
                    assert (stepping.reason or "").startswith("step back")
                    found += 1
                else:
                    assert other == action
            b.apply(action)
    assert found == 3
