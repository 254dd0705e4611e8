"""Golden playthroughs: one recorded battle per shipped scenario, so that any change of
behaviour is a visible diff (as OpenSpiel's playthrough tests do).

Each scenario's battle is played with a fixed seed (:data:`SEED`) by fixed agents
(:data:`FIRST_TEAM_AGENT` for the scenario's first team, :data:`OTHER_TEAMS_AGENT` for
every other team) through :func:`experiments.replay.play`, and stored as
``tests/golden/<scenario>.json``: the seed, the agents, the result and the text of every
event, one event per line so that ``git diff`` shows exactly which lines changed.

    fray golden              # re-play every scenario and compare; print the first difference
    fray golden --update     # re-record (commit the diff with a message that explains it)

``tests/golden/test_golden.py`` runs the comparison in the test suite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rules
from experiments.replay import read_json

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_DIR = ROOT / "tests" / "golden"
FORMAT = "fray-golden"
VERSION = 1
SEED = 1
FIRST_TEAM_AGENT = "berserker"
OTHER_TEAMS_AGENT = "random"


class GoldenError(rules.FrayError):
    """A golden file that cannot be read."""


@dataclass(frozen=True)
class Golden:
    """One recorded playthrough: who played, how it ended, and every event's text."""

    scenario: str
    seed: int
    agents: dict[str, str]
    result: dict[str, Any]
    lines: list[str]

    def to_json(self) -> str:
        """The file text: one event line per JSON line, so diffs are per event."""
        head = {"format": FORMAT, "version": VERSION, "scenario": self.scenario,
                "seed": self.seed, "agents": self.agents, "result": self.result}
        body = ",\n".join("  " + json.dumps(line, ensure_ascii=False) for line in self.lines)
        text = json.dumps(head, indent=1, ensure_ascii=False)[:-2]
        return f'{text},\n "events": [\n{body}\n ]\n}}\n'


def path_for(scenario: str, directory: Path = GOLDEN_DIR) -> Path:
    return directory / f"{scenario}.json"


def record(scenario: str, seed: int = SEED) -> Golden:
    """Play ``scenario`` with the fixed seed and agents and return its playthrough."""
    from experiments.replay import play

    teams = rules.Battle.from_scenario(scenario, seed=seed).scenario.teams
    agents = {team: FIRST_TEAM_AGENT if i == 0 else OTHER_TEAMS_AGENT
              for i, team in enumerate(teams)}
    battle, replay = play(scenario, seed, agents)
    result = {"winner": battle.winner, "rounds": battle.round,
              "decisions": replay.result["decisions"], "events": len(battle.events)}
    return Golden(scenario, seed, agents, result, [str(e) for e in battle.events])


def load(path: Path) -> Golden:
    """Read a golden file, naming the file and field of anything malformed."""
    data = read_json(path, "golden", GoldenError,
                     f"{path}: no golden file; run `fray golden --update`")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise GoldenError(f"{path}: format: expected '{FORMAT}'")
    if data.get("version") != VERSION:
        raise GoldenError(f"{path}: version: expected {VERSION}, got {data.get('version')!r}")
    try:
        return Golden(data["scenario"], data["seed"], dict(data["agents"]),
                      dict(data["result"]), [str(x) for x in data["events"]])
    except (KeyError, TypeError) as exc:
        raise GoldenError(f"{path}: missing or malformed field {exc}") from None


def first_difference(recorded: Golden, now: Golden) -> str | None:
    """One line naming the first difference between two playthroughs, or None."""
    for what in ("seed", "agents"):
        if getattr(recorded, what) != getattr(now, what):
            return (f"{what} differs: recorded {getattr(recorded, what)!r}, "
                    f"now {getattr(now, what)!r}")
    for index, (old, new) in enumerate(zip(recorded.lines, now.lines, strict=False)):
        if old != new:
            return f"event {index} differs: recorded '{old}', now '{new}'"
    if len(recorded.lines) != len(now.lines):
        shorter = min(len(recorded.lines), len(now.lines))
        longer = recorded.lines if len(recorded.lines) > shorter else now.lines
        side = "recorded" if longer is recorded.lines else "now"
        return (f"event count differs: recorded {len(recorded.lines)}, now {len(now.lines)} "
                f"(first extra, {side}: '{longer[shorter]}')")
    if recorded.result != now.result:
        return f"result differs: recorded {recorded.result}, now {now.result}"
    return None


def check(scenario: str, directory: Path = GOLDEN_DIR) -> str | None:
    """Re-play ``scenario`` and compare with its golden file: the first difference, or
    None when the playthrough is unchanged."""
    recorded = load(path_for(scenario, directory))
    return first_difference(recorded, record(scenario, recorded.seed))


def update(scenario: str, directory: Path = GOLDEN_DIR) -> bool:
    """Re-record ``scenario``'s golden file; True when its text changed."""
    path = path_for(scenario, directory)
    text = record(scenario).to_json()
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        return False
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def recorded_scenarios(directory: Path = GOLDEN_DIR) -> list[str]:
    """The scenarios that have a golden file in ``directory``."""
    return sorted(p.stem for p in directory.glob("*.json"))
