"""The skirmisher: a missile user that keeps out of reach and shoots the most exposed.

Turn:

1. Prone: stand up. Nock an arrow (FREE, H16) whenever the bow is empty; wind a
   crossbow (FULL) when nothing threatens it.
2. Engaged (an enemy threatens its square): Shift (S7, never provokes) to a square no
   enemy threatens if there is one, and shoot from there; else Disengage (S7) to the
   free square fewest enemies threaten and that keeps a target in range.
3. Shoot the most exposed target: the shot of best value by the exact odds
   (:func:`rules.odds.attack_odds`; P(drop) plus the share of HP taken), a Full Attack
   (aimed shot, +20, H17) when no enemy can reach it before its next turn.
4. After shooting, or with nothing to shoot, MOVE to the square that keeps the most
   distance from the nearest enemy while some enemy stays in range, never into a
   threatened square and by routes that provoke nothing.
5. With no missile weapon or no ammunition, it plays as the tactician.

Reactions follow :func:`agents.tactics.react`.
"""

from __future__ import annotations

from agents import tactics as t
from agents.berserker import distance_map
from agents.tactician import Choice, Tactician
from agents.tactics import K, Kinds
from rules import Battle, Combatant
from rules.grid import chebyshev


class Skirmisher(Tactician):
    """See the module docstring."""

    name = "skirmisher"

    def turn(self, b: Battle, c: Combatant, kinds: Kinds) -> Choice:
        """The skirmisher's turn decision (module docstring)."""
        if not self._has_missile(b, c):
            return super().turn(b, c, kinds)
        for step in (self.stand, self.prepare, self.escape, self.shoot, self.keep_away):
            choice = step(b, c, kinds)
            if choice is not None:
                return choice
        return kinds[K.END_TURN][0], "hold: nothing to shoot, nowhere better"

    @staticmethod
    def _has_missile(b: Battle, c: Combatant) -> bool:
        for inst, w in c.ready_weapons():
            if w.kind != "missile":
                continue
            if w.reload == "nock" and not inst.nocked and not any(
                    i.item == w.ammo and i.count > 0 for i in c.inventory):
                continue
            return True
        return False

    def escape(self, b: Battle, c: Combatant, kinds: Kinds) -> Choice | None:
        """Out of reach by a Shift, else by Disengage (both never provoke)."""
        if not t.threatened_by(b, c, c.position):
            return None
        shifts = [a for a in kinds.get(K.SHIFT, [])
                  if not t.threatened_by(b, c, a.square or c.position)]
        if shifts:
            best = self.tie(shifts, key=lambda a: -self._gap(b, c, a.square or c.position))
            return best, f"shift out of reach to {best.square}"
        options = kinds.get(K.DISENGAGE, [])
        if options:
            best = self.tie(options, key=lambda a: (
                len(t.threatened_by(b, c, a.square or c.position)),
                -self._gap(b, c, a.square or c.position)))
            return best, f"disengage to {best.square}"
        return None

    def shoot(self, b: Battle, c: Combatant, kinds: Kinds) -> Choice | None:
        """The shot of best value; aimed (Full Attack) when nobody can reach it."""
        if t.threatened_by(b, c, c.position):
            return None  # a shot would provoke (S6)
        shots = kinds.get(K.MISSILE_ATTACK, [])
        aimed = [a for a in kinds.get(K.FULL_ATTACK, []) if not self._is_melee(b, c, a)]
        best = t.best_attack(b, shots)
        if aimed and self._gap(b, c, c.position) > self._enemy_reach():
            best_aimed = t.best_attack(b, aimed)
            if best_aimed is not None and (best is None or best_aimed.value > best.value):
                best = best_aimed
        if best is None:
            return None
        return best.action, t.focus_reason(best, b, "shoot the most exposed")

    @staticmethod
    def _enemy_reach() -> int:
        """How far (king steps) an enemy is assumed to come and strike in one turn."""
        return 7

    def _gap(self, b: Battle, c: Combatant, square: tuple[int, int]) -> int:
        """Walking distance from ``square`` to the nearest enemy."""
        foes = [e.position for e in t.enemies_of(b, c)]
        if not foes:
            return 10**6
        dist = distance_map(b.grid, foes)
        return dist[square[1] * b.grid.width + square[0]]

    def keep_away(self, b: Battle, c: Combatant, kinds: Kinds) -> Choice | None:
        """MOVE to keep the most distance while a target stays in range (no provoking)."""
        foes = t.enemies_of(b, c)
        if not foes:
            return None
        foe_squares = [e.position for e in foes]
        dist = distance_map(b.grid, foe_squares)
        w = b.grid.width
        rng = max((wp.range for _, wp in c.ready_weapons() if wp.kind == "missile"), default=0)

        def gap(sq: tuple[int, int]) -> int:
            return dist[sq[1] * w + sq[0]]

        def in_range(sq: tuple[int, int]) -> bool:
            return any(chebyshev(sq, f) <= rng for f in foe_squares)

        here = gap(c.position)
        moves = kinds.get(K.MOVE, [])
        costs = t.route_costs(b, c, [a.square or c.position for a in moves])
        options = [a for a in moves if not t.threatened_by(b, c, a.square or c.position)
                   and not costs[a.square or c.position][0]]
        if not options:
            return None
        ranged = [a for a in options if in_range(a.square or c.position)]
        if ranged:
            best = self.tie(ranged, key=lambda a: -gap(a.square or c.position))
            if gap(best.square or c.position) > here or not in_range(c.position):
                return best, f"keep away: {here} -> {gap(best.square or c.position)} steps"
            return None
        best = self.tie(options, key=lambda a: min(chebyshev(a.square or c.position, f)
                                                   for f in foe_squares))
        return best, "close to shooting range"
