"""Replays: a battle as data (scenario text, content hash, seed, agents, actions, events).

A replay is enough to re-simulate a battle exactly: the scenario's own text, the content
it was played with (its folder and a hash of its files), the battle seed, the agents that
played each team, and every action applied in order (with the agent's reason, if any).
The events are stored too, so a re-simulation can be verified event by event and a viewer
can show the battle without running the rules.

    battle, replay = play("duel", seed=3, agents_by_team={"party": "tactician",
                                                          "monsters": "random"})
    replay.save("duel-3.json")
    mismatch = verify(Replay.load("duel-3.json"))   # None when every event matches

File format (JSON, one object): ``format`` = ``"fray-replay"``, ``version``, ``scenario``
(``name``, ``text``, ``source``), ``content_dir`` (or null for the shipped content),
``content_hash`` (sha256 over the content TOML files), ``seed``, ``agents`` (team ->
agent name), ``actions`` (``rules.Action.to_dict()`` each), ``reasons`` (one per action,
str or null), ``events`` (``rules.events.event_to_dict`` each), ``result`` (``winner``,
``rounds``, ``decisions``), and for a fuzzer's finding ``failure`` (what failed, after which action,
and the checks that found it; absent otherwise, see experiments.fuzzing.fuzz).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rules
from rules import bridge
from rules.events import event_from_dict, event_to_dict
from rules.limits import MAX_NESTING, MAX_SEED, nesting_depth, within

FORMAT = "fray-replay"
VERSION = 1
DATA_DIR = Path(rules.__file__).resolve().parent / "data"


class ReplayError(rules.FrayError):
    """A replay file that cannot be read, or a re-simulation that does not match."""


#: content_hash's answers by folder, with the (name, size, mtime) of the files they hashed
_CONTENT_HASHES: dict[Path, tuple[tuple[tuple[str, int, int], ...], str]] = {}


def content_hash(content_dir: str | Path | None) -> str:
    """sha256 over the content TOML files (name and bytes, sorted by name). The shipped
    content (``content_dir`` None or empty, as ``content_for`` reads it) is hashed once
    per process, as ``rules.content.default_content`` loads it once; another folder is
    hashed again only when a file's name, size or modification time changed since the
    last call, as its content is read again for each battle."""
    if not content_dir:
        return _shipped_content_hash()
    return _folder_hash(Path(content_dir))


@functools.cache
def _shipped_content_hash() -> str:
    return _folder_hash(DATA_DIR)


def _folder_hash(folder: Path) -> str:
    paths = sorted(folder.glob("*.toml"))
    stamps = tuple((path.name, (stat := path.stat()).st_size, stat.st_mtime_ns)
                   for path in paths)
    known = _CONTENT_HASHES.get(folder)
    if known is not None and known[0] == stamps:
        return known[1]
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    _CONTENT_HASHES[folder] = (stamps, digest.hexdigest())
    return digest.hexdigest()


def read_json(path: Path, what: str, error: type[rules.FrayError], missing: str) -> Any:
    """The JSON in ``path``; a missing file raises ``error(missing)``, unreadable text
    ``error`` naming the file and ``what`` kind of file was expected."""
    nested = f"{path}: expected a JSON {what} file nested at most {MAX_NESTING} deep"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(missing) from None
    except OSError as exc:  # a folder, no permission, ...
        raise error(f"{path}: expected a JSON {what} file, got "
                    f"{exc.strerror or type(exc).__name__}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{path}: expected a JSON {what} file, got unreadable text "
                    f"({exc})") from None
    except RecursionError:
        raise error(f"{nested}, got deeper than Python can read") from None
    if nesting_depth(data) > MAX_NESTING:
        raise error(f"{nested}, got deeper")
    return data


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_fields(data: dict[str, Any], source: str) -> None:
    """Each field of a replay file has its type (and a seed its range), else one line
    naming the field, what was expected and what was found."""
    def need(ok: bool, field: str, expected: str) -> None:
        if not ok:
            found = _short(data.get(field, "<missing>"))
            raise ReplayError(f"{source}: {field}: expected {expected}, got {found}")

    def strings(value: Any) -> bool:
        return isinstance(value, str)

    scenario = data.get("scenario")
    need(isinstance(scenario, dict) and all(strings(scenario.get(key))
                                            for key in ("name", "text", "source")),
         "scenario", "a table of name, text and source strings")
    seed = data.get("seed", "<missing>")
    need(seed is None or within(seed, MAX_SEED, 0), "seed",
         f"an integer from 0 to {MAX_SEED} or null")
    need(data.get("content_dir") is None or strings(data.get("content_dir")), "content_dir",
         "a folder name or null")
    need(strings(data.get("content_hash", "")), "content_hash", "a string")
    agents = data.get("agents")
    need(isinstance(agents, dict) and all(strings(v) for v in agents.values()), "agents",
         "a table of team = agent name")
    actions = data.get("actions")
    need(isinstance(actions, list) and all(isinstance(a, dict) for a in actions), "actions",
         "an array of actions {kind, target, square, item}")
    reasons = data.get("reasons")
    need(reasons is None or (isinstance(reasons, list)
                             and all(r is None or strings(r) for r in reasons)),
         "reasons", "an array of strings or nulls, one per action")
    need(isinstance(data.get("events", []), list), "events", "an array of events")
    need(isinstance(data.get("result", {}), dict), "result", "a table")


@dataclass
class Replay:
    """One battle as data; see the module docstring for the file format."""

    scenario_name: str
    scenario_text: str
    scenario_source: str
    seed: int | None
    agents: dict[str, str]
    content_dir: str | None = None
    content_hash: str = ""
    actions: list[dict[str, Any]] = field(default_factory=list)
    reasons: list[str | None] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    failure: dict[str, Any] | None = None  # a fuzzer's finding (experiments.fuzzing.fuzz)

    # ------------------------------------------------------------ building
    @classmethod
    def start(cls, battle: rules.Battle, agents: Mapping[str, str]) -> Replay:
        """An empty replay for a battle about to be played (no action applied yet)."""
        sc = battle.scenario
        return cls(sc.name, sc.text, sc.source, battle.seed, dict(agents),
                   battle.content_dir, content_hash(battle.content_dir))

    def record(self, action: rules.Action, reason: str | None) -> None:
        self.actions.append(action.to_dict())
        self.reasons.append(reason)

    def finish(self, battle: rules.Battle, events: bool = True) -> None:
        """Store the battle's result and (unless ``events`` is False: a compact replay,
        which the seed and actions re-simulate) its events."""
        self.events = [event_to_dict(e) for e in battle.events] if events else []
        self.result = {"winner": battle.winner, "rounds": battle.round,
                       "decisions": len(self.actions)}

    # ------------------------------------------------------------ files
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "version": VERSION,
            "scenario": {"name": self.scenario_name, "text": self.scenario_text,
                         "source": self.scenario_source},
            "content_dir": self.content_dir, "content_hash": self.content_hash,
            "seed": self.seed, "agents": dict(self.agents), "actions": self.actions,
            "reasons": self.reasons, "events": self.events, "result": self.result,
            **({"failure": self.failure} if self.failure is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: Any, source: str = "<replay>") -> Replay:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ReplayError(f"{source}: format: expected '{FORMAT}', got "
                              f"{data.get('format') if isinstance(data, dict) else data!r}")
        if data.get("version") != VERSION:
            raise ReplayError(f"{source}: version: expected {VERSION}, "
                              f"got {data.get('version')!r}")
        _check_fields(data, source)
        sc = data["scenario"]
        replay = cls(sc["name"], sc["text"], sc["source"], data["seed"],
                     dict(data["agents"]), data.get("content_dir"),
                     data.get("content_hash", ""), list(data["actions"]),
                     list(data.get("reasons") or [None] * len(data["actions"])),
                     list(data.get("events", [])), dict(data.get("result", {})),
                     data.get("failure"))
        if len(replay.reasons) != len(replay.actions):
            raise ReplayError(f"{source}: reasons: expected {len(replay.actions)} entries "
                              f"(one per action), got {len(replay.reasons)}")
        for index, event in enumerate(replay.events):
            try:
                str(event_from_dict(event))
            except (KeyError, TypeError, ValueError, AttributeError, IndexError):
                raise ReplayError(f"{source}: events[{index}]: expected an event "
                                  f"{{type, ...its fields}}, got {_short(event)}") from None
        return replay

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict()), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        path = Path(path)
        data = read_json(path, "replay", ReplayError, f"{path}: no such replay file")
        return cls.from_dict(data, source=str(path))

    # ------------------------------------------------------------ re-simulation
    def new_battle(self) -> rules.Battle:
        """The battle as it was before the first action."""
        return rules.Battle.from_toml(self.scenario_text, seed=self.seed,
                                      source=self.scenario_source,
                                      content_dir=self.content_dir)


def play(scenario: str, seed: int, agents_by_team: Mapping[str, str], *,
         content_dir: str | None = None, agent_seeds: Mapping[str, int] | None = None,
         on_decision: Callable[[rules.Battle], None] | None = None,
         agent_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
         players: Mapping[str, Any] | None = None, events: bool = True,
         ) -> tuple[rules.Battle, Replay]:
    """Play a whole battle with the named agents and return it with its replay.

    Teams missing from ``agents_by_team`` are played by ``random``. The agent of the
    i-th team is seeded ``seed + i`` unless ``agent_seeds`` says otherwise;
    ``agent_kwargs`` (team -> keyword arguments) go to ``agents.make``. ``players``
    (team -> an object with ``act(battle)``, a wrapped agent say) plays those teams
    instead; the replay still records the names. ``events=False`` leaves the replay's
    events out (a compact replay, as ``fray tournament`` keeps).

    When the battle runs on the native engine and every agent has a native form
    (``agent.native_twin()``), the engine plays the whole battle (rules/native/play.cpp),
    with the same actions, reasons and events; otherwise the agents that have one decide
    through it in the engine (``given`` players always decide themselves).
    """
    import agents

    battle = _new_battle(scenario, seed, content_dir)
    names = {team: agents_by_team.get(team, "random") for team in battle.scenario.teams}
    given = dict(players or {})
    players = {}
    for index, team in enumerate(battle.scenario.teams):
        agent_seed = (agent_seeds or {}).get(team, seed + index)
        players[team] = given.get(team) or agents.make(
            names[team], seed=agent_seed, **(agent_kwargs or {}).get(team, {}))
    replay = Replay.start(battle, names)
    # the teams whose agent has a native twin decide in the engine when the battle runs
    # there (none on the Python engine)
    twins = bridge.battle_twins(battle, {team: p for team, p in players.items()
                                         if team not in given})
    if on_decision is None and len(twins) == len(players):
        # every team's agent has a native form: the engine plays it out
        actions, reasons = bridge.play_records(battle, twins)
        replay.actions.extend(actions)
        replay.reasons.extend(reasons)
    while not battle.is_over:
        if on_decision is not None:
            on_decision(battle)
        decision = battle.decision
        if decision is None:  # is_over is False, so a decision is pending
            raise ReplayError("the battle is running but has no decision")
        team = battle.combatants[decision.actor].team
        if team in twins:  # the agent's twin decides in the engine, as the agent would
            action, reason = bridge.native_choice(battle, twins[team])
            reason = reason or None
        else:
            agent = players[team]
            action = agent.act(battle)
            reason = getattr(agent, "reason", None)
        battle.apply(action, reason=reason)
        replay.record(action, reason)
    replay.finish(battle, events)
    return battle, replay


def _new_battle(scenario: str, seed: int, content_dir: str | None) -> rules.Battle:
    """``rules.Battle.from_scenario(scenario, seed, content_dir)`` (on the native engine
    started in C++ from the scenario mustered once: ``rules.Battle`` does so)."""
    return rules.Battle.from_scenario(scenario, seed=seed, content_dir=content_dir)


def rerun(replay: Replay) -> rules.Battle:
    """Re-simulate a replay's actions; raises ``ReplayError`` if one is not legal."""
    battle = replay.new_battle()
    for index, (data, reason) in enumerate(zip(replay.actions, replay.reasons, strict=True)):
        action = rules.Action.from_dict(data)
        try:
            battle.apply(action, reason=reason)
        except rules.IllegalActionError as exc:
            raise ReplayError(f"action {index} ({action}) is not legal on re-simulation: "
                              f"{exc}") from None
    return battle


