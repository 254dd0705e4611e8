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
``route_risk`` and ``action_risk`` give the chance that the Free Attacks a move or a
provoking action draws wound or drop the mover (S5, S6, H13).

Everything mirrors :mod:`rules.combat`; the tests enumerate forced dice through the
engine and compare the distributions exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from rules import queries as q
from rules.actions import Action, ActionKind, DecisionKind
from rules.dice import Dice, SuccessLevel, level_probabilities, resistance_chance
from rules.events import AttackRolled, ParryRolled

if TYPE_CHECKING:
    from rules.battle import Battle
    from rules.combatant import Combatant
    from rules.content.schema import SuccessRules

K = ActionKind
L = SuccessLevel
DEFENCES = ("none", "parry", "dodge", "both")
ATTACK_KINDS = frozenset({K.MELEE_ATTACK, K.MISSILE_ATTACK, K.FULL_ATTACK, K.FREE_ATTACK,
                          K.UNARMED_ATTACK})
ONE = Fraction(1)
Dist = dict[int, Fraction]


@dataclass(frozen=True)
class AttackOdds:
    """Exact outcome of one attack for one defence choice (all Fractions)."""

    chance: int  # the attack skill after every modifier
    levels: dict[SuccessLevel, Fraction]  # of the attack roll
    damage: dict[int, Fraction]  # HP the target loses (weapon and poison), 0 included
    drops: Fraction  # the target ends out of action or dead
    kills: Fraction  # the target ends dead
    bleeds: Fraction  # H7: a special slash starts bleeding
    knocked_down: Fraction  # H7: a special crush knocks the target prone (still in action)
    parry_chance: int | None  # the parry skill used, None without a parry
    dodge_chance: int | None  # the dodge skill used, None without a dodge

    @property
    def expected_damage(self) -> Fraction:
        """Mean HP lost by the target."""
        return sum((d * p for d, p in self.damage.items()), Fraction(0))

    @property
    def hit(self) -> Fraction:
        """The attack roll succeeds (before any defence)."""
        return sum((p for lv, p in self.levels.items() if lv.succeeded), Fraction(0))

    @property
    def wounds(self) -> Fraction:
        """The target loses at least 1 HP."""
        return sum((p for d, p in self.damage.items() if d > 0), Fraction(0))


@dataclass(frozen=True)
class Risk:
    """What the Free Attacks drawn by a move or an action do to the mover."""

    provokers: tuple[str, ...]
    damage: dict[int, Fraction]  # HP lost in all, 0 included
    wounds: Fraction  # at least 1 HP lost
    drops: Fraction  # out of action or dead
    stops: Fraction  # dropped or knocked prone (a move ends there, H13)

    @property
    def expected_damage(self) -> Fraction:
        """Mean HP lost by the mover."""
        return sum((d * p for d, p in self.damage.items()), Fraction(0))


# ------------------------------------------------------------------ dice arithmetic
def _convolve(a: Dist, b: Dist) -> Dist:
    out: Dist = {}
    for x, p in a.items():
        for y, r in b.items():
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


# ------------------------------------------------------------------ one hit
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


# ------------------------------------------------------------------ reading a battle
@dataclass(frozen=True)
class _Attack:
    attacker: str
    target: str
    weapon_id: str | None
    mode: str
    chance: int


def _attack_of(b: Battle, action: Action, attacker: str | None = None) -> _Attack:
    """The attacker, target, weapon, mode and chance the engine would use."""
    if action.kind not in ATTACK_KINDS:
        raise ValueError(f"attack_odds: expected one of "
                         f"{', '.join(sorted(k.name for k in ATTACK_KINDS))}, got {action}")
    if attacker is None:
        if b.decision is None:
            raise ValueError("attack_odds: the battle is over and no attacker was named")
        attacker = b.decision.actor
    c = b.combatants[attacker]
    t = b.combatants[action.target or ""]
    if action.kind is K.UNARMED_ATTACK:
        return _Attack(c.id, t.id, None, "unarmed", attack_chance(b, c, t, "brawl", False, 0))
    inst = c.item(action.item or "")
    if inst is None or inst.item not in b.content.weapons:
        raise ValueError(f"attack_odds: {c.id} holds no weapon {action.item!r}")
    w = b.content.weapons[inst.item]
    missile = w.kind == "missile"
    points = 0
    if action.kind is K.FULL_ATTACK:
        points += b.content.ruleset.modifiers.full_attack
    if missile:
        points += q.in_range(b, c, t, w.range) or 0  # H16 (0 when out of range: see doc)
    mode = {K.MELEE_ATTACK: "melee", K.FREE_ATTACK: "free", K.MISSILE_ATTACK: "missile",
            K.FULL_ATTACK: "full_missile" if missile else "full_melee"}[action.kind]
    return _Attack(c.id, t.id, inst.item, mode, attack_chance(b, c, t, w.skill, missile, points))


