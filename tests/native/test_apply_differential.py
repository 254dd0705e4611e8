"""The native step against the Python rules core (rules/native/core/roller.cpp, harm.cpp,
combat.cpp through tests/native/glue/harness.py): from states of seeded random play on every
shipped scenario, each :mod:`rules.harm` and :mod:`rules.combat` function runs on a clone
of the Python battle and on the battle's native state, from the same dice state; after
every call the two ``to_dict()`` are equal (every combatant, the ground, the dice state
and forced faces, every event), and so are the attack frames.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

import agents
import rules
import rules.engine
from rules import combat, effects, frames, harm
from rules.actions import ATTACK_MODES, Action, ActionKind
from rules.errors import ForcedDiceError
from rules.events import event_to_dict
from rules.frames import AttackFrame, frame_to_dict

_MISSING = rules.engine.missing_native("ApplyRules", "the native step")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)
native = rules.engine.native_module()

from tests.native.glue import harness as native_apply  # noqa: E402  (needs the module checked above)

SEEDS = (1, 2)
#: Decisions played per battle at most, and every how many a state is probed.
MAX_DECISIONS = 150
PROBE_EVERY = 7

#: (name, arguments for native and Python given (battle, combatant id, other id, rng)).
Call = tuple[str, tuple[Any, ...], Callable[[Any], None]]


def _calls(battle: rules.Battle, who: str, other: str, rng: random.Random) -> list[Call]:
    """One call of every harm function on ``who`` (``other``: a second combatant)."""
    state = battle.state

    def c(cid: str) -> Any:
        return state.combatants[cid]

    me = state.combatants[who]
    con = me.char("con")
    amount = rng.choice([1, 3, max(1, me.hp), me.hp + con + 1, me.hp + 2 * con + 5])
    skill = rng.choice(["dodge", "brawl", "jump", "no such skill"])
    uid = me.inventory[rng.randrange(len(me.inventory))].uid if me.inventory else "none.there"
    calls: list[Call] = [
        ("roll_skill", (who, skill, "test", 0.5, 10, 3),
         lambda s: harm.roll_skill(s, c(who), skill, "test", factor=0.5, points=10,
                                   extra_fumble=3)),
        ("roll_skill", (who, "dodge", "plain", 1.0, 0, 0),
         lambda s: harm.roll_skill(s, c(who), "dodge", "plain")),
        ("roll_under", (who, 40, "test"), lambda s: harm.roll_under(s, c(who), 40, "test")),
        ("resist", (who, 12, 9, "poison"), lambda s: harm.resist(s, c(who), 12, 9, "poison")),
        ("set_prone", (who, "tripped"), lambda s: harm.set_prone(s, c(who), "tripped")),
        ("lose_hp", (who, amount, "wound", True),
         lambda s: harm.lose_hp(s, c(who), amount, "wound")),
        ("lose_hp", (who, amount, "bleeding", False),
         lambda s: harm.lose_hp(s, c(who), amount, "bleeding", log=False)),
        ("deal_damage", (other, who, amount, "hit", 9, [4, 5], 1, 2, 3, "impale"),
         lambda s: harm.deal_damage(s, c(other), c(who), amount, "hit", rolled=9, dice=(4, 5),
                                    parried=1, dodged=2, armour=3, effect="impale")),
        ("kill", (who, "test"), lambda s: harm.kill(s, c(who), "test")),
        ("heal", (who, amount, "potion"), lambda s: harm.heal(s, c(who), amount, "potion")),
        ("release_grapples_by", (who,), lambda s: harm.release_grapples_by(s, c(who))),
        ("drop_item", (who, uid, "disarmed"), lambda s: harm.drop_item(s, c(who), uid, "disarmed")),
        ("drop_item", (who, uid, ""), lambda s: harm.drop_item(s, c(who), uid, "")),
        ("fatigue_check", (who,), lambda s: harm.fatigue_check(s, c(who))),
        ("recover", (who, 3000), lambda s: harm.recover(s, c(who), 3000)),
        ("fall", (who, 30), lambda s: harm.fall(s, c(who), 30)),
        ("break_concentration", (who,), lambda s: harm.break_concentration(s, c(who))),
    ]
    if me.riding:
        calls.append(("unseat", (who,), lambda s: harm.unseat(s, c(who))))
    return calls


def _played(scenario: str, seed: int, agent: str = "random",
            limit: int = MAX_DECISIONS) -> Iterator[tuple[rules.Battle, int]]:
    """Seeded play of ``scenario`` on the Python engine by ``agent`` for both teams: the
    battle and the decisions made so far at each decision (up to ``limit``), before the
    agent's action is applied."""
    battle = rules.Battle.from_scenario(scenario, seed=seed, engine="python")
    player = agents.make(agent, seed=seed)
    decisions = 0
    while battle.decision is not None and decisions < limit:
        yield battle, decisions
        battle.apply(player.act(battle))
        decisions += 1


