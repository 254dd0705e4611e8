"""The viewer's data: a replay re-simulated action by action into compact per-event state.

The page runs no rules. :func:`viewer_data` re-simulates the replay with
:func:`experiments.replay.rerun`'s steps (``Battle.apply`` action by action) and records
what the page shows at every event index ``e`` (0 .. len(events) - 1):

- ``units``: one ``[x, y, hp, flags]`` per combatant (flags: :data:`UNIT_FLAGS` bits),
  delta-encoded in ``unitDelta[e]`` = ``[slot, x, y, hp, flags]`` rows that changed
  since ``e - 1`` (event 0 lists every unit). The state after an action's last event is
  the battle's own state after that ``apply``; events inside an action's span update it
  from their fields (Moved path end, DamageDealt/HitPointsChanged hp, StatusChanged), so
  the HP shown at a DamageDealt line is the HP that line reports.
- ``doorDelta[e]``: ``[cell, open]`` pairs for doors that changed (DoorChanged events).
- ``owner[e]``: slot of the turn owner (last TurnStarted), -1 for none; ``subject[e]``:
  slot of the combatant the event is about (actor / attacker / defender / caster), -1.
- ``snapshot[e]``: index into ``snapshots`` (one per action boundary: before the first
  action, then after each). An event uses the snapshot before its action, the last event
  of an action's span the one after it. Each snapshot holds ``order`` (initiative order,
  slots; null when unchanged), ``decider`` ([slot, kind] or null), ``lit`` (the dark
  squares a torch lights, H23, a set or -1), ``ground`` (squares with items lying on
  them, a set or -1) and ``zones``: rows
  ``[slot, threat_set, reach_set]`` that changed (-1 = none). Sets index ``sets``, each a
  run-length list of map cells (``y * width + x``): ``[start, length, gap, length, ...]``.
  Threatened squares are ``rules.queries.threat_squares`` (H12, only when
  ``Combatant.threatens``); reachable squares are where the unit could end a full move
  (``rules.queries.routes`` with ``move_budget(full=True)``, the reach graph's plain
  search) from where it stands at that moment, whatever it has already spent this turn.
- ``paths``: ``{e: [cells]}`` for Moved events; ``marks``: ``{e: [kind, cell, cell]}``
  for reactions (``free`` attack, ``parry``, ``dodge``, ``provoked``, ``declined``).
- ``stopped``: null, or why the re-simulation stopped early (``partial`` builds).
- ``odds``: ``{e: {...}}`` on the AttackRolled event of each attack action, from
  ``rules.odds.attack_odds`` for every defence the target could make (see
  :func:`attack_odds_entry`); absent when ``rules.odds`` cannot be imported
  (``oddsAvailable`` false, and the page says so).

The static header's ``map`` holds the map's ``rows`` of glyphs and their ``legend``:
``rules.grid.GLYPHS`` as plain data (wall, door, difficult, dark, drop depth), which the
page reads instead of a glyph table of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import rules
from env.render import GEOMETRY, PALETTE, TEAM_COLOURS, unit_initials
from experiments.replay import Replay, ReplayError
from rules import queries
from rules.events import Event
from rules.grid import GLYPHS

try:  # rules.odds is optional for the viewer: without it the page shows no odds
    from rules import odds as rules_odds
except ImportError:  # pragma: no cover - depends on the rules version installed
    rules_odds = None

FORMAT = "fray-viewer"
VERSION = 1
UNIT_FLAGS = ("prone", "bleeding", "riding", "ridden", "out", "dead", "grappled")
_BIT = {name: 1 << i for i, name in enumerate(UNIT_FLAGS)}
_SUBJECT_FIELDS = ("actor", "attacker", "defender", "caster", "owner")
_STATUS_FLAGS = {  # StatusChanged.status -> (flag, on)
    "prone": ("prone", True), "standing": ("prone", False),
    "out of action": ("out", True), "back in action": ("out", False),
    "dead": ("dead", True), "bleeding": ("bleeding", True),
    "no longer bleeding": ("bleeding", False), "grappled": ("grappled", True),
    "free": ("grappled", False), "released": ("grappled", False),
}


def unit_state(combatant: rules.Combatant) -> list[int]:
    """``[x, y, hp, flags]`` of one combatant."""
    flags = 0
    for name, on in (
        ("prone", combatant.prone),
        ("bleeding", combatant.bleeding),
        ("riding", combatant.riding is not None),
        ("ridden", combatant.ridden_by is not None),
        ("out", combatant.status == "out"),
        ("dead", combatant.dead),
        ("grappled", combatant.grappled_by is not None),
    ):
        if on:
            flags |= _BIT[name]
    return [combatant.position[0], combatant.position[1], combatant.hp, flags]


def run_length(cells: Iterable[int]) -> list[int]:
    """Sorted cell indices -> ``[start, length, gap, length, ...]`` (gap from the end of
    the previous run)."""
    out: list[int] = []
    end = 0
    for cell in sorted(cells):
        if out and cell == end:
            out[-1] += 1
        else:
            out += [cell - end, 1]
        end = cell + 1
    return out


def cells_of(run: list[int]) -> list[int]:
    """The inverse of :func:`run_length`."""
    cells, end = [], 0
    for i in range(0, len(run), 2):
        start = end + run[i]
        cells += range(start, start + run[i + 1])
        end = start + run[i + 1]
    return cells


class _Sets:
    """Interned run-length square sets."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.table: list[list[int]] = []
        self._index: dict[frozenset, int] = {}

    def add(self, squares: Iterable[tuple[int, int]]) -> int:
        key = frozenset(squares)
        if not key:
            return -1
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.table)
            self.table.append(run_length(y * self.width + x for x, y in key))
        return index


