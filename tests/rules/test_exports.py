"""The public names of ``rules`` (DESIGN.md "Public API"): every name in ``rules.__all__``
exists, ``rules.events`` is public and holds every event class, and the main event
classes are importable from ``rules`` itself."""

from __future__ import annotations

import dataclasses
import inspect

import rules
from rules import events


def test_every_name_in_all_exists() -> None:
    missing = [name for name in rules.__all__ if not hasattr(rules, name)]
    assert missing == []
    assert rules.__all__ == sorted(rules.__all__, key=lambda n: (n[0].islower(), n))


def test_rules_events_is_public_and_every_event_is_a_frozen_dataclass() -> None:
    assert rules.events is events and "events" in rules.__all__
    classes = [c for _, c in inspect.getmembers(events, inspect.isclass)
               if issubclass(c, events.Event) and c.__module__ == events.__name__]
    assert len(classes) > 20
    for cls in classes:
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls


def test_the_main_event_classes_are_exported_from_rules() -> None:
    exported = [name for name in rules.__all__
                if isinstance(getattr(rules, name), type)
                and issubclass(getattr(rules, name), events.Event)]
    assert set(exported) >= {"Event", "BattleStarted", "BattleEnded", "AttackRolled",
                             "DamageDealt", "Moved", "Resisted", "StatusChanged"}
    for name in exported:
        assert getattr(rules, name) is getattr(events, name)


def test_the_events_of_a_battle_are_the_exported_classes() -> None:
    battle = rules.Battle.from_scenario("duel", seed=0)
    assert isinstance(battle.events[0], rules.BattleStarted)
    assert all(isinstance(e, rules.Event) for e in battle.events)
