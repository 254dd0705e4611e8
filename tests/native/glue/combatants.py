"""Test-only references for the native combatants (issue 47: moved out of the shipped
package): every derived value and skill of a Python combatant in the shapes
``rules._native.Roster.derived(index)`` and ``Roster.skills`` give
(tests/native/test_combatant_differential.py compares them).
"""

from __future__ import annotations

from typing import Any

from rules.combatant import Combatant


def derived_values(combatant: Combatant) -> dict[str, Any]:
    """Every derived value of ``combatant`` that takes no argument, in the shape of
    ``Roster.derived(index)``: the Python engine's answers, the native one's reference."""
    skills = combatant.c.ruleset.skills
    return {
        "dex_bonus": combatant.dex_bonus,
        "capacity_stones": combatant.capacity_stones,
        "load_stones": combatant.load_stones,
        "burden": combatant.burden,
        "untrained_for_burden": combatant.untrained_for_burden,
        "encumbered": combatant.encumbered,
        "armour_points": combatant.armour_points,
        "fatigue_factor": combatant.fatigue_factor(),
        "mov": combatant.mov,
        "move_squares": combatant.move_squares,
        "magic_fumble": combatant.magic_fumble,
        "hands_used": combatant.hands_used(),
        "reach": combatant.reach,
        "threatens": combatant.threatens,
        "in_action": combatant.in_action,
        "ready_weapons": [(inst.uid, inst.item) for inst, _ in combatant.ready_weapons()],
        "skill_possible": {name: combatant.skill_possible(name) for name in skills},
        "skill_multiplier": {name: combatant.skill_multiplier(name) for name in skills},
        "base_skill": {name: combatant.base_skill(name) for name in skills},
    }


def skill_values(combatant: Combatant, current_round: int | None = None, factor: float = 1.0,
                 points: int = 0) -> dict[str, int]:
    """``combatant.skill`` of every ruleset skill, in the shape of ``Roster.skills``."""
    return {name: combatant.skill(name, current_round, factor, points)
            for name in combatant.c.ruleset.skills}
