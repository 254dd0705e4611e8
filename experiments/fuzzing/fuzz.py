"""Rules fuzzing: whole battles under checks, driven by agents or by choices.

A :class:`Checker` runs, after every applied action, the invariants of
:mod:`experiments.fuzzing.invariants` (the one place for them: state, reaction limits, the env's
action mask), after every event the one-body-per-square check
(:func:`~experiments.fuzzing.invariants.check_bodies`: a move cut short can put two bodies on
one square and a later event of the same action move one away, so checking between
decisions alone can miss it; the battle's event log is swapped for an
:class:`EventWatch` list, so the rules themselves stay untouched), and follows sampled
copies: every ``clone_every`` decisions a ``clone()``,
and every ``json_every`` decisions a JSON round-trip, is taken and follows the battle for
``copies_span`` actions, which must give the same events and the same state. At the end
of a battle, replaying its seed and actions must give the same events.

:func:`run` plays one :class:`Case` (scenario text, seed, content) with a *chooser*:
agents (:func:`agent_chooser`), recorded actions (:func:`action_chooser`), or a list of
choices, each an index into ``legal_actions()`` taken modulo its length
(:func:`choice_chooser`), so any list of integers is a valid run. That is what makes
shrinking work (:mod:`experiments.fuzzing.shrink`). A rules bug never raises out of :func:`run`:
it comes back as the outcome's :class:`Failure`.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rules
from experiments.fuzzing.invariants import (
    ALLOWED_BUDGETS,
    EventLimits,
    InvariantViolation,
    MaskCheck,
    check_bodies,
    check_moved,
    check_replay,
    check_round_limits,
    check_state,
    need,
    state_key,
)
from experiments.replay import Replay
from rules import Action, Battle
from rules.events import Moved
from rules.invariants import watch_natively

__all__ = [
    "ALLOWED_BUDGETS",
    "Case",
    "Checker",
    "Checks",
    "EventLimits",
    "EventWatch",
    "Failure",
    "InvariantViolation",
    "MaskCheck",
    "Outcome",
    "check_replay",
    "check_round_limits",
    "check_state",
    "run",
    "run_choices",
    "state_key",
]

# ---------------------------------------------------------------- failures
@dataclass(frozen=True)
class Failure:
    """What went wrong at which action: ``kind`` is invariant, exception, agent or
    differential (the two engines disagree, :mod:`experiments.fuzzing.differential`)."""

    kind: str
    name: str
    message: str
    step: int  # actions applied before it was seen (the failing action is number step-1)
    where: str = ""  # for exceptions: the innermost frame

    @property
    def signature(self) -> tuple[str, str, str]:
        """What makes two failures the same bug (used for de-duplication and shrinking)."""
        return (self.kind, self.name, self.where)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "message": self.message,
                "step": self.step, "where": self.where}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Failure:
        return cls(str(data["kind"]), str(data["name"]), str(data["message"]),
                   int(data["step"]), str(data.get("where", "")))

    def __str__(self) -> str:
        place = f" at {self.where}" if self.where else ""
        return f"{self.kind} {self.name} after action {self.step}{place}: {self.message}"


def exception_failure(exc: BaseException, step: int, kind: str = "exception") -> Failure:
    """A Failure naming an exception and the innermost frame that raised it."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f"{Path(last.filename).name}:{last.name}"
    return Failure(kind, type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "",
                   step, where)


# ---------------------------------------------------------------- checker
Extra = Callable[[Battle], None]


