"""``fray fuzz``'s loop: battles under every check for a time budget, failures shrunk.

Each battle picks a scenario (the shipped ones in turn and, with ``generated``, a freshly
generated one every other battle), an agent per team from the pool (random and the
scripted agents; ``random`` half the time, see :data:`RANDOM_SHARE`), and a seed, all
from one generator seeded by ``seed``, so a campaign with a battle limit is reproducible.
Every battle is appended to ``OUT/battles.jsonl`` as it ends. A failure not seen before
(by signature) is shrunk and written to ``OUT/failures/NN-<kind>-<name>.json`` as a
replay file with a ``failure`` field that ``fray replay`` re-runs to the failure, next to
``NN-<kind>-<name>.html``, the viewer page of the battle up to the failure.

With ``differential`` every battle is played on both engines and compared after every
decision (:mod:`experiments.fuzzing.differential`) instead of being checked for
invariants; the same battles are drawn, and the first difference is shrunk and written
the same way (kind ``differential``). Its totals are kept in ``OUT/differential.json``,
the record ``fray bench --differential`` reads.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import rules
from experiments.fuzzing import differential as two_engines
from experiments.fuzzing.fuzz import (
    Case,
    Checks,
    Failure,
    agent_chooser,
    failure_replay,
    run,
    run_choices,
)
from experiments.fuzzing.generate import random_scenario, scenario_toml
from experiments.fuzzing.native_loop import run_native as native_loop_run
from experiments.fuzzing.shrink import shrink
from rules.content import content_for

#: agents left out of the default pool: too slow per decision, or need a model file
SLOW_OR_LEARNED = ("mcts", "learned", "az")
#: share of teams played by ``random`` (scripted agents think far longer per decision)
RANDOM_SHARE = 0.5
#: the record a differential campaign writes in its output folder
RECORD = "differential.json"


def default_agents() -> list[str]:
    """Random and the scripted agents registered now."""
    import agents

    return [n for n in agents.names() if not n.startswith(SLOW_OR_LEARNED)]


@dataclass
class Found:
    """One distinct failure: where it was first seen and its shrunk replay file."""

    failure: Failure
    path: Path
    decisions: int
    shrunk_to: int | None  # None when it did not reproduce from its choices


@dataclass
class Summary:
    battles: int = 0
    decisions: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time (the machine may be shared)
    found: list[Found] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Decisions checked per wall-clock second."""
        return self.decisions / self.seconds if self.seconds else 0.0

    @property
    def cpu_rate(self) -> float:
        """Decisions checked per CPU second of this process."""
        return self.decisions / self.cpu_seconds if self.cpu_seconds else 0.0


def shipped_cases() -> list[tuple[str, str]]:
    """(TOML text, source) of every shipped scenario."""
    from rules.scenario import resolve_scenario

    out = []
    for name in rules.shipped_scenarios():
        path = resolve_scenario(name)
        out.append((path.read_text(encoding="utf-8"), path.name))
    return out


