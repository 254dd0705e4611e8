"""Exact attack odds (DESIGN.md "Public API"): every outcome of an attack as Fractions.

``attack_odds(battle, action, defence)`` takes a legal attack of the current decider
(MELEE_ATTACK, MISSILE_ATTACK, FULL_ATTACK, FREE_ATTACK or UNARMED_ATTACK) and a defence
choice of the target ("none", "parry", "dodge" or "both") and enumerates the dice:

- the attack roll's success level (H2) at the chance the engine uses (H3 multipliers,
  darkness H23, prone H15, range band H16, Full Attack H17, fatigue/burden S20/S21);
- per hit level, the damage dice (H6 weapon + damage bonus; H7 critical = maximum
  weapon damage + rolled bonus ignoring armour, special impale = weapon dice twice);
- the parry roll (H9: success blocks the item's AP, special 2 x AP, critical all), then
  the dodge roll when the parry was not critical (H10: -10 / -20 / all), then body
  armour (H6), then a poisoned weapon's save (S24) when the blow got through armour;
- the target ends out of action (0 HP or less) or dead (below -CON) (H5).

A defence the target cannot make now (no parry item, parry or dodge already spent, prone)
is left out, as the engine would not offer it. Special effects that do not take HP now
are reported separately: ``bleeds`` (H7 slash) and ``knocked_down`` (H7 crush, a
CON vs damage resistance roll). An aimed shot is assumed to keep its +20 (S11 can take
it away only if the shooter defends against a Free Attack it provoked).

``pending_hit_odds(battle, defence)`` answers a PARRY or DODGE decision: the damage of the
hit already rolled (read from the events), for the defence still to choose.
``route_risk`` (``route_risks`` for many squares at once) and ``action_risk`` give the
chance that the Free Attacks a move or a provoking action draws wound or drop the mover
(S5, S6, H13).

Everything mirrors :mod:`rules.combat`; the tests enumerate forced dice through the
engine and compare the distributions exactly.
"""

from rules.odds.attack import (
    ATTACK_KINDS,
    DEFENCES,
    MANOEUVRES,
    AttackOdds,
    attack_chance,
    attack_odds,
    dodge_chance,
    parry_options,
    pending_attack,
    pending_hit_odds,
)
from rules.odds.hit import dice_distribution
from rules.odds.risk import Risk, action_risk, free_attack_risk, route_risk, route_risks

__all__ = [
    "ATTACK_KINDS",
    "DEFENCES",
    "MANOEUVRES",
    "AttackOdds",
    "Risk",
    "action_risk",
    "attack_chance",
    "attack_odds",
    "dice_distribution",
    "dodge_chance",
    "free_attack_risk",
    "parry_options",
    "pending_attack",
    "pending_hit_odds",
    "route_risk",
    "route_risks",
]