def _probe(battle: rules.Battle, rng: random.Random, seen: set[str]) -> None:
    """A few random call sequences, each on a fresh clone and a fresh native state."""
    ids = list(battle.state.combatants)
    for who in ids:
        python = battle.clone()
        mirror = native_apply.NativeHarm(battle)
        for _ in range(4):
            other = rng.choice(ids)
            name, arguments, run = rng.choice(_calls(python, who, other, rng))
            run(python.state)
            mirror.call(name, *arguments)
            seen.add(name)
            assert mirror.to_dict() == python.to_dict(), (name, arguments)


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_harm_functions_match_python(scenario: str) -> None:
    seen: set[str] = set()
    for seed in SEEDS:
        rng = random.Random(seed)
        for battle, decisions in _played(scenario, seed):
            if decisions % PROBE_EVERY == 0:
                _probe(battle, rng, seen)
        _probe(battle, rng, seen)  # where the play stopped
    assert {"lose_hp", "heal", "fall", "roll_skill", "deal_damage"} <= seen


def test_forced_faces() -> None:
    """Forced faces are rolled first on both sides; one that does not fit its die raises
    ForcedDiceError on both."""
    battle = rules.Battle.from_scenario("duel", seed=3, engine="python")
    who = next(iter(battle.state.combatants))
    battle.dice.force(5, 3, 2, 4, 60)
    python = battle.clone()
    mirror = native_apply.NativeHarm(battle)
    harm.fall(python.state, python.state.combatants[who], 20)
    mirror.call("fall", who, 20)
    assert mirror.to_dict() == python.to_dict()
    battle.dice.forced.clear()
    battle.dice.force(7)
    python = battle.clone()
    mirror = native_apply.NativeHarm(battle)
    with pytest.raises(ForcedDiceError, match="does not fit a d6"):
        harm.fall(python.state, python.state.combatants[who], 10)
    with pytest.raises(ForcedDiceError, match="does not fit a d6"):
        mirror.call("fall", who, 10)
    battle.dice.forced.clear()


# ------------------------------------------------------------------ rules.combat
def _attack_frames(battle: rules.Battle, rng: random.Random) -> list[AttackFrame]:
    """Attack frames between pairs of combatants: each weapon they hold or none, a random
    mode, points, and (for resolve) random levels, parries and dodges."""
    state = battle.state
    content = state.content
    ids = list(state.combatants)
    out: list[AttackFrame] = []
    for _ in range(6):
        attacker, target = rng.choice(ids), rng.choice(ids)
        if attacker == target:
            continue
        held = [inst for inst in state.combatants[attacker].inventory
                if inst.item in content.weapons]
        inst = rng.choice([*held, None])
        mode = rng.choice(list(ATTACK_MODES))
        parry_items = [i.uid for i in state.combatants[target].inventory
                       if i.item in content.weapons or i.item in content.armour]
        parry_item = rng.choice(parry_items) if parry_items and rng.random() < 0.5 else None
        out.append(AttackFrame(
            attacker=attacker, target=target, weapon=inst.uid if inst else None,
            weapon_id=inst.item if inst else None, mode=mode,
            points=rng.choice([0, -20, 20]), missile=ATTACK_MODES[mode].missile,
            skill=rng.choice([None, None, "brawl"]),
            level=rng.choice([2, 3, 4]),
            parry_level=rng.choice([0, 1, 2, 3, 4]) if parry_item else None,
            parry_item=parry_item,
            dodge_level=rng.choice([None, 0, 1, 2, 3, 4])))
    return out


