"""A fixed workload for instruction counts: ``battles`` whole battles of a scenario, one
agent (a spec such as ``random`` or ``mcts(iterations=8)``) playing both teams, battle
and agent seeds 0, 1, 2, ... It prints the decisions made, nothing timed: run it under
``valgrind --tool=callgrind`` (with ``PYTHONHASHSEED=0``) and subtract the count of
``--battles 0`` (imports, content, the map's graph) to get the battles' own instructions:

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python -m experiments.benchmarks.workload duel --battles 10

``--no-freeze`` leaves the garbage collector as Python starts it (experiments/heap.py);
``--gc-report`` prints the collections made while the battles played, per generation, with
their thread CPU time and the longest pause. docs/performance.md has the counts.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections import defaultdict
from typing import Any

import rules
from experiments.benchmarks.decisions import play
from experiments.comparison.runner import AgentSpec
from experiments.heap import freeze_shared


class GcReport:
    """Every collection made while it is on: generation and thread CPU seconds."""

    def __init__(self) -> None:
        self.pauses: list[tuple[int, float]] = []
        self.cpu_seconds = 0.0  # of the battles
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.thread_time()
        else:
            self.pauses.append((info["generation"], time.thread_time() - self._start))

    def lines(self) -> list[str]:
        by_generation: dict[int, list[float]] = defaultdict(list)
        for generation, seconds in self.pauses:
            by_generation[generation].append(seconds)
        total = sum(seconds for _, seconds in self.pauses)
        out = [f"garbage collection: {total:.3f} s of {self.cpu_seconds:.3f} s CPU "
               f"({100 * total / max(self.cpu_seconds, 1e-9):.1f}%)"]
        for generation, times in sorted(by_generation.items()):
            out.append(f"  generation {generation}: {len(times)} collections, "
                       f"{sum(times):.3f} s, longest {1000 * max(times):.1f} ms")
        return out


def run(scenario: str, battles: int, agent: str, freeze: bool = True,
        report: GcReport | None = None) -> int:
    """Play the battles (``report`` sees the collections made meanwhile); the number of
    decisions made."""
    spec = AgentSpec.parse(agent)
    rules.Battle.from_scenario(scenario, seed=0).legal_actions()  # content and graph
    if freeze:
        freeze_shared([scenario])
    if report is not None:
        gc.callbacks.append(report)
    start = time.process_time()
    decisions = 0
    for seed in range(battles):
        battle = rules.Battle.from_scenario(scenario, seed=seed)
        decisions += play(battle, spec.make(seed=seed))
    if report is not None:
        gc.callbacks.remove(report)
        report.cpu_seconds = time.process_time() - start
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", nargs="?", default="duel")
    parser.add_argument("--battles", type=int, default=10)
    parser.add_argument("--agent", default="random")
    parser.add_argument("--no-freeze", action="store_true")
    parser.add_argument("--gc-report", action="store_true")
    args = parser.parse_args()
    report = GcReport() if args.gc_report else None
    decisions = run(args.scenario, args.battles, args.agent, not args.no_freeze, report)
    print(f"{args.battles} {args.scenario} battles, {args.agent} both teams: "
          f"{decisions} decisions")
    if report is not None:
        print("\n".join(report.lines()))


if __name__ == "__main__":
    main()
