"""Frozen dataclasses for every kind of content in ``rules/data``.

These classes are the contract between the TOML files and the engine. The loader
(:mod:`rules.content.loader`) validates a TOML table against the type hints of a class
here: every field without a default is required, unknown keys are errors, and each
error names the file, the field, what was expected and what was found.

Type hints the loader understands: ``int``, ``float`` (ints accepted), ``str``,
``bool``, ``Dice`` (a dice expression string such as ``"1d8+1"``), ``Literal[...]``,
``tuple[X, ...]`` (from a TOML array), ``dict[str, X]`` (from a TOML table),
``X | None``, and nested dataclasses (from a TOML table).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rules.dice import Dice

DamageType = Literal["slash", "crush", "impale"]
Reach = Literal["S", "M", "L"]
Burden = Literal["none", "light", "moderate", "heavy"]
SkillCategory = Literal["physical", "mental", "magic"]
#: Hands every combatant has for ready weapons, shields and items (S12, H21): the
#: loader checks a unit's ready kit against it, rules.combatant counts hands by it.
HANDS = 2

# ---------------------------------------------------------------- ruleset.toml


@dataclass(frozen=True)
class SuccessRules:
    """H2: success levels of a d100 roll against skill s (divisions round half up)."""

    critical_divisor: int  # critical <= max(1, s / 20)
    special_divisor: int  # special <= max(1, s / 5)
    success_cap: int  # success <= min(s, 95)
    auto_success_max: int  # 01-05 always succeed
    auto_fail_min: int  # 96-00 always fail
    fumble_divisor: int  # fumble = the top max(1, (100 - s) / 20) numbers


@dataclass(frozen=True)
class CharacteristicRules:
    """H1: characteristic names and how a human rolls them."""

    names: tuple[str, ...]
    default_roll: Dice
    siz_roll: Dice


@dataclass(frozen=True)
class HitPointRules:
    """H5: hit points and out-of-action/dead thresholds."""

    formula: Literal["siz_half", "con_siz_half"]
    out_of_action_at: int  # out of action at hp <= this (0)


@dataclass(frozen=True)
class InitiativeRules:
    """S1/H4: initiative die and DEX bonus."""

    die: Dice
    dex_bonus_base: int  # DEX bonus = floor((DEX - base) / divisor)
    dex_bonus_divisor: int
    impaired_factor: float  # encumbered / fatigued halve the total (round down)


@dataclass(frozen=True)
class MovementRules:
    """S17/S18/H13/H14: movement."""

    move_divisor: int  # squares per MOVE action = floor(MOV / 2)
    diagonal_costs: tuple[int, ...]  # alternating diagonal costs (1, 2)
    difficult_multiplier: int  # difficult terrain costs double
    square_feet: int  # 5 ft squares
    min_mov: int  # MOV never drops below this after penalties


@dataclass(frozen=True)
class EncumbranceRules:
    """S19: capacity = SIZ x (STR + str_offset) / divisor stones."""

    str_offset: int
    divisor: int
    threshold_fraction: float  # load over this fraction of capacity encumbers
    factor: float  # MOV, initiative, DEX-based skills x1/2


@dataclass(frozen=True)
class BurdenLevel:
    """S20: one row of the armour-burden table."""

    skill_factor: float
    mov_penalty: int
    magic_fumble: int  # percentage points added to the fumble range of spell casting


@dataclass(frozen=True)
class FatigueRules:
    """S21: fatigue from exertion."""

    con_multiplier: int  # CON x5 roll
    rounds_per_check: int  # an exploration turn = 50 rounds
    fatigued_factor: float
    exhausted_factor: float
    rest_rounds_fatigued: int  # 1 hour = 300 rounds
    rest_rounds_exhausted: int  # 8 hours = 2400 rounds


@dataclass(frozen=True)
class TimeRules:
    """S22/S25: a round is about 12 s, an exploration turn about 10 min."""

    seconds_per_round: int
    exploration_turn_seconds: int


@dataclass(frozen=True)
class DamageBonusStep:
    """H6: one row of the damage-bonus table (STR+SIZ up to ``max``)."""

    max: int
    dice: Dice


@dataclass(frozen=True)
class DamageBonusRules:
    """H6: damage bonus by STR+SIZ; past the table, each ``step`` adds ``extra``."""

    table: tuple[DamageBonusStep, ...]
    step: int
    extra: Dice


@dataclass(frozen=True)
class CombatModifiers:
    """H15/H16/H17/H23 percentage-point modifiers and factors."""

    prone_target_melee: int  # +20
    prone_attacker_melee: int  # -20
    prone_target_missile: int  # -20
    long_range: int  # -20 between range and 2 x range
    long_range_factor: int  # 2
    full_attack: int  # +20
    dark_factor: float  # x1/2


@dataclass(frozen=True)
class DefenceRules:
    """H9/H10: parry and dodge."""

    parry_special_factor: int  # special parry blocks 2 x AP
    parry_wear: int  # AP lost when damage exceeds the block
    dodge_success_reduction: int  # 10
    dodge_special_reduction: int  # 20
    parries_per_round: int  # S8: normally one
    fight_defensively_extra_parries: int  # S10: one extra


@dataclass(frozen=True)
class ResistanceRules:
    """H8: chance = base + step x (active - passive)."""

    base: int
    step: int


@dataclass(frozen=True)
class PoisonRules:
    """S24: poison saves."""

    con_multiplier: int  # CON x10
    snake_con_multiplier: int  # CON x5 against snakes and the like


@dataclass(frozen=True)
class FallingRules:
    """S23: d6 per 10 ft fallen; Jump/Acrobatics success reduces by another die."""

    die: Dice
    feet_per_die: int
    skill_reduction: Dice
    reduction_skills: tuple[str, ...]


@dataclass(frozen=True)
class MiscRules:
    """H5/H7/H19/H20/H23/H25 and other single numbers."""

    bleed_per_round: int
    first_aid_heal: Dice
    unarmed_damage: Dice
    torch_radius: int
    free_actions_per_turn: int
    reach_squares: dict[str, int]  # H12: {"S": 1, "M": 1, "L": 2}
    damage_bonus_applies_to: tuple[str, ...]  # ("melee", "thrown")
    default_drop_depth_ft: int
    failed_cast_cost: int = 1  # H18: PP a failed casting still costs (BRP: 1)


@dataclass(frozen=True)
class SkillDef:
    """A skill's category (which multipliers apply) and base chance."""

    category: SkillCategory
    base: int


