"""Combatants: plain mutable state plus the derived values of S17, S19-S21, H1, H3-H6, H12.

A :class:`Combatant` holds only data (JSON-able fields) and a reference to the content it
was built from. Every derived value (effective MOV, skills, encumbrance, ...) is computed
from that data on demand, so it can never go stale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rules.content.schema import HANDS as HANDS  # its home is the content schema
from rules.dice import Dice

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rules.content.schema import Armour, Content, Creature, Weapon

Square = tuple[int, int]

BURDEN_RANK = {"none": 0, "light": 1, "moderate": 2, "heavy": 3}
FATIGUE_NAMES = ("fresh", "fatigued", "exhausted")


@dataclass
class ItemInstance:
    """One carried or dropped thing (H21). ``uid`` is unique within the battle."""

    uid: str
    item: str  # content id (weapons, armour or items table)
    state: str  # ready, carried, sheathed, hidden, ground
    count: int = 1
    ap: int | None = None  # current AP of a parrying weapon or shield (H9 wear)
    lit: bool = False  # torches (H23)
    nocked: bool = False  # bows and slings: ammunition nocked (H16)
    loaded: bool = False  # crossbows: wound and loaded (H16)
    square: tuple[int, int] | None = None  # where it lies, for items on the ground

    def copy(self) -> ItemInstance:
        """An independent copy (every field holds an immutable value)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new


