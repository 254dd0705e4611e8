"""Battle -> observation arrays, seen by one team (and optionally one of its combatants).

Keys (shapes for a map of ``H`` rows and ``W`` columns and ``N`` units):

- ``planes``: float32 ``(len(PLANES), H, W)`` in [0, 1], one channel per name in
  :data:`PLANES`.
- ``units``: float32 ``(N, len(UNIT_FEATURES))`` in [-1, 1]: one row per combatant slot
  (the scenario's units in file order), features named in :data:`UNIT_FEATURES`.
- ``decision``: int64 ``(2,)`` from ``MultiDiscrete([5, N + 1])``: the decision kind
  (:data:`DECISION_KINDS`, 4 = none, the battle is over) and the deciding combatant's slot
  (``N`` = none).
- ``globals``: float32 ``(len(GLOBAL_FEATURES),)`` in [0, 1].

"ally" and "enemy" are relative to the observing team.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from rules import Battle, Combatant, DecisionKind
from rules import queries as q
from rules.legal import can_spend

PLANES = (
    "wall", "closed_door", "open_door", "difficult", "lit", "drop", "ally", "enemy",
    "down", "decider", "self", "enemy_threat", "ally_threat", "reachable", "ground_item",
)
UNIT_FEATURES = (
    "in_action", "out_of_action", "dead", "ally", "self", "deciding", "turn_owner",
    "source", "hp_fraction", "max_hp", "x", "y", "prone", "threatens", "reach",
    "missile_ready", "move_left", "attack_left", "full_left", "moved_this_round",
    "shifted_this_round", "free_attack_used", "parries_left", "bleeding", "grappled",
    "mounted", "casting", "power_points", "mov", "encumbered", "fatigue", "dodge",
    "weapon_skill", "armour_points", "initiative_rank", "components_ready", "in_dark",
)
GLOBAL_FEATURES = ("round_fraction", "own_turn", "allies_in_action", "enemies_in_action",
                   "over")
DECISION_KINDS = (DecisionKind.TURN, DecisionKind.FREE_ATTACK, DecisionKind.PARRY,
                  DecisionKind.DODGE)
_KIND_INDEX = {k: i for i, k in enumerate(DECISION_KINDS)}
_P = {name: i for i, name in enumerate(PLANES)}
(_OPEN_DOOR, _CLOSED_DOOR, _LIT, _ALLY, _ENEMY, _DOWN, _DECIDER, _SELF, _ENEMY_THREAT,
 _ALLY_THREAT, _REACHABLE, _GROUND_ITEM) = (
    _P[name] for name in ("open_door", "closed_door", "lit", "ally", "enemy", "down",
                          "decider", "self", "enemy_threat", "ally_threat", "reachable",
                          "ground_item"))
_MOVE_KINDS = {"move", "full_move", "disengage", "shift", "dodge"}


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
        self._reach_squares = dict(battle.content.ruleset.misc.reach_squares)
        self._parries_per_round = battle.content.ruleset.defence.parries_per_round
        self._threat_cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._derived_cache: dict[tuple, tuple[float, ...]] = {}

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
    def build(self, b: Battle, team: str, self_id: str | None = None,
              show_reachable: bool = True) -> dict[str, np.ndarray]:
        """The observation of ``team`` (``self_id``: the observing combatant, if any).

        ``show_reachable``: fill the ``reachable`` plane with the decider's destinations
        (callers pass False when the decider is not the observer's to command).
        """
        d = b.decision
        decider = d.actor if d is not None else None
        source = d.source if d is not None else None
        planes = self._static.copy()
        grid = b.grid
        for (x, y), is_open in grid.doors.items():
            planes[_OPEN_DOOR if is_open else _CLOSED_DOOR, y, x] = 1
        lit = self._lit(b)
        planes[_LIT] = lit
        owner = b.current_actor
        rank = {cid: i for i, cid in enumerate(b.initiative_order)}
        allies = enemies = ally_total = 0
        # every unit plane mark as (channel, y, x), written at once below
        channels: list[int] = []
        ys: list[int] = []
        xs: list[int] = []
        rows = []
        for cid in self.unit_ids:
            c = b.combatants[cid]
            x, y = c.position
            ally = c.team == team
            ally_total += ally
            ready = c.ready_weapons()
            reach_sq = max((self._reach_squares[w.reach] for _, w in ready
                            if w.kind == "melee"), default=0)
            threatens = c.in_action and not c.prone and reach_sq > 0  # H12
            if c.in_action:
                channels.append(_ALLY if ally else _ENEMY)
                allies += ally
                enemies += not ally
                if threatens:
                    zone_xs, zone_ys = self._threat(b, c, reach_sq)
                    planes[_ALLY_THREAT if ally else _ENEMY_THREAT, zone_ys, zone_xs] = 1
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
            rows.append(self._unit_row(b, c, team, self_id, decider, source, owner, rank,
                                       lit[y, x], ready, reach_sq, threatens))
        for inst in b.ground:
            if inst.square is not None:
                channels.append(_GROUND_ITEM)
                ys.append(inst.square[1])
                xs.append(inst.square[0])
        if show_reachable and d is not None:
            for a in b.legal_actions():
                if a.square is not None and a.kind.value in _MOVE_KINDS:
                    channels.append(_REACHABLE)
                    ys.append(a.square[1])
                    xs.append(a.square[0])
        planes[channels, ys, xs] = 1
        units = np.array(rows, dtype=np.float32).reshape(self.n_units, len(UNIT_FEATURES))
        enemy_total = self.n_units - ally_total
        decision = np.array(
            [len(DECISION_KINDS), self.n_units] if d is None
            else [_KIND_INDEX[d.kind], self.slot_of[d.actor]], dtype=np.int64)
        glob = np.array([
            min(1.0, b.round / self.max_rounds),
            float(owner is not None and b.combatants[owner].team == team and d is not None),
            allies / max(1, ally_total),
            enemies / max(1, enemy_total),
            float(b.is_over),
        ], dtype=np.float32)
        return {"planes": planes, "units": units, "decision": decision, "globals": glob}

    def _threat(self, b: Battle, c: Combatant, reach: int) -> tuple[np.ndarray, np.ndarray]:
        """H12: the squares ``c`` threatens with ``reach``, as index arrays (cached per map,
        square and reach)."""
        key = (b.grid, c.position, reach)
        hit = self._threat_cache.get(key)
        if hit is None:
            sq = sorted(q.threat_squares(b, c, reach))
            hit = (np.array([s[0] for s in sq], dtype=np.intp),
                   np.array([s[1] for s in sq], dtype=np.intp))
            if len(self._threat_cache) > 4096:
                self._threat_cache.clear()
            self._threat_cache[key] = hit
        return hit

    def _derived(self, b: Battle, c: Combatant) -> tuple[float, ...]:
        """Skill-derived features, recomputed only when what they depend on changes
        (inventory, fatigue, buffs)."""
        key = (c.id, c.fatigue_level, c.armour,
               tuple((i.uid, i.state, i.count) for i in c.inventory),
               tuple(c.buffs), b.round if c.buffs else 0)
        hit = self._derived_cache.get(key)
        if hit is None:
            ready = c.ready_weapons()
            hit = (
                min(1.0, c.mov / 12),
                float(c.encumbered),
                min(1.0, c.skill("dodge", b.round) / 100),
                min(1.0, max((c.skill(w.skill, b.round) for _, w in ready), default=0) / 100),
                min(1.0, c.armour_points / 10),
            )
            if len(self._derived_cache) > 4096:
                self._derived_cache.clear()
            self._derived_cache[key] = hit
        return hit

    def _lit(self, b: Battle) -> np.ndarray:
        lit = self._lit_default.copy()
        if not self._dark:
            return lit
        torches = any(i.lit for c in b.combatants.values() for i in c.inventory) or any(
            i.lit for i in b.ground)
        if torches:
            for x, y in self._dark:
                lit[y, x] = float(q.is_lit(b, (x, y)))
        return lit

    def _unit_row(self, b: Battle, c: Combatant, team: str, self_id: str | None,
                  decider: str | None, source: str | None, owner: str | None,
                  rank: dict[str, int], lit: float, ready: list, reach_sq: int,
                  threatens: bool) -> list[float]:
        """One ``units`` row, in :data:`UNIT_FEATURES` order (``ready``: the unit's ready
        weapons; ``reach_sq``: its melee reach in squares; ``threatens``: H12)."""
        active = c.in_action
        turn = c.id == owner
        allowed = self._parries_per_round + c.extra_parries
        mov, encumbered, dodge, weapon_skill, armour_points = self._derived(b, c)
        return [
            active,
            c.status == "out",
            c.status == "dead",
            c.team == team,
            c.id == self_id,
            c.id == decider,
            turn,
            c.id == source,
            max(-1.0, min(1.0, c.hp / max(1, c.max_hp))),
            min(1.0, c.max_hp / 30),
            c.position[0] / max(1, self.width - 1),
            c.position[1] / max(1, self.height - 1),
            c.prone,
            threatens,
            min(1.0, reach_sq / 2),
            any(w.kind == "missile" and (w.reload == "none" or inst.nocked or inst.loaded)
                for inst, w in ready),
            turn and can_spend(c, "move"),
            turn and can_spend(c, "attack"),
            turn and can_spend(c, "full"),
            c.moved_this_round,
            c.shifted_this_round,
            c.free_attack_used,
            max(0.0, min(1.0, (allowed - c.parries_used) / 2)),
            c.bleeding,
            c.grappled_by is not None,
            c.riding is not None or c.ridden_by is not None,
            c.casting is not None,
            (max(0.0, min(1.0, c.power_points / c.max_power_points))
             if c.max_power_points > 0 else 0.0),
            mov,
            encumbered,
            c.fatigue_level / 2,
            dodge,
            weapon_skill,
            armour_points,
            rank.get(c.id, 0) / max(1, self.n_units - 1),
            c.components_ready,
            1.0 - lit,
        ]
