"""Batches of battles and what they measure.

A :class:`BatchTask` is a list of battle seeds played on one setting (a content folder and
a scenario file) with one agent per side, sides as the scenario ships them (the party
agent plays the scenario's first team). :func:`play_batch` plays it wherever it lands (in
this process, a worker process or a Ray task) and returns a :class:`Tally`: the result
depends only on the task. Each battle is :func:`experiments.replay.play`'s battle (agent
of the i-th team seeded ``seed + i``), so ``fray watch`` replays any of them; when the
engine is native and both agents have a native twin, the whole battle runs in the engine
(``rules.bridge.play_natively``), a few hundred microseconds a battle.

Metrics of a tally:

- ``party_win``: the party's score rate, a win 1, a draw (no winner when ``max_rounds``
  ends the battle) 1/2, a loss 0; its interval is Wilson's, with the draws as half a win.
- ``monsters_win``: the monsters' score rate, draws half too (so it is 1 - party_win).
- ``draws``: the rate of draws (Wilson interval).
- ``rounds``: the median battle length in rounds, with the distribution-free interval of
  a median (order statistics, :func:`experiments.comparison.stats.median_interval`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rules
from experiments.balance.content_cache import loaded_content
from experiments.comparison.runner import AgentSpec
from experiments.comparison.stats import Interval, median_interval, wilson_interval

SCENARIO_FILE = "scenario.toml"
METRICS = ("party_win", "monsters_win", "rounds", "draws")


@dataclass(frozen=True)
class BatchTask:
    """Battles to play: one per seed, on a setting given as the texts of its content files
    and scenario (``files``: (file name, text), the scenario as ``scenario.toml``), so a
    worker on another machine needs nothing of the driver's folder; ``setting`` (knob,
    value) pairs are applied to those files in the task (:func:`variant`), so the driver
    only plans: writing and checking each setting's files is the workers' work."""

    files: tuple[tuple[str, str], ...]
    party: AgentSpec
    monsters: AgentSpec
    seeds: tuple[int, ...]
    setting: tuple[tuple[str, Any], ...] = ()


def setting_files(content_dir: str, scenario: str) -> tuple[tuple[str, str], ...]:
    """The texts a :class:`BatchTask` carries for a content folder and scenario file."""
    texts = [(path.name, path.read_text(encoding="utf-8"))
             for path in sorted(Path(content_dir).glob("*.toml"))]
    return (*texts, (SCENARIO_FILE, Path(scenario).read_text(encoding="utf-8")))


def materialise(files: tuple[tuple[str, str], ...]) -> tuple[str, str]:
    """The setting's files written once a machine under the temp folder (named by their
    hash): (content folder, scenario file)."""
    digest = hashlib.sha256(repr(files).encode()).hexdigest()[:20]
    folder = Path(tempfile.gettempdir()) / "fray-balance" / digest
    content = folder / "content"
    scenario = folder / SCENARIO_FILE
    if not scenario.exists():
        content.mkdir(parents=True, exist_ok=True)
        for name, text in files:
            if name != SCENARIO_FILE:
                (content / name).write_text(text, encoding="utf-8")
        partial = folder / f".{SCENARIO_FILE}.{os.getpid()}"
        partial.write_text(dict(files)[SCENARIO_FILE], encoding="utf-8")
        partial.replace(scenario)  # last, whole: its presence says the folder is complete
    return str(content), str(scenario)


def variant(task: BatchTask) -> tuple[str, str]:
    """The task's setting written once a machine under the temp folder (named by the hash
    of its files and setting) by :func:`experiments.balance.knobs.write_setting`, which
    checks it (a setting the rules reject is its KnobError): (content folder, scenario
    file). Written beside its place, then renamed into it whole, so workers writing the
    same setting at once never read a half-written one."""
    from experiments.balance.knobs import write_setting

    if not task.setting:
        return materialise(task.files)
    digest = hashlib.sha256(repr((task.files, task.setting)).encode()).hexdigest()[:20]
    root = Path(tempfile.gettempdir()) / "fray-balance"
    folder = root / f"setting-{digest}"
    if not folder.exists():
        content, scenario = materialise(task.files)
        staging = Path(tempfile.mkdtemp(prefix=f".setting-{digest}-", dir=root))
        try:
            write_setting(dict(task.setting), Path(content), Path(scenario), staging)
            staging.rename(folder)
        except OSError:   # another process published it first
            if not folder.exists():
                raise
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
    return str(folder / "content"), str(folder / SCENARIO_FILE)


@dataclass
class Tally:
    """Outcomes of battles in play order: each one's result (``p`` the party won, ``m``
    the monsters, ``d`` a draw) and rounds."""

    outcomes: str = ""
    rounds: list[int] = field(default_factory=list)

    @property
    def battles(self) -> int:
        return len(self.outcomes)

    @property
    def party(self) -> int:
        return self.outcomes.count("p")

    @property
    def monsters(self) -> int:
        return self.outcomes.count("m")

    @property
    def draws(self) -> int:
        return self.outcomes.count("d")

    def add(self, other: Tally) -> Tally:
        """This tally followed by ``other`` (a new tally)."""
        return Tally(self.outcomes + other.outcomes, self.rounds + other.rounds)

    def to_dict(self) -> dict[str, Any]:
        return {"outcomes": self.outcomes, "rounds": self.rounds}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tally:
        return cls(str(data["outcomes"]), [int(r) for r in data["rounds"]])

    def scores(self, metric: str) -> list[float]:
        """Per battle, in play order, what the metric averages (rounds for ``rounds``):
        for paired comparisons of two settings on the same seeds."""
        if metric == "rounds":
            return [float(r) for r in self.rounds]
        table = {"party_win": {"p": 1.0, "d": 0.5, "m": 0.0},
                 "monsters_win": {"p": 0.0, "d": 0.5, "m": 1.0},
                 "draws": {"p": 0.0, "d": 1.0, "m": 0.0}}
        if metric not in table:
            raise ValueError(f"metric: expected one of {', '.join(METRICS)}, got {metric!r}")
        return [table[metric][o] for o in self.outcomes]


def measure(tally: Tally, metric: str) -> tuple[float, Interval]:
    """The metric of a tally and its 95% interval (nan and (0, 1) with no battles)."""
    n = tally.battles
    if metric == "rounds":
        return median_interval(tally.rounds)
    if metric == "party_win":
        return _rate(tally.party + tally.draws / 2, n)
    if metric == "monsters_win":
        return _rate(tally.monsters + tally.draws / 2, n)
    if metric == "draws":
        return _rate(tally.draws, n)
    raise ValueError(f"metric: expected one of {', '.join(METRICS)}, got {metric!r}")


def _rate(successes: float, trials: int) -> tuple[float, Interval]:
    if trials == 0:
        return (float("nan"), (0.0, 1.0))
    return (successes / trials, wilson_interval(successes, trials))


def _players(task: BatchTask, teams: Sequence[str], seed: int) -> dict[str, Any]:
    specs = (task.party, task.monsters)
    return {team: spec.make(seed=seed + index) for index, (team, spec)
            in enumerate(zip(teams, specs, strict=True))}


def play_batch(task: BatchTask) -> Tally:
    """Play every battle of ``task``; the tally (its rounds in seed order)."""
    from experiments.replay import play
    from rules import bridge

    content_dir, scenario_file = variant(task)
    content = loaded_content(content_dir)
    scenario = rules.load_scenario(scenario_file, content)
    teams = list(scenario.teams)
    if len(teams) != 2:
        raise rules.FrayError(f"{scenario_file}: teams: expected 2 teams (party and "
                              f"monsters), got {len(teams)} ({', '.join(teams)})")
    party_team, monsters_team = teams
    outcomes: list[str] = []
    rounds: list[int] = []
    for seed in task.seeds:
        battle = None
        twins: dict[str, Any] = {}
        if rules.engine.resolve() == "native":
            # the battle starts in the engine (rules.Battle picks it, once)
            battle = rules.Battle(scenario, seed=seed, content=content, content_dir=content_dir)
            players = _players(task, teams, seed)
            twins = {team: bridge.twin_of(player) for team, player in players.items()}
        if battle is not None and battle.engine == "native" and None not in twins.values():
            bridge.play_natively(battle, twins)
        else:
            battle, _ = play(scenario_file, seed, {party_team: task.party.name,
                                                   monsters_team: task.monsters.name},
                             content_dir=content_dir, events=False,
                             agent_kwargs={party_team: dict(task.party.kwargs),
                                           monsters_team: dict(task.monsters.kwargs)})
        outcomes.append("p" if battle.winner == party_team else
                        "m" if battle.winner == monsters_team else "d")
        rounds.append(battle.round)
    return Tally("".join(outcomes), rounds)
