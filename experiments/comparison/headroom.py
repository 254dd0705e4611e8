"""Headroom: how much one-step policy improvement over a base agent can gain, decision by
decision.

A search agent built on a base policy (mcts with tactician rollouts is one) can only beat
that policy where, at some decision, another action is better than the base policy's
choice *when the base policy plays on afterwards*. This experiment measures that directly
on battles the base agent plays against itself:

1. At every decision with more than one candidate (the mcts action grouping,
   :func:`agents.mcts.candidates`, plus the base agent's choice), every candidate is
   *screened* by ``screen`` full rollouts under common random numbers: the same re-seeded
   dice for every candidate, the base agent playing both teams to the end, the outcome
   scored from the deciding team's side (won 1, draw 0.5, lost 0).
2. When the screen's best candidate is not the base agent's choice and beats it, the two
   are *confirmed* on ``confirm`` fresh paired rollouts: the gap (best minus base) and its
   standard error, free of the winner's curse of the screen (the best of several noisy
   means is biased upward; its confirmed gap is not).
3. The battle goes on by the base agent's own choice.

Summed over a battle's decisions, the confirmed gaps estimate what switching to the
screen's pick gains per battle (first order: each decision on its own). That is the
one-step improvement a flat Monte Carlo search with ``screen`` rollouts per candidate
would deliver; decisions whose gap is more than two standard errors above zero show where
the base policy is really beatable.

Search here, like mcts, never sees the real battle's future dice: each rollout is a
re-seeded clone (``clone.dice.reseed``). On the native engine, with a base agent that has
a native twin (``random``, ``berserker``, ``tactician``, ``defender``, ``skirmisher``),
the battles and every rollout run in the engine (``rules.bridge.search_round``
to the end of the battle, the twin used in place as the Python rollout agent is): the
same rows as on the Python engine, many times sooner.

It takes minutes a battle, so :func:`run` first plays the battles once by the base agent
alone (a few seconds: the base agent's choices do not depend on the rollouts) to count the
rollouts ahead, and its progress bar counts rollouts against that total (a confirmation
that turns out not to be needed is taken off it), so the ETA shows from the start.
"""

from __future__ import annotations

import contextlib
import csv
import math
import statistics
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

import agents
from agents.base import Agent
from agents.mcts import candidates, hp_balance
from experiments.checkpoint import append_record, check_arguments, read_records
from rules import Action, Battle, bridge

COLUMNS = ("battle", "decision", "team", "kind", "candidates", "base", "best", "screen",
           "gap", "error")


@dataclass(frozen=True)
class Row:
    """One decision: the base agent's choice, the screen's best and the confirmed gap
    (0 when the screen found nothing better; ``error`` is the gap's standard error)."""

    battle: int
    decision: int
    team: str
    kind: str
    candidates: int
    base: str
    best: str
    screen: float
    gap: float
    error: float

    @property
    def significant(self) -> bool:
        """The confirmed gap is more than two standard errors above zero."""
        return self.gap > 0 and self.gap > 2 * self.error


#: a rollout's depth that reaches the end of any battle (the round limit ends them)
TO_THE_END = 2**31 - 1


def outcome(battle: Battle, action: Action, seed: int, team: str, rollout: Agent) -> float:
    """``action`` then ``rollout`` for both teams to the end, on a clone re-seeded with
    ``seed``: 1 if ``team`` wins, 0.5 for a draw, 0 if it loses (mcts's value of a
    finished battle). ``rollout`` may be a native agent (a twin) on a native battle: the
    rollout then runs in the engine."""
    if bridge.is_native_agent(rollout):
        return bridge.search_round(battle, [action], seed, rollout, TO_THE_END, team)[0]
    clone = battle.clone()
    clone.dice.reseed(seed)
    clone.apply(action)
    while not clone.is_over:
        clone.apply(rollout.act(clone))
    return hp_balance(clone, team)


def screened(battle: Battle, choice: Action) -> list[Action]:
    """The candidates screened at the current decision: mcts's, plus ``choice``."""
    options = candidates(battle, battle.legal_actions())
    return options if choice in options else [choice, *options]


