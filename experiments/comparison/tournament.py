"""Round-robin tournaments: scheduling, seeds, running with resume.

A tournament plays every pair of distinct agents (one agent alone plays itself) on every
scenario, ``battles`` times per pairing and side: battle ``i`` of a pairing is played
twice with the same seed, once with each agent on the first team, so the side advantage
cancels within a pair. The battle seed is derived from the tournament seed, the scenario,
the pairing and ``i`` (sha256), never from the content folder, so a rules variant is
played on the same seeds (common random numbers).

Files under the output folder:

- ``tournament.json``: the settings; ``--resume`` refuses different ones.
- ``battles.jsonl``: one record per finished battle, appended and flushed as it ends, so
  a killed run loses at most the battles in flight; ``--resume`` plays only the missing
  ones (a half-written last line is dropped) and a finished run plays nothing more.
- ``replays/ID.json``: each battle's compact replay (seed, agents, actions; no events).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

import rules
from experiments.comparison.runner import (
    AgentSpec,
    BattleResult,
    BattleSpec,
    RunnerError,
    run_battles,
)
from experiments.replay import Replay, content_hash

BATTLES_FILE = "battles.jsonl"
CONFIG_FILE = "tournament.json"
REPLAY_DIR = "replays"


class TournamentError(rules.FrayError):
    """Settings that cannot be played, or an output folder that does not fit them."""


@dataclass(frozen=True)
class TournamentConfig:
    """What a tournament plays; ``caps`` limits battles per pairing and side for an agent
    (a slow searcher plays fewer battles than the rest)."""

    agents: tuple[AgentSpec, ...]
    scenarios: tuple[str, ...]
    battles: int
    seed: int = 0
    content_dir: str | None = None
    caps: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The settings as stored in ``tournament.json``."""
        return {"agents": [a.label for a in self.agents], "scenarios": list(self.scenarios),
                "battles": self.battles, "seed": self.seed, "content_dir": self.content_dir,
                "content_hash": content_hash(self.content_dir), "caps": dict(self.caps)}

    def pairings(self) -> list[tuple[AgentSpec, AgentSpec]]:
        """Every unordered pair of distinct agents, in list order (one agent: itself)."""
        if len(self.agents) == 1:
            return [(self.agents[0], self.agents[0])]
        return [(a, b) for i, a in enumerate(self.agents) for b in self.agents[i + 1:]]

    def battles_for(self, agent: AgentSpec, opponent: AgentSpec) -> int:
        """Battles per side for the pairing (``battles``, or less by a cap)."""
        caps = dict(self.caps)
        return min([self.battles] + [caps[x.label] for x in (agent, opponent) if x.label in caps])


def slug(text: str) -> str:
    """A file-name-safe form of an agent spec or scenario path."""
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", Path(text).stem if text.endswith(".toml")
                  else text)


def battle_seed(seed: int, scenario: str, agent: str, opponent: str, index: int) -> int:
    """The seed of battle ``index`` of pairing (``agent``, ``opponent``) on ``scenario``
    (63 bits, sha256)."""
    key = f"{seed}|{scenario}|{agent}|{opponent}|{index}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> 1


def scenario_teams(scenario: str, content_dir: str | None) -> tuple[str, str]:
    """The scenario's two teams (loads it once, so a bad name fails before any battle)."""
    teams = tuple(rules.Battle.from_scenario(scenario, seed=0,
                                             content_dir=content_dir).scenario.teams)
    if len(teams) != 2:
        raise TournamentError(f"{scenario}: teams: expected 2 teams for a tournament, "
                              f"got {len(teams)} ({', '.join(teams)})")
    return teams  # type: ignore[return-value]


def schedule(config: TournamentConfig) -> list[BattleSpec]:
    """Every battle of the tournament, in a fixed order."""
    specs = []
    for scenario in config.scenarios:
        first, second = scenario_teams(scenario, config.content_dir)
        for a, b in config.pairings():
            sides = [(a, b)] if a == b else [(a, b), (b, a)]
            for index in range(config.battles_for(a, b)):
                seed = battle_seed(config.seed, scenario, a.label, b.label, index)
                for one, two in sides:
                    specs.append(BattleSpec(
                        id=f"{slug(scenario)}.{slug(one.label)}-v-{slug(two.label)}."
                           f"{index:04d}",
                        scenario=scenario, agents=((first, one), (second, two)), seed=seed,
                        content_dir=config.content_dir,
                        meta=(("pairing", [a.label, b.label]), ("index", index))))
    return specs


# ---------------------------------------------------------------- files