def _combat_probe(battle: rules.Battle, rng: random.Random, seen: set[str]) -> None:
    for frame in _attack_frames(battle, rng):
        python = battle.clone()
        mirror = native_apply.NativeHarm(battle)
        state = python.state

        def same(name: str, frame: AttackFrame = frame, mirror: Any = mirror,
                 python: rules.Battle = python) -> None:
            seen.add(name)
            assert mirror.to_dict() == python.to_dict(), (name, frame)

        # resolve straight away, with the frame's levels
        data = frame_to_dict(frame)
        assert mirror.combat("settled", data) == combat.settled(frame)
        mirror_frame = mirror.combat("resolve", data)
        combat.resolve(state, frame)
        assert mirror_frame == frame_to_dict(frame)
        same("resolve")
        # then the whole sequence on a fresh frame
        fresh = replace(frame, level=None, parry_level=None, parry_item=None, dodge_level=None)
        hit, data = mirror.combat("roll_attack", frame_to_dict(fresh))
        assert hit == combat.roll_attack(state, fresh)
        assert data == frame_to_dict(fresh)
        same("roll_attack")
        if not hit:
            continue
        target = state.combatants[fresh.target]
        items = [i.uid for i in target.inventory
                 if i.item in state.content.weapons or i.item in state.content.armour]
        if items and rng.random() < 0.6:
            uid = rng.choice(items)
            data = mirror.combat("roll_parry", data, uid)
            combat.roll_parry(state, fresh, Action(ActionKind.PARRY, item=uid))
            assert data == frame_to_dict(fresh)
            same("roll_parry")
        if rng.random() < 0.6:
            x, y = target.position
            square = rng.choice([None, (x + 1, y), (x, y - 1)])
            data = mirror.combat("roll_dodge", data, square)
            combat.roll_dodge(state, fresh, Action(ActionKind.DODGE, square=square))
            assert data == frame_to_dict(fresh)
            same("roll_dodge")
        if not combat.settled(fresh):
            data = mirror.combat("resolve", data)
            combat.resolve(state, fresh)
            assert data == frame_to_dict(fresh)
            same("resolve")


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_combat_functions_match_python(scenario: str) -> None:
    seen: set[str] = set()
    for seed in SEEDS:
        rng = random.Random(seed)
        for battle, decisions in _played(scenario, seed):
            if decisions % PROBE_EVERY == 0:
                _combat_probe(battle, rng, seen)
    assert {"resolve", "roll_attack"} <= seen


# ------------------------------------------------------------------ rules.frames (offer, attack)
def _python_answer_and_step(battle: rules.Battle, action: Action) -> tuple | None:
    """frames.answer on the top frame, then frames.step while an offer or attack frame
    is on top: the decision asked for, as (kind value, actor, source), or None."""
    state = battle.state
    frames.answer(state, state.stack[-1], action)
    while state.stack and state.stack[-1].type in ("offer", "attack"):
        decision = frames.step(state, state.stack[-1])
        if decision is not None:
            return decision.kind.value, decision.actor, decision.source
    return None


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_reaction_frames_match_python(scenario: str) -> None:
    """At every reaction decision of seeded random and berserker play, every legal
    answer: the offer or attack frame's answer and the steps after it, until the next
    decision or until no offer or attack frame is left on top, give equal states, events
    and decisions."""
    answered = 0
    for seed, name in ((1, "random"), (2, "random"), (3, "random"), (1, "berserker"),
                       (2, "berserker")):
        for battle, _ in _played(scenario, seed, name, limit=2000):
            if battle.decision.kind.value != "turn":
                for action in battle.legal_actions():
                    python = battle.clone()
                    mirror = native_apply.NativeHarm(battle)
                    expected = _python_answer_and_step(python, action)
                    assert mirror.answer_and_step(action) == expected, action
                    assert mirror.to_dict() == python.to_dict(), action
                    answered += 1
    print(f"{scenario}: {answered} reaction answers compared")