def attack_chance(b: Battle, attacker: Combatant, target: Combatant, skill: str,
                  missile: bool, points: int) -> int:
    """H3/H15/H23: the attack skill with its situational modifiers (as rules.combat)."""
    mods = b.content.ruleset.modifiers
    factor = 1.0 if q.is_lit(b, target.position) else mods.dark_factor
    if missile:
        points += mods.prone_target_missile if target.prone else 0
    else:
        points += mods.prone_target_melee if target.prone else 0
        points += mods.prone_attacker_melee if attacker.prone else 0
    return attacker.skill(skill, b.round, factor, points)


def parry_options(b: Battle, defender: Combatant, missile: bool) -> dict[str, tuple[int, int]]:
    """S8/H9: item uid -> (parry chance, AP) for the parries ``defender`` may make now
    (none once its parries for the round or this turn are spent; only shields parry
    missiles)."""
    rs = b.content.ruleset
    if (not defender.in_action or K.PARRY.value in defender.free_used
            or defender.parries_used >= rs.defence.parries_per_round + defender.extra_parries):
        return {}
    out = {}
    for inst in defender.inventory:
        if inst.state != "ready":
            continue
        if inst.item in b.content.armour:
            a = b.content.armour[inst.item]
            if a.slot == "shield" and a.skill and defender.skill_possible(a.skill):
                out[inst.uid] = (defender.skill(a.skill, b.round), inst.ap or 0)
        elif inst.item in b.content.weapons and not missile:
            w = b.content.weapons[inst.item]
            if w.parry and not w.natural and w.kind == "melee":
                out[inst.uid] = (defender.skill(w.skill, b.round), inst.ap or 0)
    return out


def dodge_chance(b: Battle, defender: Combatant) -> int | None:
    """S9/H10: the dodge skill if ``defender`` may dodge now, else None."""
    if (not defender.in_action or defender.prone or K.DODGE.value in defender.free_used
            or defender.riding is not None or defender.ridden_by is not None):
        return None
    return defender.skill("dodge", b.round)


def _blow(b: Battle, attacker: Combatant, target: Combatant, weapon_id: str | None,
          mode: str) -> _Blow:
    rs = b.content.ruleset
    w = b.content.weapons.get(weapon_id or "")
    kind = "thrown" if (w is not None and w.thrown) else (
        "missile" if mode in ("missile", "full_missile") else "melee")
    bonus = attacker.damage_bonus_dice() if kind in rs.misc.damage_bonus_applies_to else Dice()
    poison_dice, save = None, 0
    if w is not None and w.poison is not None:
        mult = (rs.poison.snake_con_multiplier if (w.poison.snake or attacker.snake)
                else rs.poison.con_multiplier)
        poison_dice, save = w.poison.damage, target.char("con") * mult
    return _Blow(w.damage if w is not None else rs.misc.unarmed_damage, bonus,
                 w.damage_type if w is not None else "crush", poison_dice, save,
                 target.armour_points, target.hp, target.char("con"), target.bleeding,
                 rs.hit_points.out_of_action_at)


@dataclass(frozen=True)
class _Defence:
    """The defence rolls an attack meets: level distributions, the parry item's AP."""

    parry: LevelDist = _NO_ROLL
    ap: int = 0
    dodge: LevelDist = _NO_ROLL
    parry_chance: int | None = None
    dodge_chance: int | None = None


def _defence(b: Battle, target: Combatant, missile: bool, defence: str,
             parry_item: str | None, blow: _Blow, level: SuccessLevel) -> _Defence:
    """The parry and dodge that ``defence`` makes, where the target may make them now;
    without ``parry_item`` the parry uses the item that lets least damage through."""
    if defence not in DEFENCES:
        raise ValueError(f"defence: expected one of {', '.join(DEFENCES)}, got {defence!r}")
    rules = b.content.ruleset.success
    dodge = dodge_chance(b, target) if defence in ("dodge", "both") else None
    base = _Defence(dodge=_level_dist(dodge, rules), dodge_chance=dodge)
    if defence not in ("parry", "both"):
        return base
    options = parry_options(b, target, missile)
    if parry_item is not None:
        options = {parry_item: options[parry_item]} if parry_item in options else {}
    best = base
    best_mean = None
    for chance, ap in options.values():
        candidate = _Defence(_level_dist(chance, rules), ap, base.dodge, chance, dodge)
        mean = _mean(_outcomes(b, blow, level, candidate))
        if best_mean is None or mean < best_mean:
            best, best_mean = candidate, mean
    return best


