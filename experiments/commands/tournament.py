"""``fray tournament``: a round robin over agents x scenarios with a summary and plots."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.paths import output_folder
from experiments.workers import default_workers

if TYPE_CHECKING:  # the heavy modules load when a command runs, not for --help
    from experiments.comparison.summary import Summary
    from experiments.comparison.tournament import TournamentConfig

EXAMPLE = """example:
  fray tournament --agents random,berserker --scenarios duel,skirmish --battles 20 \\
      --out runs/t1
  fray tournament ... --out runs/t1 --resume        # continue a killed run
  fray tournament ... --backend ray [--address HOST:PORT]
agent specs take factory arguments: mcts(iterations=20)

writes DIR/battles.jsonl (one record per battle, as it ends), DIR/replays/, DIR/summary.csv,
DIR/summary.json, DIR/heatmap.png, DIR/ratings.png, DIR/rounds.png, and DIR/battle.html,
the replay viewer page of one battle (--page N picks it: the N-th battle record, 0 first)"""

PAGE_FILE = "battle.html"


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Options every command that plays many battles takes."""
    parser.add_argument("--seed", type=int, default=0,
                        help="tournament seed; battle seeds derive from it (default 0)")
    parser.add_argument("--workers", type=int, default=None,
                        help=f"parallel workers (default: all cores, {default_workers()})")
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="local processes (default) or Ray tasks")
    parser.add_argument("--address", default=None,
                        help="Ray cluster address (with --backend ray; default: start one)")
    parser.add_argument("--content-dir", default=None,
                        help="a folder of content TOML files (a rules variant)")


def check_run_options(args: argparse.Namespace) -> None:
    """One-line errors for run options argparse cannot check."""
    from experiments.commands import UsageError
    from experiments.comparison.runner import check_address

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: expected a whole number >= 1, got {args.workers}")
    if args.address and args.backend != "ray":
        raise UsageError("--address: only with --backend ray")
    if args.address:
        check_address(args.address)


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`run_tournament` from the parsed options."""
    return {"backend": args.backend, "workers": args.workers, "address": args.address}


def write_battle_page(out: Path, record: dict[str, Any], name: str = PAGE_FILE) -> Path:
    """The viewer page of one tournament battle (its compact replay re-simulated)."""
    from experiments.replay import Replay
    from experiments.viewer import write_page

    return write_page(Replay.load(out / record["replay"]), out / name)


def write_report(out: Path, config: TournamentConfig, records: list[dict[str, Any]],
                 title: str = "Tournament") -> Summary:
    """Summary files and plots of a finished tournament; the summary."""
    from experiments.comparison import plots
    from experiments.comparison.summary import summarize, write_summary

    summary = summarize(records, [agent.label for agent in config.agents], seed=config.seed)
    write_summary(out, summary)
    plots.matchup_heatmap(summary.agents, summary.matchup, out / "heatmap.png",
                          title=f"{title}\nscore rate of row against column (n: battles)",
                          battles=summary.matchup_battles)
    plots.ratings_plot(summary.ratings, out / "ratings.png",
                       title=f"{title}: Plackett-Luce ratings")
    plots.rounds_histogram(records, out / "rounds.png", title=f"{title}: battle length")
    return summary


def run(args: argparse.Namespace) -> int:
    from experiments.commands import UsageError
    from experiments.comparison.runner import parse_agents
    from experiments.comparison.summary import table_text
    from experiments.comparison.tournament import config_from, parse_scenarios, run_tournament

    check_run_options(args)
    config = config_from(parse_agents(args.agents), parse_scenarios(args.scenarios),
                         args.battles, args.seed, args.content_dir)
    out = Path(args.out)
    records = run_tournament(config, out, resume=args.resume, **run_options(args))
    summary = write_report(out, config, records)
    if records and not 0 <= args.page < len(records):
        raise UsageError(f"--page: expected a battle index from 0 to {len(records) - 1}, "
                         f"got {args.page}")
    page = write_battle_page(out, records[args.page]) if records else None
    print(table_text(summary))
    print(f"\n{len(records)} battles in {out}/ (battles.jsonl, summary.csv, summary.json, "
          f"heatmap.png, ratings.png, rounds.png, replays/"
          + (f", {page.name} (battle {args.page})" if page else "") + ")")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("tournament",
                       description="Round robin: every pair of agents on every scenario, "
                       "N battles per pairing and side, sides swapped on the same seeds.",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    t.add_argument("--agents", required=True, help="comma list of agent specs")
    t.add_argument("--scenarios", required=True, help="comma list of scenario names or paths")
    t.add_argument("--battles", type=int, required=True,
                   help="battles per pairing and side")
    t.add_argument("--out", type=output_folder, required=True, help="output folder")
    t.add_argument("--resume", action="store_true",
                   help="continue the run in --out (plays only the missing battles)")
    t.add_argument("--page", type=int, default=0,
                   help=f"which battle record gets the viewer page {PAGE_FILE} (default 0)")
    add_run_options(t)
    t.set_defaults(func=run)
