"""A uniformly random legal policy: the baseline every other agent should beat."""

from __future__ import annotations

from agents.base import SeededAgent, legal_for
from agents.spec import Option
from rules import Action, Battle


class RandomAgent(SeededAgent):
    """Picks uniformly among ``battle.legal_actions()``."""

    name = "random"
    native_name = "random"  # rules/native/agents/agents_random.cpp
    OPTIONS: tuple[Option, ...] = ()

    def act(self, battle: Battle) -> Action:
        return self.choose(legal_for(battle))
