"""``fray headroom SCENARIO``: what one-step improvement over a base agent can gain
(experiments/comparison/headroom.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from experiments.paths import output_file


def run(args: argparse.Namespace) -> int:
    import agents
    import rules
    from experiments.commands import UsageError
    from experiments.commands.tournament import check_run_options
    from experiments.comparison import headroom

    if args.scenario not in rules.shipped_scenarios():
        raise UsageError(f"SCENARIO: expected a shipped scenario "
                         f"({', '.join(rules.shipped_scenarios())}), got {args.scenario!r}")
    if args.base not in agents.names():
        raise UsageError(f"--base: expected an agent name ({', '.join(agents.names())}), "
                         f"got {args.base!r}")
    for flag, value, least in (("--battles", args.battles, 1), ("--screen", args.screen, 1),
                               ("--confirm", args.confirm, 2)):
        if value < least:
            raise UsageError(f"{flag}: expected a whole number >= {least}, got {value}")
    check_run_options(args)  # --workers, --backend, --address: tournament's checks
    if args.resume and not args.out:
        raise UsageError("--resume: needs --out (the run to continue is kept beside it)")
    battles = list(range(args.first, args.first + args.battles))
    summary = headroom.run(args.scenario, battles, args.base, args.screen, args.confirm,
                           Path(args.out) if args.out else None, seed=args.seed, progress=True,
                           backend=args.backend, workers=args.workers, address=args.address,
                           resume=args.resume)
    print("\n".join(summary.lines()))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "headroom",
        description="On battles the base agent plays against itself, value every candidate "
        "of every decision by full rollouts of the base agent (common dice), confirm the "
        "best against the base agent's choice on fresh rollouts, and sum the confirmed "
        "gaps per battle. Example: fray headroom duel --battles 16 --out headroom.csv")
    p.add_argument("scenario", help="shipped scenario name")
    p.add_argument("--base", default="tactician", help="the base agent (both teams, rollouts)")
    p.add_argument("--battles", type=int, default=8, help="battles (seeds FIRST..)")
    p.add_argument("--first", type=int, default=0, help="first battle seed")
    p.add_argument("--screen", type=int, default=30, help="rollouts per candidate to screen")
    p.add_argument("--confirm", type=int, default=100,
                   help="fresh paired rollouts to confirm the screen's best")
    p.add_argument("--seed", type=int, default=0, help="seed of the rollout agent")
    p.add_argument("--out", default=None, type=output_file,
                   help="CSV file of every decision's row")
    p.add_argument("--workers", type=int, default=None,
                   help="parallel workers, a battle each (default 1: this process)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes (default) or Ray tasks, a battle each")
    p.add_argument("--address", default=None,
                   help="Ray cluster address (with --backend ray; default: start one)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run a killed driver left in --out (its finished "
                   "battles are kept in OUT-STEM.battles.jsonl beside it)")
    p.set_defaults(func=run)
