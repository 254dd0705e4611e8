"""``fray fuzz``: rules fuzzing with invariant checks; failures shrunk to replay files."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.paths import output_folder

if TYPE_CHECKING:
    from experiments.fuzzing.fuzz import Checks

EXAMPLE = """examples:
  fray fuzz --seconds 60 --generated --out fuzz-out
  fray fuzz --seconds 30 --seed 3 --content-dir my_rules/ --out fuzz-variant
  fray replay fuzz-out/failures/00-invariant-hp.json     # re-run a shrunk failure
  fray fuzz --differential --seconds 600 --generated --seed 1 --out diff-out
  fray fuzz --differential --json-every 1 --seconds 600 --out diff-slow  # whole JSON each time
  fray replay diff-out/failures/00-differential-legal.json  # compares the engines again
  fray fuzz --native-loop --seconds 600 --generated --out loop-out  # random play in C++
  fray fuzz --inputs --seconds 60 --seed 1 --out inputs-out  # mutated saves, both engines

Checks after every action: budget, reaction limits, one body per square (also after
every event), floor squares, HP bounds, decider in action, legal actions non-empty; the
env's mask == the legal set;
sampled clone and JSON copies continue identically; replay determinism per battle.
With --differential (needs the native engine built): every battle is played on the
Python and the native engine with the same actions (chosen on the Python battle), and
after every decision the decision, legal_actions() (same actions, same order), the new
events and the whole state but the event log must be equal, and the whole to_json() text
every --json-every decisions (default 100; it is O(events): at every decision it costs
10-20 times the rest) and at the end; the first difference is a failure of kind
differential (legal, events, state, json, decision or exception), shrunk
and written like any other. OUT/differential.json keeps the totals, for
fray bench --differential OUT/differential.json.
With --native-loop (needs the native engine built): random battles played inside the
engine (Battle.random_play) with its cheap invariants checked natively (bodies after
every event, bounds after every decision), the full invariants every 50 decisions and
determinism per battle; a failing battle is played again decision by decision under all
the checks above, then shrunk and written like any other.
With --inputs (needs the native engine built): saved battles of shipped scenarios at
several points of play, mutated the way a fuzzer does (type swaps, boundary ints,
deletes, duplicates, cross-field swaps), each loaded on both engines in a worker process
(a crash is a signal caught there): the verdicts must be equal (accepted, or refused with
the same one-line message), an accepted save must satisfy the state invariants and play
on identically on both engines; OUT/inputs.json keeps the counts per class.
Writes OUT/battles.jsonl (one line per battle, as it ends) and OUT/failures/*.json.
Exit 1 when a failure was found, 0 otherwise."""


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from agents.spec import split_specs
    from experiments.commands import UsageError
    from experiments.commands.tournament import check_run_options
    from experiments.fuzzing.fuzz import Failure
    from experiments.fuzzing.fuzz_campaign import Summary, campaign, default_agents
    from rules.content import content_for

    if not (math.isfinite(args.seconds) and args.seconds > 0):
        raise UsageError(f"--seconds: expected a positive number of seconds, got {args.seconds}")
    if not (math.isfinite(args.shrink_seconds) and args.shrink_seconds >= 0):
        raise UsageError(f"--shrink-seconds: expected a number of seconds >= 0, got "
                         f"{args.shrink_seconds}")
    if args.seed < 0:
        raise UsageError(f"--seed: expected a whole number >= 0, got {args.seed}")
    if args.inputs:
        return _run_inputs(args)
    if args.battles is not None and args.battles < 1:
        raise UsageError(f"--battles: expected a positive whole number, got {args.battles}")
    check_run_options(args)  # --workers, --backend, --address: tournament's checks
    pool = split_specs(args.agents) if args.agents else default_agents()
    _check_agents(pool)
    if args.content_dir is not None and not Path(args.content_dir).is_dir():
        raise UsageError(f"--content-dir: expected a folder of content TOML, got "
                         f"{args.content_dir!r}")
    content_for(args.content_dir)  # a bad content file is one line, before the progress bar
    checks = _differential_checks(args)
    if args.native_loop:
        _need_native("--native-loop", "play inside")
        if args.differential:
            raise UsageError("--native-loop and --differential: choose one")
    checked = "compared on both engines" if args.differential else "checked"
    bar = tqdm(total=round(args.seconds), unit="s", desc="fuzz", leave=False,
               bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} s {postfix}")

    def shrinking(failure: Failure) -> None:
        bar.set_description(f"shrinking {failure.kind} {failure.name}")

    def progress(summary: Summary) -> None:
        bar.set_description("fuzz")
        bar.n = min(bar.total, summary.seconds)
        bar.set_postfix_str(f"{summary.battles} battles, {summary.rate:.0f} decisions/s, "
                            f"{len(summary.found)} "
                            f"{'differences' if args.differential else 'failures'}")

    options: dict[str, Any] = {}
    runner = campaign
    if args.backend == "ray" or (args.workers or 1) > 1 or args.resume:
        from experiments.fuzzing import fuzz_distributed  # batches of battles on workers

        runner = fuzz_distributed.campaign
        options = {"backend": args.backend, "workers": args.workers,
                   "address": args.address, "resume": args.resume}
    try:
        summary = runner(Path(args.out), seconds=args.seconds, generated=args.generated,
                         seed=args.seed, content_dir=args.content_dir,
                         battles=args.battles, agent_pool=pool,
                         shrink_seconds=args.shrink_seconds, on_battle=progress,
                         on_shrink=shrinking, checks=checks,
                         differential=args.differential, native_loop=args.native_loop,
                         **options)
    finally:
        bar.close()
    print(f"{summary.decisions} decisions {checked} in {summary.battles} battles, "
          f"{summary.seconds:.1f} s: {summary.rate:.0f} decisions/s "
          f"({summary.cpu_rate:.0f} per CPU second)")
    for found in summary.found:
        if found.failure.kind == "scenario":
            size = "a generated scenario that only some seeds accept"
        elif found.shrunk_to is not None:
            size = f"shrunk {found.decisions} -> {found.shrunk_to} actions"
        else:
            size = "not shrunk (does not reproduce from its choices)"
        label = "DIFFERENCE" if found.failure.kind == "differential" else "FAILURE"
        print(f"{label} {found.failure} ({size}): {found.path}")
    if args.differential:
        differences = sum(f.failure.kind == "differential" for f in summary.found)
        print(f"{differences} difference{'' if differences == 1 else 's'} between the "
              f"engines")
    elif not summary.found:
        print("no failures")
    return 1 if summary.found else 0


def _run_inputs(args: argparse.Namespace) -> int:
    """``fray fuzz --inputs``: mutated saves on both engines (experiments.fuzzing.inputs)."""
    from experiments.commands import UsageError
    from experiments.fuzzing.inputs import CLASSES, campaign

    if args.differential or args.native_loop:
        raise UsageError("--inputs: not with --differential or --native-loop")
    _need_native("--inputs", "compare the Python engine with")
    tally = campaign(Path(args.out), seconds=args.seconds, seed=args.seed,
                     mutants=args.battles)
    tried = sum(tally.tried.values())
    print(f"{tried} mutated saves checked on both engines in {tally.seconds:.1f} s "
          f"({tried / max(tally.seconds, 1e-9):.1f}/s)")
    for kind in CLASSES:
        print(f"  {kind:<10} {tally.tried[kind]:>6} tried {tally.accepted[kind]:>6} accepted "
              f"{tally.refused[kind]:>6} refused")
    for found in tally.problems:
        print(f"FAILURE {found['class']} at {found['path']}: {found['verdict']}: "
              f"{found['problem'][:200]}: {Path(args.out) / 'failures' / found['file']}")
    if not tally.problems:
        print("no failures")
    return 1 if tally.problems else 0


def _differential_checks(args: argparse.Namespace) -> Checks | None:
    """The checks of ``--differential`` (None without it); one line when it cannot run."""
    from experiments.commands import UsageError

    if args.json_every is not None and not args.differential:
        raise UsageError("--json-every: only with --differential")
    if not args.differential:
        return None
    from experiments.fuzzing.differential import JSON_EVERY, differential_checks

    _need_native("--differential", "compare the Python engine with")
    every = JSON_EVERY if args.json_every is None else args.json_every
    if every < 0:
        raise UsageError(f"--json-every: expected a whole number >= 0, got {every}")
    return differential_checks(json_every=every)


def _need_native(option: str, what: str) -> None:
    """One line (exit 2) when the native engine is not built."""
    from experiments.commands import UsageError
    from rules import engine

    if not engine.native_available():
        raise UsageError(f"{option}: the native engine is not built here, so there is "
                         f"nothing to {what} (build it with a C++20 compiler and "
                         "`pip install -e .`)")


def _check_agents(names: list[str]) -> None:
    from experiments.commands.watch import check_agent_names

    check_agent_names(*names)


def add_parser(sub: argparse._SubParsersAction) -> None:
    f = sub.add_parser("fuzz", description="Fuzz the rules: random and scripted agents on every "
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
    f.add_argument("--differential", action="store_true",
                   help="play every battle on both engines and compare them after every "
                   "decision (needs the native engine)")
    f.add_argument("--native-loop", action="store_true",
                   help="play random battles inside the native engine, its invariants "
                   "checked there (needs the native engine)")
    f.add_argument("--inputs", action="store_true",
                   help="mutate saved battles and load them on both engines: same verdict, "
                   "no crash, accepted ones play alike (needs the native engine; --battles: "
                   "stop after this many mutants)")
    f.add_argument("--json-every", type=int, default=None, metavar="N",
                   help="with --differential: compare to_json() every N decisions "
                   "(default 100; 0: only at the end of each battle; the rest of the state "
                   "is compared at every decision)")
    f.add_argument("--workers", type=int, default=None,
                   help="worker processes (default 1: this process; more, or --backend ray, "
                   "play batches of battles in parallel with the same results)")
    f.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes (default) or Ray tasks of 8 battles each")
    f.add_argument("--address", default=None,
                   help="Ray cluster address (with --backend ray; default: start one)")
    f.add_argument("--resume", action="store_true",
                   help="continue the campaign a killed run left in --out (same --seed, "
                   "--generated, --agents): its battles are not played again")
    f.add_argument("--out", type=output_folder, required=True, help="output folder")
    f.set_defaults(func=run)
