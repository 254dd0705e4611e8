"""Battles of the shipped models, recorded as event text (the goldens' text) and hashed:
``tests/learned/test_model_file.py`` checks that the shipped models, loaded from fray's
model format, play every one of them event for event as recorded (``shipped_battles.json``:
the duel model's with the sb3 zip and the old loader before converting, the skirmish
model's when the retrained selector was shipped; rerun this module for a new model).

    PYTHONPATH=. python -m tests.learned.shipped_battles > tests/learned/shipped_battles.json
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

#: (model, scenario, seed, learner team, opponent, deterministic)
CASES: list[tuple[str, str, int, str, str, bool]] = [
    ("duel", "duel", seed, "monsters", opponent, True)
    for seed in (1, 2, 3) for opponent in ("berserker", "tactician")
] + [
    ("duel", "duel", 4, "party", "tactician", True),
    ("duel", "duel", 5, "monsters", "tactician", False),
    ("skirmish", "skirmish", 1, "monsters", "tactician", True),
    ("skirmish", "skirmish", 2, "monsters", "berserker", True),
    ("skirmish", "skirmish", 3, "monsters", "tactician", False),
]


def case_name(case: tuple[str, str, int, str, str, bool]) -> str:
    model, scenario, seed, team, opponent, deterministic = case
    mode = "argmax" if deterministic else "sampled"
    return f"learned:{model} as {team} vs {opponent} on {scenario} seed {seed} ({mode})"


def battle_lines(case: tuple[str, str, int, str, str, bool]) -> list[str]:
    """Every event's text of one battle of ``case``."""
    import agents
    import rules

    model, scenario, seed, team, opponent, deterministic = case
    battle = rules.Battle.from_scenario(scenario, seed=seed)
    players = {name: agents.make(opponent, seed=seed + 10) for name in battle.scenario.teams}
    players[team] = agents.make(f"learned:{model}", seed=seed, deterministic=deterministic)
    while not battle.is_over:
        actor = battle.combatants[battle.decision.actor]
        battle.apply(players[actor.team].act(battle))
    return [str(event) for event in battle.events]


def summary(lines: list[str]) -> dict[str, Any]:
    return {"events": len(lines), "last": lines[-1],
            "sha256": hashlib.sha256("\n".join(lines).encode()).hexdigest()}


def record() -> dict[str, dict[str, Any]]:
    return {case_name(case): summary(battle_lines(case)) for case in CASES}


if __name__ == "__main__":
    print(json.dumps(record(), indent=1, ensure_ascii=False))