@dataclass
class Checks:
    """Which checks to run and how often (copies are sampled to keep speed)."""

    mask: bool = True
    clone_every: int = 25  # 0: never; 1: at every decision
    json_every: int = 500  # to_json is O(events): sampled more thinly
    copies_span: int = 6
    replay: bool = True
    extra: tuple[Extra, ...] = ()  # more invariants (a test plants a broken one)
    every_event: bool = True  # check_bodies after every event, not only every action
    #: play on both engines and compare them (experiments.fuzzing.differential) instead of
    #: checking invariants; ``json_every`` is then how often ``to_json()`` is compared
    differential: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The settings (extra invariants by name only: they are code)."""
        return {"mask": self.mask, "clone_every": self.clone_every,
                "json_every": self.json_every, "copies_span": self.copies_span,
                "replay": self.replay,
                "extra": [getattr(e, "__name__", repr(e)) for e in self.extra],
                "every_event": self.every_event, "differential": self.differential}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Checks:
        return cls(bool(data.get("mask", True)), int(data.get("clone_every", 25)),
                   int(data.get("json_every", 500)), int(data.get("copies_span", 6)),
                   bool(data.get("replay", True)),
                   every_event=bool(data.get("every_event", True)),
                   differential=bool(data.get("differential", False)))


class EventWatch(list[rules.Event]):
    """A battle's event log that calls ``seen`` with each event as it is recorded (the
    rules record events with ``events.append``)."""

    __slots__ = ("seen",)

    def __init__(self, events: Sequence[rules.Event],
                 seen: Callable[[rules.Event], None]) -> None:
        super().__init__(events)
        self.seen = seen

    def append(self, event: rules.Event) -> None:
        super().append(event)
        self.seen(event)


def check_event(battle: Battle, event: rules.Event) -> None:
    """The checks after every event: the bodies (a Moved event emitted while its move frame
    is on top ends that move, whose bodies count again) and that a Moved event's actor
    stands on its last square."""
    top = battle.stack[-1] if battle.stack else None
    finished = top.actor if isinstance(event, Moved) and top is not None \
        and top.type == "move" else None
    check_bodies(battle, finished)
    check_moved(battle, event)


class Checker:
    """Runs :class:`Checks` on one battle: :meth:`start` before the first action, then
    :meth:`apply` for every action."""

    def __init__(self, battle: Battle, checks: Checks, fresh: Battle | None = None) -> None:
        self.checks = checks
        self.limits = EventLimits(battle)
        self.mask = MaskCheck(fresh or battle) if checks.mask else None
        self.shadows: list[tuple[str, Battle, int]] = []  # (what, copy, actions left)
        self.step = 0

    def start(self, battle: Battle) -> None:
        """Check the state before the first action, and watch every event from now on
        (``Checks.every_event``)."""
        self.limits.feed(battle.events)
        # the native engine checks the bodies after every event itself (the same check,
        # rules/native/core/invariants.cpp); on the Python engine an event hook runs it
        if self.checks.every_event and not watch_natively(battle):
            battle.state.events = EventWatch(battle.state.events,
                                             lambda event: check_event(battle, event))
        self._state(battle)

    def _state(self, battle: Battle) -> None:
        check_state(battle)
        for extra in self.checks.extra:
            extra(battle)
        if self.mask is not None:
            self.mask.check(battle)
        if battle.is_over:
            return
        every = self.checks.clone_every
        if every and self.step % every == 0:
            clone = battle.clone()
            need(clone.legal_actions() == battle.legal_actions(), "clone",
                  "the clone lists other legal actions")
            self.shadows.append(("clone", clone, self.checks.copies_span))
        every = self.checks.json_every
        if every and self.step % every == every // 2:
            text = battle.to_json()
            restored = Battle.from_json(text)
            need(restored.to_json() == text, "json-roundtrip",
                  "from_json(to_json()) has a different JSON")
            need(restored.decision == battle.decision, "json-roundtrip",
                  f"restored decision {restored.decision} vs {battle.decision}")
            need(restored.legal_actions() == battle.legal_actions(), "json-copy",
                  "the JSON copy lists other legal actions")
            self.shadows.append(("json-copy", restored, self.checks.copies_span))

    def apply(self, battle: Battle, action: Action, reason: str | None = None) -> list[rules.Event]:
        """Apply ``action`` to the battle and its copies, then check everything."""
        events = battle.apply(action, reason=reason)
        self.step += 1
        self.limits.feed(events)
        kept = []
        for name, copy_, left in self.shadows:
            try:
                got = copy_.apply(action, reason=reason)
            except rules.IllegalActionError as exc:
                raise InvariantViolation(name, f"{action} is illegal on the copy: "
                                               f"{exc}") from None
            if got != events:
                raise InvariantViolation(name, f"{action} gave other events on the copy: "
                                         f"{[str(e) for e in got][:3]} vs "
                                         f"{[str(e) for e in events][:3]}")
            if left <= 1 or battle.is_over:
                need(state_key(copy_) == state_key(battle), name,
                      f"the copy's state differs after {self.checks.copies_span} actions")
            else:
                kept.append((name, copy_, left - 1))
        self.shadows = kept
        self._state(battle)
        return events


# ---------------------------------------------------------------- running one battle
Chooser = Callable[[Battle, list[Action]], tuple[int, str | None] | None]


def agent_chooser(battle: Battle, agent_names: Mapping[str, str], seed: int) -> Chooser:
    """Choose with the named agents (team -> name; teams not named play ``random``)."""
    import agents

    players = {team: agents.make(agent_names.get(team, "random"), seed=seed + i)
               for i, team in enumerate(battle.scenario.teams)}

    def choose(battle: Battle, acts: list[Action]) -> tuple[int, str | None]:
        decision = battle.decision
        assert decision is not None  # called only while the battle runs
        agent = players[battle.combatants[decision.actor].team]
        action = agent.act(battle)
        return acts.index(action), getattr(agent, "reason", None)

    return choose


def choice_chooser(choices: Sequence[int]) -> Chooser:
    """Replay a list of choices (each modulo the number of legal actions); then stop."""
    position = iter(range(len(choices)))

    def choose(battle: Battle, acts: list[Action]) -> tuple[int, str | None] | None:
        i = next(position, None)
        return None if i is None else (choices[i] % len(acts), None)

    return choose


@dataclass(frozen=True)
class Case:
    """A battle to check: scenario TOML text (and where it came from), content, seed."""

    text: str
    source: str
    seed: int
    content_dir: str | None = None

    def battle(self, engine: str | None = None) -> Battle:
        """The battle before its first action, on ``engine`` (default as ``rules.engine``)."""
        return Battle.from_toml(self.text, seed=self.seed, source=self.source,
                                content_dir=self.content_dir, engine=engine)

    @classmethod
    def of_replay(cls, replay: Replay) -> Case:
        return cls(replay.scenario_text, replay.scenario_source, int(replay.seed or 0),
                   replay.content_dir)


@dataclass
class Outcome:
    """One checked run: the choices made, its replay, and the failure if any."""

    battle: Battle
    replay: Replay
    choices: list[int] = field(default_factory=list)
    failure: Failure | None = None
    played: int = 0  # decisions made without recording choices (the native loop's)

    @property
    def decisions(self) -> int:
        return self.played or len(self.choices)


def choose_next(outcome: Outcome, chooser: Chooser, acts: list[Action]
                ) -> tuple[Action, str | None] | None:
    """Ask ``chooser`` for the next action of ``outcome.battle`` among ``acts`` and record
    it (the choice and the replay line): the action and its reason, or None when the
    chooser stops or fails, the failure then in ``outcome.failure``."""
    try:
        picked = chooser(outcome.battle, acts)
    except InvariantViolation as exc:  # a recorded action that is no longer legal
        outcome.failure = Failure("invariant", exc.name, exc.detail, len(outcome.choices))
        return None
    except Exception as exc:  # an agent's crash is reported too (not shrunk)
        outcome.failure = exception_failure(exc, len(outcome.choices), kind="agent")
        return None
    if picked is None:
        return None
    index, reason = picked
    outcome.choices.append(index)
    outcome.replay.record(acts[index], reason)
    return acts[index], reason


def run(case: Case, chooser: Chooser, checks: Checks,
        agents_by_team: Mapping[str, str] | None = None) -> Outcome:
    """Play one battle with ``chooser`` under ``checks``; never raises for a rules bug."""
    battle = case.battle()
    names = dict(agents_by_team or {})
    replay = Replay.start(battle, {t: names.get(t, "choices") for t in battle.scenario.teams})
    outcome = Outcome(battle, replay)
    try:
        checker = Checker(battle, checks, fresh=battle.clone())
        checker.start(battle)
    except InvariantViolation as exc:
        outcome.failure = Failure("invariant", exc.name, exc.detail, 0)
        return _finish(outcome)
    except Exception as exc:  # any crash of the rules is a finding, reported as data
        outcome.failure = exception_failure(exc, 0)
        return _finish(outcome)
    while not battle.is_over:
        acts = battle.legal_actions()
        chosen = choose_next(outcome, chooser, acts)
        if chosen is None:
            if outcome.failure is not None:
                return _finish(outcome)
            break
        action, reason = chosen
        try:
            checker.apply(battle, action, reason)
        except InvariantViolation as exc:
            outcome.failure = Failure("invariant", exc.name, exc.detail, len(outcome.choices))
            return _finish(outcome)
        except Exception as exc:  # any crash of the rules is a finding, reported as data
            outcome.failure = exception_failure(exc, len(outcome.choices))
            return _finish(outcome)
    _finish(outcome)
    if checks.replay and outcome.failure is None:
        try:
            check_replay(replay)
        except InvariantViolation as exc:
            outcome.failure = Failure("invariant", exc.name, exc.detail, len(outcome.choices))
        except Exception as exc:  # a crash on re-simulation is a finding as well
            outcome.failure = exception_failure(exc, len(outcome.choices))
    return outcome


def _finish(outcome: Outcome) -> Outcome:
    outcome.replay.finish(outcome.battle)
    return outcome


def run_choices(case: Case, choices: Sequence[int], checks: Checks) -> Outcome:
    """Replay a list of choices under checks (what the shrinker calls)."""
    return run(case, choice_chooser(choices), checks)


def action_chooser(actions: Sequence[Mapping[str, Any]]) -> Chooser:
    """Replay recorded actions (``Action.to_dict()`` each); one not legal raises
    :class:`InvariantViolation` ``replay``."""
    wanted = [Action.from_dict(dict(a)) for a in actions]
    position = iter(range(len(wanted)))

    def choose(battle: Battle, acts: list[Action]) -> tuple[int, str | None] | None:
        i = next(position, None)
        if i is None:
            return None
        if wanted[i] not in acts:
            raise InvariantViolation("replay", f"action {i} ({wanted[i]}) is not legal")
        return acts.index(wanted[i]), None

    return choose


def failure_replay(outcome: Outcome, checks: Checks) -> Replay:
    """The outcome's replay with its ``failure`` field filled in (for writing)."""
    if outcome.failure is None:
        raise ValueError("the outcome has no failure to record")
    replay = outcome.replay
    replay.failure = outcome.failure.to_dict() | {"checks": checks.to_dict()}
    return replay
