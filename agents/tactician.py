"""The tactician: focus fire by the exact odds, safe routes, and a little support.

Turn, in order of priority:

1. Prone: stand up (or, when standing up would draw Free Attacks likely to drop it,
   fight on from the ground). Disarmed (a fumble drops the weapon in the attacker's
   square, H11) with a melee weapon lying at its feet that a free hand can hold: pick it
   up (a MOVE that provokes, S6), unless the Free Attacks it draws are likely to drop it.
2. Support, where content allows: First Aid to a fallen or bleeding ally (or itself)
   when nothing threatens it; a healing potion or heal spell when badly hurt; a heal
   spell or scroll on a fallen ally in touch; a torch lit when its enemies stand in the
   dark and none is in reach.
3. Fight Defensively (S10) when outnumbered and outmatched: two or more enemies threaten
   it and what they are expected to do this round is more than its remaining HP can
   take while its own best attack is unlikely to drop anyone.
4. Attack the target of best value (:func:`agents.tactics.value_of`: P(drop) plus the
   expected share of its HP taken, from :func:`rules.odds.attack_odds` against the
   target's likely defence): a Full Attack (+20, H17) when it has not moved and has no
   reason to, else a plain attack; missiles only when the shot provokes nothing; a damage
   spell when it beats the weapons.
5. Coup-de-Grace (H5) on a fallen enemy when nothing threatens it.
6. Move: to a square from which an attack follows, choosing among such squares first the
   routes that provoke the fewest Free Attacks (the engine's fewest-provoker route, H13),
   then the best target there, then a flank (allies already on that target). Engaged
   with nothing worth hitting, it Disengages. Otherwise it closes in on the best target
   by the least-provoking FULL_MOVE or MOVE, opening doors on the way.
7. End the turn.

Reactions follow :func:`agents.tactics.react` (Free Attacks always, parry and dodge when
the exact odds say they pay). Every decision sets ``reason``.
"""

from __future__ import annotations

from agents import tactics as t
from agents.berserker import FAR, distance_map
from agents.spec import Option
from agents.tactics import K, Kinds, Scored, ScriptedAgent
from rules import Action, Battle, Combatant, odds
from rules.grid import chebyshev

Choice = tuple[Action, str]
HURT = 0.35  # share of max HP below which it heals itself


