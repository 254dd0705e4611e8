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
    OPTIONS: tuple[Option, ...] = ()

    def turn(self, b: Battle, c: Combatant, kinds: Kinds) -> Choice:
        """The defender's turn decision (module docstring)."""
        if K.STAND_UP in kinds:
            return kinds[K.STAND_UP][0], "stand up"
        ward = self.ward(b, c)
        attacks = kinds.get(K.MELEE_ATTACK, [])
        if attacks:
            def value(a: t.Scored) -> float:
                foe = b.combatants[a.action.target or ""]
                guards = ward is not None and chebyshev(foe.position, ward.position) <= 1
                return a.value + (0.25 if guards else 0.0)
            best = max((t.score_attack(b, a) for a in attacks), key=value)
            return best.action, t.focus_reason(best, b, "strike")
        if not c.ready_melee():
            for a in kinds.get(K.READY_WEAPON, []):
                inst = c.item(a.item or "")
                if inst is not None and inst.item in b.content.weapons \
                        and b.content.weapons[inst.item].kind == "melee":
                    return a, f"ready {inst.item}"
        post = self.post(b, c, ward)
        if post is not None and post != c.position:
            moves = [a for a in kinds.get(K.MOVE, []) if a.square is not None]
            if moves:
                costs = t.route_costs(b, c, [a.square for a in moves])
                best = self.tie(moves, key=lambda a: (costs[a.square][0],
                                                      chebyshev(a.square, post)))
                if chebyshev(best.square, post) < chebyshev(c.position, post):
                    where = f"guard {ward.id}" if ward is not None else "hold the chokepoint"
                    return best, f"{where}: to {best.square}"
        where = f"guarding {ward.id}" if ward is not None else f"holding {c.position}"
        return kinds[K.END_TURN][0], f"{where}, ready for Free Attacks"

    @staticmethod
    def ward(b: Battle, c: Combatant) -> Combatant | None:
        """The weakest team mate in action (lowest HP share, then max HP, then id)."""
        mates = t.allies_of(b, c)
        if not mates:
            return None
        return min(mates, key=lambda o: (o.hp / max(1, o.max_hp), o.max_hp, o.id))

    def post(self, b: Battle, c: Combatant, ward: Combatant | None) -> Square | None:
        """Where to stand: beside the ward toward the enemy, or the chokepoint."""
        foes = t.enemies_of(b, c)
        if ward is not None:
            around = [sq for sq in b.grid.neighbours(ward.position)
                      if sq == c.position or not any(
                          o.position == sq and not o.dead for o in b.combatants.values())]
            if not around or not foes:
                return None
            enemy = t.nearest(b, ward.position, foes)
            assert enemy is not None
            return min(around, key=lambda sq: (chebyshev(sq, enemy.position), sq))
        key = f"chokepoint:{c.id}"
        if key not in self.memory:
            self.memory[key] = self._chokepoint(b, c)
        return self.memory[key]

    @staticmethod
    def _chokepoint(b: Battle, c: Combatant) -> Square:
        """The narrowest square (fewest open neighbours) within one MOVE, else here."""
        def openness(sq: Square) -> tuple[int, int]:
            return (len(b.grid.neighbours(sq)), chebyshev(sq, c.position))

        here = c.position
        if here in b.grid.doors:
            return here
        reach = [sq for sq in b.grid.squares() if not b.grid.blocks_movement(sq)
                 and chebyshev(sq, here) <= max(1, c.move_squares)]
        return min(reach, key=openness, default=here)