def zones(battle: rules.Battle, combatant: rules.Combatant, sets: _Sets) -> tuple[int, int]:
    """The interned threatened and reachable square sets of ``combatant`` now (module docstring)."""
    if not combatant.in_action:
        return -1, -1
    threat = queries.threat_squares(battle, combatant) if combatant.threatens else frozenset()
    reach = queries.routes(battle, combatant, queries.move_budget(battle, combatant, full=True),
                           provoking=False)
    return sets.add(threat), sets.add(reach)


def _fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value)


def attack_odds_entry(battle: rules.Battle, action: rules.Action) -> dict[str, Any] | None:
    """The odds of an attack about to be applied, for the page: ``chance``, ``levels``
    (name -> [probability, exact]) and per possible defence ``[hit and wound, expected
    damage, drops, kills, exact drops]``; None when ``rules.odds`` is missing or the
    action is not an attack it covers."""
    if rules_odds is None or action.kind not in rules_odds.ATTACK_KINDS:
        return None
    entry: dict[str, Any] = {}
    for defence in rules_odds.DEFENCES:
        try:
            o = rules_odds.attack_odds(battle, action, defence)
        except ValueError as exc:  # e.g. a defence with no item to parry with
            entry.setdefault("errors", {})[defence] = str(exc)
            continue
        needs_parry = defence in ("parry", "both")
        needs_dodge = defence in ("dodge", "both")
        if (needs_parry and o.parry_chance is None) or (needs_dodge and o.dodge_chance is None):
            continue
        if not entry.get("levels"):
            entry["chance"] = o.chance
            entry["levels"] = {lv.name: [round(float(p), 4), _fraction_text(p)]
                               for lv, p in o.levels.items()}
        entry.setdefault("defences", {})[defence] = [
            round(float(o.wounds), 4), round(float(o.expected_damage), 3),
            round(float(o.drops), 4), round(float(o.kills), 4), _fraction_text(o.drops),
            o.parry_chance, o.dodge_chance]
    return entry or None


def _subject(event: Event, slot: dict[str, int]) -> int:
    for name in _SUBJECT_FIELDS:
        value = getattr(event, name, None)
        if isinstance(value, str) and value in slot:
            return slot[value]
    return -1


def _mark(event: Event, slot: dict[str, int], units: list[list[int]],
          width: int) -> list[Any] | None:
    """A reaction marker for the map: ``[kind, cell, other cell]``."""
    def cell(uid: str) -> int:
        x, y = units[slot[uid]][:2]
        return y * width + x
    name = type(event).__name__
    if name == "AttackRolled" and event.mode == "free":
        return ["free", cell(event.target), cell(event.attacker)]
    if name == "ParryRolled":
        return ["parry", cell(event.defender), -1]
    if name == "DodgeRolled":
        to = -1 if event.square is None else event.square[1] * width + event.square[0]
        return ["dodge", cell(event.defender), to]
    if name == "Provoked":
        return ["provoked", cell(event.actor), cell(event.enemy)]
    if name == "FreeAttackDeclined":
        return ["declined", cell(event.actor), cell(event.enemy)]
    return None


