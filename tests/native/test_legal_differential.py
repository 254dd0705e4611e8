"""The legal actions on the native engine (rules/native/core/legal.cpp, budget.cpp,
reactions.cpp through rules/bridge/legal.py): at every decision of seeded random play on
every shipped scenario, ``native_turn_actions(battle)`` (TURN decisions) and
``native_decision_actions(battle)`` (reaction decisions: Free Attack offers, parries,
dodges) equal ``battle.legal_actions()``: the same actions in the same order; so do the
TURN lists of a variant of each TURN decision (budgets, FREE actions used, missiles
unloaded, a crossbow handed over, a rider beside its mount, a multi-round casting under
way, an enemy out of action, prone). A mismatch names the first differing index with
both actions.

Timing (not a test): ``test_turn_actions_timing`` prints the µs per call of the native
generator alone (state built beforehand, no Python objects) against Python's
``rules.legal.turn_actions`` on fresh clones (its reach cache cleared) (``pytest -s``, or
``python tests/native/test_legal_differential.py``).
"""

from __future__ import annotations

import collections
import time

import pytest

import agents
import rules
import rules.engine
from rules import legal
from rules import queries as q
from rules.combatant import ItemInstance
from rules.grid import chebyshev

_MISSING = rules.engine.missing_native("turn_actions", "the native legal actions")
if _MISSING is not None:
    pytest.skip(_MISSING, allow_module_level=True)
native = rules.engine.native_module()

from rules.bridge import legal as bridge_legal  # noqa: E402
from rules.bridge import native_state  # noqa: E402  (needs the module checked above)
from tests.native.glue import legal as native_legal  # noqa: E402

#: Decisions played per battle at most (seeded random play).
MAX_DECISIONS = 150
SEEDS = (1, 2)


def _first_difference(native_list: list[rules.Action], python_list: list[rules.Action]) -> str:
    for index, (ours, theirs) in enumerate(zip(native_list, python_list, strict=False)):
        if ours != theirs:
            return f"first difference at index {index}: native {ours}, python {theirs}"
    shorter = min(len(native_list), len(python_list))
    extra = native_list[shorter:] or python_list[shorter:]
    side = "native" if len(native_list) > shorter else "python"
    return (f"first difference at index {shorter}: only {side} lists {extra[0]} "
            f"({len(native_list)} native, {len(python_list)} python)")


def _check(battle: rules.Battle, kinds: collections.Counter[str]) -> None:
    expected = battle.legal_actions()
    found = native_legal.native_turn_actions(battle)
    if found != expected:
        decision = battle.decision
        pytest.fail(f"round {battle.state.round}, {decision}: "
                    f"{_first_difference(found, expected)}")
    for action in found:
        kinds[action.kind.name] += 1


def _check_reaction(battle: rules.Battle, kinds: collections.Counter[str]) -> None:
    expected = battle.legal_actions()
    found = native_legal.native_decision_actions(battle)
    if found != expected:
        pytest.fail(f"round {battle.state.round}, {battle.decision}: "
                    f"{_first_difference(found, expected)}")
    kinds[f"{battle.decision.kind.name} decision"] += 1
    for action in found:
        kinds[action.kind.name] += 1


def _play(battle: rules.Battle, seed: int, kinds: collections.Counter[str]) -> int:
    """Random play, every decision checked; the TURN decisions checked."""
    agent = agents.make("random", seed=seed)
    decisions = checked = 0
    while battle.decision is not None and decisions < MAX_DECISIONS:
        if battle.decision.kind.value == "turn":
            _check(battle, kinds)
            checked += 1
        else:
            _check_reaction(battle, kinds)
        battle.apply(agent.act(battle))
        decisions += 1
    return checked


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_turn_actions_at_every_turn_decision(scenario: str) -> None:
    """Every decision (TURN and reactions) of two seeded random battles (up to
    MAX_DECISIONS each)."""
    kinds: collections.Counter[str] = collections.Counter()
    checked = 0
    for seed in SEEDS:
        battle = rules.Battle.from_scenario(scenario, seed=seed, engine="python")
        checked += _play(battle, seed, kinds)
    assert checked > 0
    print(f"{scenario}: {checked} TURN decisions, actions listed {dict(kinds)}")


