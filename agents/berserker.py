"""A simple melee rusher: hit whatever is in reach, else run at the nearest enemy.

Turn: stand up if prone; attack an enemy in reach (the most wounded, then the first
listed); with no ready melee weapon, ready one (dropping a missile weapon first if the
hands are full); else move toward the nearest enemy (a MOVE that ends in reach so the
attack can follow, else the FULL_MOVE or MOVE that gets closest, opening a door on the
way when it must); else end the turn. Reactions: always takes its Free Attack, parries
when it can, dodges when offered (to a square when there is one, else by falling prone).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from agents.base import SeededAgent, legal_for
from agents.spec import Option
from rules import Action, ActionKind, Battle, Combatant, Decision, DecisionKind
from rules.actions import default_answer
from rules.grid import KING_STEPS, GridMap

K = ActionKind
Square = tuple[int, int]
_KING = KING_STEPS  # rules.grid's one king-step table (same order as before)


FAR = 10**6


def _passable(grid: GridMap, sq: Square) -> bool:
    """Walkable if doors were open: closed doors count as floor for planning."""
    return grid.in_bounds(sq) and not grid.is_wall(sq)


_NEIGHBOURS: dict[GridMap, list[tuple[int, ...]]] = {}


def _neighbours(grid: GridMap) -> list[tuple[int, ...]]:
    """Per square index ``y * W + x``: the indices one king step away, through closed
    doors, never cutting a wall corner (H13)."""
    table = _NEIGHBOURS.get(grid)
    if table is None:
        w = grid.width
        table = []
        for y in range(grid.height):
            for x in range(w):
                out = []
                if _passable(grid, (x, y)):
                    for dx, dy in _KING:
                        nb = (x + dx, y + dy)
                        if not _passable(grid, nb):
                            continue
                        if dx and dy and not (_passable(grid, (x + dx, y))
                                              and _passable(grid, (x, y + dy))):
                            continue
                        out.append(nb[1] * w + nb[0])
                table.append(tuple(out))
        if len(_NEIGHBOURS) > 64:
            _NEIGHBOURS.clear()
        _NEIGHBOURS[grid] = table
    return table


def distance_map(grid: GridMap, sources: list[Square]) -> tuple[int, ...]:
    """King-step distance to the nearest source per square index ``y * W + x`` (FAR where
    unreachable). Terrain costs are ignored: this is a rusher, not a planner. Cached per
    map and sources (search agents ask for the same maps many times)."""
    key = (grid, tuple(sorted(sources)))
    found = _DISTANCES.get(key)
    if found is None:
        if len(_DISTANCES) > 4096:
            _DISTANCES.clear()
        found = _DISTANCES[key] = _distance_map(grid, key[1])
    return found


_DISTANCES: dict[tuple[GridMap, tuple[Square, ...]], tuple[int, ...]] = {}


def _distance_map(grid: GridMap, sources: tuple[Square, ...]) -> tuple[int, ...]:
    table = _neighbours(grid)
    w = grid.width
    dist = [FAR] * (w * grid.height)
    frontier = deque()
    for x, y in sources:
        dist[y * w + x] = 0
        frontier.append(y * w + x)
    while frontier:
        i = frontier.popleft()
        d = dist[i] + 1
        for j in table[i]:
            if dist[j] == FAR:
                dist[j] = d
                frontier.append(j)
    return tuple(dist)


class Berserker(SeededAgent):
    """Melee rusher (see the module docstring). Deterministic given the battle; the
    seed only breaks ties between equally good choices."""

    name = "berserker"
    native_name = "berserker"  # rules/native/agents/agents_berserker.cpp
    OPTIONS: tuple[Option, ...] = ()

    def act(self, battle: Battle) -> Action:
        acts = legal_for(battle)
        d = battle.decision
        assert d is not None
        kinds: dict[ActionKind, list[Action]] = {}
        for a in acts:
            kinds.setdefault(a.kind, []).append(a)
        if d.kind is DecisionKind.TURN:
            return self._turn(battle, battle.combatants[d.actor], kinds)
        reaction = _REACTIONS.get(d.kind)
        if reaction is None:  # a decision kind it has no rule for
            return default_answer(acts)
        return reaction(self, d, kinds)

    # ------------------------------------------------------------ reactions
    def _free_attack(self, decision: Decision, kinds: dict[ActionKind, list[Action]]) -> Action:
        """Take every Free Attack, on the provoker itself first."""
        hits = kinds.get(K.FREE_ATTACK, [])
        direct = [a for a in hits if a.target == decision.source]
        return (direct or hits or kinds[K.DECLINE])[0]

    def _parry(self, decision: Decision, kinds: dict[ActionKind, list[Action]]) -> Action:
        """Parry with the first item that can."""
        return (kinds.get(K.PARRY) or kinds[K.DECLINE])[0]

    def _dodge(self, decision: Decision, kinds: dict[ActionKind, list[Action]]) -> Action:
        """Dodge, by a Shift to a random open square if there is one."""
        dodges = kinds.get(K.DODGE, [])
        to_square = [a for a in dodges if a.square is not None]
        if to_square:
            return self.choose(to_square)
        return (dodges or kinds[K.DECLINE])[0]

    # ------------------------------------------------------------ turn
    def _turn(
        self, battle: Battle, combatant: Combatant, kinds: dict[ActionKind, list[Action]]
    ) -> Action:
        if K.STAND_UP in kinds:
            return kinds[K.STAND_UP][0]
        attacks = kinds.get(K.MELEE_ATTACK, [])
        if attacks:
            def wound(action: Action) -> tuple[float, int]:
                t = battle.combatants[action.target or ""]
                return (t.hp / max(1, t.max_hp), attacks.index(action))
            return min(attacks, key=wound)
        if not combatant.ready_melee():
            ready = [a for a in kinds.get(K.READY_WEAPON, [])
                     if self._is_melee(battle, combatant, a.item)]
            if ready:
                return ready[0]
            drops = [
                a
                for a in kinds.get(K.DROP_ITEM, [])
                if self._is_ready_missile(battle, combatant, a.item)
            ]
            if drops and self._melee_in_pack(battle, combatant):
                return drops[0]
        move = self._approach(battle, combatant, kinds)
        if move is not None:
            return move
        return kinds[K.END_TURN][0]

    @staticmethod
    def _is_melee(battle: Battle, combatant: Combatant, uid: str | None) -> bool:
        inst = combatant.item(uid or "")
        return (inst is not None and inst.item in battle.content.weapons
                and battle.content.weapons[inst.item].kind == "melee")

    @staticmethod
    def _is_ready_missile(battle: Battle, combatant: Combatant, uid: str | None) -> bool:
        inst = combatant.item(uid or "")
        return (inst is not None and inst.state == "ready" and inst.item in battle.content.weapons
                and battle.content.weapons[inst.item].kind == "missile")

    @staticmethod
    def _melee_in_pack(battle: Battle, combatant: Combatant) -> bool:
        return any(i.state in ("carried", "sheathed", "hidden") and i.item in battle.content.weapons
                   and battle.content.weapons[i.item].kind == "melee" for i in combatant.inventory)

    @staticmethod
    def _distances(battle: Battle, combatant: Combatant) -> tuple[int, ...]:
        """Distance to the nearest enemy in action, per square index (``distance_map``
        caches it per map and enemy squares)."""
        return distance_map(battle.grid, [o.position for o in battle.combatants.values()
                                     if o.in_action and o.team != combatant.team])

    def _approach(self, battle: Battle, combatant: Combatant,
                  kinds: dict[ActionKind, list[Action]]) -> Action | None:
        dist = self._distances(battle, combatant)
        w = battle.grid.width
        here = dist[combatant.position[1] * w + combatant.position[0]]
        reach = max(1, combatant.reach)

        def score(action: Action) -> int:
            sq = action.square or combatant.position
            return dist[sq[1] * w + sq[0]]

        moves = kinds.get(K.MOVE, [])
        can_attack_after = combatant.actions_used == [] and bool(combatant.ready_melee())
        if can_attack_after:
            into_reach = [a for a in moves if score(a) <= reach]
            if into_reach:
                return self._best(into_reach, score)
        for kind in (K.FULL_MOVE, K.MOVE):
            options = kinds.get(kind, [])
            if options:
                best = self._best(options, score)
                if score(best) < here:
                    return best
        doors = [a for a in kinds.get(K.OPEN_DOOR, []) if score(a) < here]
        if doors:
            return self._best(doors, score)
        return None

    def _best(self, options: list[Action], score: Callable[[Action], float]) -> Action:
        low = min(score(a) for a in options)
        return self.choose([a for a in options if score(a) == low])


#: The berserker's answer to each reaction decision it has a rule for (any other is
#: ``rules.actions.default_answer``).
_REACTIONS: dict[DecisionKind, Callable[[Berserker, Decision, dict[ActionKind, list[Action]]],
                                        Action]] = {
    DecisionKind.FREE_ATTACK: Berserker._free_attack,
    DecisionKind.PARRY: Berserker._parry,
    DecisionKind.DODGE: Berserker._dodge,
}