def _apply_event(event: Event, units: list[list[int]], slot: dict[str, int],
                 partner: dict[str, str]) -> None:
    """Update the shown state from one event's own fields (inside an action's span)."""
    name = type(event).__name__
    if name == "Moved" and event.path:
        x, y = event.path[-1]
        for uid in (event.actor, partner.get(event.actor)):
            if uid is not None:
                units[slot[uid]][0:2] = [x, y]
    elif name == "DamageDealt":
        units[slot[event.target]][2] = event.hp
    elif name == "HitPointsChanged":
        units[slot[event.actor]][2] = event.hp
    elif name == "StatusChanged" and event.cause == "unseated":  # H22: apart from now on
        partner.pop(partner.pop(event.actor, ""), None)
    elif name == "StatusChanged" and event.status in _STATUS_FLAGS:
        flag, on = _STATUS_FLAGS[event.status]
        row = units[slot[event.actor]]
        row[3] = row[3] | _BIT[flag] if on else row[3] & ~_BIT[flag]


class _Recorder:
    """Accumulates the per-event arrays while the replay is re-simulated."""

    def __init__(self, battle: rules.Battle) -> None:
        self.ids = [u.id for u in battle.scenario.units]
        self.slot = {uid: i for i, uid in enumerate(self.ids)}
        self.width = battle.grid.width
        self.sets = _Sets(self.width)
        self.out: dict[str, Any] = {
            "unitDelta": [], "doorDelta": [], "owner": [], "subject": [], "snapshot": [],
            "types": [], "round": [], "text": [], "snapshots": [], "paths": {},
            "marks": {}, "odds": {}, "stopped": None}
        self.shown: list[list[int]] | None = None
        self.doors = dict(battle.grid.doors)
        self.dark = sorted(battle.grid.dark)
        self.owner = -1
        self.zones: dict[int, tuple[int, int]] = {}
        self.order: list[int] | None = None
        self.type_index: dict[str, int] = {}

    def snapshot(self, battle: rules.Battle) -> list[list[int]]:
        """Record the state at an action boundary; return the units' state."""
        order = [self.slot[i] for i in battle.initiative_order]
        rows = []
        for uid in self.ids:
            now = zones(battle, battle.combatants[uid], self.sets)
            if self.zones.get(self.slot[uid]) != now:
                self.zones[self.slot[uid]] = now
                rows.append([self.slot[uid], *now])
        d = battle.decision
        lit = self.sets.add(sq for sq in self.dark if queries.is_lit(battle, sq))
        ground = self.sets.add(i.square for i in battle.ground if i.square is not None)
        self.out["snapshots"].append({
            "order": order if order != self.order else None,
            "decider": None if d is None else [self.slot[d.actor], d.kind.name],
            "zones": rows, "lit": lit, "ground": ground})
        self.order = order
        return [unit_state(battle.combatants[uid]) for uid in self.ids]

    def event(self, event: Event, units: list[list[int]], snapshot: int) -> None:
        """Record one event shown with the units' state ``units``."""
        index = len(self.out["text"])
        out = self.out
        name = type(event).__name__
        out["types"].append(self.type_index.setdefault(name, len(self.type_index)))
        out["round"].append(event.round)
        out["text"].append(str(event))
        previous = self.shown
        out["unitDelta"].append([[i, *row] for i, row in enumerate(units)
                                 if previous is None or previous[i] != row])
        self.shown = [list(row) for row in units]
        changed = []
        if name == "DoorChanged":
            self.doors[event.square] = event.open
            changed.append([event.square[1] * self.width + event.square[0], int(event.open)])
        out["doorDelta"].append(changed)
        if name == "TurnStarted":
            self.owner = self.slot[event.actor]
        elif name == "BattleEnded":
            self.owner = -1
        out["owner"].append(self.owner)
        out["subject"].append(_subject(event, self.slot))
        out["snapshot"].append(snapshot)
        if name == "Moved":
            out["paths"][index] = [y * self.width + x for x, y in event.path]
        mark = _mark(event, self.slot, units, self.width)
        if mark is not None:
            out["marks"][index] = mark


