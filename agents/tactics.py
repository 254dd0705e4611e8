"""Shared scoring and reactions for the scripted agents (tactician, skirmisher, defender,
pack): attack values from the exact odds of :mod:`rules.odds`, route choice by the Free
Attacks a route provokes, and the reactions every scripted agent answers the same way.

Values are in "fractions of a target taken out": an attack's value is the chance it
drops the target plus its expected damage as a share of the target's hit points. A
route's cost is what its Free Attacks are expected to do to the mover, on the same scale.

Reactions (:func:`react`): a Free Attack is always taken, with the weapon of best
expected damage; a parry is made when the exact odds of the hit already rolled say it
takes damage off; a dodge is made when its gain beats its price: the Shift it spends
(cheap once the dodger's own turn is over this round) or falling prone (dear: -20 to its
own melee, +20 to the enemies', and Stand Up provokes), unless the hit would otherwise
drop it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from agents.base import SeededAgent, legal_for
from rules import Action, ActionKind, Battle, Combatant, DecisionKind, odds
from rules.actions import DECISION_SPECS, default_answer
from rules.dice import SuccessLevel, level_probabilities, resistance_chance
from rules.grid import chebyshev
from rules.reach import threatened_squares

K = ActionKind
Kinds = dict[ActionKind, list[Action]]
Square = tuple[int, int]
ATTACKS = (K.MELEE_ATTACK, K.MISSILE_ATTACK, K.FULL_ATTACK)
DROP_WEIGHT = 1.0  # one target taken out
PRONE_PRICE = 0.35  # of one's own hit points: what lying prone costs a dodger
SHIFT_PRICE = 0.12  # a Shift spent before one's own turn (no moving this round)
SHIFT_PRICE_LATE = 0.02  # a Shift spent after one's own turn this round


def group(actions: Iterable[Action]) -> Kinds:
    """Legal actions by kind, each list in legal order."""
    out: Kinds = {}
    for a in actions:
        out.setdefault(a.kind, []).append(a)
    return out


def enemies_of(battle: Battle, combatant: Combatant) -> list[Combatant]:
    """In-action combatants of other teams, in initiative order."""
    combatants = battle.combatants
    return [o for o in map(combatants.__getitem__, battle.initiative_order)
            if o.in_action and o.team != combatant.team]


def allies_of(battle: Battle, combatant: Combatant) -> list[Combatant]:
    """In-action team mates other than ``combatant``, in initiative order."""
    combatants = battle.combatants
    return [o for o in map(combatants.__getitem__, battle.initiative_order)
            if o.in_action and o.team == combatant.team and o.id != combatant.id]


def value_of(attack_odds: odds.AttackOdds, target: Combatant) -> float:
    """An attack's value: P(drop) + expected damage as a share of the target's HP."""
    share = min(1.0, float(attack_odds.expected_damage) / max(1, target.hp))
    return DROP_WEIGHT * float(attack_odds.drops) + share


def likely_defence(target: Combatant) -> str:
    """What to expect of a target: every defence it may make ("both" lets rules.odds
    leave out what it cannot do now)."""
    return "both" if target.in_action else "none"


@dataclass(frozen=True)
class Scored:
    """One attack with its odds and value."""

    action: Action
    odds: odds.AttackOdds
    value: float


def score_attack(battle: Battle, action: Action, attacker: str | None = None) -> Scored:
    """The exact odds and value of an attack against its target's likely defence."""
    t = battle.combatants[action.target or ""]
    o = odds.attack_odds(battle, action, likely_defence(t), attacker=attacker)
    return Scored(action, o, value_of(o, t))


def best_attack(battle: Battle, actions: Iterable[Action], attacker: str | None = None
                ) -> Scored | None:
    """The attack of highest value (ties: the first listed)."""
    best: Scored | None = None
    for a in actions:
        s = score_attack(battle, a, attacker)
        if best is None or s.value > best.value + 1e-12:
            best = s
    return best


def hypothetical_melee(battle: Battle, combatant: Combatant, target: Combatant) -> Scored | None:
    """The best ready-melee attack ``combatant`` could make on ``target`` if it were in reach."""
    options = [Action(K.MELEE_ATTACK, target=target.id, item=inst.uid)
               for inst, _ in combatant.ready_melee()]
    return best_attack(battle, options, attacker=combatant.id)


def focus_reason(scored: Scored, battle: Battle, prefix: str = "focus") -> str:
    """A short reason naming the target, its HP and the odds."""
    t = battle.combatants[scored.action.target or ""]
    return (f"{prefix}: {t.id} at {t.hp} HP, {float(scored.odds.expected_damage):.2f} expected "
            f"damage, {float(scored.odds.drops):.0%} to drop")


def reaches(battle: Battle, combatant: Combatant, square: Square, target: Combatant) -> bool:
    """Whether ``combatant`` standing on ``square`` reaches ``target`` with a ready melee weapon."""
    r = combatant.reach
    return r > 0 and target.position in threatened_squares(battle.grid, square, r)


