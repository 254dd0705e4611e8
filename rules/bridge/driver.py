"""A :class:`rules.Battle` run by the native engine (issue 23): the state lives in C++
(``rules._native.BattleState``, :mod:`rules.bridge.battle_state`) and ``apply`` /
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

from typing import TYPE_CHECKING, Any

from rules import engine, saves
from rules.actions import Decision, DecisionKind
from rules.bridge import (
    battle_state,
    legal,
    reach,  # noqa: F401  (adds the native reach search to rules.queries)
)
from rules.combatant import Combatant, item_from_dict
from rules.events import Reasoned
from rules.frames import frame_from_dict
from rules.roller import Roller
from rules.saves import JSON_VERSION
from rules.state import BattleState

if TYPE_CHECKING:
    from rules.actions import Action
    from rules.battle import Battle
    from rules.events import Event

_loaded: list[Any] = []


def native_module() -> Any:
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
        header = json_header(state, battle.content_dir, battle.seed)
        parts = battle_state.parts_of(state, battle._decision, header, state.events[known:])
        roster = battle_state.roster_of(state)
        if len(state.events) < known:  # the log was cut: start it again
            self.native = battle_state.native_state_of(state, battle._decision, header)
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
        return native_module().battle_legal_actions(self.to_native(battle), self.loop)

    @staticmethod
    def listed(actions: list[Action], action: Action) -> bool:
        """Whether ``action`` is one of the very objects of ``actions`` (a scan in C++)."""
        return native_module().listed(actions, action)

    def apply(self, battle: Battle, action: Action, reason: str | None) -> list[Event]:
        """``action`` (already checked legal) applied natively; the new events."""
        native = self.to_native(battle)
        start = native.event_count
        reasoned = None if reason is None else Reasoned(
            round=native.round, actor=battle.decision.actor, reason=str(reason))
        new = native_module().battle_apply(native, self.loop, self.rules, action, reasoned)
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

    def run(self, battle: Battle, function: Any, *arguments: Any) -> Any:
        """``function(native state, loop, rules, *arguments)``: a loop of the compiled
        module that steps the native state by itself (random play, the in-engine battle
        loop), then :meth:`stepped`. Its answer."""
        made = function(self.to_native(battle), self.loop, self.rules, *arguments)
        self.stepped(battle)
        return made

    def stepped(self, battle: Battle) -> None:
        """The native state moved on in C++ by a step this driver did not make itself (a
        loop run by :meth:`run`, the native env's step in :func:`rules.bridge.agents.
        step_episode`), as :meth:`apply` moves it: the mirror is behind (pulled now if
        Python code holds its objects, as the Python engine changes them in place) and
        the battle's legal actions are new. Only the bridge's own stepping functions call
        it, in the same call that steps; no caller repairs a battle after a step."""
        self.where = "native"
        battle._legal = None
        if self.handed_out and battle._state is not None:
            self.pull(battle)
            self.where = "python"

    def random_play(self, battle: Battle, seed: int, max_decisions: int,
                    check: bool) -> int:
        """``Battle.random_play`` on the native engine: the whole loop in C++."""
        return self.run(battle, native_module().battle_random_play, seed, max_decisions,
                        check)

    def watch_bodies(self) -> None:
        """Have the native engine check the bodies after every event from now on
        (``rules/native/core/invariants.cpp``: ``rules.invariants.check_bodies``, which
        the fuzzer runs from an event hook on the Python engine); a broken invariant
        raises :class:`rules.errors.InvariantViolation` from ``apply``."""
        self.loop.watch = True


def native_parts(battle: Battle, records: Any = None) -> tuple[Any, Any, Any]:
    """The native (state, rules, loop) of ``battle``'s Python state as it stands; its
    events interned in ``records`` (default: the process's shared name table; the
    batched env gives each batch its own, as it steps with the GIL released)."""
    state = battle._state
    return state_parts(state, battle._decision,
                        json_header(state, battle.content_dir, battle.seed), records)


def state_parts(state: BattleState, decision: Decision | None, header: dict[str, Any],
                 records: Any = None) -> tuple[Any, Any, Any]:
    """:func:`native_parts` of a Python ``state`` (its pending ``decision``, its JSON
    ``header``: :func:`json_header`)."""
    native = battle_state.native_state_of(state, decision, header, records)
    rules = battle_state.apply_rules(state.content, native)
    loop = native_module().BattleLoop(legal.legal_map(state), state.scenario.max_rounds)
    return native, rules, loop


def json_header(state: BattleState, content_dir: str | None, seed: int | None) -> dict[str, Any]:
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
    """:meth:`NativeDriver.watch_bodies` of ``battle``; False (nothing done) when it runs
    on the Python engine."""
    driver = battle._driver
    if driver is None:
        return False
    driver.watch_bodies()
    return True