def load_records(out: Path, repair: bool = False) -> list[dict[str, Any]]:
    """The records of ``out/battles.jsonl``; a half-written last line is dropped (and
    cut from the file with ``repair``, so appending continues on a clean line)."""
    path = out / BATTLES_FILE
    if not path.exists():
        return []
    raw = path.read_bytes()
    records, good = [], 0
    for line in raw.splitlines(keepends=True):
        try:
            if not line.endswith(b"\n"):
                raise ValueError("unterminated line")
            records.append(json.loads(line))
        except ValueError:
            if good + len(line) < len(raw):
                raise TournamentError(f"{path}: line {len(records) + 1}: expected a JSON "
                                      f"record, got {line[:60]!r}") from None
            break
        good += len(line)
    if repair and good < len(raw):
        with path.open("r+b") as handle:
            handle.truncate(good)
    return records


def _check_folder(out: Path, config: TournamentConfig, resume: bool) -> None:
    stored_path = out / CONFIG_FILE
    has_battles = (out / BATTLES_FILE).exists() and (out / BATTLES_FILE).stat().st_size > 0
    if has_battles and not resume:
        raise TournamentError(f"{out}: already holds battles ({BATTLES_FILE}); pass --resume "
                              f"to continue it, or choose a new --out")
    if not stored_path.exists():
        return
    try:
        stored = json.loads(stored_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TournamentError(f"{stored_path}: expected JSON settings, got unreadable "
                              f"text ({exc})") from None
    wanted = config.to_dict()
    for key, value in wanted.items():
        if has_battles and stored.get(key) != value:
            raise TournamentError(f"{stored_path}: {key}: this folder was played with "
                                  f"{stored.get(key)!r}, got {value!r}; resume with the "
                                  f"same settings or choose a new --out")


def write_result(out: Path, result: BattleResult, handle: Any) -> dict[str, Any]:
    """Write a battle's replay, then append its record (flushed) and return it."""
    replay_path = Replay.from_dict(result.replay).save(out / REPLAY_DIR / f"{result.id}.json")
    record = dict(result.record, replay=str(replay_path.relative_to(out)))
    handle.write(json.dumps(record) + "\n")
    handle.flush()
    return record


def run_tournament(config: TournamentConfig, out: str | Path, *, resume: bool = False,
                   backend: str = "local", workers: int | None = None,
                   address: str | None = None, progress: bool = True,
                   label: str = "battles", bar: tqdm | None = None) -> list[dict[str, Any]]:
    """Play the tournament into ``out`` (resuming if asked); every record, in schedule
    order. ``bar``: a progress bar of a longer run (a sweep's) to advance, instead of one
    of its own."""
    out = Path(out)
    if config.battles < 1:
        raise TournamentError(f"--battles: expected a whole number >= 1, got {config.battles}")
    specs = schedule(config)
    if out.exists() and not out.is_dir():
        raise TournamentError(f"--out {out}: expected a folder, found a file")
    out.mkdir(parents=True, exist_ok=True)
    _check_folder(out, config, resume)
    (out / CONFIG_FILE).write_text(json.dumps(config.to_dict(), indent=2) + "\n",
                                   encoding="utf-8")
    wanted = {spec.id for spec in specs}
    done = {r["id"]: r for r in load_records(out, repair=True) if r.get("id") in wanted}
    todo = [spec for spec in specs if spec.id not in done]
    own = bar is None
    if bar is None:
        bar = tqdm(total=len(specs), initial=len(done), desc=label, unit="battle",
                   disable=not progress, dynamic_ncols=True)
    else:
        bar.set_description(label)
        bar.update(len(done))
    try:
        with (out / BATTLES_FILE).open("a", encoding="utf-8") as handle:
            for result in run_battles(todo, backend=backend, workers=workers,
                                      address=address):
                done[result.id] = write_result(out, result, handle)
                bar.update(1)
    finally:
        if own:
            bar.close()
    return [done[spec.id] for spec in specs]


def parse_scenarios(text: str) -> tuple[str, ...]:
    """Scenario names or paths from a comma list."""
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise RunnerError(f"--scenarios: expected at least one scenario, got {text!r}")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise RunnerError(f"--scenarios: expected each scenario once, got "
                          f"{', '.join(repeated)} more than once")
    return names


def config_from(agents: Iterable[AgentSpec], scenarios: Iterable[str], battles: int,
                seed: int, content_dir: str | None,
                caps: dict[str, int] | None = None) -> TournamentConfig:
    """A checked TournamentConfig (seed >= 0, battles >= 1, content folder exists)."""
    if seed < 0:
        raise TournamentError(f"--seed: expected a whole number >= 0, got {seed}")
    if battles < 1:
        raise TournamentError(f"--battles: expected a whole number >= 1, got {battles}")
    if content_dir is not None and not Path(content_dir).is_dir():
        raise TournamentError(f"--content-dir {content_dir}: expected a folder of content "
                              f"TOML files, found none")
    if content_dir is not None:
        rules.load_content(content_dir)
    agents = tuple(agents)
    labels = [agent.label for agent in agents]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise TournamentError(f"--agents: expected each agent once, got {', '.join(repeated)}"
                              f" more than once")
    return TournamentConfig(agents, tuple(scenarios), battles, seed, content_dir,
                            tuple(sorted((caps or {}).items())))