def apply_recorded(battle: rules.Battle, replay: Replay, index: int) -> list[Event]:
    """Apply the replay's ``index``-th action with its reason; return the events emitted.

    Raises ``ReplayError`` if the action is not legal on re-simulation.
    """
    action = rules.Action.from_dict(replay.actions[index])
    try:
        return battle.apply(action, reason=replay.reasons[index])
    except rules.IllegalActionError as exc:
        raise ReplayError(f"action {index} ({action}) is not legal on re-simulation: "
                          f"{exc}") from None


def viewer_data(replay: Replay, progress: bool = False,
                partial: bool = False) -> dict[str, Any]:
    """Re-simulate ``replay`` and return the page's data (module docstring); ``progress``
    shows a progress bar over the actions (on stderr).

    Raises ``ReplayError`` if an action is not legal on re-simulation, unless
    ``partial``: then the page shows the battle up to that action and says why it stops
    (``stopped``), as for a fuzzer's finding.
    """
    from tqdm import tqdm

    battle = replay.new_battle()
    rec = _Recorder(battle)
    initials = unit_initials(battle)
    header = _header(replay, battle, initials)
    units = rec.snapshot(battle)
    for event in battle.events:
        rec.event(event, units, 0)
    actions = tqdm(replay.actions, desc="viewer page", unit="action", disable=not progress,
                   leave=False)
    for index, data in enumerate(actions):
        odds = attack_odds_entry(battle, rules.Action.from_dict(data))
        partner = {c.id: (c.riding or c.ridden_by) for c in battle.combatants.values()
                   if c.riding or c.ridden_by}
        try:
            new = apply_recorded(battle, replay, index)
        except ReplayError as exc:
            if not partial:
                raise
            rec.out["stopped"] = str(exc)
            break
        start = len(battle.events) - len(new)
        after = rec.snapshot(battle)
        for offset, event in enumerate(new):
            last = offset == len(new) - 1
            if last:
                units = after
            else:
                _apply_event(event, units, rec.slot, partner)
            if odds is not None and type(event).__name__ == "AttackRolled":
                rec.out["odds"][start + offset] = odds
                odds = None
            rec.event(event, units, index + 1 if last else index)
        units = after
    out = rec.out
    _mark_defences(out["odds"], battle.events)
    out["typeNames"] = list(rec.type_index)
    out["sets"] = rec.sets.table
    return {**header, **out}


def _mark_defences(odds: dict[int, dict[str, Any]], events: list[Event]) -> None:
    """Set each odds entry's ``rolled`` (the attack's success level) and ``used``: the
    defence its target made against that attack (the parry and dodge rolls before the
    next attack roll or the end of the turn)."""
    for index, entry in odds.items():
        target = events[index].target
        entry["rolled"] = str(events[index].level).upper()
        parried = dodged = False
        for event in events[index + 1:]:
            name = type(event).__name__
            if name in ("AttackRolled", "TurnEnded"):
                break
            parried |= name == "ParryRolled" and event.defender == target
            dodged |= name == "DodgeRolled" and event.defender == target
        entry["used"] = ("both" if parried and dodged else "parry" if parried
                         else "dodge" if dodged else "none")


def _header(replay: Replay, battle: rules.Battle, initials: dict[str, str]) -> dict[str, Any]:
    """The static part: scenario, map, units, look."""
    depth = battle.content.ruleset.misc.default_drop_depth_ft
    teams = list(battle.scenario.teams)
    return {
        "format": FORMAT, "version": VERSION,
        "scenario": replay.scenario_name, "seed": replay.seed, "agents": replay.agents,
        "result": replay.result, "description": getattr(battle.scenario, "description", ""),
        "look": {"palette": PALETTE, "teams": list(TEAM_COLOURS), "geometry": GEOMETRY,
                 "flags": list(UNIT_FLAGS)},
        "map": {"width": battle.grid.width, "height": battle.grid.height,
                "rows": battle.grid.to_text(drop_depth_ft=depth).splitlines(),
                "legend": {glyph: spec.to_dict(depth) for glyph, spec in GLYPHS.items()},
                "dropDepth": depth},
        "teams": teams,
        "units": [{"id": c.id, "team": teams.index(c.team), "name": c.name,
                   "creature": c.creature, "initials": initials[c.id], "maxHp": c.max_hp}
                  for c in (battle.combatants[u.id] for u in battle.scenario.units)],
        "oddsAvailable": rules_odds is not None,
    }
