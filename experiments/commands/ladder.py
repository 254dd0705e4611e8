"""``fray ladder``: the skill ladder (experiments/comparison/ladder.py), Wilson 95% intervals."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from experiments.comparison.ladder_config import DEFAULT_AGENTS, DEFAULT_SCENARIOS
from experiments.paths import output_folder


def _cap(text: str) -> dict[str, int]:
    """``mcts=40,tactician=100`` -> battles per cell for those agents."""
    from agents.spec import split_specs as split_list

    out: dict[str, int] = {}
    for part in split_list(text):
        name, sep, number = part.rpartition("=")
        if not sep or not number.isdigit() or int(number) < 1:
            raise ValueError(f"--battles-for: expected AGENT=N with N >= 1, got {part!r}")
        out[name] = int(number)
    return out


def time_decisions(args: argparse.Namespace) -> int:
    """``--time AGENT``: CPU time per decision instead of a ladder."""
    import statistics

    from agents.spec import split_specs as split_list
    from experiments.comparison.ladder import decision_times

    for scenario, times in decision_times(args.time, split_list(args.scenarios),
                                          opponent=args.party).items():
        if not times:
            print(f"{scenario}: no decision timed")
            continue
        times = sorted(times)
        print(f"{scenario}: {args.time} as party vs {args.party}: {len(times)} decisions, "
              f"CPU s/decision mean {statistics.mean(times):.3f}, "
              f"p90 {times[int(0.9 * (len(times) - 1))]:.3f}, max {times[-1]:.3f}")
    return 0


def _seed_range(text: str) -> range:
    """``350:700`` -> seeds 350..699; ``350:`` -> every seed from 350."""
    start, sep, stop = text.partition(":")
    if not sep or not start.isdigit() or (stop and not stop.isdigit()) \
            or (stop and int(stop) <= int(start)):
        raise ValueError(f"--seeds: expected FROM:TO with TO > FROM, or FROM:, got {text!r}")
    return range(int(start), int(stop) if stop else 2**63)


def compare_runs(args: argparse.Namespace) -> int:
    """``--paired A B``: two finished ladder runs compared battle by battle."""
    from experiments.comparison.paired import load_run, paired_rows, paired_table

    seeds = _seed_range(args.seeds) if args.seeds else None
    first, second = (load_run(spec) for spec in args.paired)
    print(paired_table(paired_rows(first, second, seeds)))
    return 0


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    import rules
    from agents.spec import split_specs as split_list
    from experiments.commands import UsageError
    from experiments.commands.tournament import check_run_options
    from experiments.comparison.ladder import LadderConfig, plan, run_ladder
    from experiments.comparison.runner import parse_agents

    if args.time:
        return time_decisions(args)
    if args.paired:
        return compare_runs(args)
    if args.seeds:
        raise UsageError("--seeds: only with --paired")

    if not args.out:
        raise UsageError("--out: expected an output folder for the ladder")
    if args.battles < 1:
        raise UsageError(f"--battles: expected a whole number >= 1, got {args.battles}")
    check_run_options(args)  # --workers, --backend, --address: tournament's checks
    scenarios = split_list(args.scenarios)
    shipped = rules.shipped_scenarios()
    for s in scenarios:
        if s not in shipped and not s.endswith(".toml"):
            raise UsageError(f"--scenarios: expected shipped names ({', '.join(shipped)}) "
                             f"or .toml paths, got {s!r}")
    labels = [spec.label for spec in parse_agents(args.agents)]
    parse_agents(f"{args.party},{args.monsters}")
    caps = _cap(args.battles_for) if args.battles_for else {}
    unknown = set(caps) - set(labels)
    if unknown:
        raise UsageError(f"--battles-for: {', '.join(sorted(unknown))} not in --agents")
    config = LadderConfig(out=args.out, agents=labels, scenarios=scenarios,
                          battles=args.battles, battles_for=caps, fixed_party=args.party,
                          fixed_monsters=args.monsters, workers=args.workers,
                          backend=args.backend, address=args.address)
    total = sum(len(specs) for _, specs in plan(config))
    start = time.perf_counter()
    with tqdm(total=total, unit="battle", desc="ladder") as bar:
        cells = run_ladder(config, progress=bar.update)
    print(Path(args.out, "ladder.md").read_text())
    print(f"{sum(c.played for c in cells)} battles, wall time "
          f"{time.perf_counter() - start:.0f} s")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ladder",
                       description="Play each agent as the monsters against a fixed party "
                       "agent and as the party against fixed monsters; report win rates "
                       "with Wilson 95%% intervals (DIR/ladder.md, DIR/ladder.csv, "
                       "DIR/battles.jsonl; a killed run resumes). Example: fray ladder "
                       "--battles 200 --battles-for mcts=40 --scenarios duel,skirmish "
                       "--out runs/ladder. With --paired A B, compare two finished runs "
                       "battle by battle on their common seeds (the sign test).")
    p.add_argument("--agents", default=",".join(DEFAULT_AGENTS),
                   help="agent specs, e.g. random,berserker,mcts(iterations=32)")
    p.add_argument("--scenarios", default=",".join(DEFAULT_SCENARIOS))
    p.add_argument("--battles", type=int, default=200, help="battles per cell")
    p.add_argument("--battles-for", default="",
                   help="fewer battles for expensive agents: AGENT=N,...")
    p.add_argument("--party", default="berserker", help="the fixed party agent")
    p.add_argument("--monsters", default="berserker", help="the fixed monsters agent")
    p.add_argument("--workers", type=int, default=1,
                   help="local worker processes (with --backend ray: Ray CPUs to start)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes (default) or Ray tasks, batches of battles each")
    p.add_argument("--address", default=None,
                   help="Ray cluster address (with --backend ray; default: start one)")
    p.add_argument("--out", type=output_folder, default=None,
                   help="output folder (required for a ladder)")
    p.add_argument("--time", default=None, metavar="AGENT",
                   help="instead: CPU time per decision of AGENT as the party vs --party "
                   "(first 60 decisions of seeds 0 and 1 per scenario)")
    p.add_argument("--paired", nargs=2, default=None, metavar=("A", "B"),
                   help="instead: compare two ladder folders (FOLDER or FOLDER#AGENT) "
                   "on the battles both played: wins, Wilson 95%%, the sign test")
    p.add_argument("--seeds", default=None, metavar="FROM:TO",
                   help="with --paired: only seeds FROM..TO-1 (FROM: for all from FROM)")
    p.set_defaults(func=run)
