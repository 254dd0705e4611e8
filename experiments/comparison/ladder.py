"""The skill ladder (issue 9): each agent as the monsters against a fixed party agent, and
as the party against fixed monsters, on each scenario, with Wilson 95% intervals.

A *cell* is (scenario, side, agent): ``battles`` battles with seeds ``0..battles-1`` (the
same seeds in every cell: common random numbers), the agent on ``side`` and the fixed
agent on the other. A cell's figure is the agent's win rate (draws count as not won)
with its Wilson 95% interval (:func:`experiments.comparison.stats.wilson_interval`, scipy's
``binomtest(...).proportion_ci(method="wilson")``).

Results are appended to ``DIR/battles.jsonl`` as battles finish, so a killed run resumes
where it stopped (battles already recorded are not played again); the table is written
to ``DIR/ladder.md`` and ``DIR/ladder.csv`` after every cell and at the end.

    from experiments.comparison.ladder import LadderConfig, run_ladder
    cells = run_ladder(LadderConfig(out="runs/ladder", battles=200))

:class:`LadderConfig` and the default agents and scenarios live in
:mod:`experiments.comparison.ladder_config` (light, for ``fray ladder --help``).
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from experiments.comparison.ladder_config import (
    SIDES,
    LadderConfig,
)
from experiments.comparison.runner import (
    AgentSpec,
    BattleSpec,
    RunnerError,
    run_battles,
    start_ray,
)
from experiments.comparison.stats import wilson_interval
from experiments.comparison.tournament import BATTLES_FILE, load_records


@dataclass
class Cell:
    """One (scenario, side, agent) cell and its tally."""

    scenario: str
    side: str
    agent: str
    opponent: str
    planned: int
    wins: int = 0
    losses: int = 0
    draws: int = 0
    seconds: float = 0.0

    @property
    def played(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def rate(self) -> float:
        return self.wins / self.played if self.played else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.played)


def battle_id(scenario: str, side: str, agent: str, seed: int) -> str:
    """The id of one ladder battle in ``battles.jsonl``."""
    return f"{scenario}/{side}/{agent}/{seed}"


def plan(config: LadderConfig) -> list[tuple[Cell, list[BattleSpec]]]:
    """Every cell with the battles it needs."""
    out = []
    for scenario in config.scenarios:
        for side in SIDES:
            fixed = config.fixed_party if side == "monsters" else config.fixed_monsters
            for label in config.agents:
                agent = AgentSpec.parse(label)
                other = AgentSpec.parse(fixed)
                n = config.battles_for.get(label, config.battles)
                cell = Cell(scenario, side, agent.label, other.label, n)
                teams = ((side, agent), ("party" if side == "monsters" else "monsters", other))
                specs = [BattleSpec(battle_id(scenario, side, agent.label, seed), scenario,
                                    tuple(sorted(teams)), seed) for seed in range(n)]
                out.append((cell, specs))
    return out


def records_by_id(out: Path, repair: bool = False) -> dict[str, dict]:
    """The battles of the ladder folder ``out`` by id ({} when there are none yet); a
    half-written last line (a killed run) is dropped, and with ``repair`` cut from the file
    (``tournament.load_records``). A record without a text id raises ValueError naming
    the file and the line."""
    done: dict[str, dict] = {}
    for number, record in enumerate(load_records(out, repair=repair), start=1):
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            raise ValueError(f"{out / BATTLES_FILE}: line {number}: expected a battle record "
                             f"with a text 'id', found {str(record)[:60]!r}")
        done[record["id"]] = record
    return done


@contextmanager
def ray_session(config: LadderConfig) -> Iterator[None]:
    """One Ray session for the whole ladder (joined or started once, not once a cell)."""
    if config.backend != "ray":
        yield
        return
    try:
        import ray
    except ImportError:
        raise RunnerError("--backend ray: ray is not installed (pip install 'fray[ray]')"
                          ) from None
    started = start_ray(config.address, config.workers, worker_output=False)
    try:
        yield
    finally:
        if started:
            import ray

            ray.shutdown()


def run_ladder(config: LadderConfig,
               progress: Callable[[int], None] | None = None) -> list[Cell]:
    """Play (or resume) every cell; write the tables; return the cells."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / BATTLES_FILE
    done = records_by_id(out, repair=True)
    cells = []
    planned = plan(config)
    if progress is not None:  # a resumed run's finished battles, every cell's, count at once
        progress(sum(s.id in done for _, specs in planned for s in specs))
    with log.open("a") as sink, ray_session(config):
        for cell, specs in planned:
            todo = [s for s in specs if s.id not in done]
            start = time.perf_counter()
            for result in run_battles(todo, backend=config.backend, workers=config.workers,
                                      address=config.address):
                record = dict(result.record, seconds=round(time.perf_counter() - start, 3))
                sink.write(json.dumps(record, sort_keys=True) + "\n")
                sink.flush()
                done[result.id] = record
                if progress is not None:
                    progress(1)
            for s in specs:
                record = done[s.id]
                winner = record["winner"]
                if winner == cell.side:
                    cell.wins += 1
                elif winner is None:
                    cell.draws += 1
                else:
                    cell.losses += 1
            cell.seconds = _seconds(done, specs)
            cells.append(cell)
            write_tables(cells, out, config)
    return cells


