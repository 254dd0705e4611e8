"""``fray demo``: the main job, a small tactic comparison on the default scenario.

mcts (at a small budget), tactician, berserker and random play a round robin on
``skirmish`` with the sides swapped: 40 battles per pairing and side, 2 for the mcts
pairings (a battle with mcts takes about 20x the CPU time of one without), 252 battles
on all cores; the demo prints why mcts played fewer. Agents not registered (yet) are
skipped, and the demo says so. It prints the results table (win/draw/loss with Wilson 95% intervals,
ratings, mean rounds) and writes into one folder (``./fray-demo/`` by default):
``battles.jsonl``, ``summary.csv``, ``summary.json``, ``heatmap.png``, ``ratings.png``,
``rounds.png``, ``replays/`` (compact) and ``demo-replay.json``, one whole battle between
the two best agents with its events, and ``demo-replay.html``, that battle in the offline
replay viewer (open it in a browser). Running it again on the same folder resumes: a
finished demo plays nothing more and prints the table again.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.commands.tournament import add_run_options, check_run_options, run_options
from experiments.paths import output_folder

if TYPE_CHECKING:
    from experiments.comparison.runner import AgentSpec
    from experiments.comparison.tournament import TournamentConfig

DEFAULT_OUT = "fray-demo"
SCENARIO = "skirmish"
BATTLES = 40            # per pairing and side
MCTS_BATTLES = 2        # per pairing and side for the mcts pairings
# a small search budget: 3-5 s of CPU per skirmish battle with mcts, 0.1-0.4 s without
# (one battle each way on seeds 1 and 2 against tactician, berserker, random)
MCTS_OPTIONS: dict[str, Any] = {"iterations": 4, "rollout_depth": 4}
MCTS_COST = "about 20x"   # the CPU time of a battle with mcts against one without
# the slow searcher first: its long battles start first and the pool ends evenly
DEMO_AGENTS = ("mcts", "tactician", "berserker", "random")
REPLAY_FILE = "demo-replay.json"
PAGE_FILE = "demo-replay.html"

EXAMPLE = """example:
  fray demo                       # writes ./fray-demo/
  fray demo --out runs/demo --battles 10 --workers 2"""


def demo_agents() -> tuple[list[AgentSpec], list[str]]:
    """The demo's agent specs that can be built, and the names skipped (with why)."""
    import agents
    from experiments.comparison.runner import AgentSpec, RunnerError

    registered = set(agents.names())
    chosen, skipped = [], []
    for name in DEMO_AGENTS:
        if name not in registered:
            skipped.append(f"{name} (not registered yet)")
            continue
        options = MCTS_OPTIONS if name == "mcts" else {}
        spec = AgentSpec(name, tuple(options.items()))
        try:
            spec.make(seed=0)
        except RunnerError as exc:
            skipped.append(f"{name} ({exc})")
            continue
        chosen.append(spec)
    return chosen, skipped


def battles_per_agent(config: TournamentConfig) -> dict[str, int]:
    """How many battles each agent of ``config`` plays (both sides, every pairing)."""
    counts = {agent.label: 0 for agent in config.agents}
    for a, b in config.pairings():
        counts[a.label] += 2 * config.battles_for(a, b)
        counts[b.label] += 2 * config.battles_for(a, b)
    return counts


def capped_line(config: TournamentConfig) -> str | None:
    """Why mcts played fewer battles than the others (None when it did not)."""
    counts = battles_per_agent(config)
    capped = [label for label, cap in config.caps if cap < config.battles]
    others = [count for label, count in counts.items() if label not in capped]
    if not capped or not others:
        return None
    return (f"{' and '.join(capped)} plays {', '.join(str(counts[c]) for c in capped)} "
            f"battles, the others {max(others)} each: {MCTS_BATTLES} per pairing and side, "
            f"not {config.battles}, as a battle with mcts at this budget takes {MCTS_COST} "
            "the CPU time of one without (so its intervals are wider)")


def save_full_replay(out: Path, records: list[dict[str, Any]], best: list[str]) -> Path:
    """Re-simulate the first battle between the two best agents and save it with events."""
    from experiments.replay import Replay, rerun

    pair = set(best[:2])
    record = next((r for r in records if set(r["agents"].values()) == pair), records[0])
    replay = Replay.load(out / record["replay"])
    replay.finish(rerun(replay))
    return replay.save(out / REPLAY_FILE)


def replace_other_settings(out: Path, settings: dict[str, Any]) -> bool:
    """Remove a previous demo's battles from ``out`` if it used other settings."""
    import json
    import shutil

    from experiments.comparison.tournament import BATTLES_FILE, CONFIG_FILE, REPLAY_DIR

    stored = out / CONFIG_FILE
    if not stored.exists() or json.loads(stored.read_text(encoding="utf-8")) == settings:
        return False
    (out / BATTLES_FILE).unlink(missing_ok=True)
    shutil.rmtree(out / REPLAY_DIR, ignore_errors=True)
    stored.unlink()
    return True


def run(args: argparse.Namespace) -> int:
    from experiments.commands import UsageError
    from experiments.commands.tournament import write_battle_page, write_report
    from experiments.comparison.summary import table_text
    from experiments.comparison.tournament import config_from, run_tournament

    check_run_options(args)
    if args.battles < 1:
        raise UsageError(f"--battles: expected a whole number >= 1, got {args.battles}")
    started = time.perf_counter()
    chosen, skipped = demo_agents()
    if skipped:
        print(f"skipped: {', '.join(skipped)}")
    caps = {spec.label: min(args.battles, MCTS_BATTLES) for spec in chosen
            if spec.name == "mcts"}
    config = config_from(chosen, [SCENARIO], args.battles, args.seed, args.content_dir, caps)
    out = Path(args.out)
    battles = sum(2 * config.battles_for(a, b) for a, b in config.pairings())
    print(f"fray demo: {', '.join(a.label for a in chosen)} on {SCENARIO}, {battles} battles "
          f"(sides swapped) into {out}/")
    why = capped_line(config)
    if why:
        print(why)
    if replace_other_settings(out, config.to_dict()):
        print(f"replacing the previous demo in {out}/ (it was played with other settings)")
    records = run_tournament(config, out, resume=True, **run_options(args))
    summary = write_report(out, config, records, title=f"fray demo ({SCENARIO})")
    ranked = [row.agent for row in sorted(summary.overall(), key=lambda row: -(row.rating_mu or 0))]
    replay = save_full_replay(out, records, ranked)
    page = write_battle_page(out, {"replay": replay.name}, PAGE_FILE)
    print()
    print(table_text(summary))
    print(f"\nwrote {out}/: battles.jsonl, summary.csv, summary.json, heatmap.png, "
          f"ratings.png, rounds.png, replays/, {replay.name}, {page.name}")
    print(f"wall time {time.perf_counter() - started:.1f} s")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser("demo", description=__doc__, epilog=EXAMPLE,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    d.add_argument("--out", type=output_folder,
                   default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    d.add_argument("--battles", type=int, default=BATTLES,
                   help=f"battles per pairing and side (default {BATTLES}; mcts pairings "
                   f"at most {MCTS_BATTLES})")
    add_run_options(d)
    d.set_defaults(func=run)