def _reaction_variant(battle: rules.Battle, step: int) -> rules.Battle:
    """A clone of ``battle`` (at a reaction decision) changed where play rarely goes: the
    defender's S10 dodge waived or not, prone or not, its Shift and move this round
    unspent, a missile attack for a melee one and back (only shields parry missiles)."""
    variant = battle.clone()
    state = variant.state
    top = state.stack[-1]
    if top.type == "attack":
        defender = state.combatants[top.target]
        defender.dodge_waived = step % 2 == 1
        defender.prone = step % 3 == 1
        defender.moved_this_round = defender.shifted_this_round = False
        if step % 4 == 3:
            top.missile = not top.missile
    return variant


def test_reactions_are_covered() -> None:
    """Berserker play on every shipped scenario reaches reaction decisions (Free Attack
    offers, parries, dodges): each is checked like a TURN's, and so are four variants
    of it (``_reaction_variant``) against rules.legal.actions_for."""
    kinds: collections.Counter[str] = collections.Counter()
    for scenario in rules.shipped_scenarios():
        battle = rules.Battle.from_scenario(scenario, seed=5, engine="python")
        agent = agents.make("berserker", seed=5)
        for _ in range(MAX_DECISIONS):
            if battle.decision is None:
                break
            if battle.decision.kind.value != "turn":
                _check_reaction(battle, kinds)
                for step in range(4):
                    variant = _reaction_variant(battle, step)
                    expected = legal.actions_for(variant.state, variant.decision)
                    found = native_legal.native_decision_actions(variant)
                    if found != expected:
                        pytest.fail(f"{scenario} reaction variant {step}, {variant.decision}: "
                                    f"{_first_difference(found, expected)}")
                    kinds.update(f"variant {action.kind.name}" for action in found)
            battle.apply(agent.act(battle))
    print(f"\nreactions: {dict(kinds)}")
    wanted = {"FREE_ATTACK decision", "PARRY decision", "DODGE decision", "FREE_ATTACK",
              "PARRY", "DODGE", "DECLINE"}
    assert wanted <= set(kinds), wanted - set(kinds)


#: The turn budgets the variant cycles through (S2, S3), and FREE kinds marked used (H25).
_BUDGETS = ([], ["move"], ["attack"], ["full"], ["move", "move"])
_FREE_USED = ([], ["drop_item", "speak"], ["shift", "nock_arrow", "cast_spell",
                                          "prepare_components", "fall_prone"])


def _variant(battle: rules.Battle, step: int) -> rules.Battle:
    """A clone of ``battle`` (at a TURN decision) changed where random play rarely goes:
    the actor's missiles unloaded and sometimes a crossbow handed over (LOAD_CROSSBOW,
    NOCK_ARROW), a rider set down beside its
    mount (MOUNT), a multi-round casting under way (its next round), an adjacent enemy
    out of action (COUP_DE_GRACE), prone or not, other budgets and FREE actions used."""
    variant = battle.clone()
    state = variant.state
    actor = state.combatants[variant.decision.actor]
    if step % 5 == 0:  # no shipped creature carries a crossbow: hand one over, with bolts
        actor.inventory += [
            ItemInstance(f"{actor.id}-variant-crossbow", "light_crossbow", "ready"),
            ItemInstance(f"{actor.id}-variant-bolts", "bolt", "carried", count=step % 3)]
    for inst, _ in actor.ready_weapons():
        inst.loaded = inst.nocked = False
    if actor.riding is not None:
        squares = q.free_adjacent(state, actor)
        if squares:
            state.combatants[actor.riding].ridden_by = None
            actor.riding = None
            actor.position = squares[0]
    for spell_id in actor.spells:
        if state.content.spells[spell_id].casting == "rounds":
            targets = legal.spell_targets(state, actor, spell_id)
            target = targets[step % len(targets)].id if targets else actor.id
            actor.casting = {"spell": spell_id, "target": target, "done": 1,
                             "round": state.round - step % 2}
            break
    if step % 3 == 1:
        for other in q.enemies(state, actor):
            if chebyshev(other.position, actor.position) <= 2:
                other.status = "out"
                break
    if step % 4 == 2:
        actor.prone = not actor.prone
    actor.actions_used = list(_BUDGETS[step % len(_BUDGETS)])
    actor.free_used = list(_FREE_USED[step % len(_FREE_USED)])
    actor.components_ready = step % 2 == 0
    return variant


