"""``per_unit``: each unit played by an agent of its own, e.g. ``per_unit(wolf_1=defender)``.

A designer's composition of the scripted tactics: the keyword arguments map unit ids to
agent names, and ``default`` (``tactician``) plays every other unit. Each named agent is
made once, when this one is, with this agent's seed, and decides its unit's turns and
reactions; ``reason`` is the deciding agent's, prefixed with its name.

    agents.make("per_unit(wolf_1=defender,goblin_archer_1=skirmisher)", seed=0)

Units that share an agent name share one agent, so ``per_unit()`` plays exactly as
``default`` does. A unit id that the battle does not have is an error at its first
decision (a typo would otherwise silently leave the unit to ``default``).
"""

from __future__ import annotations

from typing import Any

from agents.base import decision_of
from agents.spec import Option
from rules import Action, Battle


class PerUnit:
    """See the module docstring."""

    name = "per_unit"
    #: the options of ``per_unit(...)``: ``default`` and any unit id
    OPTIONS: tuple[Option, ...] = (
        Option("default", "agent", "The agent that plays every unit not named."),
        Option("*", "agent", "UNIT=agent: the agent that plays unit UNIT."),
    )

    def __init__(self, seed: int | None = None, default: str = "tactician",
                 **units: str) -> None:
        from agents.factory import make

        self.seed = seed
        self.default = str(default)
        self.units = {unit: str(agent) for unit, agent in units.items()}
        # one agent per name, made here: an unknown name fails now, not mid-battle
        self._agents: dict[str, Any] = {name: make(name, seed=seed)
                                        for name in {self.default, *self.units.values()}}
        self.reason = ""

    def agent_for(self, unit: str) -> Any:
        """The agent that plays ``unit``."""
        return self._agents[self.units.get(unit, self.default)]

    def act(self, battle: Battle) -> Action:
        """The action of the agent that plays the deciding unit."""
        if not self.units.keys() <= battle.combatants.keys():
            unknown = sorted(set(self.units) - set(battle.combatants))
            raise ValueError(f"per_unit: no unit {', '.join(unknown)} in this battle "
                             f"(units: {', '.join(sorted(battle.combatants))})")
        unit = decision_of(battle).actor
        agent = self.agent_for(unit)
        action = agent.act(battle)
        self.reason = f"{self.units.get(unit, self.default)}: {getattr(agent, 'reason', '')}"
        return action

    def __repr__(self) -> str:
        return f"PerUnit(seed={self.seed}, default={self.default!r}, units={self.units})"
