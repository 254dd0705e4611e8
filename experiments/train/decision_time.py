"""Seconds per decision of agents on the same battles: the measure behind "at equal time
per decision" (issue 49: az against ``mcts(iterations=2000)``).

Each agent commands ``team`` against ``opponent`` on battles ``seed .. seed + battles - 1``,
the agents taking turns battle by battle (battle ``i`` for every agent, then battle
``i + 1``), so a machine whose load changes during the run slows them alike. Only the
agent's own ``act`` calls are timed (``time.perf_counter``), reactions included; the
opponent's are not. The agent is given to :func:`experiments.replay.play` as a player, so
it decides through ``act`` even where the engine could play the whole battle natively.

    python -m experiments.train.decision_time duel_fair \\
        --agents "mcts(iterations=2000),az(path=NET.json,iterations=32)" --battles 20 --seed 5100
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import rules
from agents.spec import split_specs


@dataclass
class DecisionTime:
    """An agent's decisions and the seconds its ``act`` calls took in all."""

    decisions: int = 0
    seconds: float = 0.0

    @property
    def mean(self) -> float:
        """Seconds a decision (0 with no decisions)."""
        return self.seconds / self.decisions if self.decisions else 0.0


class _Timed:
    """An agent whose ``act`` calls are counted and timed into ``tally``."""

    def __init__(self, agent: Any, tally: DecisionTime) -> None:
        self.agent = agent
        self.tally = tally

    def act(self, battle: rules.Battle) -> rules.Action:
        start = time.perf_counter()
        action = self.agent.act(battle)
        self.tally.seconds += time.perf_counter() - start
        self.tally.decisions += 1
        return action

    def __getattr__(self, name: str) -> Any:  # reason, observe hooks: the agent's own
        return getattr(self.agent, name)


def measure(scenario: str, agent_specs: Sequence[str], battles: int, seed: int = 0,
            team: str = "monsters", opponent: str = "tactician") -> dict[str, DecisionTime]:
    """Each agent's decisions and seconds over the same battles (agents interleaved)."""
    import agents
    from experiments.replay import play

    if battles < 1:
        raise ValueError(f"battles: expected at least 1, got {battles}")
    teams = rules.load_scenario(scenario, rules.default_content()).teams
    if team not in teams:
        raise ValueError(f"team: expected one of {', '.join(teams)}, got {team!r}")
    tallies = {spec: DecisionTime() for spec in agent_specs}
    for battle_seed in range(seed, seed + battles):
        for spec in agent_specs:
            player = _Timed(agents.make(spec, seed=battle_seed), tallies[spec])
            names = {t: (spec if t == team else opponent) for t in teams}
            play(scenario, battle_seed, names, players={team: player}, events=False)
    return tallies


def main(argv: Sequence[str] | None = None) -> int:
    """Print each agent's decisions, seconds and seconds a decision."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario")
    parser.add_argument("--agents", required=True, help="comma-separated agent specs")
    parser.add_argument("--opponent", default="tactician")
    parser.add_argument("--team", default="monsters")
    parser.add_argument("--battles", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        specs = split_specs(args.agents)
        tallies = measure(args.scenario, specs, args.battles, args.seed, args.team,
                          args.opponent)
    except (ValueError, rules.FrayError) as exc:
        print(f"decision_time: error: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    print("agent,decisions,seconds,seconds_per_decision")
    for spec, tally in tallies.items():
        print(f"\"{spec}\",{tally.decisions},{tally.seconds:.3f},{tally.mean:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