def first_mismatch(replay: Replay, battle: rules.Battle) -> str | None:
    """A line naming the first event where ``battle`` differs from the replay, or None.

    A compact replay (no events recorded, as ``fray tournament`` writes) is checked by
    its result (winner and rounds) instead."""
    if not replay.events and replay.result:
        found = {"winner": battle.winner, "rounds": battle.round}
        wanted = {key: replay.result.get(key) for key in found}
        return None if found == wanted else (f"result differs: recorded {wanted}, "
                                             f"re-simulated {found}")
    recorded = [event_from_dict(e) for e in replay.events]
    for index, (old, new) in enumerate(zip(recorded, battle.events, strict=False)):
        if old != new:
            return f"event {index} differs: recorded '{old}', re-simulated '{new}'"
    if len(recorded) != len(battle.events):
        return (f"event count differs: recorded {len(recorded)}, "
                f"re-simulated {len(battle.events)}")
    return None


def verify(replay: Replay) -> str | None:
    """Re-simulate and compare every event; None when all match, else the first
    difference (as :func:`first_mismatch`), or the action that was not legal."""
    if replay.content_hash and replay.content_hash != content_hash(replay.content_dir):
        return (f"content differs: recorded hash {replay.content_hash[:12]}, "
                f"now {content_hash(replay.content_dir)[:12]}")
    try:
        battle = rerun(replay)
    except ReplayError as exc:
        return str(exc)
    return first_mismatch(replay, battle)
