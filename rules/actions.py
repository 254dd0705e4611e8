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

    # Members are singletons compared by identity: hash them in C (Enum's own __hash__
    # is a Python function, and kinds key the hottest dicts: specs, codec plans, agents'
    # groupings). Hash values are per process either way (str hashes are randomised).
    __hash__ = object.__hash__


K = ActionKind
#: The Action fields a kind may carry.
FIELDS = ("target", "square", "item")


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """Everything about one action kind in one row (see ``ACTION_SPECS``).

    ``category``: the budget slot (S2): move, attack, full, free, reaction, spell (the
    spell's casting time decides, H18) or none (END_TURN). ``provokes``: whether it
    provokes Free Attacks (S6; a melee attack with a fist, a spell and a failed mount
    are decided case by case in :func:`rules.frames.provokes`). ``fields``: the Action
    fields it may carry (any other is an ``IllegalActionError``). ``parameters``: its
    parameter space in the env's action codec (``env.spaces``). ``rules``: the rule IDs
    it implements. ``generator``: the legal-action generator group in
    :mod:`rules.legal` that lists it (kinds generated interleaved share a group; None
    for reactions, which their frame lists).

    ``frame``: the frame type (``rules.frames.FRAME_TYPES``) that carries the kind out
    once its budget is paid: ``move`` (a path walked square by square), ``act`` (its
    provoked Free Attacks, then its effect), ``ride`` (the Ride roll, whose failure
    provokes, then its effect, S13); None for END_TURN (no frame: the turn ends)
    and for the reactions (the frame waiting for one takes it). ``rate``: for a move
    frame, the movement rate its route may spend (``half`` or ``whole``, S7, S12, S14).
    ``destination``: its square is where the actor ends up (a move, a Shift, a dodge's
    shift). ``attack``: the attacks it rolls, as (weapon kind, ``AttackFrame`` mode)
    pairs: the mode (also the ``AttackRolled`` event's) it rolls with a melee or a
    missile weapon, the weapon kind deciding whether the attack is a missile one.
    ``manoeuvre``: an attack that does no damage but a resistance roll (H19)."""

    category: str
    provokes: bool
    fields: tuple[str, ...]
    parameters: tuple[str, ...]
    rules: tuple[str, ...]
    generator: str | None
    frame: str | None = "act"
    rate: str | None = None
    destination: bool = False
    attack: tuple[tuple[str, str], ...] = ()
    manoeuvre: bool = False


def _row(category: str, provokes: bool, fields: tuple[str, ...], parameters: tuple[str, ...],
         rules: tuple[str, ...], generator: str | None, **more: Any) -> ActionSpec:
    """One row of ``ACTION_SPECS`` (the first columns positional, to keep the table short;
    reactions have no frame of their own)."""
    if category == "reaction":
        more.setdefault("frame", None)
    return ActionSpec(category, provokes, fields, parameters, rules, generator, **more)


def _melee(mode: str) -> tuple[tuple[str, str], ...]:
    """The ``attack`` column of a kind that rolls ``mode`` (a melee attack)."""
    return (("melee", mode),)