# ------------------------------------------------------------------ rules.effects
@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_effects_match_python(scenario: str) -> None:
    """At TURN decisions of seeded random play, the effect of legal actions of every kind
    with one (EFFECTS), applied straight to the state (no budget, no Free Attacks): equal
    states, stacks and events."""
    kinds: set[str] = set()
    for seed in SEEDS:
        rng = random.Random(seed)
        for battle, decisions in _played(scenario, seed, limit=2 * MAX_DECISIONS):
            decision = battle.decision
            if decision.kind.value == "turn" and decisions % 3 == 0:
                listed = [a for a in battle.legal_actions() if a.kind in effects.EFFECTS]
                for action in rng.sample(listed, min(len(listed), 12)):
                    python = battle.clone()
                    mirror = native_apply.NativeHarm(battle)
                    state = python.state
                    effects.apply_effect(state, state.combatants[decision.actor], action,
                                         None)  # type: ignore[arg-type]  (no effect reads it)
                    mirror.apply_effect(decision.actor, action)
                    assert mirror.to_dict() == python.to_dict(), action
                    kinds.add(action.kind.value)
    print(f"{scenario}: effects compared {sorted(kinds)}")


# ------------------------------------------------------------------ whole battles
@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_whole_battles_match_python(scenario: str) -> None:
    """NativeBattle.apply(action) from a native state built from a Python battle, with
    the random agent's choices, compared with the Python battle after every decision:
    to_dict(events=False) (state, dice, decision) and the new events; the whole
    to_dict() at the end of each battle (2 seeded random ones, 1 berserker)."""
    for seed, name in ((1, "random"), (2, "random"), (1, "berserker")):
        battle = rules.Battle.from_scenario(scenario, seed=seed, engine="python")
        agent = agents.make(name, seed=seed)
        mirror = native_apply.NativeBattle(battle)
        decisions = 0
        while battle.decision is not None:
            assert mirror.legal_actions() == battle.legal_actions(), decisions
            action = agent.act(battle)
            start = len(battle.events)
            new = battle.apply(action)
            mirror.apply(action)
            decisions += 1
            assert mirror.events_since(start) == [event_to_dict(e) for e in new], decisions
            assert mirror.to_dict(events=False) == battle.to_dict(events=False), decisions
        assert mirror.legal_actions() == []
        assert mirror.to_dict() == battle.to_dict()


def print_decisions_per_second() -> None:
    """Timing, printed (`python tests/native/test_apply_differential.py`; speed targets live
    in fray bench, never in tests): whole random battles natively (legal actions, uniform
    choice by a native Pcg64 and apply, all in C++) against the Python engine
    (legal_actions, a uniform choice, apply)."""
    for scenario in ("skirmish", "horde", "long_fight"):
        native_decisions, started = 0, time.perf_counter()
        for seed in range(5):
            mirror = native_apply.NativeBattle(
                rules.Battle.from_scenario(scenario, seed=seed, engine="python"))
            native_decisions += mirror.random_play(seed, 100_000)
        native_seconds = time.perf_counter() - started
        python_decisions, started = 0, time.perf_counter()
        for seed in range(5):
            battle = rules.Battle.from_scenario(scenario, seed=seed, engine="python")
            rng = random.Random(seed)
            while battle.decision is not None:
                battle.apply(rng.choice(battle.legal_actions()))
                python_decisions += 1
        python_seconds = time.perf_counter() - started
        print(f"{scenario}: native {native_decisions / native_seconds:,.0f} decisions/s "
              f"({native_decisions} decisions), Python "
              f"{python_decisions / python_seconds:,.0f} decisions/s ({python_decisions})")


if __name__ == "__main__":
    print_decisions_per_second()
