"""The battle driver: the decision loop over a :class:`rules.state.BattleState` (S1, S2,
H25).

A battle is a sequence of decisions. The turn owner picks actions; reactions (Free
Attacks, parries, dodges) interrupt the action that caused them as decisions of the
reacting combatant. All data lives in ``battle.state`` (the public fields below are
views of it); work in progress is a stack of frames (see :mod:`rules.frames`), so
``clone()`` and the JSON round-trip capture a battle at any decision, mid-action
included. Rules never call back into this loop: a rule that ends the turn sets
``state.end_turn_requested`` and :meth:`Battle._run` honours it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rules import frames, harm, legal, muster, saves, turns
from rules.actions import ACTION_SPECS, Action, Decision, DecisionKind, undeclared_field
from rules.combatant import Combatant
from rules.content import Content, content_for, default_content
from rules.engine import resolve as resolve_engine
from rules.errors import IllegalActionError
from rules.events import (
    BattleEnded,
    BattleStarted,
    Event,
    Reasoned,
    RoundStarted,
    TurnEnded,
    TurnStarted,
)
from rules.inputs import plain_action
from rules.reach import ReachGraph
from rules.roller import Roller
from rules.save_validation import check_save
from rules.saves import JSON_VERSION as JSON_VERSION
from rules.scenario import Scenario, load_scenario, parsed_scenario
from rules.state import BattleState

if TYPE_CHECKING:
    from rules.bridge.driver import NativeDriver

Square = tuple[int, int]


def _state_field(name: str, doc: str, *, native: bool = False,
                 fixed: bool = False) -> property:
    """A read-write view of the ``BattleState`` field ``name`` on the driver; ``native``:
    read from the native state while only it is current (a plain value that Python code
    cannot change in place); ``fixed``: the same whichever engine runs (content,
    scenario)."""
    if fixed:
        def get(battle: Battle) -> Any:
            driver = battle._driver
            return getattr(driver if driver is not None else battle._state, name)
    elif native:
        def get(battle: Battle) -> Any:
            driver = battle._driver
            if driver is not None and driver.where == "native":
                return getattr(driver.native, name)
            return getattr(battle._state, name)
    else:
        def get(battle: Battle) -> Any:
            return getattr(battle.state, name)

    def put(battle: Battle, value: Any) -> None:
        setattr(battle.state, name, value)

    return property(get, put, doc=doc)


class Battle:
    """One battle: its state (``battle.state``) and the decision loop that drives it.
    See DESIGN.md "Public API"."""

    def __init__(
        self,
        scenario: Scenario,
        seed: int | None = None,
        content: Content | None = None,
        content_dir: str | None = None,
        *,
        force: Sequence[int] = (),
        engine: str | None = None,
        _restoring: bool = False,
    ) -> None:
        content = content if content is not None else default_content()
        self.content_dir = content_dir
        self.seed = seed
        #: the native engine's state and loop when it runs this battle (rules.bridge.driver)
        self._driver: NativeDriver | None = None
        self._legal: list[Action] | None = None  # this decision's, once asked for
        self._legal_set: frozenset[Action] | None = None  # the same, built when needed
        self._legal_ids: frozenset[int] | None = None  # their ids, built when needed
        if not _restoring and not force and resolve_engine(engine) == "native":
            # the engine is chosen here, once: a native battle starts in C++ from this
            # thread's template of the scenario where it can (the same battle as below)
            from rules.bridge.start import started_driver

            self._driver = started_driver(scenario, seed, content, content_dir)
            if self._driver is not None:
                self._state = None  # the mirror, built when read
                self._decision = None  # the native state holds it; a pull brings it
                return
        self._state: BattleState | None = BattleState(content, scenario, Roller(seed))
        self._state.engine = resolve_engine(engine)
        self.dice.force(*force)  # test hook: faces for the very first rolls (initiative)
        self._decision: Decision | None = None
        if _restoring:
            return
        self.combatants.update(muster.muster_combatants(content, self.dice, scenario))
        # rules.bridge.start.start_template / start_native: the same from here on in C++
        self.initiative_order = muster.roll_initiative(content, self.dice, self.combatants)
        self.emit(BattleStarted, scenario=scenario.name, order=tuple(self.initiative_order),
                  initiative=tuple(self.combatants[i].initiative for i in self.initiative_order))
        turns.start_round(self.state)
        self._begin_turn()
        self._run()
        self.dice.expect_used("Battle(force=...): the rolls before the first decision")
        self._start_engine()

    def _start_engine(self) -> None:
        """Hand the battle to the native engine when it runs it (the Python state, built
        and run to the first decision by the reference code, becomes its mirror)."""
        if self._state.engine == "native":
            from rules.bridge.driver import NativeDriver
            self._driver = NativeDriver.start(self)

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_scenario(
        cls, name_or_path: str | Path, seed: int | None = None, content_dir: str | None = None,
        *, force: Sequence[int] = (), engine: str | None = None,
    ) -> Battle:
        """Load a shipped scenario by name (``"duel"``) or a TOML file by path.

        ``force`` queues die faces for the first rolls (initiative, in unit order) — the
        same test hook as ``battle.dice.force`` for what happens before the first decision.
        ``engine`` ("native" or "python"; default ``$FRAY_ENGINE``, else native when
        built) picks the engine that runs it (``rules.engine.resolve``).
        """
        content = content_for(content_dir)
        return cls(load_scenario(name_or_path, content), seed, content, content_dir,
                   force=force, engine=engine)

    @classmethod
    def from_toml(
        cls, text: str, seed: int | None = None, source: str = "<string>",
        content_dir: str | None = None, *, force: Sequence[int] = (),
        engine: str | None = None,
    ) -> Battle:
        """Build a battle from scenario TOML text (``force`` and ``engine`` as in
        ``from_scenario``)."""
        content = content_for(content_dir)
        return cls(parsed_scenario(text, source=source, content=content), seed, content,
                   content_dir, force=force, engine=engine)

    # ---------------------------------------------------------------- public state
    @property
    def state(self) -> BattleState:
        """The whole state as Python objects (on the native engine: its mirror, brought up
        to date first, which Python code may then change; ``rules.bridge.driver``)."""
        driver = self._driver
        if driver is not None:
            return driver.to_python(self)
        return self._state  # type: ignore[return-value]

    @state.setter
    def state(self, state: BattleState) -> None:
        if self._driver is not None:
            self._driver.where = "python"
        self._state = state

    @property
    def decision(self) -> Decision | None:
        """Who decides what now; None once the battle is over."""
        driver = self._driver
        if driver is not None and driver.where == "native":
            return driver.native.decision
        return None if self._state.is_over else self._decision

    content = _state_field("content", "The rules content (creatures, items, spells, ruleset).",
                           fixed=True)
    scenario = _state_field("scenario", "The scenario the battle was built from.", fixed=True)
    @property
    def dice(self) -> Roller:
        """The battle's one seeded roller (``battle.dice.reseed``). A roller of another
        class (a test's scripted dice) can only roll in Python: setting one moves the
        battle to the Python engine."""
        return self.state.dice

    @dice.setter
    def dice(self, dice: Roller) -> None:
        state = self.state
        if self._driver is not None and type(dice) is not Roller:
            self._driver = None
            state.engine = "python"
        state.dice = dice

    grid = _state_field("grid", "The map as its doors are now.")
    round = _state_field("round", "The current round, from the scenario's start_round.",
                         native=True)
    combatants = _state_field("combatants", "Every combatant by id, in scenario order.")
    ground = _state_field("ground", "Items lying on the map.")
    initiative_order = _state_field("initiative_order", "Combatant ids in turn order (S1).")
    turn_index = _state_field("turn_index", "Index of the turn owner in initiative_order.",
                              native=True)
    stack = _state_field("stack", "The frames of work in progress (top last).")
    is_over = _state_field("is_over", "Whether the battle has ended.", native=True)
    winner = _state_field("winner", "The winning team, or None (a draw or not over).",
                          native=True)

    @property
    def events(self) -> list[Event]:
        """Every event so far."""
        driver = self._driver
        if driver is not None and driver.where == "native" and self._state is not None:
            return driver.sync_events(self._state)  # events never change: no pull
        return self.state.events

    @events.setter
    def events(self, events: list[Event]) -> None:
        self.state.events = events

    @property
    def current_actor(self) -> str | None:
        """The owner of the current turn."""
        driver = self._driver
        if driver is not None and driver.where == "native":
            return driver.native.current_actor
        return self._state.current_actor

    @property
    def engine(self) -> str:
        """Which engine runs this battle: "native" or "python" (``rules.engine``)."""
        return "python" if self._driver is None else "native"

    @property
    def graph(self) -> ReachGraph:
        """The reach graph of the map as its doors are now."""
        return self.state.graph

    def emit(self, cls: type[Event], **fields: Any) -> Event:
        """Record one event (``BattleState.emit``)."""
        return self.state.emit(cls, **fields)

    def active(self) -> list[Combatant]:
        """The combatants still in action."""
        return self.state.active()

    def legal_actions(self) -> list[Action]:
        """Every legal action for the current decision, in a deterministic order."""
        if self.decision is None:
            return []
        return list(self._current_legal())

    def _current_legal(self) -> list[Action]:
        """This decision's legal actions (computed once per decision, shared by clones)."""
        acts = self._legal
        if acts is None:
            driver = self._driver
            if driver is not None:
                acts = self._legal = driver.legal_actions(self)
            else:
                acts = self._legal = legal.actions_for(self.state, self._decision)
            self._legal_set = self._legal_ids = None
        return acts

    def _is_listed(self, action: Action) -> bool:
        """Whether ``action`` is one of the very objects ``legal_actions()`` listed (what
        agents pass back): such an action is well-formed and legal, nothing to check."""
        if self.decision is None:
            return False
        acts = self._current_legal()
        ids = self._legal_ids
        if ids is None:
            ids = self._legal_ids = frozenset(map(id, acts))
        return id(action) in ids

    def apply(self, action: Action, reason: str | None = None) -> list[Event]:
        """Apply a legal action and run until the next decision; return the new events.

        ``reason`` (why an agent chose it) is logged first as a ``Reasoned`` event.
        Raises ``IllegalActionError`` (state untouched) for anything not in
        ``legal_actions()``, malformed actions included; numpy integers in an action
        become plain ints (``rules.inputs``).
        """
        driver = self._driver
        if driver is not None:
            listed = self._legal  # set only while a decision is pending
            if listed is None or not driver.listed(listed, action):
                action = self._checked(action)
            events = driver.apply(self, action, reason)
            self._legal = None
            return events
        if not self._is_listed(action):
            action = self._checked(action)
        start = len(self.events)
        decision = self._decision
        if decision is None:  # unreachable: legal_actions() is empty without a decision
            raise IllegalActionError(f"no decision is pending; {action} cannot be applied")
        self._legal = None
        if reason is not None:
            self.emit(Reasoned, actor=decision.actor, reason=str(reason))
        if decision.kind is DecisionKind.TURN:
            turns.start_action(self.state, self.combatants[decision.actor], action)
        else:
            frames.answer(self.state, self.stack[-1], action)
        self._run()
        return self.events[start:]

    def random_play(self, seed: int, max_decisions: int | None = None, *,
                    check: bool = False) -> int:
        """Play on with uniformly random legal actions, the ``i``-th pick drawn as
        ``numpy.random.default_rng(seed).integers(0, len(legal))`` would, until the battle
        ends (or ``max_decisions`` are made); the number of decisions made. Both engines
        make the same choices; the native engine runs the whole loop inside C++ (the
        random-play loop of ``fray bench`` and ``fray fuzz --native-loop``).

        ``check`` (native engine only, else ValueError): the engine checks the cheap
        invariants as it goes (``rules/native/core/invariants.cpp``: the bodies after every
        event, the bounds after every decision) and raises
        :class:`rules.errors.InvariantViolation` on the first that fails."""
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 32:
            raise ValueError(f"random_play: seed: expected a whole number in [0, 2**32), "
                             f"got {seed!r}")
        limit = (1 << 31) - 1 if max_decisions is None else max_decisions
        if self._driver is not None:
            return self._driver.random_play(self, seed, limit, check)
        if check:
            raise ValueError("random_play(check=True) checks inside the native engine; this "
                             "battle runs on the Python engine (experiments.fuzzing checks "
                             "it there)")
        import numpy as np
        chooser = np.random.default_rng(seed)
        made = 0
        while made < limit and self.decision is not None:
            acts = self._current_legal()
            self.apply(acts[int(chooser.integers(0, len(acts)))])
            made += 1
        return made

    def _checked(self, action: object) -> Action:
        """``action`` (any object) in plain values (``plain_action``) if it is legal now,
        else ``IllegalActionError``."""
        action = plain_action(action)
        extra = undeclared_field(action)
        if extra is not None:
            carried = ", ".join(ACTION_SPECS[action.kind].fields) or "no field"
            raise IllegalActionError(f"{action}: a {action.kind.name} carries no {extra} "
                                     f"(it carries {carried})")
        if self.is_over:
            raise IllegalActionError(f"the battle is over; {action} cannot be applied")
        acts = self.legal_actions()
        legal_set = self._legal_set
        if legal_set is None:
            legal_set = self._legal_set = frozenset(acts)
        if action not in legal_set:
            kinds = sorted({a.kind.name for a in acts})
            raise IllegalActionError(
                f"{action} is not legal for {self.decision}; legal kinds: {', '.join(kinds)}"
            )
        return action

    # ---------------------------------------------------------------- loop
    def _run(self) -> None:
        """Advance until a decision is needed or the battle ends."""
        self._legal = None
        state = self.state
        while True:
            if state.is_over:
                self._decision = None
                return
            if state.end_turn_requested:  # END_TURN, or a rule that ends the turn (S13)
                state.end_turn_requested = False
                self.end_turn()
                continue
            if state.stack:
                decision = frames.step(state, state.stack[-1])
                if decision is not None:
                    self._decision = decision
                    return
                continue
            if self._check_end():
                continue
            owner = self.current_actor
            if owner is not None and self._may_take_turn(self.combatants[owner]):
                self._decision = Decision(DecisionKind.TURN, owner)
                return
            self.end_turn()

    def _may_take_turn(self, combatant: Combatant) -> bool:
        """H5/H22: out-of-action combatants and ridden mounts take no turns."""
        return combatant.in_action and combatant.ridden_by is None

    def _begin_turn(self) -> None:
        """Start the next turn of someone who may take one, else a new round."""
        while self.turn_index < len(self.initiative_order):
            c = self.combatants[self.initiative_order[self.turn_index]]
            if self._may_take_turn(c):
                turns.start_turn(self.state, c)
                self.emit(TurnStarted, actor=c.id)
                return
            self.turn_index += 1
        self._new_round()

    def _new_round(self) -> None:
        """S1/S21: the next round, or the end at the round limit."""
        if self.round >= self.scenario.max_rounds:
            self._finish(None, f"round limit {self.scenario.max_rounds} reached")
            return
        self.round += 1
        self.turn_index = 0
        self.emit(RoundStarted)
        turns.start_round(self.state)
        if not self._check_end():
            self._begin_turn()

    def end_turn(self) -> None:
        """End the current turn and start the next one (a new round when needed)."""
        owner = self.current_actor
        if owner is not None:
            turns.finish_turn(self.state, self.combatants[owner])
            self.emit(TurnEnded, actor=owner)
        self.turn_index += 1
        self._begin_turn()

    def _check_end(self) -> bool:
        """H25: over when at most one team has anyone in action (with more than two
        teams, the battle goes on while two of them still stand)."""
        if self.is_over:
            return True
        standing = {c.team for c in self.combatants.values()
                    if c.status == "active"}  # Combatant.in_action, inline (every step)
        if len(standing) > 1:
            return False
        winner = next(iter(standing)) if standing else None
        reason = "no other team has anyone in action" if standing else \
            "no team has anyone in action"
        self._finish(winner, reason)
        return True

    def _finish(self, winner: str | None, reason: str) -> None:
        """H25: end the battle with ``winner`` (None: a draw)."""
        self.is_over = True
        self.winner = winner
        self.stack.clear()
        self._decision = None
        self.emit(BattleEnded, winner=winner, reason=reason)

    def rest(self, rounds: int) -> list[Event]:
        """S21: rest for ``rounds`` rounds once the battle is over: 1 hour (300 rounds)
        clears Fatigued, 8 hours (2400 rounds) clears Exhausted."""
        if not self.is_over:
            raise IllegalActionError("resting is only possible once the battle is over")
        start = len(self.events)
        for c in self.combatants.values():
            if not c.dead:
                harm.recover(self.state, c, rounds)
        return self.events[start:]

    # ---------------------------------------------------------------- copies and JSON
    def clone(self) -> Battle:
        """An independent copy that continues exactly as this battle would.

        Immutable parts (content, scenario, map, reach graph, frozen events and actions)
        are shared; everything mutable is copied (``BattleState.copy``)."""
        new = Battle.__new__(Battle)
        new.content_dir = self.content_dir
        new.seed = self.seed
        driver = self._driver
        if driver is None:
            new._driver = None
            new._state = self._state.copy()
        else:
            new._driver, new._state = driver.copy(self), None  # the mirror comes when read
        new._decision = self._decision
        new._legal = self._legal
        new._legal_set = self._legal_set
        new._legal_ids = self._legal_ids
        return new

    def to_dict(self, *, events: bool = True) -> dict[str, Any]:
        """The whole state as plain JSON data (``to_json``); ``events=False`` leaves the
        event log out (its length stays, as ``event_count``), for comparing states
        decision by decision without paying for the whole log each time."""
        driver = self._driver
        if driver is not None:
            return driver.to_native(self).to_dict(events=events)
        return saves.battle_to_dict(self, events=events)

    def __getstate__(self) -> dict[str, Any]:
        """Pickling and ``copy.deepcopy``: a native battle travels as its JSON."""
        if self._driver is None:
            return dict(vars(self))
        return {"json": self.to_json(), "engine": "native"}

    def __setstate__(self, data: dict[str, Any]) -> None:
        if "json" in data:
            data = vars(Battle.from_json(data["json"], engine=data["engine"]))
        vars(self).update(data)

    def to_json(self) -> str:
        """The whole state as JSON; ``Battle.from_json`` restores it exactly."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str, *, engine: str | None = None,
                  source: str = "battle JSON") -> Battle:
        """The battle ``to_json`` wrote (the same JSON_VERSION only), on ``engine`` (as in
        ``from_scenario``: the JSON does not say which engine wrote it, and either engine
        continues it identically). The save is checked completely first
        (``rules.save_validation``): a malformed one, or a state the rules could not have
        built, raises one ``SaveError`` naming ``source`` (the file it came from), the
        field, what was expected and what was found, on either engine alike."""
        data = saves.decode(text, source)
        cdir = data["content_dir"]
        content = content_for(cdir)
        sc = data["scenario"]
        scenario = parsed_scenario(sc["text"], source=sc["source"], content=content)
        check_save(data, scenario, content, source)
        battle = cls(scenario, data["seed"], content, cdir, engine=engine, _restoring=True)
        saves.restore(battle.state, data)
        d = data["decision"]
        battle._decision = None if d is None else Decision(DecisionKind(d["kind"]),
                                                           d["actor"], d["source"])
        battle._start_engine()
        return battle

    def __repr__(self) -> str:
        return (f"Battle({self.scenario.name!r}, round={self.round}, "
                f"decision={self.decision}, over={self.is_over}, winner={self.winner})")