@dataclass
class Combatant:
    """A combatant's full state. See DESIGN.md for the public attribute names."""

    id: str
    team: str
    creature: str
    name: str
    race: str
    characteristics: dict[str, int]
    base_skills: dict[str, int]
    armour: str | None
    armour_training: str
    position: Square
    max_hp: int
    hp: int
    max_power_points: int
    power_points: int
    spells: tuple[str, ...]
    is_mount: bool
    snake: bool
    inventory: list[ItemInstance] = field(default_factory=list)
    prone: bool = False
    status: str = "active"  # active, out (of action), dead
    fatigue_level: int = 0  # 0 fresh, 1 fatigued, 2 exhausted (S21)
    bleeding: bool = False
    buffs: list[tuple[int, int]] = field(default_factory=list)  # (points, last round)
    grappled_by: str | None = None
    riding: str | None = None
    ridden_by: str | None = None
    casting: dict[str, Any] | None = None  # multi-round spell in progress (H18)
    components_ready: bool = False
    initiative: int = 0
    # per round / per turn bookkeeping (S2, S5, S7, S8, H14, H25)
    actions_used: list[str] = field(default_factory=list)
    moved_this_round: bool = False
    shifted_this_round: bool = False
    diagonal_parity: int = 0
    free_attack_used: bool = False
    parries_used: int = 0
    extra_parries: int = 0
    dodge_waived: bool = False  # S10: the next dodge pays no disadvantage
    free_used: list[str] = field(default_factory=list)
    concentration: str | None = None  # "aim" or "cast" while a provoking action waits
    concentration_broken: bool = False
    content: Content | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------ basics
    @property
    def c(self) -> Content:
        if self.content is None:
            raise RuntimeError(f"combatant {self.id} has no content attached")
        return self.content

    @property
    def in_action(self) -> bool:
        """H5: able to act and react (above 0 HP and alive)."""
        return self.status == "active"

    @property
    def dead(self) -> bool:
        return self.status == "dead"

    @property
    def fatigue(self) -> str:
        """S21: "fresh", "fatigued" or "exhausted"."""
        return FATIGUE_NAMES[self.fatigue_level]

    def char(self, name: str) -> int:
        return self.characteristics[name]

    # ------------------------------------------------------------ H4, H5, H6
    @property
    def dex_bonus(self) -> int:
        """H4: floor((DEX - 10) / 2)."""
        r = self.c.ruleset.initiative
        return (self.char("dex") - r.dex_bonus_base) // r.dex_bonus_divisor

    def damage_bonus_dice(self) -> Any:
        """H6: the damage-bonus dice for STR+SIZ."""
        return damage_bonus_for(self.c, self.char("str") + self.char("siz"))

    # ------------------------------------------------------------ S19, S20
    @property
    def capacity_stones(self) -> float:
        """S19: SIZ x (STR + 10) / 20 stones."""
        e = self.c.ruleset.encumbrance
        return self.char("siz") * (self.char("str") + e.str_offset) / e.divisor

    @property
    def load_stones(self) -> float:
        """Everything carried or worn, in stones (ground items excluded)."""
        content = self.c
        weapons, armour, items = content.weapons, content.armour, content.items
        total = 0.0
        if self.armour is not None:
            total += armour[self.armour].weight
        for inst in self.inventory:  # Content.weight_of, with its tables at hand
            item = inst.item
            weapon = weapons.get(item)
            if weapon is not None:
                if weapon.natural:
                    continue
                weight = weapon.weight
            elif item in armour:
                weight = armour[item].weight
            elif item in items:
                weight = items[item].weight
            else:
                raise KeyError(item)
            total += weight * inst.count
        # S19: "over half" is exact; drop float noise from summing decimal weights
        return round(total, 9)

    @property
    def burden(self) -> str:
        """S20: the burden of the body armour worn ("none" without)."""
        if self.armour is None:
            return "none"
        return self.c.armour[self.armour].burden

    @property
    def untrained_for_burden(self) -> bool:
        """S20: anyone not trained to the burden worn is automatically Encumbered."""
        return BURDEN_RANK[self.burden] > BURDEN_RANK[self.armour_training]

    @property
    def encumbered(self) -> bool:
        """S19/S20: load over half capacity, or armour above training."""
        e = self.c.ruleset.encumbrance
        over = self.load_stones > self.capacity_stones * e.threshold_fraction
        return over or self.untrained_for_burden

    def worn(self) -> list[Armour]:
        """Body armour plus ready helmets, gauntlets and shields."""
        out = []
        if self.armour is not None:
            out.append(self.c.armour[self.armour])
        for inst in self.inventory:
            if inst.state == "ready" and inst.item in self.c.armour:
                out.append(self.c.armour[inst.item])
        return out

    @property
    def armour_points(self) -> int:
        """H6: body armour AP subtracted from damage."""
        return self.c.armour[self.armour].ap if self.armour is not None else 0

    # ------------------------------------------------------------ S17, S21, H3
    def fatigue_factor(self) -> float:
        """S21: x1 fresh, x1/2 Fatigued, x1/10 Exhausted."""
        f = self.c.ruleset.fatigue
        return (1.0, f.fatigued_factor, f.exhausted_factor)[self.fatigue_level]

    @property
    def mov(self) -> int:
        """S17/S19/S20/S21: effective MOV in squares per full round.

        (race MOV - burden penalty) x encumbrance x fatigue factors, rounded down
        (H3), never below the ruleset's minimum.
        """
        rs = self.c.ruleset
        base = self.c.races[self.race].mov - rs.burden[self.burden].mov_penalty
        factor = self.fatigue_factor()
        if self.encumbered:
            factor *= rs.encumbrance.factor
        return max(rs.movement.min_mov, math.floor(base * factor + 1e-9))

    @property
    def move_squares(self) -> int:
        """S17: squares per MOVE action, floor(MOV / 2)."""
        return self.mov // self.c.ruleset.movement.move_divisor

    def skill_possible(self, name: str) -> bool:
        """S20/H3: false where worn gear makes the skill impossible (bow in gauntlets)."""
        return all(name not in a.impossible for a in self.worn())

    def skill_multiplier(self, name: str) -> float:
        """H3: the product of every multiplier that applies to ``name``."""
        rs = self.c.ruleset
        category = rs.skills[name].category if name in rs.skills else "physical"
        factor = self.fatigue_factor()
        if category == "physical":
            factor *= rs.burden[self.burden].skill_factor
            if self.encumbered:
                factor *= rs.encumbrance.factor
        for a in self.worn():
            factor *= a.skill_factors.get(name, 1.0)
        return factor

    def base_skill(self, name: str) -> int:
        if name in self.base_skills:
            return self.base_skills[name]
        rs = self.c.ruleset
        return rs.skills[name].base if name in rs.skills else 0

    def skill(
        self, name: str, current_round: int | None = None, factor: float = 1.0, points: int = 0
    ) -> int:
        """H3: effective skill: all multipliers (burden, encumbrance, fatigue, gear, and any
        situational ``factor`` such as darkness) multiply together and round down; then
        percentage points apply (active buffs and situational ``points``). 0 where the
        skill is impossible.
        """
        if not self.skill_possible(name):
            return 0
        value = math.floor(self.base_skill(name) * self.skill_multiplier(name) * factor + 1e-9)
        for buff_points, last_round in self.buffs:
            if current_round is None or current_round <= last_round:
                value += buff_points
        return value + points

    @property
    def magic_fumble(self) -> int:
        """S20/H18: armour burden's magic-fumble percentage."""
        return self.c.ruleset.burden[self.burden].magic_fumble

    # ------------------------------------------------------------ items, H12
    def item(self, uid: str) -> ItemInstance | None:
        for inst in self.inventory:
            if inst.uid == uid:
                return inst
        return None

    def ready_weapons(self) -> list[tuple[ItemInstance, Weapon]]:
        weapons = self.c.weapons
        return [
            (inst, weapons[inst.item])
            for inst in self.inventory
            if inst.state == "ready" and inst.item in weapons
        ]

    def ready_melee(self) -> list[tuple[ItemInstance, Weapon]]:
        return [(i, w) for i, w in self.ready_weapons() if w.kind == "melee"]

    def hands_used(self) -> int:
        """Hands taken by ready items (of the ``HANDS`` everyone has)."""
        return sum(self.c.hands_of(i.item) for i in self.inventory if i.state == "ready")

    @property
    def reach(self) -> int:
        """H12: squares threatened by the longest ready melee weapon (0 if none)."""
        content = self.c
        table, weapons = content.ruleset.misc.reach_squares, content.weapons
        best = None
        for inst in self.inventory:  # the ready melee weapons (ready_melee)
            if inst.state == "ready" and inst.item in weapons:
                weapon = weapons[inst.item]
                if weapon.kind == "melee" and (best is None or table[weapon.reach] > best):
                    best = table[weapon.reach]
        return 0 if best is None else best

    @property
    def threatens(self) -> bool:
        """H12: in action, standing, holding a ready melee weapon."""
        return self.in_action and not self.prone and self.reach > 0

    def copy(self) -> Combatant:
        """An independent copy (mutable parts copied, content shared), field by field."""
        new = object.__new__(type(self))
        fields = new.__dict__
        fields.update(self.__dict__)
        fields["inventory"] = [item.copy() for item in self.inventory]
        fields["characteristics"] = dict(self.characteristics)
        fields["base_skills"] = dict(self.base_skills)
        fields["buffs"] = list(self.buffs)
        fields["casting"] = None if self.casting is None else dict(self.casting)
        fields["actions_used"] = list(self.actions_used)
        fields["free_used"] = list(self.free_used)
        return new

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            if name == "content":
                continue
            value = getattr(self, name)
            if name == "inventory":
                value = [vars(i).copy() for i in value]
            elif isinstance(value, (list, dict)):
                value = _copy_json(value)
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], content: Content) -> Combatant:
        data = dict(data)
        data["inventory"] = [item_from_dict(i) for i in data["inventory"]]
        data["position"] = tuple(data["position"])
        data["spells"] = tuple(data["spells"])
        data["buffs"] = [tuple(b) for b in data["buffs"]]
        return cls(**data, content=content)


