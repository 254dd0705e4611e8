"""fray's headless rules core: pure, deterministic, no I/O beyond loading its data.

See DESIGN.md "Public API"::

    import rules
    battle = rules.Battle.from_scenario("duel", seed=7)
    events = battle.apply(battle.legal_actions()[0])

Public modules besides this one: ``rules.events`` (every event class, all frozen
dataclasses, and ``event_to_dict`` / ``event_from_dict``; the main classes are exported
here too), ``rules.dice``, ``rules.content`` and ``rules.errors``. Tests force dice with
``battle.dice.forcing(...)`` (see ``rules.roller``).
"""

from rules import events
from rules.actions import Action, ActionKind, Decision, DecisionKind
from rules.battle import Battle
from rules.combatant import Combatant, ItemInstance
from rules.content import Content, default_content, load_content
from rules.dice import Dice, SuccessLevel, level_probabilities, success_level
from rules.errors import (
    ContentError,
    ForcedDiceError,
    FrayError,
    IllegalActionError,
    ScenarioError,
)
from rules.events import (
    ActionTaken,
    AttackRolled,
    BattleEnded,
    BattleStarted,
    DamageDealt,
    DodgeRolled,
    Event,
    HitPointsChanged,
    Moved,
    ParryRolled,
    Reasoned,
    Resisted,
    RoundStarted,
    StatusChanged,
    TurnEnded,
    TurnStarted,
)
from rules.scenario import Scenario, load_scenario, parse_scenario, shipped_scenarios

__all__ = [
    "Action",
    "ActionKind",
    "ActionTaken",
    "AttackRolled",
    "Battle",
    "BattleEnded",
    "BattleStarted",
    "Combatant",
    "Content",
    "ContentError",
    "DamageDealt",
    "Decision",
    "DecisionKind",
    "Dice",
    "DodgeRolled",
    "Event",
    "ForcedDiceError",
    "FrayError",
    "HitPointsChanged",
    "IllegalActionError",
    "ItemInstance",
    "Moved",
    "ParryRolled",
    "Reasoned",
    "Resisted",
    "RoundStarted",
    "Scenario",
    "ScenarioError",
    "StatusChanged",
    "SuccessLevel",
    "TurnEnded",
    "TurnStarted",
    "default_content",
    "events",
    "level_probabilities",
    "load_content",
    "load_scenario",
    "parse_scenario",
    "shipped_scenarios",
    "success_level",
]
