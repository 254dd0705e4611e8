"""What the Free Attacks drawn by a move or a provoking action do to the mover (S5, S6,
H13), exactly: each provoked enemy's best Free Attack in turn, stopping once the mover is
dropped or knocked prone (a move ends there)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from rules import queries as q
from rules.odds.attack import (
    Dist,
    _blow,
    _defence,
    _Defences,
    _defences,
    _outcomes,
    _Rules,
    _rules_of,
    attack_chance,
)
from rules.odds.hit import ONE, _Blow, _levels

if TYPE_CHECKING:
    from rules.battle import Battle
    from rules.combatant import Combatant


@dataclass(frozen=True)
class Risk:
    """What the Free Attacks drawn by a move or an action do to the mover."""

    provokers: tuple[str, ...]
    damage: dict[int, Fraction]  # HP lost in all, 0 included
    wounds: Fraction  # at least 1 HP lost
    drops: Fraction  # out of action or dead
    stops: Fraction  # dropped or knocked prone (a move ends there, H13)

    @cached_property
    def expected_damage(self) -> Fraction:
        """Mean HP lost by the mover."""
        return sum((d * p for d, p in self.damage.items()), Fraction(0))


def free_attack_risk(battle: Battle, mover_id: str, enemies: Iterable[str],
                     defence: str = "none") -> Risk:
    """S5/H13: what Free Attacks by ``enemies`` (in order, each with its ready melee
    weapon that does most damage) do to ``mover_id``. The mover makes ``defence`` against
    the first attack only (one parry per round and one dodge per turn, S8/S9/H25); the
    attacks stop once it is dropped or knocked prone (a move ends there, H13)."""
    mover = battle.combatants[mover_id]
    provokers = tuple(enemies)
    attacks = []
    for index, enemy_id in enumerate(provokers):
        odds = _best_free_attack(battle, battle.combatants[enemy_id], mover,
                                 defence if index == 0 else "none")
        if odds is not None:
            attacks.append(odds)
    return _combined_risk(provokers, tuple(attacks), mover.hp,
                          battle.content.ruleset.hit_points.out_of_action_at)


@lru_cache(maxsize=65536)
def _combined_risk(provokers: tuple[str, ...],
                   attacks: tuple[tuple[tuple[tuple[int, bool], Fraction], ...], ...],
                   hp: int, out_at: int) -> Risk:
    """The Free Attacks' outcomes ((hp lost, knocked prone) -> probability, in order)
    combined, stopping once the mover is dropped or knocked prone."""
    states: dict[tuple[int, bool], Fraction] = {(0, False): ONE}
    for odds in attacks:
        nxt: dict[tuple[int, bool], Fraction] = {}
        for (lost, stopped), p in states.items():
            if stopped:
                nxt[(lost, True)] = nxt.get((lost, True), Fraction(0)) + p
                continue
            for (dmg, prone), r in odds:
                total = lost + dmg
                stop = prone or hp - total <= out_at
                nxt[(total, stop)] = nxt.get((total, stop), Fraction(0)) + p * r
        states = nxt
    damage: Dist = {}
    for (lost, _), p in states.items():
        damage[lost] = damage.get(lost, Fraction(0)) + p
    return Risk(provokers, dict(sorted(damage.items())),
                sum((p for d, p in damage.items() if d > 0), Fraction(0)),
                sum((p for d, p in damage.items() if hp - d <= out_at), Fraction(0)),
                sum((p for (_, s), p in states.items() if s), Fraction(0)))


def _best_free_attack(battle: Battle, enemy: Combatant, mover: Combatant, defence: str
                      ) -> tuple[tuple[tuple[int, bool], Fraction], ...] | None:
    """(hp lost, knocked prone) -> probability for ``enemy``'s Free Attack with the ready
    melee weapon reaching ``mover`` that does most damage on average."""
    rules = _rules_of(battle)
    defences = _defences(battle, mover, False, defence, None)
    best: tuple[Fraction, tuple[tuple[tuple[int, bool], Fraction], ...]] | None = None
    for inst, w in enemy.ready_melee():
        if not q.weapon_reaches(battle, enemy, w.reach, mover.position):
            continue
        chance = attack_chance(battle, enemy, mover, w.skill, False, 0)
        blow = _blow(battle, enemy, mover, inst.item, "free")
        mean, out = _free_attack_outcomes(rules, blow, chance, defences)
        if best is None or mean > best[0]:
            best = (mean, out)
    return None if best is None else best[1]


@lru_cache(maxsize=65536)
def _free_attack_outcomes(rules: _Rules, blow: _Blow, chance: int, defences: _Defences
                          ) -> tuple[Fraction, tuple[tuple[tuple[int, bool], Fraction], ...]]:
    """(mean HP lost, (hp lost, knocked prone) -> probability) of one Free Attack."""
    out: dict[tuple[int, bool], Fraction] = {}
    for level, p_level in _levels(chance, rules.success).items():
        hits = _outcomes(rules, blow, level, _defence(rules, defences, blow, level)
                         ) if level.succeeded else ()
        for (dmg, _bleeds, prone), p in hits or (((0, False, False), ONE),):
            out[(dmg, prone)] = out.get((dmg, prone), Fraction(0)) + p_level * p
    mean = sum((d * p for (d, _), p in out.items()), Fraction(0))
    return mean, tuple(out.items())


def route_risk(battle: Battle, combatant_id: str, square: tuple[int, int],
               full: bool = False, defence: str = "none") -> Risk:
    """The Free Attacks that a MOVE (``full``: FULL_MOVE) of ``combatant_id`` to
    ``square`` provokes along the route the engine takes (H13), and what they do."""
    return route_risks(battle, combatant_id, [square], full, defence)[square]


def route_risks(battle: Battle, combatant_id: str, squares: Iterable[tuple[int, int]],
                full: bool = False, defence: str = "none") -> dict[tuple[int, int], Risk]:
    """:func:`route_risk` for each of ``squares`` (the routes are searched once)."""
    c = battle.combatants[combatant_id]
    reach = q.routes(battle, c, q.move_budget(battle, c, full), True)
    out = {}
    for square in squares:
        if square not in reach:
            raise ValueError(f"route_risk: {combatant_id} cannot move to {square}")
        out[square] = free_attack_risk(battle, combatant_id, reach[square].provokers, defence)
    return out


def action_risk(battle: Battle, combatant_id: str, defence: str = "none") -> Risk:
    """The Free Attacks a provoking action (S6) of ``combatant_id`` where it stands draws."""
    c = battle.combatants[combatant_id]
    return free_attack_risk(battle, combatant_id, q.provokers_at(battle, c), defence)