def item_from_dict(data: dict[str, Any]) -> ItemInstance:
    inst = ItemInstance(**data)
    if inst.square is not None:
        inst.square = (inst.square[0], inst.square[1])
    return inst


def _copy_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy_json(v) for v in value]
    return value


def damage_bonus_for(content: Content, str_plus_siz: int) -> Any:
    """H6: damage-bonus dice for a STR+SIZ total (beyond the table, +1d6 per 16)."""
    db = content.ruleset.damage_bonus
    for row in db.table:
        if str_plus_siz <= row.max:
            return row.dice
    last = db.table[-1]
    extra_steps = -(-(str_plus_siz - last.max) // db.step)
    sign, count, sides = last.dice.terms[0]
    e_sign, e_count, e_sides = db.extra.terms[0]
    if sides == e_sides:
        return Dice(((sign, count + extra_steps * e_count, sides),), last.dice.constant)
    return Dice((*last.dice.terms, (e_sign, extra_steps * e_count, e_sides)))


def hit_points_for(content: Content, characteristics: dict[str, int]) -> int:
    """H5: ceil(SIZ / 2), or ceil((CON + SIZ) / 2) as the ruleset option."""
    if content.ruleset.hit_points.formula == "con_siz_half":
        return -(-(characteristics["con"] + characteristics["siz"]) // 2)
    return -(-characteristics["siz"] // 2)


def power_points_for(creature: Creature, characteristics: Mapping[str, int]) -> int | None:
    """H18: a stat block's power points, else its POW (None while POW is not known)."""
    if creature.power_points is not None:
        return creature.power_points
    return characteristics.get("pow")


def roll_characteristics(content: Content, dice: Any) -> dict[str, int]:
    """H1: roll every characteristic (3d6; SIZ 2d6+6) with a battle's dice roller."""
    rules = content.ruleset.characteristics
    return {
        name: dice.roll(rules.siz_roll if name == "siz" else rules.default_roll)[0]
        for name in rules.names
    }
