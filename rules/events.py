"""Typed, frozen event records. ``Battle.apply`` returns them; logs, replays, renderers
and statistics read them and never recompute rules. Each carries the dice already rolled.
They are slotted dataclasses (no per-event ``__dict__``: ``dataclasses.fields`` lists
their fields).

``str(event)`` is one log line as a referee would say it ("[r2] hero attacks orc_1 with
longsword: 44 vs 57% -> success"): rolls read "roll vs chance%", squares "(x, y)", paths
"(2, 2) -> (3, 2)", and an item is named one way everywhere (:func:`item_label`: its
kind, "longsword", prefixed by its first owner when someone else holds it, "gob's
spear", and numbered when split off a stack, "javelin #2"). :func:`event_to_dict` /
:func:`event_from_dict` round-trip events through JSON.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, ClassVar

Square = tuple[int, int]


# ------------------------------------------------------------------ wording helpers
def item_label(uid: str, holder: str | None = None) -> str:
    """How the log names an item: ``"hero.battle_axe"`` held by hero, and the content id
    ``"battle_axe"``, are both "battle axe"; ``"gob.spear"`` held by hero is "gob's
    spear"; ``"hero.javelin.2"`` is "javelin #2"."""
    base, dot, last = uid.rpartition(".")
    number = ""
    if dot and last.isdigit():
        uid, number = base, f" #{last}"
    owner, dot, kind = uid.rpartition(".")
    name = kind.replace("_", " ") + number
    if dot and owner != holder:
        return f"{owner}'s {name}"
    return name


def square_text(square: Square | None) -> str:
    """``(3, 2)``; squares are (x, y), x to the right and y down the map."""
    return "nowhere" if square is None else f"({square[0]}, {square[1]})"


def path_text(path: tuple[Square, ...]) -> str:
    return " -> ".join(square_text(sq) for sq in path)


def roll_text(roll: int, chance: int, level: str) -> str:
    """A d100 roll against a chance and its success level: "44 vs 57% -> success"."""
    return f"{roll} vs {chance}% -> {level.lower()}"


_ACTION_FIELD = re.compile(r"(\w+)=(\([^)]*\)|\S+)")
_OPTIONAL = re.compile(r"\[([^\]]*)\]")
#: How each turn action is declared in the log; a [bracketed part] only when its field
#: is there.
_DECLARED: dict[str, str] = {
    "melee_attack": "attack {target} with {item}",
    "missile_attack": "shoot at {target} with {item}",
    "full_attack": "full attack on {target} with {item}",
    "unarmed_attack": "attack {target} unarmed",
    "cast_spell": "cast {item}[ at {target}]", "use_item": "use {item}[ on {target}]",
    "fight_defensively": "fight defensively", "first_aid": "first aid on {target}",
    "coup_de_grace": "coup de grace on {target}", "grapple": "grapple {target}",
    "trip": "trip {target}", "disarm": "disarm {target}", "mount": "mount {target}",
    "dismount": "dismount to {square}", "move": "move to {square}",
    "full_move": "full move to {square}", "disengage": "disengage to {square}",
    "shift": "shift to {square}", "ready_weapon": "ready {item}",
    "sheathe_weapon": "put away {item}", "pick_up": "pick up {item}",
    "drop_item": "drop {item}", "light_torch": "light {item}",
    "load_crossbow": "wind and load {item}", "nock_arrow": "nock {item}",
    "open_door": "open the door at {square}", "close_door": "close the door at {square}",
    "stand_up": "stand up", "fall_prone": "fall prone",
    "prepare_components": "prepare spell components", "speak": "speak",
    "end_turn": "end the turn",
}


def describe_action(text: str, actor: str) -> str:
    """An action as ``str(Action)`` writes it ("MELEE_ATTACK target=orc item=hero.sword")
    in the log's words ("attack orc with sword")."""
    kind, _, rest = text.partition(" ")
    values = dict(_ACTION_FIELD.findall(rest))
    if "item" in values:
        values["item"] = item_label(values["item"], actor)
    template = _DECLARED.get(kind.lower())
    if template is None:  # a kind without wording: its name and fields as they are
        return " ".join([kind.lower().replace("_", " "), *values.values()])

    def optional(match: re.Match[str]) -> str:
        needed = re.findall(r"{(\w+)}", match.group(1))
        return match.group(1) if all(n in values for n in needed) else ""

    return _OPTIONAL.sub(optional, template).format(**values)


