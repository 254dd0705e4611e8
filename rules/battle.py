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
from typing import Any

from rules import frames, harm, legal, turns
from rules.actions import ACTION_SPECS, Action, Decision, DecisionKind, undeclared_field
from rules.combatant import (
    Combatant,
    ItemInstance,
    hit_points_for,
    item_from_dict,
    power_points_for,
    roll_characteristics,
)
from rules.content import Content, default_content, load_content
from rules.engine import resolve as resolve_engine
from rules.errors import FrayError, IllegalActionError
from rules.events import (
    BattleEnded,
    BattleStarted,
    Event,
    Reasoned,
    RoundStarted,
    TurnEnded,
    TurnStarted,
    event_from_dict,
    event_to_dict,
)
from rules.frames import frame_from_dict, frame_to_dict
from rules.inputs import plain_action
from rules.reach import ReachGraph
from rules.roller import Roller
from rules.scenario import Scenario, UnitSpec, apply_state, load_scenario, parse_scenario
from rules.state import BattleState

Square = tuple[int, int]
JSON_VERSION = 3  # 2: typed frames (rules.frames.frame_to_dict); 3: the ride frame


def _state_field(name: str, doc: str) -> property:
    """A read-write view of the ``BattleState`` field ``name`` on the driver."""
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
        self.state = BattleState(content, scenario, Roller(seed))
        self.state.engine = resolve_engine(engine)
        self.dice.force(*force)  # test hook: faces for the very first rolls (initiative)
        self._decision: Decision | None = None
        self._legal: list[Action] | None = None  # this decision's, once asked for
        self._legal_set: frozenset[Action] | None = None  # the same, built when needed
        self._legal_ids: frozenset[int] | None = None  # their ids, built when needed
        if _restoring:
            return
        for spec in scenario.units:
            self.combatants[spec.id] = self._build(spec)
        for spec in scenario.units:
            if spec.riding is not None:
                self.combatants[spec.id].riding = spec.riding
                self.combatants[spec.riding].ridden_by = spec.id
        self._roll_initiative()
        self.emit(BattleStarted, scenario=scenario.name, order=tuple(self.initiative_order),
                  initiative=tuple(self.combatants[i].initiative for i in self.initiative_order))
        turns.start_round(self.state)
        self._begin_turn()
        self._run()
        self.dice.expect_used("Battle(force=...): the rolls before the first decision")

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
        content = load_content(Path(content_dir)) if content_dir else default_content()
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
        content = load_content(Path(content_dir)) if content_dir else default_content()
        return cls(parse_scenario(text, source=source, content=content), seed, content,
                   content_dir, force=force, engine=engine)

    def _build(self, spec: UnitSpec) -> Combatant:
        c = self.content
        stat = c.creatures[spec.creature]
        chars = dict(stat.characteristics)
        if spec.roll_characteristics:
            chars = roll_characteristics(c, self.dice)
        chars |= dict(spec.characteristics)
        skills = dict(stat.skills) | dict(spec.skills)
        armour = stat.armour if spec.armour is None else spec.armour
        armour = None if armour == "none" else armour
        training = spec.armour_training or stat.armour_training
        entries = stat.equipment if spec.equipment is None else spec.equipment
        inventory: list[ItemInstance] = []
        seen: dict[str, int] = {}
        for e in entries:
            seen[e.item] = seen.get(e.item, 0) + 1
            uid = f"{spec.id}.{e.item}" + (f".{seen[e.item]}" if seen[e.item] > 1 else "")
            state = e.state
            ap = None
            if e.item in c.weapons:
                w = c.weapons[e.item]
                ap = w.ap
                if w.natural:
                    state = "ready"
            elif e.item in c.armour:
                ap = c.armour[e.item].ap
            inventory.append(ItemInstance(uid, e.item, state, e.count, ap, lit=e.lit,
                                          nocked=e.nocked, loaded=e.loaded))
        max_hp = spec.hp if spec.hp is not None else hit_points_for(c, chars)
        pp = power_points_for(stat, chars) or 0
        combatant = Combatant(
            id=spec.id, team=spec.team, creature=spec.creature, name=stat.name,
            race=spec.race or stat.race, characteristics=chars, base_skills=skills,
            armour=armour, armour_training=training, position=spec.at, max_hp=max_hp,
            hp=max_hp, max_power_points=pp, power_points=pp,
            spells=spec.spells if spec.spells is not None else stat.spells,
            is_mount=stat.mount, snake=stat.snake, inventory=inventory, content=c,
        )
        apply_state(combatant, spec)
        return combatant

    def _roll_initiative(self) -> None:
        """S1/H4: d12 + DEX bonus once per combat; impaired totals halve (round down);
        ties go to higher DEX, then to a seeded draw."""
        rs = self.content.ruleset
        keys = {}
        for cid, cb in self.combatants.items():
            total, _ = self.dice.roll(rs.initiative.die)
            total += cb.dex_bonus
            factor = cb.fatigue_factor()
            if cb.encumbered:
                factor *= rs.initiative.impaired_factor
            cb.initiative = int(total * factor // 1)
            keys[cid] = (-cb.initiative, -cb.char("dex"), self.dice.uniform())
        self.initiative_order = sorted(self.combatants, key=keys.__getitem__)

    # ---------------------------------------------------------------- public state
    @property
    def decision(self) -> Decision | None:
        """Who decides what now; None once the battle is over."""
        return None if self.is_over else self._decision

    content = _state_field("content", "The rules content (creatures, items, spells, ruleset).")
    scenario = _state_field("scenario", "The scenario the battle was built from.")
    dice = _state_field("dice", "The battle's one seeded roller (``battle.dice.reseed``).")
    grid = _state_field("grid", "The map as its doors are now.")
    round = _state_field("round", "The current round, from the scenario's start_round.")
    combatants = _state_field("combatants", "Every combatant by id, in scenario order.")
    ground = _state_field("ground", "Items lying on the map.")
    initiative_order = _state_field("initiative_order", "Combatant ids in turn order (S1).")
    turn_index = _state_field("turn_index", "Index of the turn owner in initiative_order.")
    stack = _state_field("stack", "The frames of work in progress (top last).")
    events = _state_field("events", "Every event so far.")
    is_over = _state_field("is_over", "Whether the battle has ended.")
    winner = _state_field("winner", "The winning team, or None (a draw or not over).")

    @property
    def current_actor(self) -> str | None:
        """The owner of the current turn."""
        return self.state.current_actor

    @property
    def engine(self) -> str:
        """Which engine runs this battle: "native" or "python" (``rules.engine``)."""
        return self.state.engine

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
        if self.is_over or self._decision is None:
            return []
        return list(self._current_legal())

    def _current_legal(self) -> list[Action]:
        """This decision's legal actions (computed once per decision, shared by clones)."""
        acts = self._legal
        if acts is None:
            acts = self._legal = legal.actions_for(self.state, self._decision)
            self._legal_set = self._legal_ids = None
        return acts

    def _is_listed(self, action: Action) -> bool:
        """Whether ``action`` is one of the very objects ``legal_actions()`` listed (what
        agents pass back): such an action is well-formed and legal, nothing to check."""
        if self.is_over or self._decision is None:
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
                f"{action} is not legal for {self._decision}; legal kinds: {', '.join(kinds)}"
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
        new.state = self.state.copy()
        new._decision = self._decision
        new._legal = self._legal
        new._legal_set = self._legal_set
        new._legal_ids = self._legal_ids
        return new

    def to_dict(self, *, events: bool = True) -> dict[str, Any]:
        """The whole state as plain JSON data (``to_json``); ``events=False`` leaves the
        event log out (its length stays, as ``event_count``), for comparing states
        decision by decision without paying for the whole log each time."""
        out = {
            "version": JSON_VERSION,
            "scenario": {"text": self.scenario.text, "source": self.scenario.source},
            "content_dir": self.content_dir,
            "seed": self.seed,
            "dice": self.dice.state(),
            "round": self.round,
            "turn_index": self.turn_index,
            "initiative_order": list(self.initiative_order),
            "combatants": [c.to_dict() for c in self.combatants.values()],
            "ground": [vars(i).copy() for i in self.ground],
            "doors_open": sorted(
                [list(sq) for sq, is_open in self.grid.doors.items() if is_open]),
            "stack": [frame_to_dict(frame) for frame in self.stack],
            "events": [event_to_dict(e) for e in self.events] if events else None,
            "is_over": self.is_over,
            "winner": self.winner,
            "decision": None if self._decision is None else {
                "kind": self._decision.kind.value, "actor": self._decision.actor,
                "source": self._decision.source},
        }
        if not events:
            del out["events"]
            out["event_count"] = len(self.events)
        return out

    def to_json(self) -> str:
        """The whole state as JSON; ``Battle.from_json`` restores it exactly."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str, *, engine: str | None = None) -> Battle:
        """The battle ``to_json`` wrote (the same JSON_VERSION only), on ``engine`` (as in
        ``from_scenario``: the JSON does not say which engine wrote it, and either engine
        continues it identically)."""
        data = json.loads(text)
        if data.get("version") != JSON_VERSION:
            raise FrayError(f"battle JSON: version: expected {JSON_VERSION}, found "
                            f"{data.get('version')!r} (written by another fray)")
        cdir = data["content_dir"]
        content = load_content(Path(cdir)) if cdir else default_content()
        sc = data["scenario"]
        scenario = parse_scenario(sc["text"], source=sc["source"], content=content)
        battle = cls(scenario, data["seed"], content, cdir, engine=engine, _restoring=True)
        battle.dice = Roller.from_state(data["dice"])
        battle.round = data["round"]
        battle.turn_index = data["turn_index"]
        battle.initiative_order = list(data["initiative_order"])
        for cd in data["combatants"]:
            combatant = Combatant.from_dict(cd, content)
            battle.combatants[combatant.id] = combatant
        battle.ground = [item_from_dict(i) for i in data["ground"]]
        grid = scenario.grid
        for sq in grid.doors:
            grid = grid.with_door(sq, [sq[0], sq[1]] in data["doors_open"])
        battle.state.set_grid(grid)
        battle.stack = [frame_from_dict(frame) for frame in data["stack"]]
        battle.events = [event_from_dict(e) for e in data["events"]]
        battle.is_over = data["is_over"]
        battle.winner = data["winner"]
        d = data["decision"]
        battle._decision = None if d is None else Decision(DecisionKind(d["kind"]),
                                                           d["actor"], d["source"])
        return battle

    def __repr__(self) -> str:
        return (f"Battle({self.scenario.name!r}, round={self.round}, "
                f"decision={self.decision}, over={self.is_over}, winner={self.winner})")

