"""Untrained MaskablePPO models (one per scenario), saved once per test session in fray's
model format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def untrained_model(scenario: str, policy: str = "fray") -> Any:
    """A freshly initialised MaskablePPO for ``scenario`` (monsters)."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.environments import skirmish_env
    from experiments.train.sb3 import policy_spec

    torch.set_num_threads(1)
    name, kwargs = policy_spec(policy, scenario)
    return MaskablePPO(name, skirmish_env(scenario=scenario), policy_kwargs=kwargs,
                       n_steps=64, batch_size=32, seed=0, device="cpu")


def save_untrained(scenario: str, path: Path, policy: str = "fray") -> Path:
    """A freshly initialised MaskablePPO for ``scenario`` (monsters), saved in fray's
    model format as ``path`` (its ``.json``, the weights beside it); returns that path."""
    from agents.model_file import save_model_file

    model = untrained_model(scenario, policy)
    return save_model_file(model.policy, path, scenario=scenario, team="monsters",
                           trained={"steps": 0})


def play_legally(agent, scenario: str, seed: int, decisions: int) -> int:
    """``agent`` decides every decision of a battle (both teams) for at most ``decisions``
    decisions, each checked legal; returns how many it took."""
    import rules

    battle = rules.Battle.from_scenario(scenario, seed=seed)
    taken = 0
    for taken in range(1, decisions + 1):
        if battle.is_over:
            return taken - 1
        action = agent.act(battle)
        assert action in battle.legal_actions()
        battle.apply(action)
    return taken


class _Models(dict):
    """scenario -> saved untrained model, made on first use."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def __missing__(self, scenario: str) -> Path:
        self[scenario] = save_untrained(scenario, self.folder / f"{scenario}.json")
        return self[scenario]

    def items(self):  # type: ignore[override]
        return [(name, self[name]) for name in ("duel", "skirmish")]


@pytest.fixture(scope="session")
def untrained_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _Models(tmp_path_factory.mktemp("models"))


def events_against_berserkers(scenario: str, seed: int, monsters: str, monster_seed: int,
                              decisions: int = 150) -> list[str]:
    """The events (as reprs) of a battle of ``monsters`` against a berserker party
    (seed 4), for at most ``decisions`` decisions."""
    import agents
    import rules

    battle = rules.Battle.from_scenario(scenario, seed=seed)
    sides = {"monsters": agents.make(monsters, seed=monster_seed),
             "party": agents.make("berserker", seed=4)}
    for _ in range(decisions):
        if battle.is_over:
            break
        actor = battle.combatants[battle.decision.actor]
        battle.apply(sides[actor.team].act(battle))
    return [repr(event) for event in battle.events]