def threatened_by(battle: Battle, combatant: Combatant, square: Square) -> list[Combatant]:
    """Enemies that threaten ``square`` now (H12)."""
    return [e for e in enemies_of(battle, combatant) if e.threatens
            and square in threatened_squares(battle.grid, e.position, e.reach)]


def incoming(battle: Battle, combatant: Combatant, square: Square | None = None) -> float:
    """Expected damage to ``combatant`` if every enemy threatening ``square`` hits it once with
    its best melee weapon (``combatant``'s likely defence)."""
    total = 0.0
    for e in threatened_by(battle, combatant, square or combatant.position):
        best = 0.0
        for inst, _ in e.ready_melee():
            o = odds.attack_odds(battle, Action(K.MELEE_ATTACK, target=combatant.id, item=inst.uid),
                                 likely_defence(combatant), attacker=e.id)
            best = max(best, float(o.expected_damage))
        total += best
    return total


def route_costs(battle: Battle, combatant: Combatant, squares: Iterable[Square], full: bool = False
                ) -> dict[Square, tuple[int, float]]:
    """Square -> (Free Attacks provoked, their cost as a share of ``combatant``'s HP plus P(drop))
    for a move to each of ``squares`` along the engine's route (fewest provokers, H13);
    the routes are searched once."""
    out = {}
    for square, risk in odds.route_risks(battle, combatant.id, squares, full=full).items():
        out[square] = (
            (0, 0.0)
            if not risk.provokers
            else (
                len(risk.provokers),
                float(risk.expected_damage) / max(1, combatant.hp) + float(risk.drops),
            )
        )
    return out


def provoke_cost(battle: Battle, combatant: Combatant) -> float:
    """What the Free Attacks a provoking action here (S6) are expected to cost ``combatant``."""
    risk = odds.action_risk(battle, combatant.id)
    return float(risk.expected_damage) / max(1, combatant.hp) + float(risk.drops)


def my_turn_done(battle: Battle, combatant: Combatant) -> bool:
    """Whether ``combatant`` already had its turn this round (it acts before the current owner)."""
    owner = battle.current_actor
    order = battle.initiative_order
    return (
        owner is not None
        and combatant.id != owner
        and order.index(combatant.id) < order.index(owner)
    )


# ------------------------------------------------------------------ spells, manoeuvres
def spell_value(battle: Battle, caster: Combatant, spell_id: str, target: Combatant) -> float:
    """Approximate value of a damage or heal spell: P(cast) x mean effect (H18)."""
    sp = battle.content.spells[spell_id]
    if sp.dice is None:
        return 0.0
    levels = level_probabilities(caster.skill("cast", battle.round), battle.content.ruleset.success,
                                 caster.magic_fumble)
    mean = (sp.dice.maximum + sp.dice.minimum) / 2
    hit = float(sum((p for lv, p in levels.items() if lv.succeeded), Fraction(0)))
    if sp.effect == "heal":
        return hit * min(mean, target.max_hp - target.hp) / max(1, target.max_hp)
    armour = 0 if sp.ignores_armour else target.armour_points
    damage = hit * max(0.0, mean - armour)
    drop = 1.0 if mean - armour >= target.hp else 0.0
    return min(1.0, damage / max(1, target.hp)) + hit * drop * 0.5


def manoeuvre_chance(battle: Battle, combatant: Combatant, action: Action) -> float:
    """P(a trip or grapple works) if undefended: hit roll x resistance roll (H8, H19)."""
    t = battle.combatants[action.target or ""]
    skill = "grapple" if action.kind is K.GRAPPLE else "brawl"
    mods = battle.content.ruleset.modifiers
    points = mods.prone_target_melee if t.prone else 0
    levels = level_probabilities(
        combatant.skill(skill, battle.round, 1.0, points), battle.content.ruleset.success
    )
    hit = sum((p for lv, p in levels.items() if lv.succeeded), Fraction(0))
    passive = t.char("dex") if action.kind is K.TRIP else t.char("str")
    r = battle.content.ruleset.resistance
    resist = level_probabilities(resistance_chance(combatant.char("str"), passive, r.base, r.step),
                                 battle.content.ruleset.success)
    wins = sum((p for lv, p in resist.items() if lv.succeeded), Fraction(0))
    return float(hit * wins)