T, SQ, IT = ("target",), ("square",), ("item",)
TI = ("target", "item")
#: One row per action kind, in the order legal actions are generated (turn actions
#: group by group, then the reactions). The env codec's blocks follow ActionKind order.
ACTION_SPECS: dict[ActionKind, ActionSpec] = {
    K.END_TURN: _row("none", False, (), (), ("S2",), "end_turn", frame=None),
    K.MOVE: _row("move", True, SQ, ("square:move",), ("S12", "S17", "H13"), "walk",
                 frame="move", rate="half", destination=True),
    K.FULL_MOVE: _row("full", True, SQ, ("square:full",), ("S14", "S17", "H13"), "walk",
                      frame="move", rate="whole", destination=True),
    K.DISENGAGE: _row("full", False, SQ, ("square:move",), ("S7", "S14"), "walk",
                      frame="move", rate="half", destination=True),
    K.SHIFT: _row("free", False, SQ, ("adjacent",), ("S7", "S16"), "shift", destination=True),
    K.MELEE_ATTACK: _row("attack", False, TI, ("target", "item:melee"), ("S4", "S15"),
                         "attacks", attack=_melee("melee")),
    K.MISSILE_ATTACK: _row("attack", True, TI, ("target", "item:missile"), ("S15", "H16"),
                           "attacks", attack=(("missile", "missile"),)),
    K.FIGHT_DEFENSIVELY: _row("attack", False, (), (), ("S10",), "attacks"),
    K.UNARMED_ATTACK: _row("attack", True, T, ("target",), ("S15", "H19"), "attacks",
                           attack=_melee("unarmed")),
    K.GRAPPLE: _row("attack", True, T, ("target",), ("H19",), "attacks",
                    attack=_melee("grapple"), manoeuvre=True),
    K.TRIP: _row("attack", True, T, ("target",), ("H19",), "attacks", attack=_melee("trip"),
                 manoeuvre=True),
    K.DISARM: _row("attack", True, T, ("target",), ("H19",), "attacks",
                   attack=_melee("disarm"), manoeuvre=True),
    K.FULL_ATTACK: _row("full", True, TI, ("target", "item:weapon"), ("S14", "H17"),
                        "attacks", attack=(("melee", "full_melee"), ("missile", "full_missile"))),
    K.COUP_DE_GRACE: _row("full", True, T, ("target",), ("S14", "H5"), "attacks"),
    K.CAST_SPELL: _row("spell", False, TI, ("spell", "target"), ("H18",), "spells"),
    K.USE_ITEM: _row("attack", True, TI, ("item:usable", "target|none"), ("S15",),
                     "use_item"),
    K.PREPARE_COMPONENTS: _row("free", False, (), (), ("S16", "H18"), "components"),
    K.READY_WEAPON: _row("move", False, IT, ("item:holdable",), ("S12", "H21"), "ready"),
    K.SHEATHE_WEAPON: _row("move", True, IT, ("item:holdable",), ("S12", "H21"), "sheathe"),
    K.PICK_UP: _row("move", True, IT, ("item:any",), ("S12", "H21"), "pick_up"),
    K.DROP_ITEM: _row("free", False, IT, ("item:any",), ("S16", "H21"), "drop"),
    K.NOCK_ARROW: _row("free", False, IT, ("item:nock",), ("S16", "H16"), "reload"),
    K.LOAD_CROSSBOW: _row("full", True, IT, ("item:wind",), ("S14", "H16"), "reload"),
    K.LIGHT_TORCH: _row("full", True, IT, ("item:torch",), ("S14", "H23"), "light_torch"),
    K.STAND_UP: _row("move", True, (), (), ("S12", "H15"), "stand_up"),
    K.FALL_PRONE: _row("free", False, (), (), ("S16", "H15"), "fall_prone"),
    K.OPEN_DOOR: _row("move", False, SQ, ("adjacent",), ("S12",), "doors"),
    K.CLOSE_DOOR: _row("move", False, SQ, ("adjacent",), ("S12",), "doors"),
    K.MOUNT: _row("move", False, T, ("target",), ("S13", "H22"), "mount", frame="ride"),
    K.DISMOUNT: _row("move", False, SQ, ("adjacent",), ("S13", "H22"), "dismount",
                     frame="ride"),
    K.FIRST_AID: _row("full", True, T, ("target",), ("S14", "H20"), "first_aid"),
    K.SPEAK: _row("free", False, (), (), ("S16", "H24"), "speak"),
    K.FREE_ATTACK: _row("reaction", False, TI, ("target", "item:melee"), ("S5",), None,
                        attack=_melee("free")),
    K.PARRY: _row("reaction", False, IT, ("item:holdable",), ("S8",), None),
    K.DODGE: _row("reaction", False, SQ, ("dodge",), ("S9", "H10"), None, destination=True),
    K.DECLINE: _row("reaction", False, (), (), ("S5", "S8", "S9"), None),
}
del T, SQ, IT, TI


def kinds_of(category: str) -> frozenset[ActionKind]:
    """The action kinds whose row has budget ``category``."""
    return frozenset(kind for kind, spec in ACTION_SPECS.items() if spec.category == category)


#: S12 MOVE actions, S14 FULL actions, S15 ATTACK actions, S16 FREE actions (from the table).
MOVE_ACTIONS = kinds_of("move")
FULL_ACTIONS = kinds_of("full")
ATTACK_ACTIONS = kinds_of("attack")
FREE_ACTIONS = kinds_of("free")
REACTIONS = kinds_of("reaction")
#: S6: actions that provoke Free Attacks (spells and failed mounts are decided case by case).
PROVOKING = frozenset(kind for kind, spec in ACTION_SPECS.items() if spec.provokes)


#: Kinds whose frame walks a path (``frame == "move"``), in table order.
WALKING_KINDS = tuple(kind for kind, spec in ACTION_SPECS.items() if spec.frame == "move")
#: Kinds whose square is where the actor ends up (moves, Shift, a dodge's shift).
DESTINATION_KINDS = tuple(kind for kind, spec in ACTION_SPECS.items() if spec.destination)
#: The turn actions among them (moves and Shift), in table order.
TURN_DESTINATION_KINDS = tuple(kind for kind in DESTINATION_KINDS
                               if ACTION_SPECS[kind].category != "reaction")


