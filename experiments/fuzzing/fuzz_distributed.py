"""A fuzz campaign on several workers (``fray fuzz --backend ray`` or ``--workers N``).

The driver draws the battles exactly as :func:`experiments.fuzzing.fuzz_campaign.campaign`
does (one generator seeded by the campaign's seed: scenario, seed and agents of battle
``number``), sends them out in batches of :data:`BATCH` battles (local processes or Ray
tasks, :class:`experiments.comparison.runner.TaskPool`), and handles the results in
battle order: the log lines, the de-duplication by signature, the shrinking of a new
failure (replayed here, where the failure is found again: a battle depends only on its
case) and the written failures are those of the one-process campaign. With ``battles``
the campaign is the same battle for battle; with only ``seconds``, it draws rounds of
batches (a few per worker) until the time is up, so it may play a round's worth more.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

import rules
from experiments.checkpoint import check_arguments, read_records
from experiments.comparison.runner import TaskPool
from experiments.fuzzing import differential as two_engines
from experiments.fuzzing import fuzz_campaign as one
from experiments.fuzzing.fuzz import Case, Checks, Failure, agent_chooser, run
from experiments.fuzzing.native_loop import run_native as native_loop_run
from experiments.workers import default_workers
from rules.content import content_for

#: battles a task checks (a fuzzed battle takes some milliseconds to a second)
BATCH = 8
#: batches a worker gets per round of a time-limited campaign
ROUND = 4


@dataclass(frozen=True)
class Job:
    """One drawn battle: its number, case and agents; ``rejected`` when the battle
    refused the scenario at this seed (no play needed)."""

    number: int
    case: Case
    names: dict[str, str]
    rejected: rules.ScenarioError | None = None


@dataclass(frozen=True)
class Batch:
    """What a worker checks: jobs and how."""

    jobs: tuple[Job, ...]
    checks: Checks
    native_loop: bool


def play(job: Job, checks: Checks, native_loop: bool) -> Any:
    """The outcome of one battle (:func:`one.campaign`'s play, anywhere)."""
    probe = job.case.battle()
    if native_loop:
        return native_loop_run(job.case, checks, job.names,
                               probe if probe.engine == "native" else None)
    player = two_engines.run if checks.differential else run
    return player(job.case, agent_chooser(probe, job.names, job.case.seed), checks, job.names)


def check_batch(batch: Batch) -> list[dict[str, Any]]:
    """Each job's decisions, winner and failure (a worker's task)."""
    out = []
    for job in batch.jobs:
        outcome = play(job, batch.checks, batch.native_loop)
        out.append({"decisions": outcome.decisions, "winner": outcome.battle.winner,
                    "failure": None if outcome.failure is None else outcome.failure.to_dict()})
    return out


def draw(rng: np.random.Generator, generated: bool, content_dir: str | None,
         pool: Sequence[str], native_loop: bool) -> Iterator[Job]:
    """The campaign's battles in order, drawn as the one-process loop draws them."""
    content = content_for(content_dir)
    shipped = one.shipped_cases()
    number = 0
    while True:
        case = one.draw_case(rng, number, generated, content, shipped, content_dir)
        source = case.source
        try:
            probe = case.battle()
        except rules.ScenarioError as exc:
            if not source.startswith("<generated"):
                raise
            yield Job(number, case, {}, exc)
            number += 1
            continue
        if native_loop:
            names = {team: "random" for team in probe.scenario.teams}
        else:
            names = {team: one._pick(rng, pool) for team in probe.scenario.teams}
        yield Job(number, case, names)
        number += 1


def _check_settings(out: Path, settings: dict[str, Any], resume: bool) -> None:
    """``OUT/campaign.json`` holds the drawing settings; ``--resume`` needs the same
    (:func:`experiments.checkpoint.check_arguments`)."""
    check_arguments(out / "campaign.json", settings, resume=resume,
                    log=out / "battles.jsonl", what="campaign")


def logged(out: Path) -> list[dict[str, Any]]:
    """The battles a campaign in ``out`` logged (a half-written last line is cut off)."""
    return read_records(out / "battles.jsonl")


def campaign(out: Path, *, seconds: float, generated: bool = False, seed: int = 0,
             content_dir: str | None = None, battles: int | None = None,
             agent_pool: Sequence[str] | None = None, checks: Checks | None = None,
             shrink_seconds: float = 20.0, shrink_tests: int = 2000,
             on_battle: Callable[[one.Summary], None] | None = None,
             on_shrink: Callable[[Failure], None] | None = None,
             differential: bool = False, native_loop: bool = False,
             backend: str = "local", workers: int | None = None,
             address: str | None = None, resume: bool = False) -> one.Summary:
    """:func:`one.campaign` with the battles played by ``workers`` (local processes or Ray
    tasks, joining ``address``). ``resume`` continues the campaign in ``out`` that a
    killed driver left: its logged battles are drawn again but not played (their
    failures count as seen), and the log goes on after them."""
    if differential:
        checks = checks or two_engines.differential_checks()
    checks = checks or Checks()
    pool = list(agent_pool or one.default_agents())
    jobs = draw(np.random.default_rng(seed), generated, content_dir, pool, native_loop)
    out.mkdir(parents=True, exist_ok=True)
    (out / "failures").mkdir(exist_ok=True)
    settings = {"seed": seed, "generated": generated, "content_dir": content_dir,
                "agents": pool, "differential": checks.differential,
                "native_loop": native_loop}
    _check_settings(out, settings, resume)
    summary = one.Summary()
    seen: set[tuple[str, str, str]] = set()
    if resume:
        for record in logged(out):
            next(jobs)   # the generator's draws of this battle, not played again
            summary.battles += 1
            summary.decisions += int(record.get("decisions", 0))
            if record.get("failure") is not None:
                failure = Failure.from_dict(record["failure"])
                if failure.signature not in seen:
                    seen.add(failure.signature)
                    summary.found.append(one.Found(
                        failure, Path(record.get("replay", out / "failures")),
                        int(record.get("decisions", 0)), None))
    start, cpu_start = time.monotonic(), time.process_time()
    per_round = BATCH * ROUND * (workers or default_workers())
    with (out / "battles.jsonl").open("a" if resume else "w", encoding="utf-8") as log, \
            TaskPool(backend, workers, address) as tasks:
        while time.monotonic() - start < seconds and (battles is None
                                                     or summary.battles < battles):
            wanted = per_round if battles is None else min(per_round,
                                                           battles - summary.battles)
            drawn = [next(jobs) for _ in range(wanted)]
            playing = [job for job in drawn if job.rejected is None]
            batches = [Batch(tuple(playing[i:i + BATCH]), checks, native_loop)
                       for i in range(0, len(playing), BATCH)]
            results: dict[int, dict[str, Any]] = {}
            waiting = deque(drawn)
            # log the drawn battles whose results are in, in drawing order (the log is the
            # one-process campaign's), after each batch (the progress moves per batch);
            # None at the end: a round of rejected scenarios only
            for finished in chain(tasks.map(check_batch, batches), [None]):
                if finished is not None:
                    index, rows = finished
                    for job, row in zip(batches[index].jobs, rows, strict=True):
                        results[job.number] = row
                while waiting and (waiting[0].rejected is not None
                                   or waiting[0].number in results):
                    _record(waiting.popleft(), results, out, checks, native_loop,
                            summary, seen, log, (shrink_seconds, shrink_tests), on_shrink)
                    summary.seconds = time.monotonic() - start
                    summary.cpu_seconds = time.process_time() - cpu_start
                    if on_battle is not None:
                        on_battle(summary)
            if checks.differential:
                one.write_record(out, summary)
    summary.seconds = time.monotonic() - start
    summary.cpu_seconds = time.process_time() - cpu_start
    if checks.differential:
        one.write_record(out, summary)
    return summary


def _record(job: Job, results: dict[int, dict[str, Any]], out: Path, checks: Checks,
            native_loop: bool, summary: one.Summary, seen: set[tuple[str, str, str]],
            log: Any, shrink: tuple[float, int],
            on_shrink: Callable[[Failure], None] | None) -> None:
    """One drawn battle into the summary and the log (a new failure shrunk here)."""
    import json

    if job.rejected is not None:
        one._rejected(out, job.case, job.rejected, summary, seen, log, job.number)
        return
    row = results[job.number]
    summary.battles += 1
    summary.decisions += row["decisions"]
    record: dict[str, Any] = {"battle": job.number, "scenario": job.case.source,
                              "seed": job.case.seed, "agents": job.names,
                              "decisions": row["decisions"],
                              "winner": row["winner"], "failure": row["failure"]}
    failure = row["failure"] and Failure.from_dict(row["failure"])
    if failure and failure.signature not in seen:
        seen.add(failure.signature)
        if on_shrink is not None:
            on_shrink(failure)
        outcome = play(job, checks, native_loop)   # here, to shrink it
        found = one._shrink_and_write(out, job.case, outcome, checks, shrink,
                                      len(summary.found))
        summary.found.append(found)
        record["replay"] = str(found.path)
    log.write(json.dumps(record) + "\n")
    log.flush()