class Tactician(ScriptedAgent):
    """See the module docstring."""

    name = "tactician"
    native_name = "tactician"  # rules/native/agents_tactician*.cpp
    #: the options of ``tactician(...)`` (and of the skirmisher, which inherits them)
    OPTIONS: tuple[Option, ...] = (
        Option("step_back", bool, "End a threatened turn with a Shift out of every enemy's "
               "reach (an experiment, off by default)."),
    )

    def __init__(self, seed: int | None = None, step_back: bool = False) -> None:
        super().__init__(seed)
        #: an experiment, off by default: end a turn with a Shift out of every enemy's
        #: reach when it would end threatened (docs/agents.md, "Hit and step back")
        self.step_back = bool(step_back)

    def native_agent_name(self) -> str | None:
        """``"tactician"``, or ``"tactician(step_back=true)"`` with the Shift back on."""
        name = super().native_agent_name()
        return f"{name}(step_back=true)" if name is not None and self.step_back else name

    def turn(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice:
        """The tactician's turn decision (module docstring, steps 1-7)."""
        for step in (self.stand, self.rearm, self.support, self.prepare, self.defend, self.attack,
                     self.finish, self.move):
            choice = step(battle, combatant, kinds)
            if choice is not None:
                return choice
        if self.step_back:
            away = self.step_out_of_reach(battle, combatant, kinds)
            if away is not None:
                return away
        return kinds[K.END_TURN][0], "nothing useful left this turn"

    @staticmethod
    def step_out_of_reach(battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """A Shift (S7: free, never provokes) from a threatened square to one no enemy
        threatens, the farthest from the nearest enemy; None when there is none."""
        if not kinds.get(K.SHIFT) or not t.threatened_by(battle, combatant, combatant.position):
            return None
        foes = t.enemies_of(battle, combatant)
        safe = [a for a in kinds[K.SHIFT] if a.square is not None
                and not t.threatened_by(battle, combatant, a.square)]
        if not safe:
            return None
        best = max(safe, key=lambda action: min(chebyshev(action.square, e.position) for e in foes))
        return best, f"step back out of reach to {best.square}"

    # ------------------------------------------------------------ 1. stand
    def stand(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """Stand up unless the Free Attacks it draws are likely to drop it."""
        if K.STAND_UP not in kinds:
            return None
        risk = odds.action_risk(battle, combatant.id, "none")
        if risk.drops > 0.5 and any(a.kind in t.ATTACKS for a in kinds.get(K.MELEE_ATTACK, [])):
            return None
        return kinds[K.STAND_UP][0], f"stand up ({float(risk.drops):.0%} risk of dropping)"

    def rearm(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """Pick up a melee weapon at its feet when it has none ready (H11, H21), the
        best one by its skill, unless the Free Attacks it draws are likely to drop it."""
        if not kinds.get(K.PICK_UP) or combatant.ready_melee():
            return None
        weapons, free = battle.content.weapons, 2 - combatant.hands_used()
        here = [
            (combatant.skill(weapons[inst.item].skill, battle.round), a)
            for a in kinds[K.PICK_UP]
            if (inst := next((i for i in battle.ground if i.uid == a.item), None)) is not None
            and inst.item in weapons
            and weapons[inst.item].kind == "melee"
            and weapons[inst.item].hands <= free
        ]
        if not here:
            return None
        risk = odds.action_risk(battle, combatant.id, "none")
        if risk.drops > 0.5:
            return None
        skill, best = max(here, key=lambda pair: pair[0])
        return best, (f"pick up {best.item} (skill {skill}, "
                      f"{float(risk.drops):.0%} risk of dropping)")

    # ------------------------------------------------------------ 2. support
    def support(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """First aid, potions, heal spells and scrolls, torches (module docstring)."""
        safe = not t.threatened_by(battle, combatant, combatant.position)
        aid = kinds.get(K.FIRST_AID, [])
        if safe and aid:
            def need(action: Action) -> tuple[int, int]:
                o = battle.combatants[action.target or ""]
                return (0 if not o.in_action else 1 if o.bleeding else 2, o.hp)
            best = min(aid, key=need)
            o = battle.combatants[best.target or ""]
            if not o.in_action or o.bleeding:
                return best, f"first aid: {o.id} {'is down' if not o.in_action else 'bleeds'}"
        for a in kinds.get(K.CAST_SPELL, []) + kinds.get(K.USE_ITEM, []):
            heal = self._heal_target(battle, combatant, a)
            if heal is not None and (not heal.in_action or heal.hp <= HURT * heal.max_hp):
                return a, f"heal: {heal.id} at {heal.hp}/{heal.max_hp} HP"
        if K.PREPARE_COMPONENTS in kinds and self._hurt_ally_in_touch(battle, combatant):
            return kinds[K.PREPARE_COMPONENTS][0], "prepare components for a heal"
        torches = kinds.get(K.LIGHT_TORCH, [])
        foes = t.enemies_of(battle, combatant)
        if (
            torches
            and safe
            and foes
            and not any(t.reaches(battle, combatant, combatant.position, e) for e in foes)
        ):
            dark = [e for e in foes if not self._lit(battle, e)]
            if len(dark) * 2 > len(foes):
                return torches[0], f"light a torch: {len(dark)} enemies in the dark"
        return None

    @staticmethod
    def _lit(battle: Battle, combatant: Combatant) -> bool:
        from rules import queries

        return queries.is_lit(battle, combatant.position)

    @staticmethod
    def _heal_target(battle: Battle, combatant: Combatant, action: Action) -> Combatant | None:
        """The combatant a heal spell, heal scroll or healing potion would heal."""
        if action.kind is K.CAST_SPELL:
            sp = battle.content.spells.get(action.item or "")
            ok = sp is not None and sp.effect == "heal"
        else:
            inst = combatant.item(action.item or "")
            item = battle.content.items.get(inst.item) if inst is not None else None
            ok = item is not None and (item.heal is not None or (
                item.spell is not None and battle.content.spells[item.spell].effect == "heal"))
        if not ok:
            return None
        target = battle.combatants[action.target] if action.target else combatant
        return None if target.team != combatant.team or target.dead else target

    @staticmethod
    def _hurt_ally_in_touch(battle: Battle, combatant: Combatant) -> bool:
        return any(
            o.team == combatant.team
            and not o.dead
            and o.hp <= HURT * o.max_hp
            and chebyshev(o.position, combatant.position) <= 1
            for o in battle.combatants.values()
        )

    # ------------------------------------------------------------ 2b. prepare
    def prepare(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """Nock an arrow (FREE); wind a crossbow (FULL) when nothing threatens it."""
        if kinds.get(K.NOCK_ARROW):
            return kinds[K.NOCK_ARROW][0], "nock an arrow"
        if kinds.get(K.LOAD_CROSSBOW) and not t.threatened_by(
            battle, combatant, combatant.position
        ):
            return kinds[K.LOAD_CROSSBOW][0], "load the crossbow: nothing threatens"
        return None

    # ------------------------------------------------------------ 3. defend
    def defend(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """S10 Fight Defensively when outnumbered and outmatched."""
        if K.FIGHT_DEFENSIVELY not in kinds:
            return None
        around = t.threatened_by(battle, combatant, combatant.position)
        if len(around) < 2:
            return None
        danger = t.incoming(battle, combatant)
        best = t.best_attack(battle, [a for k in t.ATTACKS for a in kinds.get(k, [])])
        if danger >= combatant.hp and (best is None or best.odds.drops < 0.25):
            return (kinds[K.FIGHT_DEFENSIVELY][0],
                    f"fight defensively: {len(around)} enemies, {danger:.1f} expected damage "
                    f"vs {combatant.hp} HP")
        return None

    # ------------------------------------------------------------ 4. attack
    def attack(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """The best attack now (weapon or damage spell)."""
        provoking = bool(t.threatened_by(battle, combatant, combatant.position))
        risk = t.provoke_cost(battle, combatant) if provoking else 0.0
        best: Scored | None = t.best_attack(battle, kinds.get(K.MELEE_ATTACK, []))
        best_value = best.value if best is not None else None
        provoked = kinds.get(K.MISSILE_ATTACK, [])
        if not self._wants_to_move_after(battle, combatant):
            provoked = provoked + kinds.get(K.FULL_ATTACK, [])
        other = t.best_attack(battle, provoked)  # S6: missiles and Full Attacks provoke
        if other is not None and (best_value is None or other.value - risk > best_value):
            best, best_value = other, other.value - risk
        spell = self._best_spell(battle, combatant, kinds, provoking)
        if spell is not None and (best_value is None or spell[1] > best_value):
            return spell[0], f"spell {spell[0].item} at {spell[0].target}: value {spell[1]:.2f}"
        if best is None:
            return None
        return best.action, t.focus_reason(best, battle)

    @staticmethod
    def _is_melee(battle: Battle, combatant: Combatant, action: Action) -> bool:
        inst = combatant.item(action.item or "")
        return inst is not None and battle.content.weapons[inst.item].kind == "melee"

    @staticmethod
    def _wants_to_move_after(battle: Battle, combatant: Combatant) -> bool:
        """A plain attack keeps a MOVE for later: worth it only when it is threatened by
        more than one enemy (it may want to step out)."""
        return len(t.threatened_by(battle, combatant, combatant.position)) > 1

    @staticmethod
    def _best_spell(battle: Battle, combatant: Combatant, kinds: Kinds, provoking: bool
                    ) -> tuple[Action, float] | None:
        best = None
        for a in kinds.get(K.CAST_SPELL, []):
            sp = battle.content.spells.get(a.item or "")
            if sp is None or sp.effect != "damage" or (provoking and sp.provokes):
                continue
            target = battle.combatants[a.target or ""]
            v = t.spell_value(battle, combatant, a.item or "", target)
            if best is None or v > best[1]:
                best = (a, v)
        return best

    # ------------------------------------------------------------ 5. finish
    def finish(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """Coup-de-Grace (H5) when nothing threatens it."""
        cdg = kinds.get(K.COUP_DE_GRACE, [])
        if cdg and not t.threatened_by(battle, combatant, combatant.position):
            return cdg[0], f"coup-de-grace on {cdg[0].target}: nothing threatens"
        return None

    # ------------------------------------------------------------ 6. move
    def move(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """Into reach by the least-provoking route, else closer; disengage when stuck."""
        foes = t.enemies_of(battle, combatant)
        if not foes:
            return None
        if combatant.ready_melee() and not combatant.actions_used:
            choice = self.into_reach(battle, combatant, kinds.get(K.MOVE, []), foes)
            if choice is not None:
                return choice
        if not combatant.ready_melee():
            ready = self._ready_melee(battle, combatant, kinds)
            if ready is not None:
                return ready
        if t.threatened_by(battle, combatant, combatant.position):
            return self.disengage(battle, combatant, kinds)
        return self.close_in(battle, combatant, kinds, foes)

    def disengage(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        """Engaged with nothing worth hitting: Disengage (S7, never provokes) to the
        square fewest enemies threaten; stay if no such square is better."""
        here = len(t.threatened_by(battle, combatant, combatant.position))
        options = kinds.get(K.DISENGAGE, [])
        if not options:
            return None
        best = self.tie(
            options,
            key=lambda action: len(
                t.threatened_by(battle, combatant, action.square or combatant.position)
            ),
        )
        after = len(t.threatened_by(battle, combatant, best.square or combatant.position))
        if after >= here:
            return None
        return best, f"disengage: {here} -> {after} enemies threaten"

    def into_reach(
        self, battle: Battle, combatant: Combatant, moves: list[Action], foes: list[Combatant]
    ) -> Choice | None:
        """A MOVE that ends in reach of an enemy: fewest provokers, best target, flank."""
        values = {e.id: t.hypothetical_melee(battle, combatant, e) for e in foes}
        candidates = []
        reaching = [(a, in_reach) for a in moves if (in_reach := [
            e for e in foes if t.reaches(battle, combatant, a.square or combatant.position, e)])]
        costs = t.route_costs(
            battle, combatant, [a.square or combatant.position for a, _ in reaching]
        )
        for a, in_reach in reaching:
            provokers, cost = costs[a.square or combatant.position]
            target = max(in_reach, key=lambda foe: values[foe.id].value if values[foe.id] else 0)
            scored = values[target.id]
            flank = sum(
                1
                for o in t.allies_of(battle, combatant)
                if chebyshev(o.position, target.position) == 1
            )
            value = (scored.value if scored else 0.0) - cost + 0.05 * flank
            candidates.append((provokers, -value, a, scored))
        if not candidates:
            return None
        fewest = min(p for p, *_ in candidates)
        best = self.tie([x[2] for x in candidates if x[0] == fewest],
                        key=lambda action: next(-v for p, v, act, _ in candidates
                                           if act == action and p == fewest))
        scored = next(s for p, _, act, s in candidates if act == best)
        why = t.focus_reason(scored, battle, "approach") if scored else "approach"
        return best, f"{why}; route provokes {fewest}"

    def close_in(self, battle: Battle, combatant: Combatant, kinds: Kinds, foes: list[Combatant]
                 ) -> Choice | None:
        """FULL_MOVE or MOVE toward the best-valued target, fewest provokers first."""
        target = max(foes, key=lambda foe: (
            (s.value if (s := t.hypothetical_melee(battle, combatant, foe)) else 0.0)
            - 0.02 * chebyshev(combatant.position, foe.position)))
        dist = distance_map(battle.grid, [target.position])
        w = battle.grid.width

        def at(sq: tuple[int, int] | None) -> int:
            s = sq or combatant.position
            return dist[s[1] * w + s[0]]

        here = at(combatant.position)
        for kind in (K.FULL_MOVE, K.MOVE):
            options = [a for a in kinds.get(kind, []) if at(a.square) < here]
            if not options:
                continue
            full = kind is K.FULL_MOVE
            costs = t.route_costs(
                battle, combatant, [a.square or combatant.position for a in options], full
            )
            scored = [(costs[a.square or combatant.position], a) for a in options]
            fewest = min(p for (p, _), _ in scored)
            best = self.tie([a for (p, _), a in scored if p == fewest],
                            key=lambda action: at(action.square))
            return best, f"close in on {target.id} ({here} -> {at(best.square)} steps)"
        doors = [a for a in kinds.get(K.OPEN_DOOR, []) if at(a.square) < here]
        if doors and here < FAR:
            return doors[0], f"open the door toward {target.id}"
        return None

    @staticmethod
    def _ready_melee(battle: Battle, combatant: Combatant, kinds: Kinds) -> Choice | None:
        for a in kinds.get(K.READY_WEAPON, []):
            inst = combatant.item(a.item or "")
            if inst is not None and inst.item in battle.content.weapons \
                    and battle.content.weapons[inst.item].kind == "melee":
                return a, f"ready {inst.item}"
        return None
