"""fray's headless rules core: pure, deterministic, no I/O beyond loading its data.

See DESIGN.md "Public API"::

    import rules
    battle = rules.Battle.from_scenario("duel", seed=7)
    battle.apply(battle.legal_actions()[0])
"""

from rules.actions import Action, ActionKind, Decision, DecisionKind
from rules.battle import Battle
from rules.combatant import Combatant, ItemInstance
from rules.content import Content, default_content, load_content
from rules.dice import Dice, SuccessLevel, level_probabilities, success_level
from rules.errors import ContentError, FrayError, IllegalActionError, ScenarioError
from rules.events import Event
from rules.scenario import Scenario, load_scenario, parse_scenario, shipped_scenarios

__all__ = [
    "Action",
    "ActionKind",
    "Battle",
    "Combatant",
    "Content",
    "ContentError",
    "Decision",
    "DecisionKind",
    "Dice",
    "Event",
    "FrayError",
    "IllegalActionError",
    "ItemInstance",
    "Scenario",
    "ScenarioError",
    "SuccessLevel",
    "default_content",
    "level_probabilities",
    "load_content",
    "load_scenario",
    "parse_scenario",
    "shipped_scenarios",
    "success_level",
]
