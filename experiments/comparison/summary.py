"""Tournament summaries: per-agent results with intervals, the matchup matrix, ratings.

:func:`summarize` turns battle records (``battles.jsonl``) into a :class:`Summary`:

- one row per agent and scenario (and pooled over scenarios, scenario ``"all"``), counted
  per seat (a battle an agent plays against itself counts once for each side): battles,
  wins/draws/losses with Wilson 95% intervals, mean rounds with a t interval, mean damage
  dealt and taken and Free Attacks provoked per battle;
- the matchup matrix: row agent's score rate (win 1, draw 1/2) against the column agent,
  pooled over scenarios and sides;
- openskill Plackett-Luce ratings with bootstrap intervals, and Nash averaging over the
  matchup matrix (a redundant copy of an agent does not change the others' skills);
- per scenario, the first team's win rate (the side advantage the swapped sides cancel).

:func:`write_summary` writes ``summary.csv`` and ``summary.json``; :func:`table_text` is
the printed table.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from experiments.comparison.stats import (
    NashAverage,
    Rating,
    mean_interval,
    nash_average,
    plackett_luce_ratings,
    wilson_interval,
)

Record = dict[str, Any]
ALL = "all"


@dataclass
class AgentRow:
    """One agent's results on one scenario (or ``all``)."""

    agent: str
    scenario: str
    battles: int
    wins: int
    draws: int
    losses: int
    win_rate: float
    win_low: float
    win_high: float
    draw_rate: float
    draw_low: float
    draw_high: float
    loss_rate: float
    loss_low: float
    loss_high: float
    mean_rounds: float
    rounds_low: float
    rounds_high: float
    damage_dealt: float
    damage_taken: float
    free_attacks_provoked: float
    rating_mu: float | None = None
    rating_low: float | None = None
    rating_high: float | None = None
    nash_mass: float | None = None
    nash_skill: float | None = None


@dataclass
class Summary:
    """Everything :func:`summarize` computes; ``to_dict`` is ``summary.json``."""

    agents: list[str]
    rows: list[AgentRow]
    matchup: list[list[float | None]]
    matchup_battles: list[list[int]]
    ratings: list[Rating]
    nash: NashAverage
    sides: dict[str, dict[str, Any]] = field(default_factory=dict)
    battles: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"battles": self.battles, "agents": self.agents,
                "rows": [asdict(row) for row in self.rows],
                "matchup": {"agents": self.agents, "score_rate": self.matchup,
                            "battles": self.matchup_battles},
                "ratings": [asdict(r) for r in self.ratings],
                "nash": asdict(self.nash), "sides": self.sides}

    def overall(self) -> list[AgentRow]:
        """The rows pooled over scenarios, in agent order."""
        return [row for row in self.rows if row.scenario == ALL]


def seats(record: Record) -> list[tuple[str, str, float]]:
    """(agent, team, score) for each team of a battle record (win 1, draw 1/2, loss 0)."""
    winner = record["winner"]
    return [(agent, team, 0.5 if winner is None else 1.0 if winner == team else 0.0)
            for team, agent in record["agents"].items()]


def _row(agent: str, scenario: str, entries: list[tuple[Record, str, float]]) -> AgentRow:
    n = len(entries)
    wins = sum(1 for _, _, score in entries if score == 1.0)
    draws = sum(1 for _, _, score in entries if score == 0.5)
    losses = n - wins - draws
    rounds = [record["rounds"] for record, _, _ in entries]
    mean_rounds, (rounds_low, rounds_high) = mean_interval(rounds)
    intervals = [wilson_interval(k, n) for k in (wins, draws, losses)]

    def per_battle(key: str) -> float:
        return float(np.mean([record["teams"][team][key] for record, team, _ in entries]))

    return AgentRow(agent, scenario, n, wins, draws, losses,
                    wins / n, *intervals[0], draws / n, *intervals[1], losses / n,
                    *intervals[2], mean_rounds, rounds_low, rounds_high,
                    per_battle("damage_dealt"), per_battle("damage_taken"),
                    per_battle("free_attacks_provoked"))


