"""Resident memory over many battles on one engine (issue 23: "resident memory stays flat
over 100,000 native battles"): whole random-play battles, one after another in one
process, the resident set size printed at every tenth of the run.

    python -m experiments.benchmarks.memory --battles 100000 --scenario duel --engine native
    python -m experiments.benchmarks.memory --battles 100000 --agent random  # via apply

Every bounded cache fills in the first battles (the reach answers, the compiled maps, the
records' action cache), so the figure to read is the growth after the first tenth: a leak
grows it in proportion to the battles played.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

import agents
import rules
from experiments.benchmarks.decisions import play


def resident_mib() -> float:
    """This process's resident set size now, in MiB (from /proc; the peak elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(battles: int, scenario: str, engine: str, out: object = sys.stdout,
        agent: str | None = None) -> list[float]:
    """Play ``battles`` random battles (``Battle.random_play``, inside the engine on the
    native one; or ``agent`` for both teams, deciding in Python through ``apply``); the
    resident MiB after each tenth of them."""
    marks: list[float] = []
    step = max(1, battles // 10)
    start = time.perf_counter()
    decisions = 0
    for seed in range(battles):
        battle = rules.Battle.from_scenario(scenario, seed=seed, engine=engine)
        if agent is None:
            decisions += battle.random_play(seed)
        else:
            decisions += play(battle, agents.make(agent, seed=seed))
        if (seed + 1) % step == 0:
            marks.append(resident_mib())
            print(f"{seed + 1:>8} battles {decisions:>10} decisions "
                  f"{time.perf_counter() - start:8.1f} s  resident {marks[-1]:8.1f} MiB",
                  file=out, flush=True)
    return marks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--battles", type=int, default=10_000)
    parser.add_argument("--scenario", default="duel")
    parser.add_argument("--engine", choices=rules.engine.ENGINES, default="native")
    parser.add_argument("--agent", default=None,
                        help="an agent deciding for both teams in Python (e.g. random); "
                        "default: Battle.random_play")
    args = parser.parse_args(argv)
    marks = run(args.battles, args.scenario, args.engine, agent=args.agent)
    growth = marks[-1] - marks[0] if len(marks) > 1 else 0.0
    print(f"growth after the first tenth: {growth:+.1f} MiB over "
          f"{args.battles - args.battles // 10} battles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
