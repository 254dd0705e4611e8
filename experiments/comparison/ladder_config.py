"""What a skill ladder plays (:mod:`experiments.comparison.ladder` plays it).

Kept apart from the ladder's machinery, which imports the battle runner and scipy, so
``fray ladder --help`` shows these defaults without importing numpy (issue 50).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

DEFAULT_AGENTS = ("random", "berserker", "tactician", "mcts")
DEFAULT_SCENARIOS = ("duel", "skirmish")
SIDES = ("monsters", "party")


@dataclass(frozen=True)
class LadderConfig:
    """What to play: agents (specs), scenarios, battles per cell, the fixed opponents."""

    out: str
    agents: Sequence[str] = DEFAULT_AGENTS
    scenarios: Sequence[str] = DEFAULT_SCENARIOS
    battles: int = 200
    battles_for: dict[str, int] = field(default_factory=dict)  # per agent label
    fixed_party: str = "berserker"
    fixed_monsters: str = "berserker"
    workers: int = 1
    backend: str = "local"          # or "ray": batches of battles as Ray tasks
    address: str | None = None      # a Ray cluster to join (default: start one)
