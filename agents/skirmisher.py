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
    native_name = "skirmisher"  # rules/native/agents/agents_skirmisher.cpp

    def native_agent_name(self) -> str | None:
        """``"skirmisher"``; None with ``step_back`` on (no native twin for that variant)."""
        return None if self.step_back else super().native_agent_name()

    def turn(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice:
        """The skirmisher's turn decision (module docstring)."""
        if not self._has_missile(battle, combatant):
            return super().turn(battle, combatant, kinds)
        for step in (self.stand, self.prepare, self.escape, self.shoot, self.keep_away):
            choice = step(battle, combatant, kinds)
            if choice is not None:
                return choice
        return kinds[K.END_TURN][0], "hold: nothing to shoot, nowhere better"

    @staticmethod
    def _has_missile(battle: Battle, combatant: Combatant) -> bool:
        for inst, w in combatant.ready_weapons():
            if w.kind != "missile":
                continue
            if w.reload == "nock" and not inst.nocked and not any(
                    i.item == w.ammo and i.count > 0 for i in combatant.inventory):
                continue
            return True
        return False

    def escape(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """Out of reach by a Shift, else by Disengage (both never provoke)."""
        if not t.threatened_by(battle, combatant, combatant.position):
            return None
        shifts = [a for a in kinds.get(K.SHIFT, [])
                  if not t.threatened_by(battle, combatant, a.square or combatant.position)]
        if shifts:
            best = self.tie(
                shifts,
                key=lambda action: (
                    -self._gap(battle, combatant, action.square or combatant.position)
                ),
            )
            return best, f"shift out of reach to {best.square}"
        options = kinds.get(K.DISENGAGE, [])
        if options:
            best = self.tie(options, key=lambda action: (
                len(t.threatened_by(battle, combatant, action.square or combatant.position)),
                -self._gap(battle, combatant, action.square or combatant.position)))
            return best, f"disengage to {best.square}"
        return None

    def shoot(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """The shot of best value; aimed (Full Attack) when nobody can reach it."""
        if t.threatened_by(battle, combatant, combatant.position):
            return None  # a shot would provoke (S6)
        shots = kinds.get(K.MISSILE_ATTACK, [])
        aimed = [
            a for a in kinds.get(K.FULL_ATTACK, []) if not self._is_melee(battle, combatant, a)
        ]
        best = t.best_attack(battle, shots)
        if aimed and self._gap(battle, combatant, combatant.position) > self._enemy_reach():
            best_aimed = t.best_attack(battle, aimed)
            if best_aimed is not None and (best is None or best_aimed.value > best.value):
                best = best_aimed
        if best is None:
            return None
        return best.action, t.focus_reason(best, battle, "shoot the most exposed")

    @staticmethod
    def _enemy_reach() -> int:
        """How far (king steps) an enemy is assumed to come and strike in one turn."""
        return 7

    def _gap(self, battle: Battle, combatant: Combatant, square: tuple[int, int]) -> int:
        """Walking distance from ``square`` to the nearest enemy."""
        foes = [e.position for e in t.enemies_of(battle, combatant)]
        if not foes:
            return 10**6
        dist = distance_map(battle.grid, foes)
        return dist[square[1] * battle.grid.width + square[0]]

    def keep_away(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """MOVE to keep the most distance while a target stays in range (no provoking)."""
        foes = t.enemies_of(battle, combatant)
        if not foes:
            return None
        foe_squares = [e.position for e in foes]
        dist = distance_map(battle.grid, foe_squares)
        w = battle.grid.width
        rng = max(
            (wp.range for _, wp in combatant.ready_weapons() if wp.kind == "missile"), default=0
        )

        def gap(sq: tuple[int, int]) -> int:
            return dist[sq[1] * w + sq[0]]

        def in_range(sq: tuple[int, int]) -> bool:
            return any(chebyshev(sq, f) <= rng for f in foe_squares)

        here = gap(combatant.position)
        moves = kinds.get(K.MOVE, [])
        costs = t.route_costs(battle, combatant, [a.square or combatant.position for a in moves])
        options = [
            a
            for a in moves
            if not t.threatened_by(battle, combatant, a.square or combatant.position)
            and not costs[a.square or combatant.position][0]
        ]
        if not options:
            return None
        ranged = [a for a in options if in_range(a.square or combatant.position)]
        if ranged:
            best = self.tie(ranged, key=lambda action: -gap(action.square or combatant.position))
            if gap(best.square or combatant.position) > here or not in_range(combatant.position):
                return best, f"keep away: {here} -> {gap(best.square or combatant.position)} steps"
            return None
        best = self.tie(
            options,
            key=lambda action: min(
                chebyshev(action.square or combatant.position, f) for f in foe_squares
            ),
        )
        return best, "close to shooting range"