def draw_case(rng: np.random.Generator, number: int, generated: bool, content: rules.Content,
              shipped: Sequence[tuple[str, str]], content_dir: str | None) -> Case:
    """Battle ``number`` of a campaign: its seed, then (with ``generated``) a generated
    scenario for every odd battle, else the shipped scenarios in turn; drawn from ``rng`` in
    this order, which every way of running a campaign (one process, workers, Ray) keeps."""
    battle_seed = int(rng.integers(2**31))
    if generated and number % 2 == 1:
        data = random_scenario(rng, content, name=f"generated_{number}")
        text, source = scenario_toml(data), f"<generated {number}>"
    else:
        text, source = shipped[(number // (2 if generated else 1)) % len(shipped)]
    return Case(text, source, battle_seed, content_dir)


def campaign(out: Path, *, seconds: float, generated: bool = False, seed: int = 0,
             content_dir: str | None = None, battles: int | None = None,
             agent_pool: Sequence[str] | None = None, checks: Checks | None = None,
             shrink_seconds: float = 20.0, shrink_tests: int = 2000,
             on_battle: Callable[[Summary], None] | None = None,
             on_shrink: Callable[[Failure], None] | None = None,
             differential: bool = False, native_loop: bool = False) -> Summary:
    """Fuzz until ``seconds`` have passed (or ``battles`` battles); see the module doc.

    ``on_battle`` is called after each battle, ``on_shrink`` before a new failure is
    shrunk (for a progress display). ``differential`` compares the two engines instead
    (``checks`` default to ``differential.differential_checks()``; raises
    ``differential.NativeUnavailable`` when the native engine is not built).
    ``native_loop`` plays random battles inside the native engine instead
    (:mod:`experiments.fuzzing.native_loop`; the agent pool is not used)."""
    if differential:
        checks = checks or two_engines.differential_checks()
    checks = checks or Checks()
    player = two_engines.run if checks.differential else run
    pool = list(agent_pool or default_agents())
    content = content_for(content_dir)
    shipped = shipped_cases()
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "failures").mkdir(exist_ok=True)
    log = (out / "battles.jsonl").open("w", encoding="utf-8")
    summary = Summary()
    seen: set[tuple[str, str, str]] = set()
    start, cpu_start = time.monotonic(), time.process_time()
    try:
        while time.monotonic() - start < seconds and (battles is None
                                                     or summary.battles < battles):
            number = summary.battles
            case = draw_case(rng, number, generated, content, shipped, content_dir)
            source = case.source
            try:
                probe = case.battle()
            except rules.ScenarioError as exc:
                if not source.startswith("<generated"):
                    raise  # a shipped scenario that does not load: the user's error line
                _rejected(out, case, exc, summary, seen, log, number)
                continue
            if native_loop:
                names = {team: "random" for team in probe.scenario.teams}
                outcome = native_loop_run(case, checks, names, probe if probe.engine
                                          == "native" else None)
            else:
                names = {team: _pick(rng, pool) for team in probe.scenario.teams}
                outcome = player(case, agent_chooser(probe, names, case.seed), checks,
                                 names)
            summary.battles += 1
            summary.decisions += outcome.decisions
            record: dict[str, Any] = {"battle": number, "scenario": source,
                                      "seed": case.seed, "agents": names,
                                      "decisions": outcome.decisions,
                                      "winner": outcome.battle.winner,
                                      "failure": None}
            if outcome.failure is not None:
                record["failure"] = outcome.failure.to_dict()
                if outcome.failure.signature not in seen:
                    seen.add(outcome.failure.signature)
                    if on_shrink is not None:
                        on_shrink(outcome.failure)
                    found = _shrink_and_write(out, case, outcome, checks,
                                              (shrink_seconds, shrink_tests),
                                              len(summary.found))
                    summary.found.append(found)
                    record["replay"] = str(found.path)
            log.write(json.dumps(record) + "\n")
            log.flush()
            summary.seconds = time.monotonic() - start
            summary.cpu_seconds = time.process_time() - cpu_start
            if checks.differential:
                write_record(out, summary)
            if on_battle is not None:
                on_battle(summary)
    finally:
        log.close()
    summary.seconds = time.monotonic() - start
    summary.cpu_seconds = time.process_time() - cpu_start
    if checks.differential:
        write_record(out, summary)
    return summary


def write_record(out: Path, summary: Summary) -> Path:
    """``OUT/differential.json``: the decisions compared and the differences found (the
    record ``fray bench --differential FILE`` judges the issue 23 target on), rewritten
    after every battle."""
    differences = sum(found.failure.kind == "differential" for found in summary.found)
    path = out / RECORD
    path.write_text(json.dumps({"decisions": summary.decisions, "differences": differences,
                                "battles": summary.battles,
                                "seconds": round(summary.seconds, 1),
                                "failures": len(summary.found)}) + "\n", encoding="utf-8")
    return path


def _rejected(out: Path, case: Case, exc: rules.ScenarioError, summary: Summary,
              seen: set[tuple[str, str, str]], log: Any, number: int) -> None:
    """A generated scenario the parser accepted but the battle rejects for this seed: the
    validation depends on the dice (a finding, written as the scenario's TOML)."""
    field_name = re.sub(r"units\[\d+\] \([^)]*\)\.", "", exc.field)
    failure = Failure("scenario", field_name, str(exc), 0)
    summary.battles += 1
    log.write(json.dumps({"battle": number, "scenario": case.source, "seed": case.seed,
                          "decisions": 0, "failure": failure.to_dict()}) + "\n")
    if failure.signature in seen:
        return
    seen.add(failure.signature)
    path = out / "failures" / f"{len(summary.found):02d}-scenario-{field_name}.toml"
    header = (f"# fray fuzz: parse_scenario accepts this scenario but Battle.from_toml(text, "
              f"seed={case.seed}) rejects it:\n# {exc}\n")
    path.write_text(header + case.text, encoding="utf-8")
    summary.found.append(Found(failure, path, 0, None))


def _pick(rng: np.random.Generator, pool: Sequence[str]) -> str:
    """An agent for one team: ``random`` half the time when it is in the pool (it is the
    fastest and explores the widest), else any agent of the pool."""
    if "random" in pool and rng.random() < RANDOM_SHARE:
        return "random"
    return str(rng.choice(list(pool)))


def _shrink_and_write(out: Path, case: Case, outcome: Any, checks: Checks,
                      budget: tuple[float, int], number: int) -> Found:
    """Shrink a new failure (within ``budget``: seconds, runs) and write its replay."""
    from experiments.viewer import write_page

    failure = outcome.failure
    shrunk = None
    if failure.kind != "agent":
        runner = two_engines.run_choices if checks.differential else run_choices
        shrunk = shrink(case, outcome.choices, failure, checks, seconds=budget[0],
                        max_tests=budget[1], runner=runner)
    path = out / "failures" / f"{number:02d}-{failure.kind}-{failure.name}.json"
    replay = (failure_replay(shrunk.outcome, shrunk.checks) if shrunk is not None
              else failure_replay(outcome, checks))
    replay.save(path)
    write_page(replay, path.with_suffix(".html"), partial=True)  # the viewer, up to it
    return Found(failure, path, outcome.decisions,
                 None if shrunk is None else len(shrunk.choices))