def decision_row(battle: Battle, index: int, decision: int, choice: Action,
                 rollout: Agent, screen: int, confirm: int, seed: int,
                 bar: tqdm | None = None) -> Row | None:
    """Screen the candidates of the current decision and confirm the best against the
    base agent's ``choice`` (module docstring); None when there is only one candidate.
    ``bar`` counts the rollouts (:func:`planned_rollouts`' plan)."""
    d = battle.decision
    if d is None:
        return None
    team = battle.combatants[d.actor].team
    options = screened(battle, choice)
    if len(options) < 2:
        return None
    rng = np.random.default_rng([seed, index, decision])
    seeds = [int(s) for s in rng.integers(2**63, size=screen + confirm)]
    means = {a: statistics.fmean(outcome(battle, a, s, team, rollout) for s in seeds[:screen])
             for a in options}
    if bar is not None:
        bar.update(len(options) * screen)
    best = max(options, key=lambda action: (means[action], action == choice))
    gap = error = 0.0
    if best != choice and confirm > 0:
        diffs = [outcome(battle, best, s, team, rollout) - outcome(battle, choice, s, team,
                                                                   rollout)
                 for s in seeds[screen:]]
        gap = statistics.fmean(diffs)
        error = statistics.stdev(diffs) / math.sqrt(confirm) if confirm > 1 else 0.0
        if bar is not None:
            bar.update(2 * confirm)
    elif bar is not None and bar.total is not None:  # planned, not needed
        bar.total -= 2 * confirm
        bar.refresh()
    return Row(index, decision, team, d.kind.name, len(options), str(choice), str(best),
               round(means[best] - means[choice], 4), round(gap, 4), round(error, 4))


def base_play(scenario: str, index: int, base: str) -> Iterator[tuple[Battle, int, Action]]:
    """Battle ``index`` (battle seed ``index``) played by ``base`` for every team, seeded
    as :func:`experiments.replay.play` seeds them (the ladder's battles): the battle, the
    decision's number and the base agent's choice, before the choice is applied."""
    battle = Battle.from_scenario(scenario, seed=index)
    players = {team: agents.make(base, seed=index + i)
               for i, team in enumerate(battle.scenario.teams)}
    twins = bridge.battle_twins(battle, players)
    native = len(twins) == len(players)  # every team decides in the engine
    decision = 0
    while not battle.is_over:
        d = battle.decision
        assert d is not None
        team = battle.combatants[d.actor].team
        choice = (bridge.native_choice(battle, twins[team])[0] if native
                  else players[team].act(battle))
        yield battle, decision, choice
        battle.apply(choice)
        decision += 1


def planned_rollouts(scenario: str, battles: list[int], base: str, screen: int,
                     confirm: int, progress: bool = False) -> int:
    """The rollouts :func:`run` will play at most: every decision with a choice screens
    each candidate ``screen`` times and may confirm with ``2 * confirm`` more (found by
    playing the battles once by ``base`` alone)."""
    total = 0
    for index in tqdm(battles, desc="headroom: counting the decisions", unit="battle",
                      disable=not progress, leave=False, dynamic_ncols=True):
        for battle, _, choice in base_play(scenario, index, base):
            options = len(screened(battle, choice))
            if options >= 2:
                total += options * screen + 2 * confirm
    return total


def battle_rows(scenario: str, index: int, base: str, screen: int, confirm: int,
                seed: int = 0, bar: tqdm | None = None) -> Iterator[Row]:
    """The rows of battle ``index`` (:func:`base_play`'s battle), the base agent
    answering the rollouts (agent seed ``seed``)."""
    rollout = agents.make(base, seed=seed)
    twin = bridge.twin_of(rollout)  # plays the rollouts of native battles
    for battle, decision, choice in base_play(scenario, index, base):
        if twin is not None and battle.engine == "native":
            rollout = twin
        row = decision_row(battle, index, decision, choice, rollout, screen, confirm, seed,
                           bar)
        if row is not None:
            yield row


@dataclass(frozen=True)
class Summary:
    """Per-battle sums of confirmed gaps: their mean and standard error, and the
    decisions with a significant gap."""

    battles: int
    decisions: int
    mean_gain: float
    error: float
    significant: tuple[Row, ...]

    def lines(self) -> list[str]:
        """Readable lines for the CLI."""
        out = [f"{self.battles} battles, {self.decisions} decisions with a choice: "
               f"one-step gain per battle {self.mean_gain:+.3f} (standard error "
               f"{self.error:.3f})",
               f"{len(self.significant)} decisions with a gap above two standard errors"]
        out += [f"  battle {r.battle} decision {r.decision} {r.team} {r.kind}: {r.base} -> "
                f"{r.best}: gap {r.gap:+.3f} (se {r.error:.3f})" for r in self.significant]
        return out


def summarise(rows: list[Row], battles: list[int]) -> Summary:
    """Sum the confirmed gaps per battle (battles without rows count as 0)."""
    gains = [sum(r.gap for r in rows if r.battle == b) for b in battles]
    error = statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else 0.0
    return Summary(len(battles), len(rows), statistics.fmean(gains) if gains else 0.0,
                   error, tuple(r for r in rows if r.significant))


