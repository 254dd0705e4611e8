"""A :class:`rules.Battle` run by the native engine (issue 23): the state lives in C++
(``rules._native.BattleState``, :mod:`rules.native_battle`) and ``apply`` /
``legal_actions`` / ``clone`` run there (``rules/native/core/battle.cpp``); the battle's
Python :class:`rules.state.BattleState` is a mirror of it, brought up to date only when
Python code reads it.

Where the state is current, ``NativeDriver.where``:

- ``"both"``: the mirror and the native state are equal (just built or just pushed);
- ``"native"``: the native state moved on (an ``apply``); the mirror is stale;
- ``"python"``: Python code was handed the mirror (``battle.state``, ``battle.combatants``,
  ``battle.dice``, ...) and may have changed it; the native state is stale.

Reading the mirror in ``"native"`` pulls (:meth:`NativeDriver.pull`: the native state's
``to_dict`` written into the mirror in place, so a combatant or the dice held across an
``apply`` stays the object the battle uses, as on the Python engine). A native step in
``"python"`` pushes first (:meth:`NativeDriver.push`: the mirror's parts into the native
state, keeping its event log). The pending decision, ``is_over``, ``winner``, ``round``,
``turn_index`` and the events are read without moving the state (events are appended to
the mirror's list, which is always a prefix of the native log).

Forced dice (``battle.dice.force``/``forcing``): faces queued on the mirror's roller reach
the native roller before the next native step, and after it the mirror's roller is set to
the native one's state, so ``forcing`` sees which faces were used.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, NamedTuple

from rules import (
    engine,
    muster,
    native_apply,
    native_battle,
    native_legal,
    native_reach,  # noqa: F401  (adds the native reach search to rules.queries)
    saves,
)
from rules.actions import Decision, DecisionKind
from rules.combatant import Combatant, item_from_dict
from rules.content import default_content
from rules.events import Reasoned
from rules.frames import frame_from_dict
from rules.roller import Roller
from rules.saves import JSON_VERSION
from rules.state import BattleState

if TYPE_CHECKING:
    from rules.actions import Action
    from rules.battle import Battle
    from rules.content import Content
    from rules.events import Event
    from rules.scenario import Scenario


_loaded: list[Any] = []


def _module() -> Any:
    """The compiled module, holding the battle loop (``rules.engine.require_native``)."""
    if not _loaded:
        _loaded.append(engine.require_native("BattleLoop", "the native battle loop"))
    return _loaded[0]


class NativeDriver:
    """The native state, loop and rules of one battle, and where its state is current."""

    __slots__ = ("content", "dice_watch", "events_seed", "forced", "handed_out", "loop",
                 "native", "rules", "scenario", "where")

    def __init__(self, native: Any, rules: Any, loop: Any, content: Any, scenario: Any,
                 where: str) -> None:
        self.native = native  # rules._native.BattleState
        self.rules = rules  # rules._native.ApplyRules
        self.loop = loop  # rules._native.BattleLoop
        self.content = content
        self.scenario = scenario
        self.where = where
        self.dice_watch = False  # forced faces went native: copy the dice back after a step
        self.forced: list[int] = []  # the native roller's forced faces as last synced
        #: Python code was handed the mirror: it may hold its objects (a combatant, the
        #: dice) across a step, so the mirror is pulled after every step, as the Python
        #: engine changes its objects in place
        self.handed_out = False
        #: a copy's first mirror starts from its source's events: (the list, how many)
        self.events_seed: tuple[list[Event], int] | None = None

    @classmethod
    def start(cls, battle: Battle) -> NativeDriver:
        """The driver of ``battle``, built from its Python state (which stays current)."""
        state = battle._state
        native, rules, loop = native_parts(battle)
        driver = cls(native, rules, loop, state.content, state.scenario, "both")
        driver.synced_dice(state.dice.forced)
        return driver

    # ------------------------------------------------------------ moving the state
    def to_python(self, battle: Battle) -> BattleState:
        """The mirror, current, for Python code that may change it."""
        if self.where == "native":
            self.pull(battle)
        self.where = "python"
        self.handed_out = True
        return battle._state

    def to_native(self, battle: Battle) -> Any:
        """The native state, current, for a native step."""
        if self.where == "python":
            self.push(battle)
            self.where = "both"
        elif battle._state is not None:
            self.forward_forced(battle._state)
        return self.native

    def forward_forced(self, mirror: BattleState) -> None:
        """Faces forced (or dropped) on the mirror's roller since the last sync (through a
        roller held across a native step) go to the native roller."""
        forced = mirror.dice.forced
        if forced != self.forced:
            self.native.set_forced(forced)
            self.synced_dice(forced)

    def synced_dice(self, forced: list[int]) -> None:
        """The mirror's roller and the native one agree on the forced faces ``forced``."""
        self.forced = list(forced)
        self.dice_watch = bool(forced)

    def push(self, battle: Battle) -> None:
        """The mirror's state into the native one (its event log kept, new events added)."""
        state = battle._state
        known = self.native.event_count
        header = _header(state, battle.content_dir, battle.seed)
        parts = native_battle.parts_of(state, battle._decision, header, state.events[known:])
        roster = native_battle.roster_of(state)
        if len(state.events) < known:  # the log was cut: start it again
            self.native = native_battle.native_state_of(state, battle._decision, header)
        else:
            self.native.rebuild(roster, parts)
        self.synced_dice(state.dice.forced)

    def pull(self, battle: Battle) -> None:
        """The native state written into the mirror, object by object where they exist."""
        state = battle._state
        if state is None:
            state = battle._state = _empty_mirror(self)
            if self.events_seed is not None:
                events, count = self.events_seed
                state.events = events[:count]
                self.events_seed = None
        self.forward_forced(state)
        data = self.native.to_dict(events=False)
        state.dice.set_state(data["dice"])
        self.synced_dice(state.dice.forced)
        state.round = data["round"]
        state.turn_index = data["turn_index"]
        state.initiative_order[:] = data["initiative_order"]
        combatants = state.combatants
        for entry in data["combatants"]:
            fresh = Combatant.from_dict(entry, self.content)
            known = combatants.get(fresh.id)
            if known is None:
                combatants[fresh.id] = fresh
            else:
                vars(known).update(vars(fresh))
        state.ground[:] = [item_from_dict(item) for item in data["ground"]]
        opened = {(square[0], square[1]) for square in data["doors_open"]}
        if {square for square, is_open in state.grid.doors.items() if is_open} != opened:
            state.set_grid(saves.doors_as(self.scenario.grid, opened))
        state.stack[:] = [frame_from_dict(frame) for frame in data["stack"]]
        self.sync_events(state)
        state.is_over = data["is_over"]
        state.winner = data["winner"]
        state.end_turn_requested = False  # never set at a decision
        decision = data["decision"]
        battle._decision = None if decision is None else Decision(
            DecisionKind(decision["kind"]), decision["actor"], decision["source"])

    def sync_events(self, state: BattleState) -> list[Event]:
        """The mirror's event list with the native log's new events appended."""
        events = state.events
        if len(events) < self.native.event_count:
            events.extend(self.native.events_from(len(events)))
        return events

    # ------------------------------------------------------------ native steps
    def legal_actions(self, battle: Battle) -> list[Action]:
        """The pending decision's legal actions, from ``legal.cpp``."""
        return _module().battle_legal_actions(self.to_native(battle), self.loop)

    @staticmethod
    def listed(actions: list[Action], action: Action) -> bool:
        """Whether ``action`` is one of the very objects of ``actions`` (a scan in C++)."""
        return _module().listed(actions, action)

    def apply(self, battle: Battle, action: Action, reason: str | None) -> list[Event]:
        """``action`` (already checked legal) applied natively; the new events."""
        native = self.to_native(battle)
        start = native.event_count
        reasoned = None if reason is None else Reasoned(
            round=native.round, actor=battle.decision.actor, reason=str(reason))
        new = _module().battle_apply(native, self.loop, self.rules, action, reasoned)
        self.where = "native"
        mirror = battle._state
        if mirror is not None:
            if len(mirror.events) == start:
                mirror.events.extend(new)
            if self.handed_out:
                self.pull(battle)
                self.where = "python"
            elif self.dice_watch:
                mirror.dice.set_state(native.dice())
                self.synced_dice(mirror.dice.forced)
        return new

    def copy(self, battle: Battle) -> NativeDriver:
        """The driver of an independent copy of the native state; the copy's mirror is
        built when first read, its events starting from this battle's mirror's."""
        native = self.to_native(battle).clone()
        driver = NativeDriver(native, self.rules, self.loop, self.content, self.scenario,
                              "native")
        driver.synced_dice(self.forced)
        source = battle._state
        if source is not None:
            # the mirror's log brought up to the native one first, so that each event is
            # made a Python object once, not again by every copy's first read
            self.sync_events(source)
            driver.events_seed = (source.events, len(source.events))
        elif self.events_seed is not None:
            driver.events_seed = self.events_seed
        return driver