def _seconds(done: dict[str, dict], specs: list[BattleSpec]) -> float:
    """Wall time of a cell's battles (each record keeps the cell's running clock)."""
    return max((done[s.id].get("seconds", 0.0) for s in specs), default=0.0)


def table(cells: Sequence[Cell]) -> str:
    """The ladder as a Markdown table."""
    lines = ["| scenario | agent plays | vs fixed | agent | battles | won | drawn | win rate "
             "| Wilson 95% | s/battle |", "|---|---|---|---|---:|---:|---:|---:|---|---:|"]
    for c in cells:
        low, high = c.interval
        per = c.seconds / c.played if c.played else 0.0
        short = "" if c.played >= c.planned else f" (of {c.planned})"
        lines.append(f"| {c.scenario} | {c.side} | {c.opponent} | {c.agent} | "
                     f"{c.played}{short} | {c.wins} | {c.draws} | {c.rate:.3f} | "
                     f"[{low:.3f}, {high:.3f}] | {per:.2f} |")
    return "\n".join(lines)


def write_tables(cells: Sequence[Cell], out: Path, config: LadderConfig) -> None:
    """``ladder.md`` and ``ladder.csv`` in ``out``."""
    header = (f"Ladder: agents {', '.join(config.agents)}; party fixed {config.fixed_party}, "
              f"monsters fixed {config.fixed_monsters}; seeds 0..N-1 per cell.\n\n")
    (out / "ladder.md").write_text(header + table(cells) + "\n")
    with (out / "ladder.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "side", "agent", "opponent", "battles", "wins", "draws",
                    "losses", "win_rate", "wilson_low", "wilson_high", "seconds"])
        for c in cells:
            low, high = c.interval
            w.writerow([c.scenario, c.side, c.agent, c.opponent, c.played, c.wins, c.draws,
                        c.losses, f"{c.rate:.4f}", f"{low:.4f}", f"{high:.4f}",
                        f"{c.seconds:.1f}"])


def decision_times(agent: str, scenarios: Sequence[str], opponent: str = "tactician",
                   seeds: Sequence[int] = (0, 1), decisions: int = 60) -> dict[str, list[float]]:
    """CPU seconds (``time.process_time``, one core) of each decision ``agent`` makes as
    the party against ``opponent`` in the first ``decisions`` decisions of each seed's
    battle; decisions without a choice to make (an agent reporting ``last_iterations``
    of 0) are left out."""
    import rules

    spec, other = AgentSpec.parse(agent), AgentSpec.parse(opponent)
    out: dict[str, list[float]] = {}
    for scenario in scenarios:
        times = out.setdefault(scenario, [])
        for seed in seeds:
            b = rules.Battle.from_scenario(scenario, seed=seed)
            me, them = spec.make(seed=seed), other.make(seed=seed + 1)
            for _ in range(decisions):
                d = b.decision
                if d is None:
                    break
                if b.combatants[d.actor].team != "party":
                    b.apply(them.act(b))
                    continue
                start = time.process_time()
                action = me.act(b)
                spent = time.process_time() - start
                if getattr(me, "last_iterations", 1):
                    times.append(spent)
                b.apply(action)
    return out
