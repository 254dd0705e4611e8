"""A fixed workload for instruction counts: ``battles`` whole battles of a scenario, one
agent (a spec such as ``random`` or ``mcts(iterations=8)``) playing both teams, battle
and agent seeds 0, 1, 2, ... It prints the decisions made, nothing timed: run it under
``valgrind --tool=callgrind`` (with ``PYTHONHASHSEED=0``) and subtract the count of
``--battles 0`` (imports, content, the map's graph) to get the battles' own instructions:

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python -m experiments.benchmarks.workload duel --battles 10

``--no-freeze`` leaves the garbage collector as Python starts it (experiments/heap.py).
docs/performance.md has the counts.
"""

from __future__ import annotations

import argparse

import rules
from experiments.benchmarks.decisions import play
from experiments.heap import freeze_shared
from experiments.runner import AgentSpec


def run(scenario: str, battles: int, agent: str, freeze: bool = True) -> int:
    """Play the battles; the number of decisions made."""
    spec = AgentSpec.parse(agent)
    rules.Battle.from_scenario(scenario, seed=0).legal_actions()  # content and graph
    if freeze:
        freeze_shared([scenario])
    decisions = 0
    for seed in range(battles):
        battle = rules.Battle.from_scenario(scenario, seed=seed)
        decisions += play(battle, spec.make(seed=seed))
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", nargs="?", default="duel")
    parser.add_argument("--battles", type=int, default=10)
    parser.add_argument("--agent", default="random")
    parser.add_argument("--no-freeze", action="store_true")
    args = parser.parse_args()
    decisions = run(args.scenario, args.battles, args.agent, not args.no_freeze)
    print(f"{args.battles} {args.scenario} battles, {args.agent} both teams: "
          f"{decisions} decisions")


if __name__ == "__main__":
    main()
