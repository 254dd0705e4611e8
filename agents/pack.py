"""The pack: every member hunts the same prey, surrounds it, trips and grapples it, and
finishes it with Coup-de-Grace.

- Prey: one enemy for the whole team (the agent plays every member of its team, so they
  agree): the one the pack can bring down soonest, fewest HP then nearest to the pack;
  kept until it is out of action, and then finished if it lies in reach.
- Turn: stand up if prone. Next to the prey: if it stands and the pack has another
  member on it, Trip it (H19, STR vs DEX) when that is likely enough (>= 20%) — prone,
  it is hit at +20 and must Stand Up; once it is down and three of the pack are on it,
  one Grapples it (STR vs STR) to hold it; otherwise the best plain attack by the
  exact odds. Coup-de-Grace (H5) on the fallen prey (or any fallen enemy in reach) when
  no enemy threatens the square.
- Surround: move to a free square next to the prey opposite the pack members already
  there (greatest distance from them), by the least-provoking route; too far, close
  in with FULL_MOVE.
- Reactions follow :func:`agents.tactics.react`.
"""

from __future__ import annotations

from agents import tactics as t
from agents.berserker import distance_map
from agents.spec import Option
from agents.tactician import Choice
from agents.tactics import K, Kinds, ScriptedAgent
from rules import Action, Battle, Combatant
from rules.grid import chebyshev

TRIP_AT_LEAST = 0.2


class Pack(ScriptedAgent):
    """See the module docstring."""

    name = "pack"
    OPTIONS: tuple[Option, ...] = ()

    def turn(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice:
        """The pack member's turn decision (module docstring)."""
        if K.STAND_UP in kinds:
            return kinds[K.STAND_UP][0], "stand up"
        safe = not t.threatened_by(battle, combatant, combatant.position)
        cdg = kinds.get(K.COUP_DE_GRACE, [])
        if cdg and safe:
            return cdg[0], f"coup-de-grace on {cdg[0].target}"
        prey = self.prey(battle, combatant)
        if prey is None:
            return kinds[K.END_TURN][0], "no prey left"
        adjacent = chebyshev(combatant.position, prey.position) == 1
        if adjacent:
            choice = self.bring_down(battle, combatant, prey, kinds)
            if choice is not None:
                return choice
        attack = t.best_attack(battle, kinds.get(K.MELEE_ATTACK, []))
        if attack is not None:
            return attack.action, t.focus_reason(attack, battle, "bite")
        move = self.surround(battle, combatant, prey, kinds)
        if move is not None:
            return move
        return kinds[K.END_TURN][0], f"wait for {prey.id}"

    def prey(self, battle: Battle, combatant: Combatant) -> Combatant | None:
        """The team's prey (module docstring), remembered while it stands."""
        key = f"prey:{combatant.team}"
        current = battle.combatants.get(self.memory.get(key, ""))
        if current is not None and current.in_action:
            return current
        foes = t.enemies_of(battle, combatant)
        if not foes:
            return None
        pack = [combatant, *t.allies_of(battle, combatant)]
        chosen = min(foes, key=lambda foe: (foe.hp, sum(chebyshev(m.position, foe.position)
                                                    for m in pack), foe.id))
        self.memory[key] = chosen.id
        return chosen

    def bring_down(self, battle: Battle, combatant: Combatant, prey: Combatant, kinds: Kinds
                   ) -> Choice | None:
        """Trip, grapple or bite the prey standing next to it."""
        on_it = sum(
            1 for o in t.allies_of(battle, combatant) if chebyshev(o.position, prey.position) == 1
        )
        trips = [a for a in kinds.get(K.TRIP, []) if a.target == prey.id]
        if trips and on_it >= 1:
            chance = t.manoeuvre_chance(battle, combatant, trips[0])
            if chance >= TRIP_AT_LEAST:
                return trips[0], f"trip {prey.id}: {chance:.0%} with {on_it} of the pack on it"
        grapples = [a for a in kinds.get(K.GRAPPLE, []) if a.target == prey.id]
        if grapples and prey.prone and prey.grappled_by is None and on_it >= 2:
            chance = t.manoeuvre_chance(battle, combatant, grapples[0])
            return grapples[0], f"grapple the fallen {prey.id}: {chance:.0%}"
        bites = [a for a in kinds.get(K.MELEE_ATTACK, []) if a.target == prey.id]
        best = t.best_attack(battle, bites)
        if best is not None:
            return best.action, t.focus_reason(best, battle, "maul the prey")
        return None

    def surround(self, battle: Battle, combatant: Combatant, prey: Combatant, kinds: Kinds
                 ) -> Choice | None:
        """To a free square next to the prey, opposite the pack already on it."""
        mates = [o.position for o in t.allies_of(battle, combatant)
                 if chebyshev(o.position, prey.position) == 1]

        ring = [a for a in kinds.get(K.MOVE, [])
                if a.square is not None and chebyshev(a.square, prey.position) == 1]
        if ring and not combatant.actions_used:
            costs = t.route_costs(battle, combatant, [a.square for a in ring])

            def spread(action: Action) -> tuple[int, int, int]:
                sq = action.square
                return (costs[sq][0], -min((chebyshev(sq, m) for m in mates), default=0),
                        kinds.get(action.kind, []).index(action))

            best = min(ring, key=spread)
            return best, f"surround {prey.id} at {best.square}"
        dist = distance_map(battle.grid, [prey.position])
        w = battle.grid.width
        here = dist[combatant.position[1] * w + combatant.position[0]]
        for kind in (K.FULL_MOVE, K.MOVE):
            options = [a for a in kinds.get(kind, []) if a.square is not None
                       and dist[a.square[1] * w + a.square[0]] < here]
            if options:
                costs = t.route_costs(
                    battle, combatant, [a.square for a in options], kind is K.FULL_MOVE
                )
                best = self.tie(options, key=lambda action: (
                    costs[action.square][0], dist[action.square[1] * w + action.square[0]]))
                return best, f"close in on {prey.id}"
        doors = kinds.get(K.OPEN_DOOR, [])
        if doors:
            return doors[0], "open a door"
        return None
