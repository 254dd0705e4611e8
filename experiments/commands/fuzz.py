"""``fray fuzz``: rules fuzzing with invariant checks; failures shrunk to replay files."""

from __future__ import annotations

import argparse
from pathlib import Path

EXAMPLE = """examples:
  fray fuzz --seconds 60 --generated --out fuzz-out
  fray fuzz --seconds 30 --seed 3 --content-dir my_rules/ --out fuzz-variant
  fray replay fuzz-out/failures/00-invariant-hp.json     # re-run a shrunk failure

Checks after every action: budget, reaction limits, one body per square (also after
every event), floor squares, HP bounds, decider in action, legal actions non-empty; the
env's mask == the legal set;
sampled clone and JSON copies continue identically; replay determinism per battle.
Writes OUT/battles.jsonl (one line per battle, as it ends) and OUT/failures/*.json.
Exit 1 when a failure was found, 0 otherwise."""


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from agents.spec import split_specs
    from experiments.cli import UsageError
    from experiments.fuzzing.fuzz import Failure
    from experiments.fuzzing.fuzz_campaign import Summary, campaign, default_agents

    if args.seconds <= 0:
        raise UsageError(f"--seconds: expected a positive number, got {args.seconds}")
    if args.seed < 0:
        raise UsageError(f"--seed: expected a whole number >= 0, got {args.seed}")
    if args.battles is not None and args.battles < 1:
        raise UsageError(f"--battles: expected a positive whole number, got {args.battles}")
    pool = split_specs(args.agents) if args.agents else default_agents()
    _check_agents(pool)
    if args.content_dir is not None and not Path(args.content_dir).is_dir():
        raise UsageError(f"--content-dir: expected a folder of content TOML, got "
                         f"{args.content_dir!r}")
    bar = tqdm(total=round(args.seconds), unit="s", desc="fuzz", leave=False,
               bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} s {postfix}")

    def shrinking(failure: Failure) -> None:
        bar.set_description(f"shrinking {failure.kind} {failure.name}")

    def progress(summary: Summary) -> None:
        bar.set_description("fuzz")
        bar.n = min(bar.total, summary.seconds)
        bar.set_postfix_str(f"{summary.battles} battles, {summary.rate:.0f} decisions/s, "
                            f"{len(summary.found)} failures")

    try:
        summary = campaign(Path(args.out), seconds=args.seconds, generated=args.generated,
                           seed=args.seed, content_dir=args.content_dir,
                           battles=args.battles, agent_pool=pool,
                           shrink_seconds=args.shrink_seconds, on_battle=progress,
                           on_shrink=shrinking)
    finally:
        bar.close()
    print(f"{summary.decisions} decisions checked in {summary.battles} battles, "
          f"{summary.seconds:.1f} s: {summary.rate:.0f} decisions/s "
          f"({summary.cpu_rate:.0f} per CPU second)")
    for found in summary.found:
        if found.failure.kind == "scenario":
            size = "a generated scenario that only some seeds accept"
        elif found.shrunk_to is not None:
            size = f"shrunk {found.decisions} -> {found.shrunk_to} actions"
        else:
            size = "not shrunk (does not reproduce from its choices)"
        print(f"FAILURE {found.failure} ({size}): {found.path}")
    if not summary.found:
        print("no failures")
    return 1 if summary.found else 0


def _check_agents(names: list[str]) -> None:
    from experiments.commands.watch import check_agent_names

    check_agent_names(*names)


def add_parser(sub: argparse._SubParsersAction) -> None:
    f = sub.add_parser("fuzz", help="fuzz the rules with invariant checks",
                       description="Fuzz the rules: random and scripted agents on every "
                       "shipped (and with --generated, randomly generated) scenario.",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    f.add_argument("--seconds", type=float, default=60.0, help="time budget (default 60)")
    f.add_argument("--generated", action="store_true",
                   help="also fuzz randomly generated scenarios (every other battle)")
    f.add_argument("--seed", type=int, default=0, help="seed of the whole campaign")
    f.add_argument("--battles", type=int, default=None, help="stop after this many battles")
    f.add_argument("--agents", default=None,
                   help="comma-separated agent pool (default: random and scripted agents)")
    f.add_argument("--content-dir", default=None, help="a folder of content TOML")
    f.add_argument("--shrink-seconds", type=float, default=20.0,
                   help="time budget for shrinking each distinct failure")
    f.add_argument("--out", required=True, help="output folder")
    f.set_defaults(func=run)