@dataclass(frozen=True)
class Ruleset:
    """Every number of RULES.md, from ``ruleset.toml``."""

    success: SuccessRules
    characteristics: CharacteristicRules
    hit_points: HitPointRules
    initiative: InitiativeRules
    movement: MovementRules
    encumbrance: EncumbranceRules
    burden: dict[str, BurdenLevel]  # keys: none, light, moderate, heavy
    fatigue: FatigueRules
    time: TimeRules
    damage_bonus: DamageBonusRules
    modifiers: CombatModifiers
    defence: DefenceRules
    resistance: ResistanceRules
    poison: PoisonRules
    falling: FallingRules
    misc: MiscRules
    skills: dict[str, SkillDef]


# ---------------------------------------------------------------- races.toml


@dataclass(frozen=True)
class Race:
    """S17: a race or species: its MOV in squares per full round."""

    name: str
    mov: int


# ---------------------------------------------------------------- weapons.toml


@dataclass(frozen=True)
class Poison:
    """S24: a venom carried by a weapon."""

    damage: Dice
    snake: bool = False  # save at CON x5 instead of CON x10


@dataclass(frozen=True)
class Weapon:
    """A melee or missile weapon, natural weapons included.

    ``kind`` is "melee" or "missile"; a thrown weapon is a missile with ``thrown = true``
    (it gets the damage bonus, H6). ``reload`` says what a missile needs before each shot:
    "none" (thrown), "nock" (bow arrow / sling stone: FREE, H16), "wind" (crossbow:
    FULL, H16). ``ap`` is what a parry with it blocks (H9); ``parry`` false for weapons
    that cannot parry (bows, natural weapons).
    """

    name: str
    kind: Literal["melee", "missile"]
    skill: str
    damage: Dice
    damage_type: DamageType
    ap: int
    hands: int
    weight: float  # stones
    reach: Reach = "M"
    range: int = 0  # base range in squares (missiles)
    thrown: bool = False
    reload: Literal["none", "nock", "wind"] = "none"
    ammo: str | None = None  # item id consumed per shot
    parry: bool = True
    natural: bool = False  # cannot be dropped, disarmed or sheathed
    poison: Poison | None = None


# ---------------------------------------------------------------- armour.toml