@dataclass(frozen=True, slots=True)
class AttackMode:
    """One ``AttackFrame`` mode, from the ``attack`` column of the kind that rolls it."""

    kind: ActionKind
    missile: bool
    manoeuvre: bool


#: Every attack mode (the ``mode`` of an ``AttackFrame`` and of its ``AttackRolled``
#: event): the kind that rolls it, whether it is a missile attack, and whether it is a
#: manoeuvre (H19).
ATTACK_MODES: dict[str, AttackMode] = {
    mode: AttackMode(kind, weapon_kind == "missile", spec.manoeuvre)
    for kind, spec in ACTION_SPECS.items() for weapon_kind, mode in spec.attack}
#: The melee modes (every mode but the missile ones).
MELEE_MODES = frozenset(mode for mode, spec in ATTACK_MODES.items() if not spec.missile)
#: H19: the manoeuvres' modes (hits that do no damage), in table order.
MANOEUVRES = tuple(mode for mode, spec in ATTACK_MODES.items() if spec.manoeuvre)
#: The kinds that roll a damaging attack (the ones ``rules.odds.attack_odds`` prices).
DAMAGING_ATTACKS = frozenset(kind for kind, spec in ACTION_SPECS.items()
                             if spec.attack and not spec.manoeuvre)


def attack_mode(kind: ActionKind, weapon_kind: str = "melee") -> str:
    """The ``AttackFrame`` mode ``kind`` rolls with a weapon of ``weapon_kind`` (melee or
    missile; a kind that rolls one mode only rolls it whatever the weapon)."""
    pairs = ACTION_SPECS[kind].attack
    return next((mode for reach, mode in pairs if reach == weapon_kind), pairs[0][1])


def category_of(kind: ActionKind) -> str:
    """The budget category of an action kind: move, attack, full, free, reaction, spell
    (CAST_SPELL: the spell's casting time decides) or none (END_TURN)."""
    return ACTION_SPECS[kind].category


def undeclared_field(action: Action) -> str | None:
    """The first field ``action`` sets that its kind does not carry, else None."""
    carried = ACTION_SPECS[action.kind].fields
    for name in FIELDS:
        if name not in carried and getattr(action, name) is not None:
            return name
    return None


@dataclass(frozen=True, slots=True)
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

    __hash__ = object.__hash__  # as ActionKind's


@dataclass(frozen=True, slots=True)
class DecisionSpec:
    """Everything about one decision kind in one row (see ``DECISION_SPECS``).

    ``answers``: the reaction kinds that answer it, DECLINE last (empty for TURN, whose
    answers are the turn actions of ``ACTION_SPECS``). ``defence``: the defence against a
    hit already rolled that it chooses (``parry`` or ``dodge``; None otherwise: the hit
    odds of ``rules.odds.pending_hit_odds`` apply to defences only). ``rules``: the rule
    IDs it implements. A kind's index in the env's observation is its row's position."""

    answers: tuple[ActionKind, ...]
    defence: str | None
    rules: tuple[str, ...]


#: One row per decision kind, in the env's index order. An agent that meets a decision
#: kind it has no rule for answers DECLINE when it is legal (every reaction decision
#: offers it), else the first legal action.
DECISION_SPECS: dict[DecisionKind, DecisionSpec] = {
    DecisionKind.TURN: DecisionSpec((), None, ("S2",)),
    DecisionKind.FREE_ATTACK: DecisionSpec((K.FREE_ATTACK, K.DECLINE), None, ("S5",)),
    DecisionKind.PARRY: DecisionSpec((K.PARRY, K.DECLINE), "parry", ("S8", "H9")),
    DecisionKind.DODGE: DecisionSpec((K.DODGE, K.DECLINE), "dodge", ("S9", "H10")),
}
#: The decisions that choose a defence against a hit already rolled (PARRY, DODGE).
DEFENCE_DECISIONS = frozenset(kind for kind, spec in DECISION_SPECS.items()
                              if spec.defence is not None)


def default_answer(legal: list[Action]) -> Action:
    """The answer to a decision one has no rule for: DECLINE when it is legal, else the
    first legal action."""
    return next((action for action in legal if action.kind is K.DECLINE), legal[0])


@dataclass(frozen=True, slots=True)
class Decision:
    """The decision the battle waits for. ``source`` is the combatant whose action or
    attack caused a reaction (None for TURN decisions)."""

    kind: DecisionKind
    actor: str
    source: str | None = None
