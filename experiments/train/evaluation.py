"""Win rates with Wilson intervals: a team's agent against another team's agent.

Battle ``i`` of an evaluation uses battle seed ``seed + i`` and the agent seeds that
:func:`experiments.replay.play` gives (``seed + i + team index``), so a row is exactly
reproducible from its command. Intervals, the two-proportion test (pooled z-test,
two-sided) and the paired sign test (the agents met the same battles: of the seeds only one
of the two won, how many went to each) are :mod:`experiments.comparison.stats`'.
``--battle-log FILE.jsonl`` keeps every battle's winner, one JSON line each.

Each finished chunk of 25 battles can be logged (``log``, :mod:`experiments.checkpoint`,
the mechanism of every ``--resume``): an evaluation given the log of a killed one plays
only the chunks it lacks, to the same tallies. The command keeps it beside ``--out``
(``OUT-STEM.chunks.jsonl``, its arguments in ``OUT-STEM.run.json``) and ``--resume``
continues from it (rows already written to ``--out`` and ``--battle-log`` are not written
again); ``fray train`` keeps it in the run's folder (``evaluation.jsonl``) and reads it
on ``--resume``.

    python -m experiments.train.evaluation duel --team monsters \\
        --agents learned:duel,tactician,mcts --opponents tactician,berserker \\
        --battles 500 --seed 0 --out results.csv
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

import rules
from agents.spec import split_specs
from experiments.checkpoint import append_record, check_arguments, read_records
from experiments.comparison.stats import sign_test, two_proportion_test, wilson_interval

#: battles of a chunk (a worker's or a Ray task's work)
CHUNK = 25
#: the chunk log ``fray train`` keeps in its run's folder
TRAIN_LOG = "evaluation.jsonl"


@dataclass
class Tally:
    """Outcomes of ``n`` battles for one team: wins, draws (round limit) and losses, and
    the winner of each battle in seed order."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    winners: list[str | None] = field(default_factory=list)

    @property
    def n(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def rate(self) -> float:
        return self.wins / self.n if self.n else 0.0

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.n, confidence)

    def add(self, winner: str | None, team: str) -> None:
        """Count one battle's outcome for ``team``."""
        self.winners.append(winner)
        if winner is None:
            self.draws += 1
        elif winner == team:
            self.wins += 1
        else:
            self.losses += 1

    def text(self) -> str:
        low, high = self.interval()
        return f"{self.rate:.3f} [{low:.3f}, {high:.3f}] ({self.wins}/{self.n})"


def compare(first: Tally, second: Tally) -> float:
    """Two-sided p-value that the two win rates differ (two-proportion z-test)."""
    return two_proportion_test(first.wins, first.n, second.wins, second.n)


def paired(first: Tally, second: Tally, team: str) -> tuple[int, int, float]:
    """The battles (same seeds) only ``first`` won for ``team``, only ``second`` won, and
    the sign test's two-sided p-value."""
    pairs = list(zip(first.winners, second.winners, strict=True))
    only_first = sum(a == team and b != team for a, b in pairs)
    only_second = sum(b == team and a != team for a, b in pairs)
    return only_first, only_second, sign_test(only_first, only_second)


def _play_chunk(job: tuple[str, str, str, str, Sequence[int]]) -> list[str | None]:
    """Winners of the battles of one chunk (runs in a worker process)."""
    from experiments.replay import play

    scenario, team, agent, opponent, seeds = job
    if "learned" in agent + opponent:  # one thread per process: workers share the cores
        import torch

        torch.set_num_threads(1)
    teams = rules.load_scenario(scenario, rules.default_content()).teams
    names = {t: (agent if t == team else opponent) for t in teams}
    return [play(scenario, seed, names)[0].winner for seed in seeds]


def _chunks(seeds: Sequence[int], size: int) -> Iterator[Sequence[int]]:
    for start in range(0, len(seeds), size):
        yield seeds[start:start + size]


def evaluate(scenario: str, team: str, agent: str, opponent: str, battles: int,
             seed: int = 0, workers: int = 1, progress: bool = False,
             backend: str = "local", address: str | None = None,
             log: Path | None = None) -> Tally:
    """``agent`` commanding ``team`` against ``opponent`` for every other team: chunks of
    :data:`CHUNK` battles on local worker processes or as Ray tasks (``backend="ray"``,
    joining ``address`` or starting Ray), tallied in seed order whatever order they
    finish in. With ``log``, the chunks it holds for this evaluation are read instead of
    played, and each chunk played is appended to it."""
    from experiments.comparison.runner import map_tasks

    seeds = list(range(seed, seed + battles))
    chunks = list(_chunks(seeds, CHUNK))
    identity = {"scenario": scenario, "team": team, "agent": agent, "opponent": opponent}
    logged = {}
    if log is not None:
        logged = {(record["first"], len(record["winners"])): record["winners"]
                  for record in read_records(log)
                  if "first" in record and all(record.get(k) == v
                                                for k, v in identity.items())}
    finished: dict[int, list[str | None]] = {
        index: logged[chunk[0], len(chunk)] for index, chunk in enumerate(chunks)
        if (chunk[0], len(chunk)) in logged}
    todo = [index for index in range(len(chunks)) if index not in finished]
    jobs = [(scenario, team, agent, opponent, chunks[index]) for index in todo]
    bar = tqdm(total=battles, initial=sum(map(len, finished.values())),
               desc=f"{agent} vs {opponent}", disable=not progress, leave=False)
    with (log.open("a", encoding="utf-8") if log is not None
          else contextlib.nullcontext()) as handle:
        for number, winners in map_tasks(_play_chunk, jobs, backend=backend,
                                         workers=workers, address=address):
            finished[todo[number]] = winners
            if handle is not None:
                append_record(handle, {**identity, "first": chunks[todo[number]][0],
                                       "winners": winners})
            bar.update(len(winners))
    bar.close()
    tally = Tally()
    for index in range(len(chunks)):
        for winner in finished[index]:
            tally.add(winner, team)
    return tally