@dataclass(frozen=True)
class Armour:
    """Body armour, helmets, gauntlets and shields (S20, H6, H9).

    ``slot``: "body" (AP subtracts from damage, has a burden), "head", "hands", or
    "shield" (held in one hand, parries with ``skill`` and blocks ``ap``; only shields
    parry missiles). ``impossible`` lists skills that cannot be used while worn
    (gauntlets: bow, lockpicking, instrument). ``skill_factors`` multiplies skills while
    worn (full helm: listen and spot greatly disadvantaged).
    """

    name: str
    slot: Literal["body", "head", "hands", "shield"]
    ap: int
    weight: float
    burden: Burden = "none"
    hands: int = 0
    skill: str | None = None
    impossible: tuple[str, ...] = ()
    skill_factors: dict[str, float] = field(default_factory=dict)


# ---------------------------------------------------------------- items.toml


@dataclass(frozen=True)
class Item:
    """Anything else that can be carried (H21): torches, potions, scrolls, ammunition."""

    name: str
    kind: Literal["torch", "potion", "scroll", "ammo", "gear"]
    weight: float  # stones per unit
    hands: int = 0
    heal: Dice | None = None  # potions
    spell: str | None = None  # scrolls: the spell id cast when read


# ---------------------------------------------------------------- spells.toml


@dataclass(frozen=True)
class Spell:
    """H18: spells are content.

    ``casting``: "free" (no action, does not provoke), "attack" (an ATTACK action),
    "full" (a FULL action), "rounds" (``rounds`` consecutive full rounds; aborted by any
    defence attempt, S11). ``effect``: "damage" (``dice`` to the target, armour applies
    unless ``ignores_armour``), "heal" (``dice`` HP to the target), "buff" (``modifier``
    percentage points to the target's skills for ``duration`` rounds).
    """

    name: str
    casting: Literal["free", "attack", "full", "rounds"]
    cost: int  # power points
    range: int  # squares; 0 = self, 1 = touch/adjacent
    effect: Literal["damage", "heal", "buff"]
    target: Literal["enemy", "ally", "self", "any"]
    rounds: int = 1
    dice: Dice | None = None
    modifier: int = 0
    duration: int = 0
    provokes: bool = True
    components: bool = False
    ignores_armour: bool = False


# ---------------------------------------------------------------- creatures.toml


@dataclass(frozen=True)
class EquipmentEntry:
    """One thing a creature carries. ``state``: ready, carried, sheathed, hidden.

    ``nocked`` (a ready bow or sling, H16), ``loaded`` (a ready crossbow, H16) and ``lit``
    (a ready torch, H23) start it in that state, as if done before the battle.
    """

    item: str
    state: Literal["ready", "carried", "sheathed", "hidden"] = "carried"
    count: int = 1
    nocked: bool = False
    loaded: bool = False
    lit: bool = False


@dataclass(frozen=True)
class Creature:
    """A stat block. Characteristics missing from the table are an error."""

    name: str
    race: str
    characteristics: dict[str, int]
    skills: dict[str, int]
    equipment: tuple[EquipmentEntry, ...] = ()
    armour: str | None = None  # body armour id
    armour_training: Burden = "none"
    power_points: int | None = None  # default POW
    spells: tuple[str, ...] = ()
    mount: bool = False  # can be ridden (H22)
    snake: bool = False  # its poison is saved at CON x5 (S24)


@dataclass(frozen=True)
class Content:
    """Everything in one data directory, cross-checked."""

    ruleset: Ruleset
    races: dict[str, Race]
    weapons: dict[str, Weapon]
    armour: dict[str, Armour]
    items: dict[str, Item]
    spells: dict[str, Spell]
    creatures: dict[str, Creature]

    def kind_of(self, item_id: str) -> str | None:
        """Which table an equipment id belongs to: weapon, armour, item, or None."""
        if item_id in self.weapons:
            return "weapon"
        if item_id in self.armour:
            return "armour"
        if item_id in self.items:
            return "item"
        return None

    def hands_of(self, item_id: str) -> int:
        """Hands one ready ``item_id`` takes (natural weapons take none, H12/H21)."""
        if item_id in self.weapons:
            weapon = self.weapons[item_id]
            return 0 if weapon.natural else weapon.hands
        if item_id in self.armour:
            return self.armour[item_id].hands
        return self.items[item_id].hands

    def weight_of(self, item_id: str) -> float:
        """Weight in stones of one unit of any equipment id."""
        table = {"weapon": self.weapons, "armour": self.armour, "item": self.items}
        kind = self.kind_of(item_id)
        if kind is None:
            raise KeyError(item_id)
        return table[kind][item_id].weight