def battle_task(job: tuple[str, int, str, int, int, int]) -> list[Row]:
    """Every row of one battle (a worker's task): ``(scenario, index, base, screen,
    confirm, seed)``."""
    return list(battle_rows(*job))


def checkpoint_files(out: Path) -> tuple[Path, Path]:
    """The checkpoint of a run writing ``out``: ``OUT-STEM.battles.jsonl`` (each finished
    battle's rows) and ``OUT-STEM.run.json`` (its arguments), beside ``out``."""
    return (out.with_name(f"{out.stem}.battles.jsonl"),
            out.with_name(f"{out.stem}.run.json"))


def _finished(out: Path | None, arguments: dict[str, Any], resume: bool
              ) -> dict[int, list[Row]]:
    """The battles a killed run writing ``out`` finished (with ``resume``), checked to be
    of the same arguments (:mod:`experiments.checkpoint`)."""
    if out is None:
        return {}
    log, run_file = checkpoint_files(out)
    check_arguments(run_file, arguments, resume=resume, log=log, what="headroom run")
    if not resume:
        log.write_text("", encoding="utf-8")
        return {}
    return {int(record["battle"]): [Row(**row) for row in record["rows"]]
            for record in read_records(log)}


def run(scenario: str, battles: list[int], base: str, screen: int, confirm: int,
        out: Path | None, seed: int = 0, progress: bool = False, backend: str = "local",
        workers: int | None = None, address: str | None = None,
        resume: bool = False) -> Summary:
    """Measure every battle in ``battles``; rows are written to ``out`` (CSV) in battle
    order as they come. With ``progress``, a bar on stderr counts the rollouts against
    :func:`planned_rollouts` (so its ETA shows from the start). With ``workers`` > 1 or
    ``backend="ray"`` the battles are played in parallel, one task each; the rows and the
    summary are the same.

    Each finished battle's rows are also logged beside ``out``
    (:func:`checkpoint_files`); ``resume`` reads the battles a killed run finished from
    there instead of playing them again: the same CSV and summary as a run never killed.
    """
    from experiments.comparison.runner import TaskPool

    arguments = {"scenario": scenario, "battles": list(battles), "base": base,
                 "screen": screen, "confirm": confirm, "seed": seed}
    finished = _finished(out, arguments, resume)
    recovered = set(finished)
    todo = [index for index in battles if index not in recovered]
    parallel = backend == "ray" or (workers or 1) > 1
    total = (planned_rollouts(scenario, todo, base, screen, confirm, progress=True)
             if progress else None)
    log_path = checkpoint_files(out)[0] if out is not None else None
    rows: list[Row] = []
    with (out.open("w", newline="") if out is not None else contextlib.nullcontext()
          ) as handle, (log_path.open("a", encoding="utf-8") if log_path is not None
                        else contextlib.nullcontext()) as log, \
            tqdm(total=total, desc=f"headroom {scenario}", unit="rollout",
                 disable=not progress, dynamic_ncols=True, smoothing=0) as bar, \
            TaskPool(backend if parallel else "local", workers if parallel else 1,
                     address) as pool:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS) if handle is not None else None
        if writer is not None:
            writer.writeheader()
        written = 0

        def write_ready() -> None:   # rows in battle order, as soon as they can be
            nonlocal written
            while written < len(battles) and battles[written] in finished:
                for row in finished[battles[written]]:
                    rows.append(row)
                    if writer is not None:
                        writer.writerow(asdict(row))
                if handle is not None:
                    handle.flush()
                written += 1

        write_ready()
        if parallel:
            jobs = [(scenario, index, base, screen, confirm, seed) for index in todo]
            played = pool.map(battle_task, jobs)
        else:
            played = ((number, list(battle_rows(scenario, index, base, screen, confirm,
                                                seed, bar if progress else None)))
                      for number, index in enumerate(todo))
        for number, battle in played:
            index = todo[number]
            finished[index] = battle
            if log is not None:
                append_record(log, {"battle": index, "rows": [asdict(r) for r in battle]})
            if parallel and progress and bar.total is not None:
                unneeded = sum(2 * confirm for row in battle if row.best == row.base)
                bar.total -= unneeded   # planned confirmations the battle did not need
                bar.update(battle_rollouts(battle, screen, confirm))
            bar.set_postfix(battle=f"{len(finished)}/{len(battles)}", refresh=False)
            write_ready()
    return summarise(rows, battles)


def battle_rollouts(rows: list[Row], screen: int, confirm: int) -> int:
    """The rollouts a battle's rows took: each screened candidate ``screen`` times, and
    ``2 * confirm`` for a screen whose best was not the base agent's choice."""
    return sum(row.candidates * screen + (2 * confirm if row.best != row.base else 0)
               for row in rows)