@dataclass(frozen=True, slots=True)
class Event:
    round: int
    template: ClassVar[str] = "{name}"

    def text(self) -> str:
        """The line without its round prefix (``template`` filled with the fields)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return self.template.format(name=type(self).__name__, **values)

    def __str__(self) -> str:
        return f"[r{self.round}] {self.text()}"


@dataclass(frozen=True, slots=True)
class BattleStarted(Event):
    scenario: str
    order: tuple[str, ...]
    initiative: tuple[int, ...]

    def text(self) -> str:
        order = ", ".join(f"{c} {i}" for c, i in zip(self.order, self.initiative, strict=True))
        return f"battle '{self.scenario}' begins; initiative: {order}"


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    template: ClassVar[str] = "--- round {round} ---"


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    actor: str
    template: ClassVar[str] = "{actor}'s turn"


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    actor: str
    template: ClassVar[str] = "{actor} ends its turn"


@dataclass(frozen=True, slots=True)
class ActionTaken(Event):
    actor: str
    action: str  # str(Action), e.g. "MELEE_ATTACK target=orc_1 item=hero.longsword"

    def text(self) -> str:
        return f"{self.actor}: {describe_action(self.action, self.actor)}"


@dataclass(frozen=True, slots=True)
class Moved(Event):
    actor: str
    path: tuple[Square, ...]
    cost: int
    complete: bool

    def text(self) -> str:
        if len(self.path) < 2:
            return f"{self.actor} stays at {square_text(self.path[0])} (the move is cut short)"
        short = "" if self.complete else ", cut short"
        return f"{self.actor} moves {path_text(self.path)} (cost {self.cost}{short})"


@dataclass(frozen=True, slots=True)
class Provoked(Event):
    actor: str
    enemy: str
    template: ClassVar[str] = "{actor} provokes a Free Attack from {enemy}"


@dataclass(frozen=True, slots=True)
class FreeAttackDeclined(Event):
    enemy: str
    actor: str
    template: ClassVar[str] = "{enemy} lets {actor} go"


#: How each attack mode reads: the attack, then its roll.
_ATTACK_WORDS = {
    "melee": "{attacker} attacks {target} with {weapon}",
    "free": "{attacker} takes a Free Attack at {target} with {weapon}",
    "full_melee": "{attacker} makes a full attack on {target} with {weapon}",
    "unarmed": "{attacker} attacks {target} unarmed",
    "missile": "{attacker} shoots at {target} with {weapon}",
    "full_missile": "{attacker} takes an aimed shot at {target} with {weapon}",
    "grapple": "{attacker} tries to grapple {target} ({weapon})",
    "trip": "{attacker} tries to trip {target} ({weapon})",
    "disarm": "{attacker} tries to disarm {target} ({weapon})",
}


@dataclass(frozen=True, slots=True)
class AttackRolled(Event):
    attacker: str
    target: str
    weapon: str  # the weapon's content id, "unarmed", or a manoeuvre's skill
    mode: str
    chance: int
    roll: int
    level: str

    def text(self) -> str:
        words = _ATTACK_WORDS.get(self.mode, "{attacker} attacks {target} with {weapon} ("
                                  + self.mode + ")")
        said = words.format(attacker=self.attacker, target=self.target,
                            weapon=item_label(self.weapon, self.attacker))
        return f"{said}: {roll_text(self.roll, self.chance, self.level)}"


@dataclass(frozen=True, slots=True)
class SkillRolled(Event):
    actor: str
    skill: str
    purpose: str
    chance: int
    roll: int
    level: str

    def text(self) -> str:
        roll = roll_text(self.roll, self.chance, self.level)
        return (f"{self.actor} rolls {self.skill.replace('_', ' ')} "
                f"({self.purpose.replace('_', ' ')}): {roll}")


@dataclass(frozen=True, slots=True)
class ParryRolled(Event):
    defender: str
    item: str
    chance: int
    roll: int
    level: str

    def text(self) -> str:
        return (f"{self.defender} parries with {item_label(self.item, self.defender)}: "
                f"{roll_text(self.roll, self.chance, self.level)}")


_DODGE_WORDS = {"prone": "by falling prone", "saddle": "by falling from the saddle",
                "none": "without disadvantage (fighting defensively)"}


@dataclass(frozen=True, slots=True)
class DodgeRolled(Event):
    defender: str
    chance: int
    roll: int
    level: str
    square: Square | None
    disadvantage: str  # H10/S10: "shift", "prone", "saddle" (a rider's fall) or "none"

    def text(self) -> str:
        how = _DODGE_WORDS.get(self.disadvantage, f"to {square_text(self.square)}")
        return f"{self.defender} dodges {how}: {roll_text(self.roll, self.chance, self.level)}"


@dataclass(frozen=True, slots=True)
class DamageDealt(Event):
    attacker: str
    target: str
    rolled: int
    dice: tuple[int, ...]
    parried: int
    dodged: int
    armour: int
    damage: int
    hp: int
    effect: str

    def text(self) -> str:
        faces = f" (dice {', '.join(str(d) for d in self.dice)})" if self.dice else ""
        stopped = [f"{what} {n}" for what, n in (("parried", self.parried),
                                                 ("dodged", self.dodged),
                                                 ("armour", self.armour)) if n]
        stops = f", {', '.join(stopped)}" if stopped else ""
        return (f"{self.target} takes {self.damage} damage from {self.attacker}, "
                f"{self.effect}: rolled {self.rolled}{faces}{stops} -> {self.hp} HP")


@dataclass(frozen=True, slots=True)
class ItemWorn(Event):
    owner: str
    item: str
    ap: int

    def text(self) -> str:
        return f"{self.owner}'s {item_label(self.item, self.owner)} loses 1 AP -> {self.ap} AP"


@dataclass(frozen=True, slots=True)
class ItemBroken(Event):
    owner: str
    item: str

    def text(self) -> str:
        return f"{self.owner}'s {item_label(self.item, self.owner)} breaks"


_ITEM_MOVES = {"ready": "readies", "sheathed": "sheathes", "carried": "stows",
               "nocked": "nocks", "loaded": "loads"}


@dataclass(frozen=True, slots=True)
class ItemMoved(Event):
    actor: str
    item: str
    state_from: str
    state_to: str
    square: Square | None

    def text(self) -> str:
        item = item_label(self.item, self.actor)
        if self.state_to == "ground":
            return f"{item_label(self.item)} lies on the ground at {square_text(self.square)}"
        if self.state_from == "ground":
            into = "in hand" if self.state_to == "ready" else "into the pack"
            return f"{self.actor} picks up {item} ({into})"
        return f"{self.actor} {_ITEM_MOVES.get(self.state_to, self.state_to)} {item}"


@dataclass(frozen=True, slots=True)
class StatusChanged(Event):
    actor: str
    status: str
    cause: str
    template: ClassVar[str] = "{actor} is {status} ({cause})"


@dataclass(frozen=True, slots=True)
class HitPointsChanged(Event):
    actor: str
    amount: int
    hp: int
    cause: str

    def text(self) -> str:
        verb = "gains" if self.amount >= 0 else "loses"
        return f"{self.actor} {verb} {abs(self.amount)} HP ({self.cause}) -> {self.hp} HP"


@dataclass(frozen=True, slots=True)
class Resisted(Event):
    actor: str
    purpose: str
    chance: int
    roll: int
    success: bool

    def text(self) -> str:
        level = "success" if self.success else "failure"
        return f"{self.actor} rolls {self.purpose}: {roll_text(self.roll, self.chance, level)}"


@dataclass(frozen=True, slots=True)
class SpellCast(Event):
    caster: str
    spell: str
    target: str | None
    chance: int
    roll: int
    level: str  # a success level, or "SCROLL" for a scroll read (no roll, no PP)
    cost: int

    def text(self) -> str:
        spell = item_label(self.spell)
        at = f" at {self.target}" if self.target is not None else ""
        if self.level == "SCROLL":
            return f"{self.caster} reads a scroll of {spell}{at} (no roll, no PP)"
        return (f"{self.caster} casts {spell}{at}: {roll_text(self.roll, self.chance, self.level)}"
                f" ({self.cost} PP)")


@dataclass(frozen=True, slots=True)
class Concentration(Event):
    actor: str
    what: str
    template: ClassVar[str] = "{actor}: {what}"


@dataclass(frozen=True, slots=True)
class DoorChanged(Event):
    actor: str
    square: Square
    open: bool

    def text(self) -> str:
        return f"{self.actor} {'opens' if self.open else 'closes'} the door at " \
            f"{square_text(self.square)}"


@dataclass(frozen=True, slots=True)
class Fell(Event):
    actor: str
    depth_ft: int
    rolled: int
    reduced: int
    damage: int
    template: ClassVar[str] = (
        "{actor} falls {depth_ft} ft: rolled {rolled}, reduced by {reduced} -> {damage} damage"
    )


@dataclass(frozen=True, slots=True)
class Spoke(Event):
    actor: str
    template: ClassVar[str] = "{actor} speaks"


@dataclass(frozen=True, slots=True)
class Reasoned(Event):
    """Why an agent chose the action that follows (``battle.apply(action, reason=...)``)."""

    actor: str
    reason: str
    template: ClassVar[str] = "{actor} reasons: {reason}"


@dataclass(frozen=True, slots=True)
class ManoeuvreDefeated(Event):
    """H19: a grapple, trip or disarm stopped by a successful parry or dodge (or by the
    target being out of reach after its dodge)."""

    attacker: str
    target: str
    manoeuvre: str
    defence: str  # "parry", "dodge" or "distance"

    def text(self) -> str:
        if self.defence == "distance":
            return f"{self.target} is out of reach of {self.attacker}'s {self.manoeuvre}"
        return f"{self.target}'s {self.defence} defeats {self.attacker}'s {self.manoeuvre}"


@dataclass(frozen=True, slots=True)
class BattleEnded(Event):
    winner: str | None
    reason: str

    def text(self) -> str:
        result = f"{self.winner} wins" if self.winner is not None else "a draw"
        return f"battle over: {result} ({self.reason})"


# ``slots=True`` makes each class anew; the class statement's first version can linger
# among ``Event.__subclasses__()`` until it is collected, so only the module's own count.
EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls for cls in Event.__subclasses__() if globals().get(cls.__name__) is cls
}


def event_to_dict(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(event).__name__}
    for f in fields(event):
        out[f.name] = _jsonable(getattr(event, f.name))
    return out


def event_from_dict(data: dict[str, Any]) -> Event:
    cls = EVENT_TYPES[data["type"]]
    kwargs = {f.name: _tuplify(data[f.name]) for f in fields(cls)}
    return cls(**kwargs)


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def _tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value
