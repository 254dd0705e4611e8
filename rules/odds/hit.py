"""One hit's damage, exactly: dice arithmetic and the parry, dodge, armour, special and
poison steps of :mod:`rules.combat` (H6, H7, H9, H10, H11, S24) as Fraction
distributions."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from rules.dice import Dice, SuccessLevel, level_probabilities, resistance_chance

if TYPE_CHECKING:
    from rules.content.schema import SuccessRules

L = SuccessLevel
ONE = Fraction(1)
Dist = dict[int, Fraction]


def _convolve(first: Dist, second: Dist) -> Dist:
    out: Dist = {}
    for x, p in first.items():
        for y, r in second.items():
            out[x + y] = out.get(x + y, Fraction(0)) + p * r
    return out


@lru_cache(maxsize=256)
def _dice_items(dice: Dice) -> tuple[tuple[int, Fraction], ...]:
    dist: Dist = {dice.constant: ONE}
    for sign, count, sides in dice.terms:
        face = {sign * f: Fraction(1, sides) for f in range(1, sides + 1)}
        for _ in range(count):
            dist = _convolve(dist, face)
    return tuple(sorted(dist.items()))


def dice_distribution(dice: Dice) -> Dist:
    """Exact distribution of a dice expression's total."""
    return dict(_dice_items(dice))


@dataclass(frozen=True)
class _Blow:
    """Everything about an attack that decides its damage (hashable, for caching)."""

    dice: Dice
    bonus: Dice
    damage_type: str
    poison_dice: Dice | None
    poison_save: int  # the target's save chance against the poison
    armour: int
    hp: int
    con: int
    bleeding: bool
    out_at: int


LevelDist = tuple[tuple[SuccessLevel, Fraction], ...]
Outcomes = tuple[tuple[tuple[int, bool, bool], Fraction], ...]
_NO_ROLL: LevelDist = ((L.FAILURE, ONE),)  # no defence roll: blocks nothing


def _level_dist(chance: int | None, rules: SuccessRules) -> LevelDist:
    if chance is None:
        return _NO_ROLL
    return tuple((lv, p) for lv, p in _levels(chance, rules).items() if p)


@lru_cache(maxsize=4096)
def _hit_outcomes(blow: _Blow, level: SuccessLevel, parry: LevelDist, ap: int,
                  dodge: LevelDist, success: SuccessRules, parry_factor: int,
                  dodge_cuts: tuple[int, int]) -> Outcomes:
    """(hp lost, bleeds, knocked down) -> probability for a hit at ``level``, given the
    parry's level distribution and item AP and the dodge's level distribution."""
    rolled = _rolled(blow.dice, blow.bonus, level, blow.damage_type == "impale")
    parried: dict[tuple[int, bool], Fraction] = {}  # (after parry, may still dodge)
    for value, p_roll in rolled.items():
        for p_level, p_parry in parry:
            block = {L.SUCCESS: ap, L.SPECIAL: ap * parry_factor,
                     L.CRITICAL: value}.get(p_level, 0)  # H9; fumble/failure: 0 (H11)
            # H10: no dodge after a critical parry (nothing is left to dodge)
            key = (value - min(block, value), p_level is not L.CRITICAL)
            parried[key] = parried.get(key, Fraction(0)) + p_roll * p_parry
    dealt: dict[tuple[int, int], Fraction] = {}  # (damage, through armour or not)
    for (after_parry, may_dodge), p_parried in parried.items():
        for d_level, p_dodge in (dodge if may_dodge else _NO_ROLL):
            cut = {L.SUCCESS: dodge_cuts[0], L.SPECIAL: dodge_cuts[1],
                   L.CRITICAL: after_parry}.get(d_level, 0)
            through = after_parry - min(cut, after_parry)
            armour = 0 if level is L.CRITICAL else min(through, blow.armour)
            key2 = (max(0, through - armour), through)
            dealt[key2] = dealt.get(key2, Fraction(0)) + p_parried * p_dodge
    out: dict[tuple[int, bool, bool], Fraction] = {}
    for (damage, through), p_dealt in dealt.items():
        for key3, p_after in _after_damage(blow, level, damage, through, success):
            out[key3] = out.get(key3, Fraction(0)) + p_dealt * p_after
    return tuple(out.items())


@lru_cache(maxsize=1024)
def _rolled(dice: Dice, bonus: Dice, level: SuccessLevel, impale: bool) -> Dist:
    """The damage rolled before any defence (H6, H7), never below 0."""
    weapon = dice_distribution(dice)
    if level is L.CRITICAL:  # H7: maximum weapon damage + rolled bonus, ignores armour
        base: Dist = {dice.maximum: ONE}
    elif level is L.SPECIAL and impale:  # H7: impale rolls the weapon dice twice
        base = _convolve(weapon, weapon)
    else:
        base = weapon
    rolled: Dist = {}
    for total, p in _convolve(base, dice_distribution(bonus)).items():
        rolled[max(0, total)] = rolled.get(max(0, total), Fraction(0)) + p
    return rolled


@lru_cache(maxsize=4096)
def _levels(chance: int, success: SuccessRules) -> dict[SuccessLevel, Fraction]:
    """H2 level probabilities (cached; callers must not change the result)."""
    return level_probabilities(chance, success)


def _succeeds(chance: int, success: SuccessRules) -> Fraction:
    return sum((p for lv, p in _levels(chance, success).items() if lv.succeeded),
               Fraction(0))


def _after_damage(blow: _Blow, level: SuccessLevel, damage: int, through: int,
                  success: SuccessRules) -> list[tuple[tuple[int, bool, bool], Fraction]]:
    """H7 special effects and S24 poison after ``damage`` was dealt (as rules.combat)."""
    hp = blow.hp - damage
    dead = hp <= blow.out_at and hp < -blow.con
    special = damage > 0 and level is L.SPECIAL and not dead
    bleeds = special and blow.damage_type == "slash" and not blow.bleeding
    knocked = Fraction(0)
    if special and blow.damage_type == "crush" and hp > blow.out_at:
        knocked = 1 - _succeeds(resistance_chance(blow.con, damage), success)
    outcomes = [((damage, bleeds, True), knocked), ((damage, bleeds, False), 1 - knocked)]
    if blow.poison_dice is not None and through > 0 and not dead:
        fails = 1 - _succeeds(blow.poison_save, success)
        poisoned = []
        for (dmg, bl, kd), p in outcomes:
            poisoned.append(((dmg, bl, kd), p * (1 - fails)))
            for extra, pe in dice_distribution(blow.poison_dice).items():
                poisoned.append(((dmg + max(0, extra), bl, kd), p * fails * pe))
        outcomes = poisoned
    return [o for o in outcomes if o[1]]