def native_parts(battle: Battle, records: Any = None) -> tuple[Any, Any, Any]:
    """The native (state, rules, loop) of ``battle``'s Python state as it stands; its
    events interned in ``records`` (default: the process's shared name table; the
    batched env gives each batch its own, as it steps with the GIL released)."""
    state = battle._state
    return _state_parts(state, battle._decision,
                        _header(state, battle.content_dir, battle.seed), records)


def _state_parts(state: BattleState, decision: Decision | None, header: dict[str, Any],
                 records: Any = None) -> tuple[Any, Any, Any]:
    """:func:`native_parts` of a Python ``state`` (its pending ``decision``, its JSON
    ``header``: :func:`_header`)."""
    native = native_battle.native_state_of(state, decision, header, records)
    rules = native_apply.apply_rules(state.content, native)
    loop = _module().BattleLoop(native_legal.legal_map(state), state.scenario.max_rounds)
    return native, rules, loop


class StartTemplate(NamedTuple):
    """A scenario mustered once, to start its battles in C++ (:func:`start_template`)."""

    state: Any  # rules._native.BattleState: the combatants before initiative, no events
    rules: Any  # rules._native.ApplyRules of the content
    loop: Any  # rules._native.BattleLoop of the scenario's map
    scenario: str  # the scenario's name (BattleStarted.scenario)


