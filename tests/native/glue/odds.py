"""The exact odds of :mod:`rules.odds` computed by the native engine in double precision
(``rules/native/core/odds_hit.cpp``, ``odds_attack.cpp``, ``odds_risk.cpp``), for a
:class:`rules.Battle` that runs on the native engine: the first step to a native
tactician (agents/tactician.py decides with these odds). Test-only glue (issue 47): the
native tactician reads the odds in C++, so nothing shipped calls these.

:mod:`rules.odds` stays the reference (exact Fractions);
``tests/native/test_native_odds.py`` checks that every answer here is within 1e-12 of it.
Each function takes the arguments of its :mod:`rules.odds` twin and answers with floats:
an ``AttackOdds`` or a ``Risk`` is a dict of its fields and properties
(``expected_damage``, ``hit``, ``wounds``), ``levels`` keyed by success level name,
``damage`` as ``{hp lost: probability}``; ``pending_attack`` gives the AttackRolled
event's fields as a dict.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rules import bridge, engine

if TYPE_CHECKING:
    from rules.actions import Action
    from rules.battle import Battle
    from rules.dice import Dice

Square = tuple[int, int]


def _module() -> Any:
    """The compiled module, holding the native odds (``rules.engine.require_native``)."""
    return engine.require_native("odds_attack", "the native odds")


def _native(battle: Battle) -> tuple[Any, Any, Any]:
    """``battle``'s native state (current), loop and rules: the odds functions' first
    three arguments (``rules.bridge.engine_parts``). ValueError for a battle on the
    Python engine."""
    return bridge.engine_parts(battle)


def dice_distribution(dice: Dice) -> dict[int, float]:
    """:func:`rules.odds.dice_distribution`."""
    return _module().odds_dice_distribution(list(dice.terms), dice.constant)


def attack_odds(battle: Battle, action: Action, defence: str = "none",
                parry_item: str | None = None, attacker: str | None = None) -> dict[str, Any]:
    """:func:`rules.odds.attack_odds`."""
    return _module().odds_attack(*_native(battle), action.kind.name, action.target or "",
                                 action.item, defence, parry_item, attacker)


def attack_chance(battle: Battle, attacker: str, target: str, skill: str, missile: bool,
                  points: int) -> int:
    """:func:`rules.odds.attack_chance` (combatants by id)."""
    return _module().odds_attack_chance(*_native(battle), attacker, target, skill, missile,
                                        points)


def parry_options(battle: Battle, defender: str, missile: bool) -> dict[str, tuple[int, int]]:
    """:func:`rules.odds.parry_options` (the defender by id)."""
    return _module().odds_parry_options(*_native(battle), defender, missile)


def dodge_chance(battle: Battle, defender: str) -> int | None:
    """:func:`rules.odds.dodge_chance` (the defender by id)."""
    return _module().odds_dodge_chance(*_native(battle), defender)


def pending_attack(battle: Battle) -> dict[str, Any] | None:
    """:func:`rules.odds.pending_attack`: the AttackRolled event's fields, or None."""
    return _module().odds_pending_attack(*_native(battle))


def pending_hit_odds(battle: Battle, defence: str, parry_item: str | None = None
                     ) -> dict[str, Any]:
    """:func:`rules.odds.pending_hit_odds`."""
    return _module().odds_pending_hit(*_native(battle), defence, parry_item)


def free_attack_risk(battle: Battle, mover_id: str, enemies: Iterable[str],
                     defence: str = "none") -> dict[str, Any]:
    """:func:`rules.odds.free_attack_risk`."""
    return _module().odds_free_attack_risk(*_native(battle), mover_id, list(enemies), defence)


def route_risks(battle: Battle, combatant_id: str, squares: Iterable[Square],
                full: bool = False, defence: str = "none") -> dict[Square, dict[str, Any]]:
    """:func:`rules.odds.route_risks`."""
    return _module().odds_route_risks(*_native(battle), combatant_id, list(squares), full,
                                      defence)


def route_risk(battle: Battle, combatant_id: str, square: Square, full: bool = False,
               defence: str = "none") -> dict[str, Any]:
    """:func:`rules.odds.route_risk`."""
    return route_risks(battle, combatant_id, [square], full, defence)[square]


def action_risk(battle: Battle, combatant_id: str, defence: str = "none") -> dict[str, Any]:
    """:func:`rules.odds.action_risk`."""
    return _module().odds_action_risk(*_native(battle), combatant_id, defence)
