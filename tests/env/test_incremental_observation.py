"""The observation builder and the action codec keep what does not change between steps
(map planes per door state, unit rows keyed on what they read, threat marks, indices of
shared action objects). Whatever they kept, a long-lived builder and codec give exactly
what fresh ones give on the same state: same values, dtypes and shapes, same masks."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

import rules
from env.observation import ObservationBuilder
from env.spaces import ActionCodec

#: Scenarios with doors, darkness and torches, mounts, spells and many units.
SCENARIOS = ("crypt", "cavalry", "casters", "skirmish", "horde")


def _same(kept: dict[str, np.ndarray], fresh: dict[str, np.ndarray], where: str) -> None:
    """Both observations hold equal arrays of equal dtype and shape under every key."""
    assert kept.keys() == fresh.keys(), where
    for key, value in fresh.items():
        assert kept[key].dtype == value.dtype, (where, key)
        assert kept[key].shape == value.shape, (where, key)
        assert np.array_equal(kept[key], value), (where, key)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_kept_builder_and_codec_match_fresh_ones_over_random_battles(scenario: str) -> None:
    pick = random.Random(scenario)
    first = rules.Battle.from_scenario(scenario, seed=0)
    builder, codec = ObservationBuilder(first), ActionCodec(first)
    teams = sorted({c.team for c in first.combatants.values()})
    ids = [u.id for u in first.scenario.units]
    checked = 0
    for seed in (0, 1):  # the kept tables carry over from one battle to the next
        battle = rules.Battle.from_scenario(scenario, seed=seed)
        decisions = 0
        while not battle.is_over and decisions < 120:
            where = f"{scenario} seed {seed} decision {decisions}"
            fresh_builder = ObservationBuilder(battle)
            for team in teams:
                observer = pick.choice([None, *ids])
                reachable = pick.random() < 0.7
                _same(builder.build(battle, team, observer, show_reachable=reachable),
                      fresh_builder.build(battle, team, observer, show_reachable=reachable),
                      f"{where} team {team} observer {observer}")
                checked += 1
            kept_mask = codec.legal_by_index(battle)
            fresh_mask = ActionCodec(first).legal_by_index(battle)
            assert list(kept_mask) == list(fresh_mask), where
            assert all(kept_mask[i] is fresh_mask[i] for i in fresh_mask), where
            battle.apply(pick.choice(battle.legal_actions()))
            decisions += 1
    assert checked > 100


def _other(name: str, value: object, battle: rules.Battle, unit: rules.Combatant) -> object:
    """A different value for one field of a combatant or an item (any type it holds)."""
    if name == "status":
        return "out" if value == "active" else "active"
    if name == "team":
        return next(c.team for c in battle.combatants.values() if c.team != unit.team)
    if name == "position":
        return (unit.position[0] + 1, unit.position[1])
    if name == "fatigue_level":
        return (unit.fatigue_level + 1) % 3
    if name == "casting":
        return {"spell": "x", "target": None, "round": battle.round} if value is None else None
    if name == "armour":
        return None if value is not None else "leather"
    if name == "state":
        return "carried" if value == "ready" else "ready"
    if name in ("concentration", "square"):
        return None if value is not None else ("aim" if name == "concentration" else (1, 1))
    if name == "uid":
        return f"{value}.9"
    if name == "item":
        return next(w for w in battle.content.weapons if w != value)
    if name == "buffs":
        return [(7, battle.round + 5)]
    if name in ("actions_used", "free_used"):
        return [] if value else ["move"]
    if name in ("grappled_by", "riding", "ridden_by"):
        return next(cid for cid in battle.combatants if cid != unit.id) if value is None \
            else None
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value - 1 if name == "hp" else value + 1
    if value is None:
        return 1
    raise AssertionError(f"no other value for {name}={value!r}")


#: Combatant fields no rule changes during a battle (what ``_derived`` keys on besides).
_STATIC = {"id", "creature", "name", "race", "characteristics", "base_skills",
           "armour_training", "spells", "is_mount", "snake", "initiative", "content",
           "inventory"}


@pytest.mark.parametrize("scenario", ("crypt", "cavalry", "casters"))
def test_a_changed_field_of_any_unit_or_item_is_seen_by_a_kept_builder(scenario: str) -> None:
    """Each field of a unit, and of each item it carries, changed on its own after the
    builder has seen the unchanged state: the kept builder sees the change."""
    battle = rules.Battle.from_scenario(scenario, seed=3)
    pick = random.Random(3)
    for _ in range(25):
        battle.apply(pick.choice(battle.legal_actions()))
    builder = ObservationBuilder(battle)
    teams = sorted({c.team for c in battle.combatants.values()})
    decider = battle.decision.actor if battle.decision is not None else None
    units = [battle.combatants[cid] for cid in list(battle.combatants)[:3]]
    changed = 0
    for unit in units:
        names = [f.name for f in dataclasses.fields(unit) if f.name not in _STATIC]
        names += [f"item {i} {f.name}" for i in range(len(unit.inventory))
                  for f in dataclasses.fields(unit.inventory[i])]
        for name in names:
            views = [(team, observer) for team in teams for observer in (None, decider)]
            for team, observer in views:
                builder.build(battle, team, observer)
            copy = battle.clone()
            target = copy.combatants[unit.id]
            if name.startswith("item "):
                _, index, field = name.split(" ")
                holder: object = target.inventory[int(index)]
            else:
                holder, field = target, name
            setattr(holder, field, _other(field, getattr(holder, field), copy, target))
            fresh = ObservationBuilder(copy)
            for team, observer in views:
                _same(builder.build(copy, team, observer), fresh.build(copy, team, observer),
                      f"{scenario} {unit.id} {name} team {team} observer {observer}")
            changed += 1
    assert changed > 60