def checkpoint_files(out: Path) -> tuple[Path, Path]:
    """The command's checkpoint beside its CSV ``out``: the chunk log and the arguments."""
    return (out.with_name(f"{out.stem}.chunks.jsonl"), out.with_name(f"{out.stem}.run.json"))


FIELDS = ("scenario", "team", "agent", "opponent", "battles", "seed_first", "seed_last",
          "wins", "draws", "losses", "win_rate", "wilson_low", "wilson_high")


def row(scenario: str, team: str, agent: str, opponent: str, seed: int,
        tally: Tally) -> dict[str, object]:
    """One CSV row of an evaluation."""
    low, high = tally.interval()
    return {"scenario": scenario, "team": team, "agent": agent, "opponent": opponent,
            "battles": tally.n, "seed_first": seed, "seed_last": seed + tally.n - 1,
            "wins": tally.wins, "draws": tally.draws, "losses": tally.losses,
            "win_rate": round(tally.rate, 4), "wilson_low": round(low, 4),
            "wilson_high": round(high, 4)}


def main(argv: Sequence[str] | None = None) -> int:
    """Evaluate every agent against every opponent; print and write rows as they go."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario")
    parser.add_argument("--team", default="monsters")
    parser.add_argument("--agents", required=True, help="comma-separated agent names or specs")
    parser.add_argument("--opponents", required=True, help="comma-separated agent names or specs")
    parser.add_argument("--battles", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="local processes (default) or Ray tasks of 25 battles")
    parser.add_argument("--address", default=None,
                        help="Ray cluster address (with --backend ray; default: start one)")
    parser.add_argument("--out", type=Path, help="CSV file (appended)")
    parser.add_argument("--battle-log", type=Path,
                        help="JSON lines file (appended): every battle's seed and winner")
    parser.add_argument("--resume", action="store_true",
                        help="continue the evaluation a killed driver left (needs --out: "
                        "its finished chunks are kept in OUT-STEM.chunks.jsonl)")
    args = parser.parse_args(argv)
    if args.resume and args.out is None:
        parser.error("--resume: needs --out (the evaluation to continue is kept beside it)")
    tallies: dict[tuple[str, str], Tally] = {}
    names = split_specs(args.agents)
    try:
        log, written = _command_log(args)
    except rules.FrayError as exc:
        parser.exit(2, f"{exc}\n")
    for opponent in split_specs(args.opponents):
        for agent in names:
            tally = evaluate(args.scenario, args.team, agent, opponent, args.battles,
                             args.seed, args.workers, progress=True, backend=args.backend,
                             address=args.address, log=log)
            tallies[agent, opponent] = tally
            print(f"{args.scenario} {agent} vs {opponent}: {tally.text()}", flush=True)
            if [agent, opponent] in written:
                continue   # written by the run resumed
            if args.battle_log is not None:
                with args.battle_log.open("a") as handle:
                    for offset, winner in enumerate(tally.winners):
                        handle.write(json.dumps({
                            "scenario": args.scenario, "team": args.team, "agent": agent,
                            "opponent": opponent, "seed": args.seed + offset,
                            "winner": winner}) + "\n")
            if args.out is not None:
                new = not args.out.exists()
                with args.out.open("a", newline="") as handle:
                    writer = csv.DictWriter(handle, FIELDS)
                    if new:
                        writer.writeheader()
                    writer.writerow(row(args.scenario, args.team, agent, opponent,
                                        args.seed, tally))
            if log is not None:
                with log.open("a", encoding="utf-8") as handle:
                    append_record(handle, {"written": [agent, opponent]})
        first = names[0]
        for agent in names[1:]:
            p = compare(tallies[first, opponent], tallies[agent, opponent])
            only_first, only_other, p_paired = paired(tallies[first, opponent],
                                                      tallies[agent, opponent], args.team)
            print(f"  {first} vs {agent} against {opponent}: two-proportion p = {p:.4g}; "
                  f"paired: only {first} won {only_first}, only {agent} won {only_other}, "
                  f"sign test p = {p_paired:.4g}", flush=True)
    return 0


def _command_log(args: argparse.Namespace) -> tuple[Path | None, list[list[str]]]:
    """The command's chunk log (with ``--out``), checked against the run resumed, and the
    (agent, opponent) rows that run wrote already."""
    if args.out is None:
        return None, []
    log, run_file = checkpoint_files(args.out)
    arguments = {key: getattr(args, key) for key in ("scenario", "team", "agents",
                                                    "opponents", "battles", "seed")}
    check_arguments(run_file, arguments, resume=args.resume, log=log, what="evaluation")
    if not args.resume:
        log.write_text("", encoding="utf-8")
        return log, []
    return log, [record["written"] for record in read_records(log) if "written" in record]


if __name__ == "__main__":
    sys.exit(main())
