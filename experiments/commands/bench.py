"""``fray bench [--quick] [--json FILE] [--differential FILE]``: every speed figure in
one run, with targets.

Prints medians over repeats with their min-max range and the machine's core count:
headless decisions/s and battles/s (random and tactician agents on duel, skirmish and
horde), clone() and JSON round trips, memory per battle and per env, the first decision
on a generated 300x300 map, p50/p99 decision time in a generated 20-vs-20 battle, the
reach graph next to scipy's Dijkstra, Gymnasium, PettingZoo AEC and AsyncVectorEnv steps/s
next to PettingZoo's connect_four_v3, and MaskablePPO next to sb3-contrib's
InvalidActionEnvDiscrete; then the native engine against the Python engine in the same run
(random skirmish, the random-play loop on skirmish and horde, clone(), the first decision
on a 300x300 map; n/a where the native engine is not built), with ``--differential FILE``
the record of a differential fuzzing run. Then every speed target, grouped by what it
measures, with PASS or MISS: MISS means this run's median falls short of the target on
this machine (load and core count move it), a goal not reached yet rather than a broken
install. ``--quick`` takes about a minute on two cores; the full run several. See
docs/performance.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments.commands import UsageError
from experiments.paths import output_file

EXAMPLE = """examples:
  fray bench --quick                  # about a minute
  fray bench --json bench.json        # every figure, also written as JSON as it goes
  fray bench --differential fuzz.json # judge the differential fuzzing target on a record"""


def run(args: argparse.Namespace) -> int:
    from experiments.benchmarks import suite

    json_path = Path(args.json) if args.json else None
    if json_path is not None and not json_path.parent.is_dir():
        raise UsageError(f"--json: expected a file in an existing folder, found "
                         f"{str(json_path)!r} (no folder {str(json_path.parent)!r})")
    record = Path(args.differential) if args.differential else None
    if record is not None:
        from experiments.benchmarks import engines

        why = engines.read_record(record)
        if why is not None:
            raise UsageError(f"--differential: expected a differential fuzzing record, "
                             f"found {str(record)!r} ({why})")
    suite.run(args.quick, sys.stdout, json_path, record)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    b = sub.add_parser("bench", description=__doc__, epilog=EXAMPLE,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    b.add_argument("--quick", action="store_true",
                   help="fewer repeats and smaller runs (about a minute)")
    b.add_argument("--json", metavar="FILE", type=output_file,
                   help="also write every figure and target to FILE (rewritten as it goes)")
    b.add_argument("--differential", metavar="FILE",
                   help='a differential fuzzing record, JSON {"decisions": N, "differences": '
                        'M}, for the native engine target (without it: n/a)')
    b.set_defaults(func=run)