def start_template(scenario: Scenario, content: Content | None = None,
                   content_dir: str | None = None, records: Any = None) -> StartTemplate:
    """``scenario`` mustered as ``Battle(scenario, seed, content, content_dir)`` musters it
    for any seed (``rules.muster.muster_combatants``: round ``start_round``, no events, no
    decision), as native parts; :func:`start_native` starts battles from it. ``records``:
    as in :func:`native_parts` (the started battles' events are interned there too).

    ValueError when mustering rolls dice (a unit with ``roll_characteristics``, H1): its
    combatants depend on the seed, so the battle must be built by ``rules.Battle``."""
    if muster.rolls_at_muster(scenario):
        rolled = [spec.id for spec in scenario.units if spec.roll_characteristics]
        raise ValueError(f"start_template: scenario {scenario.name!r} rolls characteristics "
                         f"at muster ({', '.join(rolled)}), so its combatants depend on the "
                         f"seed; build its battles with rules.Battle")
    state = BattleState(content if content is not None else default_content(), scenario,
                        Roller(None))
    state.combatants.update(muster.muster_combatants(state.content, state.dice, scenario))
    native, rules, loop = _state_parts(state, None, _header(state, content_dir, None),
                                       records)
    return StartTemplate(native, rules, loop, scenario.name)


def start_native(template: StartTemplate, seed: int) -> Any:
    """The native state (``rules._native.BattleState``) of
    ``Battle(scenario, seed, content, content_dir)`` of ``template``'s scenario, built in
    C++ (``rules/native/core/battle.cpp`` ``start_battle``: initiative, BattleStarted, the first
    turn, run to the first decision); ``to_dict()`` equals that battle's. ``seed``: an
    integer >= 0. It steps with ``template.loop`` and ``template.rules``, which every
    battle started from the template may share (one thread at a time)."""
    return _module().battle_start(template.state, seed, template.loop, template.rules,
                                  template.scenario)