def test_turn_actions_on_variants() -> None:
    """The variant of every TURN decision of one seeded random battle per scenario (up to
    MAX_DECISIONS), against rules.legal.turn_actions on it."""
    kinds: collections.Counter[str] = collections.Counter()
    for scenario in rules.shipped_scenarios():
        battle = rules.Battle.from_scenario(scenario, seed=3, engine="python")
        agent = agents.make("random", seed=3)
        for step in range(MAX_DECISIONS):
            if battle.decision is None:
                break
            if battle.decision.kind.value == "turn":
                variant = _variant(battle, step)
                state = variant.state
                expected = legal.turn_actions(state, state.combatants[variant.decision.actor])
                found = native_legal.native_turn_actions(variant)
                if found != expected:
                    pytest.fail(f"{scenario} variant {step}, {variant.decision}: "
                                f"{_first_difference(found, expected)}")
                kinds.update(action.kind.name for action in found)
                casting = state.combatants[variant.decision.actor].casting
                if casting is not None and any(action.item == casting["spell"]
                                               for action in found):
                    kinds["next round of a casting"] += 1
            battle.apply(agent.act(battle))
    print(f"\nvariants: actions listed {dict(kinds)}")
    rare = {"LOAD_CROSSBOW", "NOCK_ARROW", "MOUNT", "COUP_DE_GRACE", "CAST_SPELL", "STAND_UP",
            "next round of a casting"}
    assert rare <= set(kinds), rare - set(kinds)


def test_not_a_turn_decision() -> None:
    """Asking at a reaction decision is a ValueError, not a wrong list."""
    battle = rules.Battle.from_scenario("skirmish", seed=1, engine="python")
    agent = agents.make("random", seed=1)
    while battle.decision is not None and battle.decision.kind.value == "turn":
        battle.apply(agent.act(battle))
    if battle.decision is None:
        pytest.skip("no reaction decision reached")
    with pytest.raises(ValueError, match="TURN decision"):
        native_legal.native_turn_actions(battle)


def _microseconds(function: object, repeats: int) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for _ in range(repeats):
            function()  # type: ignore[operator]
        best = min(best, (time.process_time() - start) / repeats)
    return best * 1e6


def print_turn_actions_timing() -> None:
    """Prints (`python tests/native/test_legal_differential.py`; never a timed test) the
    µs per call of the native generator alone against
    Python's legal.turn_actions, over TURN decisions of one random battle per scenario."""
    samples: list[rules.Battle] = []
    for scenario in rules.shipped_scenarios():
        battle = rules.Battle.from_scenario(scenario, seed=1, engine="python")
        agent = agents.make("random", seed=1)
        for _ in range(60):
            if battle.decision is None:
                break
            if battle.decision.kind.value == "turn":
                samples.append(battle.clone())
            battle.apply(agent.act(battle))
    states = [(native_state(b), bridge_legal.legal_map(b.state)) for b in samples]
    count = native.turn_action_count

    def run_native() -> None:
        for state, legal_map in states:
            count(state, legal_map)

    def run_python() -> None:
        for battle in samples:
            state = battle.state
            state.graph.clear_cache()
            legal.turn_actions(state, state.combatants[battle.decision.actor])

    def run_native_lists() -> None:
        for state, legal_map in states:
            native.turn_actions(state, legal_map)

    native_us = _microseconds(run_native, 5) / len(samples)
    lists_us = _microseconds(run_native_lists, 5) / len(samples)
    python_us = _microseconds(run_python, 5) / len(samples)
    print(f"\nturn actions over {len(samples)} TURN decisions: native alone {native_us:.1f} µs, "
          f"native with the Python Actions {lists_us:.1f} µs, Python legal.turn_actions "
          f"{python_us:.1f} µs ({python_us / native_us:.1f}x)")


if __name__ == "__main__":
    print_turn_actions_timing()
