"""Attack odds for a battle: the attack the engine would roll (chance, weapon, mode), the
defences the target may make now, and the public queries ``attack_odds``,
``pending_attack`` and ``pending_hit_odds`` (see :mod:`rules.odds`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from rules import queries as q
from rules import reactions
from rules.actions import (
    ATTACK_MODES,
    DAMAGING_ATTACKS,
    DECISION_SPECS,
    DEFENCE_DECISIONS,
    MANOEUVRES,
    Action,
    ActionKind,
    attack_mode,
)
from rules.combat import attack_chance  # one formula for the engine and the odds
from rules.dice import Dice, SuccessLevel
from rules.events import AttackRolled, ParryRolled
from rules.odds.hit import (
    _NO_ROLL,
    ONE,
    LevelDist,
    Outcomes,
    _Blow,
    _hit_outcomes,
    _level_dist,
    _levels,
)

if TYPE_CHECKING:
    from rules.battle import Battle
    from rules.combatant import Combatant
    from rules.content.schema import SuccessRules

K = ActionKind
L = SuccessLevel
DEFENCES = ("none", "parry", "dodge", "both")
#: The attacks priced here (``rules.actions``: every kind that rolls a damaging attack);
#: ``MANOEUVRES`` (H19: hits that do no damage) is ``rules.actions.MANOEUVRES``.
ATTACK_KINDS = DAMAGING_ATTACKS
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

    @cached_property
    def expected_damage(self) -> Fraction:
        """Mean HP lost by the target."""
        return sum((d * p for d, p in self.damage.items()), Fraction(0))

    @cached_property
    def hit(self) -> Fraction:
        """The attack roll succeeds (before any defence)."""
        return sum((p for lv, p in self.levels.items() if lv.succeeded), Fraction(0))

    @cached_property
    def wounds(self) -> Fraction:
        """The target loses at least 1 HP."""
        return sum((p for d, p in self.damage.items() if d > 0), Fraction(0))


@dataclass(frozen=True)
class _Attack:
    attacker: str
    target: str
    weapon_id: str | None
    mode: str
    chance: int


def _attack_of(battle: Battle, action: Action, attacker: str | None = None) -> _Attack:
    """The attacker, target, weapon, mode and chance the engine would use."""
    if action.kind not in ATTACK_KINDS:
        raise ValueError(f"attack_odds: expected one of "
                         f"{', '.join(sorted(k.name for k in ATTACK_KINDS))}, got {action}")
    if attacker is None:
        if battle.decision is None:
            raise ValueError("attack_odds: the battle is over and no attacker was named")
        attacker = battle.decision.actor
    c = battle.combatants[attacker]
    t = battle.combatants[action.target or ""]
    if action.kind is K.UNARMED_ATTACK:
        return _Attack(c.id, t.id, None, attack_mode(action.kind),
                       attack_chance(battle, c, t, "brawl", False, 0))
    inst = c.item(action.item or "")
    if inst is None or inst.item not in battle.content.weapons:
        raise ValueError(f"attack_odds: {c.id} holds no weapon {action.item!r}")
    w = battle.content.weapons[inst.item]
    missile = w.kind == "missile"
    points = 0
    if action.kind is K.FULL_ATTACK:
        points += battle.content.ruleset.modifiers.full_attack
    if missile:
        points += q.in_range(battle, c, t, w.range) or 0  # H16 (0 when out of range: see doc)
    mode = attack_mode(action.kind, w.kind)
    return _Attack(
        c.id, t.id, inst.item, mode, attack_chance(battle, c, t, w.skill, missile, points)
    )


def parry_options(battle: Battle, defender: Combatant, missile: bool) -> dict[str, tuple[int, int]]:
    """S8/S10/H9: item uid -> (parry chance, AP) for the parries ``defender`` may make now
    (none once its parry for the round is spent, unless Fight Defensively gave another;
    only shields parry missiles)."""
    if not reactions.can_parry(battle, defender, missile):
        return {}
    content = battle.content
    out = {}
    for uid in reactions.parry_items(battle, defender, missile):
        inst = defender.item(uid)
        if inst is None:  # unreachable: parry_items lists held items
            continue
        skill = (content.armour[inst.item].skill if inst.item in content.armour
                 else content.weapons[inst.item].skill)
        out[uid] = (defender.skill(skill or "shield", battle.round), inst.ap or 0)
    return out


def dodge_chance(battle: Battle, defender: Combatant) -> int | None:
    """S9/H10/S10: the dodge skill if ``defender`` may dodge now (one attempt per hit,
    with a disadvantage open: a Shift back or falling prone, or waived by Fight
    Defensively), else None. A shift square is assumed open when it may still shift."""
    if not defender.in_action:
        return None
    waived = bool(getattr(defender, "dodge_waived", False))
    if not waived and defender.prone:
        return None  # H10/H15: no fall left and no shift before standing up
    if not waived and (defender.riding is not None or defender.ridden_by is not None):
        rider = defender if defender.riding is not None else battle.combatants[
            defender.ridden_by or ""]
        if not q.free_adjacent(battle, rider):
            return None  # H22: a rider falls from the saddle into a free square
    return defender.skill("dodge", battle.round)


def _blow(battle: Battle, attacker: Combatant, target: Combatant, weapon_id: str | None,
          mode: str) -> _Blow:
    rs = battle.content.ruleset
    w = battle.content.weapons.get(weapon_id or "")
    kind = "thrown" if (w is not None and w.thrown) else (
        "missile" if ATTACK_MODES[mode].missile else "melee")
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


@dataclass(frozen=True)
class _Rules:
    """The ruleset numbers the odds use (hashable, so pure results can be cached)."""

    success: SuccessRules
    parry_factor: int
    dodge_cuts: tuple[int, int]


def _rules_of(battle: Battle) -> _Rules:
    rs = battle.content.ruleset
    d = rs.defence
    return _Rules(rs.success, d.parry_special_factor,
                  (d.dodge_success_reduction, d.dodge_special_reduction))


@dataclass(frozen=True)
class _Defences:
    """The defences the target may make now for one defence choice: the dodge chance
    (None: no dodge) and the (parry chance, AP) of each item it may parry with."""

    dodge: int | None
    parries: tuple[tuple[int, int], ...]


def _defences(battle: Battle, target: Combatant, missile: bool, defence: str,
              parry_item: str | None) -> _Defences:
    """What ``defence`` lets the target do now; ``parry_item`` limits the parry to it."""
    if defence not in DEFENCES:
        raise ValueError(f"defence: expected one of {', '.join(DEFENCES)}, got {defence!r}")
    dodge = dodge_chance(battle, target) if defence in ("dodge", "both") else None
    if defence not in ("parry", "both"):
        return _Defences(dodge, ())
    options = parry_options(battle, target, missile)
    if parry_item is not None:
        options = {parry_item: options[parry_item]} if parry_item in options else {}
    return _Defences(dodge, tuple(options.values()))


def _defence(rules: _Rules, defences: _Defences, blow: _Blow, level: SuccessLevel
             ) -> _Defence:
    """The parry and dodge made against a hit at ``level``: the parry uses the item that
    lets least damage through (the first such)."""
    dodge = defences.dodge
    base = _Defence(dodge=_level_dist(dodge, rules.success), dodge_chance=dodge)
    best = base
    best_mean = None
    for chance, ap in defences.parries:
        candidate = _Defence(_level_dist(chance, rules.success), ap, base.dodge, chance, dodge)
        mean = _mean(_outcomes(rules, blow, level, candidate))
        if best_mean is None or mean < best_mean:
            best, best_mean = candidate, mean
    return best


def _outcomes(rules: _Rules, blow: _Blow, level: SuccessLevel, defence: _Defence
              ) -> Outcomes:
    return _hit_outcomes(blow, level, defence.parry, defence.ap, defence.dodge,
                         rules.success, rules.parry_factor, rules.dodge_cuts)


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


def attack_odds(battle: Battle, action: Action, defence: str = "none",
                parry_item: str | None = None, attacker: str | None = None) -> AttackOdds:
    """Exact odds of a legal attack ``action`` of the current decider against its target
    for the target's ``defence`` ("none" | "parry" | "dodge" | "both"); ``parry_item``
    picks the item to parry with (default: the one that lets least damage through).

    ``attacker`` names another combatant to ask "what if it made this attack now" (for
    planning and ``fray odds``): reach is not checked, and a missile out of range is
    taken at its base-range chance.

    The result is shared with later calls that ask the same (results are cached on the
    numbers that decide them): do not change its dicts."""
    return _odds_for(battle, _attack_of(battle, action, attacker), defence, parry_item)


def _odds_for(battle: Battle, spec: _Attack, defence: str, parry_item: str | None,
              known_level: SuccessLevel | None = None,
              known_parry: tuple[SuccessLevel, int] | None = None) -> AttackOdds:
    """The odds of ``spec``; ``known_level``: the attack roll is already made;
    ``known_parry``: so is the parry (its level and the item's AP)."""
    attacker, target = battle.combatants[spec.attacker], battle.combatants[spec.target]
    missile = ATTACK_MODES[spec.mode].missile
    blow = _blow(battle, attacker, target, spec.weapon_id, spec.mode)
    defences = _defences(battle, target, missile, defence, parry_item)
    return _pure_odds(_rules_of(battle), blow, spec.chance, defences, known_level, known_parry)


@lru_cache(maxsize=65536)
def _pure_odds(rules: _Rules, blow: _Blow, chance: int, defences: _Defences,
               known_level: SuccessLevel | None,
               known_parry: tuple[SuccessLevel, int] | None) -> AttackOdds:
    """The odds from the numbers that decide them (cached: the tactician and the search
    agents ask the same questions many times)."""
    if known_level is None:
        levels = dict(_levels(chance, rules.success))
    else:
        levels = {lv: (ONE if lv is known_level else Fraction(0)) for lv in L}
    per_level: dict[SuccessLevel, Outcomes] = {}
    chosen = _Defence()
    for level in (L.SUCCESS, L.SPECIAL, L.CRITICAL):
        if not levels[level]:
            continue
        chosen = _defence(rules, defences, blow, level)
        if known_parry is not None:
            chosen = _Defence(((known_parry[0], ONE),), known_parry[1], chosen.dodge,
                              None, chosen.dodge_chance)
        per_level[level] = _outcomes(rules, blow, level, chosen)
    return _summarise(blow, chance, levels, per_level, chosen)


def _pending(battle: Battle) -> tuple[AttackRolled | None, ParryRolled | None]:
    """The attack roll (and any parry roll) of the hit the current decider reacts to."""
    d = battle.decision
    parried: ParryRolled | None = None
    for event in reversed(battle.events):
        if d is None:
            break
        if isinstance(event, ParryRolled) and event.defender == d.actor and parried is None:
            parried = event
        if isinstance(event, AttackRolled) and event.target == d.actor:
            return event, parried
    return None, parried


def pending_attack(battle: Battle) -> AttackRolled | None:
    """At a PARRY or DODGE decision: the AttackRolled event of the hit reacted to (its
    ``mode`` says whether it is a manoeuvre, H19), else None."""
    d = battle.decision
    if d is None or d.kind not in DEFENCE_DECISIONS:
        return None
    return _pending(battle)[0]


def pending_hit_odds(battle: Battle, defence: str, parry_item: str | None = None
                     ) -> AttackOdds:
    """At a PARRY or DODGE decision: the odds of the hit already rolled against the
    decider, for the defence it still has to choose. At a DODGE decision any parry is
    already rolled, so "parry" means "none" and "both" means "dodge"."""
    d = battle.decision
    if d is None or d.kind not in DEFENCE_DECISIONS:
        raise ValueError(f"pending_hit_odds: expected a PARRY or DODGE decision, got {d}")
    hit, parried = _pending(battle)
    if hit is None:
        raise ValueError("pending_hit_odds: no attack roll against the decider found")
    if hit.mode in MANOEUVRES:
        raise ValueError(f"pending_hit_odds: a {hit.mode} does no damage (H19); see "
                         "pending_attack")
    weapon = None if hit.weapon not in battle.content.weapons else hit.weapon
    spec = _Attack(hit.attacker, hit.target, weapon, hit.mode, hit.chance)
    level = SuccessLevel[hit.level]
    if DECISION_SPECS[d.kind].defence == "parry":
        return _odds_for(battle, spec, defence, parry_item, known_level=level)
    dodge_only = "dodge" if defence in ("dodge", "both") else "none"
    known = None
    if parried is not None:
        inst = battle.combatants[d.actor].item(parried.item)
        known = (SuccessLevel[parried.level], 0 if inst is None else inst.ap or 0)
    return _odds_for(battle, spec, dodge_only, None, known_level=level, known_parry=known)

