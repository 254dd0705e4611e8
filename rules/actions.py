"""Actions, decisions and the action economy's categories (S2, S6, S12-S16)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

Square = tuple[int, int]


class ActionKind(Enum):
    """One member per action of the sheet, plus the reactions (DESIGN.md)."""

    END_TURN = "end_turn"
    MOVE = "move"
    FULL_MOVE = "full_move"
    DISENGAGE = "disengage"
    SHIFT = "shift"
    MELEE_ATTACK = "melee_attack"
    MISSILE_ATTACK = "missile_attack"
    CAST_SPELL = "cast_spell"
    USE_ITEM = "use_item"
    FIGHT_DEFENSIVELY = "fight_defensively"
    FULL_ATTACK = "full_attack"
    UNARMED_ATTACK = "unarmed_attack"
    GRAPPLE = "grapple"
    TRIP = "trip"
    DISARM = "disarm"
    COUP_DE_GRACE = "coup_de_grace"
    FIRST_AID = "first_aid"
    READY_WEAPON = "ready_weapon"
    SHEATHE_WEAPON = "sheathe_weapon"
    STAND_UP = "stand_up"
    OPEN_DOOR = "open_door"
    CLOSE_DOOR = "close_door"
    MOUNT = "mount"
    DISMOUNT = "dismount"
    PICK_UP = "pick_up"
    LIGHT_TORCH = "light_torch"
    LOAD_CROSSBOW = "load_crossbow"
    DROP_ITEM = "drop_item"
    FALL_PRONE = "fall_prone"
    PREPARE_COMPONENTS = "prepare_components"
    NOCK_ARROW = "nock_arrow"
    SPEAK = "speak"
    FREE_ATTACK = "free_attack"
    PARRY = "parry"
    DODGE = "dodge"
    DECLINE = "decline"


K = ActionKind

#: S12 MOVE actions, S14 FULL actions, S15 ATTACK actions, S16 FREE actions.
MOVE_ACTIONS = frozenset({K.MOVE, K.READY_WEAPON, K.SHEATHE_WEAPON, K.STAND_UP, K.OPEN_DOOR,
                          K.CLOSE_DOOR, K.MOUNT, K.DISMOUNT, K.PICK_UP})
FULL_ACTIONS = frozenset({K.FULL_MOVE, K.FULL_ATTACK, K.DISENGAGE, K.LIGHT_TORCH,
                          K.COUP_DE_GRACE, K.FIRST_AID, K.LOAD_CROSSBOW})
ATTACK_ACTIONS = frozenset({K.MELEE_ATTACK, K.MISSILE_ATTACK, K.USE_ITEM, K.FIGHT_DEFENSIVELY,
                            K.UNARMED_ATTACK, K.GRAPPLE, K.TRIP, K.DISARM})
FREE_ACTIONS = frozenset({K.SHIFT, K.DROP_ITEM, K.FALL_PRONE, K.PREPARE_COMPONENTS,
                          K.NOCK_ARROW, K.SPEAK})
REACTIONS = frozenset({K.FREE_ATTACK, K.PARRY, K.DODGE, K.DECLINE})
#: S6: actions that provoke Free Attacks (spells and failed mounts are decided case by case).
PROVOKING = frozenset({K.MISSILE_ATTACK, K.USE_ITEM, K.MOVE, K.SHEATHE_WEAPON, K.STAND_UP,
                       K.PICK_UP, K.FULL_MOVE, K.FULL_ATTACK, K.LIGHT_TORCH, K.COUP_DE_GRACE,
                       K.FIRST_AID, K.LOAD_CROSSBOW, K.UNARMED_ATTACK, K.GRAPPLE, K.TRIP,
                       K.DISARM})


def category_of(kind: ActionKind) -> str:
    """The budget category of an action kind: move, attack, full, free or reaction.

    CAST_SPELL depends on the spell's casting time and is not covered here.
    """
    if kind in MOVE_ACTIONS:
        return "move"
    if kind in FULL_ACTIONS:
        return "full"
    if kind in ATTACK_ACTIONS:
        return "attack"
    if kind in FREE_ACTIONS:
        return "free"
    if kind in REACTIONS:
        return "reaction"
    return "none"


@dataclass(frozen=True)
class Action:
    """An action: a kind plus its parameters.

    ``target`` is a combatant id, ``square`` an (x, y) square, ``item`` an item uid (for
    CAST_SPELL the spell id, for USE_ITEM the potion or scroll uid). A DODGE carries the
    square shifted to, or ``None`` for no shift: falling prone (from the saddle for a
    rider), or no disadvantage at all under Fight Defensively (H10, S10).
    """

    kind: ActionKind
    target: str | None = None
    square: Square | None = None
    item: str | None = None

    def __str__(self) -> str:
        parts = [self.kind.name]
        if self.target is not None:
            parts.append(f"target={self.target}")
        if self.square is not None:
            parts.append(f"square={self.square}")
        if self.item is not None:
            parts.append(f"item={self.item}")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "target": self.target,
            "square": list(self.square) if self.square is not None else None,
            "item": self.item,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Action:
        sq = data.get("square")
        return cls(
            ActionKind(data["kind"]),
            data.get("target"),
            tuple(sq) if sq is not None else None,  # type: ignore[arg-type]
            data.get("item"),
        )


class DecisionKind(Enum):
    """Who decides what: the turn owner, or a reacting combatant (S5, S8, S9)."""

    TURN = "turn"
    FREE_ATTACK = "free_attack"
    PARRY = "parry"
    DODGE = "dodge"


@dataclass(frozen=True)
class Decision:
    """The decision the battle waits for. ``source`` is the combatant whose action or
    attack caused a reaction (None for TURN decisions)."""

    kind: DecisionKind
    actor: str
    source: str | None = None
