"""Battle -> observation arrays, seen by one team (and optionally one of its combatants).

Keys (shapes for a map of ``H`` rows and ``W`` columns and ``N`` units):

- ``planes``: float32 ``(len(PLANES), H, W)`` in [0, 1], one channel per name in
  :data:`PLANES`.
- ``units``: float32 ``(N, len(UNIT_FEATURES))`` in [-1, 1]: one row per combatant slot
  (the scenario's units in file order), features named in :data:`UNIT_FEATURES`.
- ``decision``: int64 ``(2,)`` from ``MultiDiscrete([K + 1, N + 1])``: the decision kind
  (its index in :data:`DECISION_KINDS`, the rows of ``rules.actions.DECISION_SPECS``:
  today K = 4; K = none, the battle is over) and the deciding combatant's slot
  (``N`` = none).
- ``globals``: float32 ``(len(GLOBAL_FEATURES),)`` in [0, 1].

"ally" and "enemy" are relative to the observing team. Unit and global features are
(name, function) pairs (:data:`UNIT_FEATURE_SPECS`, :data:`GLOBAL_FEATURE_SPECS`): a
feature's name, column and value live together, and rules questions (H12's
``Combatant.threatens``, ``reach``, the S2 budget) come from ``rules``, not re-derived.
``tests/env/test_observation_features.py`` checks the env docstring's sizes and names
against them.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

import numpy as np
from gymnasium import spaces

from rules import Battle, Combatant, DecisionKind
from rules import queries as q
from rules.actions import DECISION_SPECS, DESTINATION_KINDS
from rules.budget import can_spend
from rules.threat_zones import threatened_squares

PLANES = (
    "wall", "closed_door", "open_door", "difficult", "lit", "drop", "ally", "enemy",
    "down", "decider", "self", "enemy_threat", "ally_threat", "reachable", "ground_item",
)


class UnitView:
    """What a unit feature is computed from besides the combatant: the observer's view
    (set once per build) and the unit's ready weapons, reach, light and skill-derived
    values (set before each unit's row)."""

    __slots__ = ("allowed_parries", "decider", "derived", "height", "lit", "n_units",
                 "owner", "rank", "reach", "ready", "self_id", "source", "team", "threatens",
                 "width")

    def __init__(self, **values: Any) -> None:
        for name, value in values.items():
            setattr(self, name, value)


def _missile_ready(combatant: Combatant, unit: UnitView) -> bool:
    """A ready missile weapon that needs no reload, or is nocked or loaded (H16)."""
    return any(weapon.kind == "missile" and (weapon.reload == "none" or inst.nocked
                                            or inst.loaded) for inst, weapon in unit.ready)


def _power_points(combatant: Combatant, unit: UnitView) -> float:
    """Power points left as a fraction of the maximum (0 without any)."""
    return max(0.0, min(1.0, combatant.power_points / combatant.max_power_points)) \
        if combatant.max_power_points > 0 else 0.0


#: Each ``units`` column: its name and its value (the column is the pair's position).
UNIT_FEATURE_SPECS: tuple[tuple[str, Callable[[Combatant, UnitView], float]], ...] = (
    ("in_action", lambda combatant, unit: combatant.in_action),
    ("out_of_action", lambda combatant, unit: combatant.status == "out"),
    ("dead", lambda combatant, unit: combatant.status == "dead"),
    ("ally", lambda combatant, unit: combatant.team == unit.team),
    ("self", lambda combatant, unit: combatant.id == unit.self_id),
    ("deciding", lambda combatant, unit: combatant.id == unit.decider),
    ("turn_owner", lambda combatant, unit: combatant.id == unit.owner),
    ("source", lambda combatant, unit: combatant.id == unit.source),
    (
        "hp_fraction",
        lambda combatant, unit: max(-1.0, min(1.0, combatant.hp / max(1, combatant.max_hp))),
    ),
    ("max_hp", lambda combatant, unit: min(1.0, combatant.max_hp / 30)),
    ("x", lambda combatant, unit: combatant.position[0] / max(1, unit.width - 1)),
    ("y", lambda combatant, unit: combatant.position[1] / max(1, unit.height - 1)),
    ("prone", lambda combatant, unit: combatant.prone),
    ("threatens", lambda combatant, unit: unit.threatens),  # H12: Combatant.threatens
    ("reach", lambda combatant, unit: min(1.0, unit.reach / 2)),
    ("missile_ready", _missile_ready),
    (
        "move_left",
        lambda combatant, unit: combatant.id == unit.owner and can_spend(combatant, "move"),
    ),
    (
        "attack_left",
        lambda combatant, unit: combatant.id == unit.owner and can_spend(combatant, "attack"),
    ),
    (
        "full_left",
        lambda combatant, unit: combatant.id == unit.owner and can_spend(combatant, "full"),
    ),
    ("moved_this_round", lambda combatant, unit: combatant.moved_this_round),
    ("shifted_this_round", lambda combatant, unit: combatant.shifted_this_round),
    ("free_attack_used", lambda combatant, unit: combatant.free_attack_used),
    (
        "parries_left",
        lambda combatant, unit: max(
            0.0,
            min(1.0, (unit.allowed_parries + combatant.extra_parries - combatant.parries_used) / 2),
        ),
    ),
    ("bleeding", lambda combatant, unit: combatant.bleeding),
    ("grappled", lambda combatant, unit: combatant.grappled_by is not None),
    (
        "mounted",
        lambda combatant, unit: combatant.riding is not None or combatant.ridden_by is not None,
    ),
    ("casting", lambda combatant, unit: combatant.casting is not None),
    ("power_points", _power_points),
    ("mov", lambda combatant, unit: unit.derived[0]),
    ("encumbered", lambda combatant, unit: unit.derived[1]),
    ("fatigue", lambda combatant, unit: combatant.fatigue_level / 2),
    ("dodge", lambda combatant, unit: unit.derived[2]),
    ("weapon_skill", lambda combatant, unit: unit.derived[3]),
    ("armour_points", lambda combatant, unit: unit.derived[4]),
    (
        "initiative_rank",
        lambda combatant, unit: unit.rank.get(combatant.id, 0) / max(1, unit.n_units - 1),
    ),
    ("components_ready", lambda combatant, unit: combatant.components_ready),
    ("in_dark", lambda combatant, unit: 1.0 - unit.lit),
)
UNIT_FEATURES = tuple(name for name, _ in UNIT_FEATURE_SPECS)
_UNIT_VALUES = tuple(value for _, value in UNIT_FEATURE_SPECS)


class GlobalView:
    """What a global feature is computed from."""

    __slots__ = ("allies", "ally_total", "battle", "decision", "enemies", "enemy_total",
                 "max_rounds", "owner", "team")

    def __init__(self, **values: Any) -> None:
        for name, value in values.items():
            setattr(self, name, value)


#: Each ``globals`` entry: its name and its value.
GLOBAL_FEATURE_SPECS: tuple[tuple[str, Callable[[GlobalView], float]], ...] = (
    ("round_fraction", lambda view: min(1.0, view.battle.round / view.max_rounds)),
    ("own_turn", lambda view: float(view.owner is not None and view.decision is not None
                                 and view.battle.combatants[view.owner].team == view.team)),
    ("allies_in_action", lambda view: view.allies / max(1, view.ally_total)),
    ("enemies_in_action", lambda view: view.enemies / max(1, view.enemy_total)),
    ("over", lambda view: float(view.battle.is_over)),
)
GLOBAL_FEATURES = tuple(name for name, _ in GLOBAL_FEATURE_SPECS)
#: The decision kinds by their index in ``decision`` (``DECISION_SPECS``'s row order).
DECISION_KINDS: tuple[DecisionKind, ...] = tuple(DECISION_SPECS)
_KIND_INDEX = {k: i for i, k in enumerate(DECISION_KINDS)}
_P = {name: i for i, name in enumerate(PLANES)}
(_OPEN_DOOR, _CLOSED_DOOR, _LIT, _ALLY, _ENEMY, _DOWN, _DECIDER, _SELF, _ENEMY_THREAT,
 _ALLY_THREAT, _REACHABLE, _GROUND_ITEM) = (
    _P[name] for name in ("open_door", "closed_door", "lit", "ally", "enemy", "down",
                          "decider", "self", "enemy_threat", "ally_threat", "reachable",
                          "ground_item"))


#: What a unit row reads from each carried item (``_unit_key``).
_GEAR = attrgetter("uid", "item", "state", "count", "nocked", "loaded")
#: Bounds of the builder's tables (each starts afresh when full).
_ROWS_KEPT = 4096
_ZONES_KEPT = 4096
_DOOR_STATES_KEPT = 64


def _unit_key(combatant: Combatant, current_round: int, team: str, self_id: str | None,
              decider: str | None, source: str | None, owner: str | None, rank: int,
              lit: float) -> tuple:
    """Everything a ``units`` row reads (every feature of ``UNIT_FEATURE_SPECS``, the
    observer's view of the unit, and what ``_derived`` keys on): equal keys, equal rows."""
    cid = combatant.id
    buffs = combatant.buffs
    return (
        cid, combatant.status, combatant.team, combatant.team == team, cid == self_id,
        cid == decider, cid == source, cid == owner, combatant.hp, combatant.max_hp,
        combatant.position, combatant.prone, combatant.moved_this_round,
        combatant.shifted_this_round, combatant.free_attack_used, combatant.extra_parries,
        combatant.parries_used, combatant.bleeding, combatant.grappled_by, combatant.riding,
        combatant.ridden_by, combatant.casting is not None, combatant.power_points,
        combatant.max_power_points, combatant.fatigue_level, combatant.components_ready,
        combatant.armour, tuple(map(_GEAR, combatant.inventory)), tuple(buffs),
        current_round if buffs else 0, tuple(combatant.actions_used) if cid == owner else None,
        rank, lit,
    )


class ObservationBuilder:
    """Builds observations for one scenario (fixed map size and unit slots)."""

    def __init__(self, battle: Battle) -> None:
        g = battle.grid
        self.width, self.height = g.width, g.height
        self.unit_ids = tuple(u.id for u in battle.scenario.units)
        self.slot_of = {cid: i for i, cid in enumerate(self.unit_ids)}
        self.n_units = len(self.unit_ids)
        self.max_rounds = battle.scenario.max_rounds
        static = np.zeros((len(PLANES), self.height, self.width), dtype=np.float32)
        for x, y in g.walls:
            static[_P["wall"], y, x] = 1
        for x, y in g.difficult:
            static[_P["difficult"], y, x] = 1
        for (x, y), depth in g.drops:
            static[_P["drop"], y, x] = min(1.0, depth / 100)
        self._static = static
        self._dark = tuple(sorted(g.dark))
        self._lit_default = np.ones((self.height, self.width), dtype=np.float32)
        for x, y in self._dark:
            self._lit_default[y, x] = 0
        self._parries_per_round = battle.content.ruleset.defence.parries_per_round
        self._threat_cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._derived_cache: dict[tuple, tuple[float, ...]] = {}
        # what does not change between steps (see ``build``)
        self._base_cache: dict[int, tuple[Any, np.ndarray]] = {}
        self._row_cache: dict[tuple, tuple[tuple[Any, ...], int, bool]] = {}
        self._zone_cache: dict[tuple, tuple[np.ndarray, ...]] = {}

    def spaces(self) -> dict[str, spaces.Space]:
        """The observation's keys and spaces (without ``action_mask``)."""
        n = self.n_units
        return {
            "planes": spaces.Box(0.0, 1.0, (len(PLANES), self.height, self.width),
                                 dtype=np.float32),
            "units": spaces.Box(-1.0, 1.0, (n, len(UNIT_FEATURES)), dtype=np.float32),
            "decision": spaces.MultiDiscrete([len(DECISION_KINDS) + 1, n + 1]),
            "globals": spaces.Box(0.0, 1.0, (len(GLOBAL_FEATURES),), dtype=np.float32),
        }

    # ------------------------------------------------------------ build
    def build(self, battle: Battle, team: str, self_id: str | None = None,
              show_reachable: bool = True) -> dict[str, np.ndarray]:
        """The observation of ``team`` (``self_id``: the observing combatant, if any).

        ``show_reachable``: fill the ``reachable`` plane with the decider's destinations
        (callers pass False when the decider is not the observer's to command).

        Only what changed since an earlier build is computed again: the map planes come
        from a copy kept per door state (the map object, shared by identity), each unit
        row from a table keyed on everything the row's features read (``_unit_key``),
        and the threat marks from a table keyed on the threatening units' squares.
        """
        d = battle.decision
        decider = d.actor if d is not None else None
        source = d.source if d is not None else None
        grid = battle.grid
        planes = self._base(grid).copy()
        lit = self._lit(battle)
        if lit is not self._lit_default:
            planes[_LIT] = lit
        owner = battle.current_actor
        rank = {cid: i for i, cid in enumerate(battle.initiative_order)}
        allies = enemies = ally_total = 0
        view: UnitView | None = None
        rows_cache = self._row_cache
        # every unit plane mark as (channel, y, x), written at once below
        channels: list[int] = []
        ys: list[int] = []
        xs: list[int] = []
        rows = []
        zones = []  # (ally, square, reach) of each threatening unit in action
        combatants = battle.combatants
        for cid in self.unit_ids:
            c = combatants[cid]
            x, y = position = c.position
            ally = c.team == team
            ally_total += ally
            # a Python float (lit is 0 or 1): numpy scalars make the row slow to convert
            lit_here = float(lit[y, x])
            key = _unit_key(c, battle.round, team, self_id, decider, source, owner,
                            rank.get(cid, 0), lit_here)
            hit = rows_cache.get(key)
            if hit is None:
                if view is None:
                    view = UnitView(team=team, self_id=self_id, decider=decider,
                                    source=source, owner=owner, rank=rank,
                                    allowed_parries=self._parries_per_round,
                                    width=self.width, height=self.height,
                                    n_units=self.n_units)
                ready = c.ready_weapons()
                reach_sq = c.reach  # H12, the rules' own queries
                threatens = c.threatens
                view.ready, view.reach, view.threatens = ready, reach_sq, threatens
                view.lit = lit_here
                view.derived = self._derived(battle, c)
                hit = (tuple([value(c, view) for value in _UNIT_VALUES]), reach_sq, threatens)
                if len(rows_cache) > _ROWS_KEPT:
                    rows_cache.clear()
                rows_cache[key] = hit
            row, reach_sq, threatens = hit
            rows.append(row)
            if c.in_action:
                channels.append(_ALLY if ally else _ENEMY)
                allies += ally
                enemies += not ally
                if threatens:
                    zones.append((ally, position, reach_sq))
            else:
                channels.append(_DOWN)
            ys.append(y)
            xs.append(x)
            if cid == decider:
                channels.append(_DECIDER)
                ys.append(y)
                xs.append(x)
            if cid == self_id:
                channels.append(_SELF)
                ys.append(y)
                xs.append(x)
        if zones:
            zone_channels, zone_ys, zone_xs = self._zones(battle, tuple(zones))
            planes[zone_channels, zone_ys, zone_xs] = 1
        for inst in battle.ground:
            if inst.square is not None:
                channels.append(_GROUND_ITEM)
                ys.append(inst.square[1])
                xs.append(inst.square[0])
        if show_reachable and d is not None:
            squares = [a.square for a in battle.legal_actions()
                       if a.square is not None and a.kind in DESTINATION_KINDS]
            channels += [_REACHABLE] * len(squares)
            ys += [square[1] for square in squares]
            xs += [square[0] for square in squares]
        planes[channels, ys, xs] = 1
        units = np.array(rows, dtype=np.float32).reshape(self.n_units, len(UNIT_FEATURES))
        enemy_total = self.n_units - ally_total
        decision = np.array(
            [len(DECISION_KINDS), self.n_units] if d is None
            else [_KIND_INDEX[d.kind], self.slot_of[d.actor]], dtype=np.int64)
        global_view = GlobalView(battle=battle, team=team, owner=owner, decision=d, allies=allies,
                                 ally_total=ally_total, enemies=enemies,
                                 enemy_total=enemy_total, max_rounds=self.max_rounds)
        glob = np.array([value(global_view) for _, value in GLOBAL_FEATURE_SPECS],
                        dtype=np.float32)
        return {"planes": planes, "units": units, "decision": decision, "globals": glob}

    def _base(self, grid: Any) -> np.ndarray:
        """The static planes with this door state's doors and the default light (kept per
        map object: a door state is one shared map, ``GridMap.with_door``). Read-only:
        ``build`` copies it."""
        hit = self._base_cache.get(id(grid))
        if hit is not None and hit[0] is grid:
            return hit[1]
        planes = self._static.copy()
        for (x, y), is_open in grid.doors.items():
            planes[_OPEN_DOOR if is_open else _CLOSED_DOOR, y, x] = 1
        planes[_LIT] = self._lit_default
        if len(self._base_cache) >= _DOOR_STATES_KEPT:
            self._base_cache.clear()
        self._base_cache[id(grid)] = (grid, planes)  # the map held: its id stays its own
        return planes

    def _zones(self, battle: Battle, zones: tuple[tuple[bool, Any, int], ...],
               ) -> tuple[np.ndarray, ...]:
        """(channel, y, x) index arrays of the ally/enemy threat marks of ``zones``
        ((ally, square, reach) per threatening unit), kept per map and zones."""
        key = (battle.grid, zones)
        hit = self._zone_cache.get(key)
        if hit is None:
            parts = []
            for ally, square, reach in zones:
                zone_xs, zone_ys = self._threat(battle.grid, square, reach)
                parts.append((np.full(len(zone_xs), _ALLY_THREAT if ally else _ENEMY_THREAT,
                                      dtype=np.intp), zone_ys, zone_xs))
            hit = tuple(np.concatenate(column) for column in zip(*parts, strict=True))
            if len(self._zone_cache) > _ZONES_KEPT:
                self._zone_cache.clear()
            self._zone_cache[key] = hit
        return hit

    def _threat(self, grid: Any, square: Any, reach: int) -> tuple[np.ndarray, np.ndarray]:
        """H12: the squares a unit on ``square`` threatens with ``reach``, as index arrays
        (cached per map, square and reach)."""
        key = (grid, square, reach)
        hit = self._threat_cache.get(key)
        if hit is None:
            sq = sorted(threatened_squares(grid, square, reach))
            hit = (np.array([s[0] for s in sq], dtype=np.intp),
                   np.array([s[1] for s in sq], dtype=np.intp))
            if len(self._threat_cache) > 4096:
                self._threat_cache.clear()
            self._threat_cache[key] = hit
        return hit

    def _derived(self, battle: Battle, combatant: Combatant) -> tuple[float, ...]:
        """Skill-derived features, recomputed only when what they depend on changes
        (inventory, fatigue, buffs)."""
        key = (combatant.id, combatant.fatigue_level, combatant.armour,
               tuple((i.uid, i.item, i.state, i.count) for i in combatant.inventory),
               tuple(combatant.buffs), battle.round if combatant.buffs else 0)
        hit = self._derived_cache.get(key)
        if hit is None:
            ready = combatant.ready_weapons()
            hit = (
                min(1.0, combatant.mov / 12),
                float(combatant.encumbered),
                min(1.0, combatant.skill("dodge", battle.round) / 100),
                min(
                    1.0,
                    max((combatant.skill(w.skill, battle.round) for _, w in ready), default=0)
                    / 100,
                ),
                min(1.0, combatant.armour_points / 10),
            )
            if len(self._derived_cache) > 4096:
                self._derived_cache.clear()
            self._derived_cache[key] = hit
        return hit

    def _lit(self, battle: Battle) -> np.ndarray:
        """The lit plane: the default one itself (read-only) unless a torch burns."""
        if not self._dark:
            return self._lit_default
        torches = any(i.lit for c in battle.combatants.values() for i in c.inventory) or any(
            i.lit for i in battle.ground)
        if not torches:
            return self._lit_default
        lit = self._lit_default.copy()
        for x, y in self._dark:
            lit[y, x] = float(q.is_lit(battle, (x, y)))
        return lit