# ------------------------------------------------------------------ reactions
def react(battle: Battle, kinds: Kinds) -> tuple[Action, str]:
    """The shared answer to a FREE_ATTACK, PARRY or DODGE decision (see module doc); a
    decision kind with no rule here gets ``rules.actions.default_answer``."""
    d = battle.decision
    if d is None:
        raise ValueError("the battle is over: there is no decision to act on")
    me = battle.combatants[d.actor]
    spec = DECISION_SPECS.get(d.kind)
    defence = spec.defence if spec is not None else None
    if d.kind is DecisionKind.FREE_ATTACK:
        decline = kinds[K.DECLINE][0]
        best = best_attack(battle, kinds.get(K.FREE_ATTACK, []))
        if best is None:
            return decline, "no Free Attack reaches"
        return best.action, focus_reason(best, battle, "free attack")
    if defence not in ("parry", "dodge"):
        answer = default_answer([action for group in kinds.values() for action in group])
        return answer, f"no rule for a {d.kind.name} decision: {answer.kind.name}"
    decline = kinds[K.DECLINE][0]
    hit = odds.pending_attack(battle)
    if hit is not None and hit.mode in odds.MANOEUVRES:
        return _defeat_manoeuvre(battle, kinds, me, hit.mode)
    if defence == "parry":
        base = odds.pending_hit_odds(battle, "none")
        best_action, best_gain = decline, 0.0
        for a in kinds.get(K.PARRY, []):
            o = odds.pending_hit_odds(battle, "parry", a.item)
            gain = _harm(base, me) - _harm(o, me)
            if gain > best_gain + 1e-12:
                best_action, best_gain = a, gain
        if best_action is decline:
            return decline, "parry would not help"
        return best_action, f"parry: saves {best_gain:.2f} of my HP share"
    base = odds.pending_hit_odds(battle, "none")
    dodged = odds.pending_hit_odds(battle, "dodge")
    gain = _harm(base, me) - _harm(dodged, me)
    dodges = kinds.get(K.DODGE, [])
    squares = [a for a in dodges if a.square is not None]
    if squares:
        done = my_turn_done(battle, me)
        foes = enemies_of(battle, me)

        def keeps_reach(action: Action) -> bool:
            return any(reaches(battle, me, action.square or me.position, e) for e in foes)

        # before its own turn a dodger wants a square from which it still strikes
        # (after a Shift it may not move this round, S7)
        choice = min(
            squares,
            key=lambda action: (
                not done and not keeps_reach(action),
                len(threatened_by(battle, me, action.square or me.position)),
                dodges.index(action),
            ),
        )
        price = SHIFT_PRICE_LATE if done or keeps_reach(choice) else SHIFT_PRICE
    elif dodges:  # falling prone, or no disadvantage at all under Fight Defensively (S10)
        price = 0.0 if getattr(me, "dodge_waived", False) else PRONE_PRICE
        choice = dodges[0]
    else:
        return decline, "no dodge open"
    if gain > price:
        how = f"to {choice.square}" if choice.square else "falling prone"
        return choice, f"dodge {how}: gain {gain:.2f} > price {price:.2f}"
    return decline, f"dodge not worth it: gain {gain:.2f} <= price {price:.2f}"


def _defeat_manoeuvre(battle: Battle, kinds: Kinds, me: Combatant, mode: str) -> tuple[Action, str]:
    """H19: any successful parry or dodge defeats a grapple, trip or disarm: parry with
    the item of best chance; dodge only by a Shift (falling prone to escape a trip or a
    hold is no escape)."""
    parries = kinds.get(K.PARRY, [])
    if parries:
        options = odds.parry_options(battle, me, False)
        best = max(parries, key=lambda action: options.get(action.item or "", (0, 0))[0])
        return best, f"parry the {mode}"
    shifts = [a for a in kinds.get(K.DODGE, []) if a.square is not None]
    if shifts:
        return shifts[0], f"dodge the {mode} to {shifts[0].square}"
    return kinds[K.DECLINE][0], f"no cheap defence against the {mode}"


def _harm(attack_odds: odds.AttackOdds, me: Combatant) -> float:
    """What a hit costs me: P(drop) + expected damage as a share of my HP."""
    return value_of(attack_odds, me)


# ------------------------------------------------------------------ agent base
class ScriptedAgent(SeededAgent):
    """A scripted agent: ``turn`` decides TURN decisions, :func:`react` the reactions;
    every decision sets ``self.reason``. Subclasses implement ``turn``."""

    name = "scripted"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.reason: str | None = None
        self.memory: dict[str, Any] = {}

    def act(self, battle: Battle) -> Action:
        """A legal action for the current decision; ``self.reason`` says why."""
        acts = legal_for(battle)
        kinds = group(acts)
        d = battle.decision
        assert d is not None
        if d.kind is DecisionKind.TURN:
            action, reason = self.turn(battle, battle.combatants[d.actor], kinds)
        else:
            action, reason = self.reaction(battle, kinds)
        self.reason = reason
        return action

    def reaction(self, battle: Battle, kinds: Kinds) -> tuple[Action, str]:
        """Reactions: the shared rules of :func:`react`."""
        return react(battle, kinds)

    def turn(self, battle: Battle, combatant: Combatant, kinds: Kinds) -> tuple[Action, str]:
        raise NotImplementedError  # pragma: no cover - abstract

    def tie(self, options: list[Action], key: Any) -> Action:
        """The option with the lowest ``key``; exact ties broken by the seeded generator."""
        low = min(key(a) for a in options)
        return self.choose([a for a in options if key(a) == low])


def nearest(battle: Battle, square: Square, others: Iterable[Combatant]) -> Combatant | None:
    """The combatant closest to ``square`` (king steps; ties: first listed)."""
    best = None
    for o in others:
        if best is None or chebyshev(square, o.position) < chebyshev(square, best.position):
            best = o
    return best


def level_share(levels: dict[SuccessLevel, Fraction]) -> float:
    """P(success or better) of a level distribution."""
    return float(sum((p for lv, p in levels.items() if lv.succeeded), Fraction(0)))
