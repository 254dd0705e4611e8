"""The defender: holds a post (a chokepoint or the side of its weakest ally) and strikes
whatever comes into reach.

- Post: with a team mate to guard, the defender stands next to the weakest one (lowest
  share of HP, then lowest max HP), on the free square nearest the nearest enemy, so
  anything reaching the ward passes its reach. Alone, it holds a chokepoint: the square
  it starts on if it is a door or narrow square, else the narrowest square (fewest open
  neighbours) within one MOVE of it, chosen once.
- Turn: stand up if prone; attack the enemy in reach of best value by the exact odds
  (preferring one that threatens the ward); never a Full Attack or a move that
  provokes; otherwise walk back to the post by the least-provoking route and wait
  there (END_TURN), ready for Free Attacks.
- Reactions: always takes its Free Attack (it waits for them), parries and dodges by
  :func:`agents.tactics.react`; it never dodges off its post by falling prone unless
  the hit would drop it (as react prices it).
"""

from __future__ import annotations

from agents import tactics as t
from agents.spec import Option
from agents.tactician import Choice
from agents.tactics import K, Kinds, ScriptedAgent
from rules import Battle, Combatant
from rules.grid import chebyshev

Square = tuple[int, int]


class Defender(ScriptedAgent):
    """See the module docstring."""

    name = "defender"
    native_name = "defender"  # rules/native/agents/agents_defender.cpp
    OPTIONS: tuple[Option, ...] = ()

    def turn(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice:
        """The defender's turn decision (module docstring)."""
        if K.STAND_UP in kinds:
            return kinds[K.STAND_UP][0], "stand up"
        ward = self.ward(battle, combatant)
        attacks = kinds.get(K.MELEE_ATTACK, [])
        if attacks:
            def value(scored: t.Scored) -> float:
                foe = battle.combatants[scored.action.target or ""]
                guards = ward is not None and chebyshev(foe.position, ward.position) <= 1
                return scored.value + (0.25 if guards else 0.0)
            best = max((t.score_attack(battle, a) for a in attacks), key=value)
            return best.action, t.focus_reason(best, battle, "strike")
        if not combatant.ready_melee():
            for a in kinds.get(K.READY_WEAPON, []):
                inst = combatant.item(a.item or "")
                if inst is not None and inst.item in battle.content.weapons \
                        and battle.content.weapons[inst.item].kind == "melee":
                    return a, f"ready {inst.item}"
        post = self.post(battle, combatant, ward)
        if post is not None and post != combatant.position:
            moves = [a for a in kinds.get(K.MOVE, []) if a.square is not None]
            if moves:
                costs = t.route_costs(battle, combatant, [a.square for a in moves])
                best = self.tie(moves, key=lambda action: (costs[action.square][0],
                                                      chebyshev(action.square, post)))
                if chebyshev(best.square, post) < chebyshev(combatant.position, post):
                    where = f"guard {ward.id}" if ward is not None else "hold the chokepoint"
                    return best, f"{where}: to {best.square}"
        where = f"guarding {ward.id}" if ward is not None else f"holding {combatant.position}"
        return kinds[K.END_TURN][0], f"{where}, ready for Free Attacks"

    @staticmethod
    def ward(battle: Battle, combatant: Combatant) -> Combatant | None:
        """The weakest team mate in action (lowest HP share, then max HP, then id)."""
        mates = t.allies_of(battle, combatant)
        if not mates:
            return None
        return min(mates, key=lambda mate: (mate.hp / max(1, mate.max_hp), mate.max_hp, mate.id))

    def post(self, battle: Battle, combatant: Combatant, ward: Combatant | None) -> Square | None:
        """Where to stand: beside the ward toward the enemy, or the chokepoint."""
        foes = t.enemies_of(battle, combatant)
        if ward is not None:
            around = [sq for sq in battle.grid.neighbours(ward.position)
                      if sq == combatant.position or not any(
                          o.position == sq and not o.dead for o in battle.combatants.values())]
            if not around or not foes:
                return None
            enemy = t.nearest(battle, ward.position, foes)
            assert enemy is not None
            return min(around, key=lambda sq: (chebyshev(sq, enemy.position), sq))
        key = f"chokepoint:{combatant.id}"
        if key not in self.memory:
            self.memory[key] = self._chokepoint(battle, combatant)
        return self.memory[key]

    @staticmethod
    def _chokepoint(battle: Battle, combatant: Combatant) -> Square:
        """The narrowest square (fewest open neighbours) within one MOVE, else here."""
        def openness(sq: Square) -> tuple[int, int]:
            return (len(battle.grid.neighbours(sq)), chebyshev(sq, combatant.position))

        here = combatant.position
        if here in battle.grid.doors:
            return here
        reach = [sq for sq in battle.grid.squares() if not battle.grid.blocks_movement(sq)
                 and chebyshev(sq, here) <= max(1, combatant.move_squares)]
        return min(reach, key=openness, default=here)