def summarize(records: Sequence[Record], agents: Sequence[str], *, seed: int = 0,
              resamples: int = 100) -> Summary:
    """The summary of ``records`` (in schedule order) for the agents, in that order."""
    agents = list(agents)
    index = {name: i for i, name in enumerate(agents)}
    by_key: dict[tuple[str, str], list[tuple[Record, str, float]]] = defaultdict(list)
    score = np.zeros((len(agents), len(agents)))
    count = np.zeros((len(agents), len(agents)), dtype=int)
    games = []
    sides: dict[str, dict[str, Any]] = {}
    for record in records:
        played = seats(record)
        for agent, team, value in played:
            by_key[(agent, record["scenario"])].append((record, team, value))
            by_key[(agent, ALL)].append((record, team, value))
        (a, _, score_a), (b, _, _) = played
        if a != b:
            score[index[a], index[b]] += score_a
            score[index[b], index[a]] += 1 - score_a
            count[index[a], index[b]] += 1
            count[index[b], index[a]] += 1
            games.append((a, b, score_a))
        first = next(iter(record["agents"]))
        side = sides.setdefault(record["scenario"], {"team": first, "battles": 0, "wins": 0,
                                                      "draws": 0})
        side["battles"] += 1
        side["wins"] += record["winner"] == first
        side["draws"] += record["winner"] is None
    for side in sides.values():
        side["win_rate"] = side["wins"] / side["battles"]
        side["win_low"], side["win_high"] = wilson_interval(side["wins"], side["battles"])
    scenarios = list(dict.fromkeys(record["scenario"] for record in records))
    rows = [_row(agent, scenario, by_key[(agent, scenario)])
            for scenario in [*scenarios, ALL] for agent in agents
            if by_key[(agent, scenario)]]
    with np.errstate(invalid="ignore"):
        rate = np.where(count > 0, score / np.maximum(count, 1), np.nan)
    ratings = plackett_luce_ratings(games, agents, resamples=resamples, seed=seed)
    nash = nash_average(agents, np.nan_to_num(rate - 0.5, nan=0.0))
    by_agent = {r.agent: r for r in ratings}
    for row in rows:
        if row.scenario == ALL:
            rating = by_agent[row.agent]
            row.rating_mu, row.rating_low, row.rating_high = rating.mu, rating.low, rating.high
            row.nash_mass = nash.mass[index[row.agent]]
            row.nash_skill = nash.skill[index[row.agent]]
    matchup = [[None if np.isnan(v) else float(v) for v in line] for line in rate]
    return Summary(agents, rows, matchup, count.tolist(), ratings, nash, sides, len(records))


def write_summary(out: Path, summary: Summary) -> None:
    """``out/summary.csv`` (one row per agent and scenario) and ``out/summary.json``."""
    columns = list(asdict(summary.rows[0]).keys()) if summary.rows else ["agent"]
    with (out / "summary.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for row in summary.rows:
            writer.writerow({k: _rounded(v) for k, v in asdict(row).items()})
    (out / "summary.json").write_text(json.dumps(summary.to_dict(), indent=1) + "\n",
                                      encoding="utf-8")


def _rounded(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


def percent(rate: float, low: float, high: float) -> str:
    """``62% [55-69]``."""
    return f"{rate * 100:3.0f}% [{low * 100:.0f}-{high * 100:.0f}]"


def table_text(summary: Summary) -> str:
    """The printed results table (pooled over scenarios), strongest rating first."""
    rows = sorted(summary.overall(), key=lambda row: -(row.rating_mu or 0.0))
    width = max([len("agent"), *(len(r.agent) for r in rows)])
    head = (f"{'agent':<{width}}  {'battles':>7}  {'win [95% CI]':<14} {'draw [95% CI]':<14} "
            f"{'loss [95% CI]':<14} {'rating [95% CI]':<18} {'nash':>6}  {'rounds':>6}  "
            f"{'dealt':>5} {'taken':>5} {'FA':>4}")
    lines = [head, "-" * len(head)]
    for r in rows:
        rating = (f"{r.rating_mu:5.1f} [{r.rating_low:.1f}-{r.rating_high:.1f}]"
                  if r.rating_mu is not None else "-")
        lines.append(
            f"{r.agent:<{width}}  {r.battles:>7}  {percent(r.win_rate, r.win_low, r.win_high):<14} "
            f"{percent(r.draw_rate, r.draw_low, r.draw_high):<14} "
            f"{percent(r.loss_rate, r.loss_low, r.loss_high):<14} {rating:<18} "
            f"{(r.nash_skill or 0.0):6.3f}  {r.mean_rounds:6.1f}  {r.damage_dealt:5.1f} "
            f"{r.damage_taken:5.1f} {r.free_attacks_provoked:4.1f}")
    for scenario, side in summary.sides.items():
        lines.append(f"{scenario}: first team '{side['team']}' wins "
                     f"{percent(side['win_rate'], side['win_low'], side['win_high'])} of "
                     f"{side['battles']} battles ({side['draws']} draws)")
    lines.append("rating: openskill Plackett-Luce mu (bootstrap 95% interval); nash: "
                 "Nash-averaged score against the equilibrium mix (0 = unbeaten); dealt, "
                 "taken: damage per battle; FA: Free Attacks provoked per battle")
    return "\n".join(lines)
