"""Content: the TOML data of ``rules/data`` validated into frozen dataclasses.

``default_content()`` is the shipped data, loaded once; ``load_content(path)`` loads and
cross-checks any other data directory (a ruleset variant).
"""

from __future__ import annotations

import functools
from pathlib import Path

from rules import dice
from rules.content.loader import DATA_DIR, build, check_content, load_content
from rules.content.schema import (
    Armour,
    BurdenLevel,
    CharacteristicRules,
    CombatModifiers,
    Content,
    Creature,
    DamageBonusRules,
    DamageBonusStep,
    DefenceRules,
    EncumbranceRules,
    EquipmentEntry,
    FallingRules,
    FatigueRules,
    HitPointRules,
    InitiativeRules,
    Item,
    MiscRules,
    MovementRules,
    Poison,
    PoisonRules,
    Race,
    ResistanceRules,
    Ruleset,
    SkillDef,
    Spell,
    SuccessRules,
    Weapon,
)


@functools.cache
def default_content() -> Content:
    """The shipped content of ``rules/data``, loaded and checked once per process."""
    return load_content(DATA_DIR)


def _shipped_success_rules() -> SuccessRules:
    return default_content().ruleset.success


dice.shipped_success_rules = _shipped_success_rules  # success_level's default (H2)


def content_for(content_dir: str | Path | None) -> Content:
    """The content of ``content_dir`` (loaded and checked), or the shipped content when it
    is None or empty: what a battle's ``content_dir`` stands for."""
    return load_content(Path(content_dir)) if content_dir else default_content()


__all__ = [
    "DATA_DIR",
    "Armour",
    "BurdenLevel",
    "CharacteristicRules",
    "CombatModifiers",
    "Content",
    "Creature",
    "DamageBonusRules",
    "DamageBonusStep",
    "DefenceRules",
    "EncumbranceRules",
    "EquipmentEntry",
    "FallingRules",
    "FatigueRules",
    "HitPointRules",
    "InitiativeRules",
    "Item",
    "MiscRules",
    "MovementRules",
    "Poison",
    "PoisonRules",
    "Race",
    "ResistanceRules",
    "Ruleset",
    "SkillDef",
    "Spell",
    "SuccessRules",
    "Weapon",
    "build",
    "check_content",
    "content_for",
    "default_content",
    "load_content",
]