def _outcomes(b: Battle, blow: _Blow, level: SuccessLevel, defence: _Defence) -> Outcomes:
    d = b.content.ruleset.defence
    return _hit_outcomes(blow, level, defence.parry, defence.ap, defence.dodge,
                         b.content.ruleset.success, d.parry_special_factor,
                         (d.dodge_success_reduction, d.dodge_special_reduction))


def _mean(outcomes: Iterable[tuple[tuple[int, bool, bool], Fraction]]) -> Fraction:
    return sum((key[0] * p for key, p in outcomes), Fraction(0))


def _summarise(blow: _Blow, chance: int, levels: dict[SuccessLevel, Fraction],
               per_level: dict[SuccessLevel, Outcomes], defence: _Defence) -> AttackOdds:
    damage: Dist = {}
    bleeds = knocked = Fraction(0)
    for level, p_level in levels.items():
        if not p_level:
            continue
        for (dmg, bl, kd), p in per_level.get(level, (((0, False, False), ONE),)):
            damage[dmg] = damage.get(dmg, Fraction(0)) + p_level * p
            bleeds += p_level * p if bl else 0
            knocked += p_level * p if kd else 0
    drops = sum((p for d, p in damage.items() if blow.hp - d <= blow.out_at), Fraction(0))
    kills = sum((p for d, p in damage.items()
                 if blow.hp - d <= blow.out_at and blow.hp - d < -blow.con), Fraction(0))
    return AttackOdds(chance, levels, dict(sorted(damage.items())), drops, kills, bleeds,
                      knocked, defence.parry_chance, defence.dodge_chance)


# ------------------------------------------------------------------ public queries
def attack_odds(battle: Battle, action: Action, defence: str = "none",
                parry_item: str | None = None, attacker: str | None = None) -> AttackOdds:
    """Exact odds of a legal attack ``action`` of the current decider against its target
    for the target's ``defence`` ("none" | "parry" | "dodge" | "both"); ``parry_item``
    picks the item to parry with (default: the one that lets least damage through).

    ``attacker`` names another combatant to ask "what if it made this attack now" (for
    planning and ``fray odds``): reach is not checked, and a missile out of range is
    taken at its base-range chance."""
    return _odds_for(battle, _attack_of(battle, action, attacker), defence, parry_item)


def _odds_for(b: Battle, spec: _Attack, defence: str, parry_item: str | None,
              known_level: SuccessLevel | None = None,
              known_parry: tuple[SuccessLevel, int] | None = None) -> AttackOdds:
    """The odds of ``spec``; ``known_level``: the attack roll is already made;
    ``known_parry``: so is the parry (its level and the item's AP)."""
    attacker, target = b.combatants[spec.attacker], b.combatants[spec.target]
    missile = spec.mode in ("missile", "full_missile")
    blow = _blow(b, attacker, target, spec.weapon_id, spec.mode)
    if known_level is None:
        levels = dict(_levels(spec.chance, b.content.ruleset.success))
    else:
        levels = {lv: (ONE if lv is known_level else Fraction(0)) for lv in L}
    per_level: dict[SuccessLevel, Outcomes] = {}
    chosen = _Defence()
    for level in (L.SUCCESS, L.SPECIAL, L.CRITICAL):
        if not levels[level]:
            continue
        chosen = _defence(b, target, missile, defence, parry_item, blow, level)
        if known_parry is not None:
            chosen = _Defence(((known_parry[0], ONE),), known_parry[1], chosen.dodge,
                              None, chosen.dodge_chance)
        per_level[level] = _outcomes(b, blow, level, chosen)
    return _summarise(blow, spec.chance, levels, per_level, chosen)


def pending_hit_odds(battle: Battle, defence: str, parry_item: str | None = None
                     ) -> AttackOdds:
    """At a PARRY or DODGE decision: the odds of the hit already rolled against the
    decider, for the defence it still has to choose. At a DODGE decision any parry is
    already rolled, so "parry" means "none" and "both" means "dodge"."""
    d = battle.decision
    if d is None or d.kind not in (DecisionKind.PARRY, DecisionKind.DODGE):
        raise ValueError(f"pending_hit_odds: expected a PARRY or DODGE decision, got {d}")
    hit: AttackRolled | None = None
    parried: ParryRolled | None = None
    for event in reversed(battle.events):
        if isinstance(event, ParryRolled) and event.defender == d.actor and parried is None:
            parried = event
        if isinstance(event, AttackRolled) and event.target == d.actor:
            hit = event
            break
    if hit is None:
        raise ValueError("pending_hit_odds: no attack roll against the decider found")
    weapon = None if hit.weapon not in battle.content.weapons else hit.weapon
    spec = _Attack(hit.attacker, hit.target, weapon, hit.mode, hit.chance)
    level = SuccessLevel[hit.level]
    if d.kind is DecisionKind.PARRY:
        return _odds_for(battle, spec, defence, parry_item, known_level=level)
    dodge_only = "dodge" if defence in ("dodge", "both") else "none"
    known = None
    if parried is not None:
        inst = battle.combatants[d.actor].item(parried.item)
        known = (SuccessLevel[parried.level], 0 if inst is None else inst.ap or 0)
    return _odds_for(battle, spec, dodge_only, None, known_level=level, known_parry=known)