def driver_from_template(template: StartTemplate, seed: int, content: Content,
                         scenario: Scenario) -> NativeDriver:
    """The driver of ``rules.Battle(scenario, seed, content, content_dir, engine="native")``
    started in C++ from ``template`` (:func:`start_native`; the template of that scenario
    and content): the same battle, its Python mirror built only when read. The battle
    steps with the template's loop and rules (one thread at a time)."""
    return NativeDriver(start_native(template, seed), template.rules, template.loop,
                        content, scenario, "native")


#: this thread's templates (a template's loop serves one thread at a time), by scenario
_THREAD = threading.local()
_TEMPLATES_KEPT = 16


def started_driver(scenario: Scenario, seed: int, content: Content,
                   content_dir: str | None = None) -> NativeDriver | None:
    """The driver of ``Battle(scenario, seed, content, content_dir, engine="native")``
    started in C++ from this thread's template of the scenario (made at its first battle
    and kept; ``rules.Battle`` asks for it), or None when it cannot be: the engine is not
    built, ``seed`` is not an int >= 0, or mustering rolls dice (then the battle is built
    by the Python code and handed over, ``NativeDriver.start``)."""
    if not engine.native_available() or not isinstance(seed, int) or seed < 0:
        return None
    made = _THREAD.__dict__.setdefault("templates", {})
    key = (scenario.name, scenario.text, content_dir)
    known = made.get(key)
    if known is None or known[0] is not content or known[1] is not scenario:
        try:
            template = start_template(scenario, content, content_dir)
        except ValueError:
            template = None
        if len(made) >= _TEMPLATES_KEPT:
            made.pop(next(iter(made)))
        known = made[key] = (content, scenario, template)
    template = known[2]
    if template is None:
        return None
    return driver_from_template(template, seed, content, scenario)


def _header(state: BattleState, content_dir: str | None, seed: int | None) -> dict[str, Any]:
    """The head of a battle's JSON (``Battle.to_dict``) for the native state."""
    scenario = state.scenario
    return {"version": JSON_VERSION,
            "scenario": {"text": scenario.text, "source": scenario.source},
            "content_dir": content_dir, "seed": seed}


def _empty_mirror(driver: NativeDriver) -> BattleState:
    """A mirror with nothing pulled into it yet (no combatants, no events)."""
    dice = Roller.__new__(Roller)
    # pulled before it is read; the forced faces already agree with the native roller's
    dice.set_state({"bit_generator": None, "forced": driver.forced})
    state = BattleState(driver.content, driver.scenario, dice)
    state.engine = "native"
    return state


def watch_bodies(battle: Battle) -> bool:
    """Have the native engine check the bodies after every event of ``battle`` from now on
    (``rules/native/core/invariants.cpp``: ``rules.invariants.check_bodies``, which
    the fuzzer runs from an event hook on the Python engine); a broken invariant raises
    :class:`rules.errors.InvariantViolation` from ``apply``. False (nothing done) when
    ``battle`` runs on the Python engine."""
    driver = battle._driver
    if driver is None:
        return False
    driver.loop.watch = True
    return True


def random_play(battle: Battle, seed: int, max_decisions: int, check: bool) -> int:
    """``Battle.random_play`` on the native engine: the whole loop in C++."""
    driver = battle._driver
    assert driver is not None  # Battle.random_play calls this for native battles only
    native = driver.to_native(battle)
    made = _module().battle_random_play(native, driver.loop, driver.rules, seed,
                                        max_decisions, check)
    stepped_natively(battle)
    return made


def stepped_natively(battle: Battle) -> None:
    """Note that native code (the random-play loop, the native env's step) changed
    ``battle``'s native state: the mirror is behind (pulled now if Python code holds its
    objects, as the Python engine changes them in place) and the legal actions are new."""
    driver = battle._driver
    assert driver is not None  # called for native battles only
    driver.where = "native"
    battle._legal = None
    if driver.handed_out and battle._state is not None:
        driver.pull(battle)
        driver.where = "python"
