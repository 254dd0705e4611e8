"""Typed, frozen event records. ``Battle.apply`` returns them; logs, replays, renderers
and statistics read them and never recompute rules. Each carries the dice already rolled.

``str(event)`` is one readable log line; :func:`event_to_dict` / :func:`event_from_dict`
round-trip events through JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

Square = tuple[int, int]


@dataclass(frozen=True)
class Event:
    round: int
    template: ClassVar[str] = "{name}"

    def __str__(self) -> str:
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return f"[r{self.round}] " + self.template.format(name=type(self).__name__, **values)


@dataclass(frozen=True)
class BattleStarted(Event):
    scenario: str
    order: tuple[str, ...]
    initiative: tuple[int, ...]
    template: ClassVar[str] = "battle '{scenario}' begins; initiative order {order}"


@dataclass(frozen=True)
class RoundStarted(Event):
    template: ClassVar[str] = "--- round {round} ---"


@dataclass(frozen=True)
class TurnStarted(Event):
    actor: str
    template: ClassVar[str] = "{actor}'s turn"


@dataclass(frozen=True)
class TurnEnded(Event):
    actor: str
    template: ClassVar[str] = "{actor} ends its turn"


@dataclass(frozen=True)
class ActionTaken(Event):
    actor: str
    action: str
    template: ClassVar[str] = "{actor}: {action}"


@dataclass(frozen=True)
class Moved(Event):
    actor: str
    path: tuple[Square, ...]
    cost: int
    complete: bool
    template: ClassVar[str] = "{actor} moves {path} (cost {cost}, complete={complete})"


@dataclass(frozen=True)
class Provoked(Event):
    actor: str
    enemy: str
    template: ClassVar[str] = "{actor} provokes a Free Attack from {enemy}"


@dataclass(frozen=True)
class FreeAttackDeclined(Event):
    enemy: str
    actor: str
    template: ClassVar[str] = "{enemy} lets {actor} go"


@dataclass(frozen=True)
class AttackRolled(Event):
    attacker: str
    target: str
    weapon: str
    mode: str
    chance: int
    roll: int
    level: str
    template: ClassVar[str] = (
        "{attacker} attacks {target} with {weapon} ({mode}): {roll} vs {chance} -> {level}"
    )


@dataclass(frozen=True)
class SkillRolled(Event):
    actor: str
    skill: str
    purpose: str
    chance: int
    roll: int
    level: str
    template: ClassVar[str] = "{actor} rolls {skill} for {purpose}: {roll} vs {chance} -> {level}"


@dataclass(frozen=True)
class ParryRolled(Event):
    defender: str
    item: str
    chance: int
    roll: int
    level: str
    template: ClassVar[str] = "{defender} parries with {item}: {roll} vs {chance} -> {level}"


@dataclass(frozen=True)
class DodgeRolled(Event):
    defender: str
    chance: int
    roll: int
    level: str
    square: Square | None
    disadvantage: str  # H10/S10: "shift", "prone", "saddle" (a rider's fall) or "none"
    template: ClassVar[str] = "{defender} dodges to {square}: {roll} vs {chance} -> {level}"

    def __str__(self) -> str:
        if self.square is not None:
            return super().__str__()
        return (f"[r{self.round}] {self.defender} dodges by falling prone: {self.roll} vs "
                f"{self.chance} -> {self.level}")


@dataclass(frozen=True)
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
    template: ClassVar[str] = (
        "{target} takes {damage} from {attacker} (rolled {rolled} {dice}, parried {parried},"
        " dodged {dodged}, armour {armour}; {effect}) -> {hp} HP"
    )


@dataclass(frozen=True)
class ManoeuvreDefeated(Event):
    """H19: a grapple, trip or disarm stopped by a successful parry or dodge (or by the
    target being out of reach after its dodge)."""

    attacker: str
    target: str
    manoeuvre: str
    defence: str
    template: ClassVar[str] = "{target}'s {defence} defeats {attacker}'s {manoeuvre}"


@dataclass(frozen=True)
class ItemWorn(Event):
    owner: str
    item: str
    ap: int
    template: ClassVar[str] = "{owner}'s {item} loses 1 AP -> {ap}"


@dataclass(frozen=True)
class ItemBroken(Event):
    owner: str
    item: str
    template: ClassVar[str] = "{owner}'s {item} breaks"


@dataclass(frozen=True)
class ItemMoved(Event):
    actor: str
    item: str
    state_from: str
    state_to: str
    square: Square | None
    template: ClassVar[str] = "{actor}'s {item}: {state_from} -> {state_to}"


@dataclass(frozen=True)
class StatusChanged(Event):
    actor: str
    status: str
    cause: str
    template: ClassVar[str] = "{actor} is {status} ({cause})"


@dataclass(frozen=True)
class HitPointsChanged(Event):
    actor: str
    amount: int
    hp: int
    cause: str
    template: ClassVar[str] = "{actor} {amount:+d} HP ({cause}) -> {hp} HP"


@dataclass(frozen=True)
class Resisted(Event):
    actor: str
    purpose: str
    chance: int
    roll: int
    success: bool
    template: ClassVar[str] = "{actor} resists {purpose}: {roll} vs {chance} -> {success}"


@dataclass(frozen=True)
class SpellCast(Event):
    caster: str
    spell: str
    target: str | None
    chance: int
    roll: int
    level: str
    cost: int
    template: ClassVar[str] = (
        "{caster} casts {spell} at {target}: {roll} vs {chance} -> {level} ({cost} PP)"
    )


@dataclass(frozen=True)
class Concentration(Event):
    actor: str
    what: str
    template: ClassVar[str] = "{actor}: {what}"


@dataclass(frozen=True)
class DoorChanged(Event):
    actor: str
    square: Square
    open: bool
    template: ClassVar[str] = "{actor} sets the door at {square} open={open}"


@dataclass(frozen=True)
class Fell(Event):
    actor: str
    depth_ft: int
    rolled: int
    reduced: int
    damage: int
    template: ClassVar[str] = (
        "{actor} falls {depth_ft} ft: rolled {rolled}, reduced {reduced} -> {damage} damage"
    )


@dataclass(frozen=True)
class Spoke(Event):
    actor: str
    template: ClassVar[str] = "{actor} speaks"


@dataclass(frozen=True)
class Reasoned(Event):
    """Why an agent chose the action that follows (``battle.apply(action, reason=...)``)."""

    actor: str
    reason: str
    template: ClassVar[str] = "{actor} reasons: {reason}"


@dataclass(frozen=True)
class BattleEnded(Event):
    winner: str | None
    reason: str
    template: ClassVar[str] = "battle over: winner {winner} ({reason})"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls for cls in Event.__subclasses__()
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