# ------------------------------------------------------------------ Free Attack risk
def free_attack_risk(battle: Battle, mover_id: str, enemies: Iterable[str],
                     defence: str = "none") -> Risk:
    """S5/H13: what Free Attacks by ``enemies`` (in order, each with its ready melee
    weapon that does most damage) do to ``mover_id``. The mover makes ``defence`` against
    the first attack only (one parry per round and one dodge per turn, S8/S9/H25); the
    attacks stop once it is dropped or knocked prone (a move ends there, H13)."""
    mover = battle.combatants[mover_id]
    rs = battle.content.ruleset
    states: dict[tuple[int, bool], Fraction] = {(0, False): ONE}
    provokers = tuple(enemies)
    for index, enemy_id in enumerate(provokers):
        enemy = battle.combatants[enemy_id]
        odds = _best_free_attack(battle, enemy, mover, defence if index == 0 else "none")
        if odds is None:
            continue
        nxt: dict[tuple[int, bool], Fraction] = {}
        for (lost, stopped), p in states.items():
            if stopped:
                nxt[(lost, True)] = nxt.get((lost, True), Fraction(0)) + p
                continue
            for (dmg, prone), r in odds:
                total = lost + dmg
                stop = prone or mover.hp - total <= rs.hit_points.out_of_action_at
                nxt[(total, stop)] = nxt.get((total, stop), Fraction(0)) + p * r
        states = nxt
    damage: Dist = {}
    for (lost, _), p in states.items():
        damage[lost] = damage.get(lost, Fraction(0)) + p
    out_at = rs.hit_points.out_of_action_at
    return Risk(provokers, dict(sorted(damage.items())),
                sum((p for d, p in damage.items() if d > 0), Fraction(0)),
                sum((p for d, p in damage.items() if mover.hp - d <= out_at), Fraction(0)),
                sum((p for (_, s), p in states.items() if s), Fraction(0)))


def _best_free_attack(b: Battle, enemy: Combatant, mover: Combatant, defence: str
                      ) -> list[tuple[tuple[int, bool], Fraction]] | None:
    """(hp lost, knocked prone) -> probability for ``enemy``'s Free Attack with the ready
    melee weapon reaching ``mover`` that does most damage on average."""
    best: tuple[Fraction, dict[tuple[int, bool], Fraction]] | None = None
    for inst, w in enemy.ready_melee():
        if not q.weapon_reaches(b, enemy, w.reach, mover.position):
            continue
        levels = _levels(attack_chance(b, enemy, mover, w.skill, False, 0),
                         b.content.ruleset.success)
        blow = _blow(b, enemy, mover, inst.item, "free")
        out: dict[tuple[int, bool], Fraction] = {}
        for level, p_level in levels.items():
            hits = _outcomes(b, blow, level, _defence(b, mover, False, defence, None, blow,
                                                      level)) if level.succeeded else ()
            for (dmg, _bleeds, prone), p in hits or (((0, False, False), ONE),):
                out[(dmg, prone)] = out.get((dmg, prone), Fraction(0)) + p_level * p
        mean = sum((d * p for (d, _), p in out.items()), Fraction(0))
        if best is None or mean > best[0]:
            best = (mean, out)
    return None if best is None else list(best[1].items())


def route_risk(battle: Battle, combatant_id: str, square: tuple[int, int],
               full: bool = False, defence: str = "none") -> Risk:
    """The Free Attacks that a MOVE (``full``: FULL_MOVE) of ``combatant_id`` to
    ``square`` provokes along the route the engine takes (H13), and what they do."""
    c = battle.combatants[combatant_id]
    reach = q.routes(battle, c, q.move_budget(battle, c, full), True)
    if square not in reach:
        raise ValueError(f"route_risk: {combatant_id} cannot move to {square}")
    return free_attack_risk(battle, combatant_id, reach[square].provokers, defence)


def action_risk(battle: Battle, combatant_id: str, defence: str = "none") -> Risk:
    """The Free Attacks a provoking action (S6) of ``combatant_id`` where it stands draws."""
    c = battle.combatants[combatant_id]
    return free_attack_risk(battle, combatant_id, q.provokers_at(battle, c), defence)
