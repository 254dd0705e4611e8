"""Shared helpers for scripted battles in the rules tests (S- and H-rule tests).

Small, stable API::

    from builders import arena, unit, build, find, has, kinds, play, advance_to
    # (tests/rules is on sys.path under pytest; `tests.rules.builders` also works with
    # `python -m pytest`)

    b = build(arena(7, 5), [unit("hero", "party", "human_warrior", (1, 1)),
                            unit("gob", "monsters", "goblin", (2, 1))],
              order=["hero", "gob"])          # first decision: hero's TURN
    b.dice.force(10, 3, 2)                     # next die faces (any die), in engine order
    events = play(b, find(b, K.MELEE_ATTACK, target="gob"))
    of_type(events, AttackRolled)

- ``arena(w, h, rows=None)``: a map text (walls around ``w`` x ``h`` floor, or given rows).
- ``unit(id, team, creature, at, **overrides)``: a unit table (scenario keys: race,
  characteristics, skills, equipment, armour, armour_training, hp, riding, spells).
- ``build(map_text, units, seed=0, order=None, max_rounds=30, content_dir=None)``: a
  Battle. ``order`` (a prefix of ids) makes it search seeds from ``seed`` until the
  initiative order starts so; ``content_dir`` replaces rules/data.
- ``find(b, kind, **fields)``: the one legal action of ``kind`` matching ``fields``
  (target, square, item); AssertionError naming the legal actions otherwise.
- ``has(b, kind, **fields)``: whether such a legal action exists; ``kinds(b)``: legal kinds.
- ``play(b, *actions)``: apply actions (each an Action, or a ``(kind, fields)`` pair found
  with ``find``) and return all new events.
- ``decline(b)``: answer reactions with DECLINE until a TURN decision (or the end).
- ``advance_to(b, actor)``: END_TURN (and decline reactions) until ``actor``'s TURN.
- ``of_type(events, cls)``: the events of one class.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import rules
from rules import Action, ActionKind, Battle, DecisionKind

K = ActionKind
Square = tuple[int, int]

__all__ = [
    "K",
    "advance_to",
    "arena",
    "build",
    "decline",
    "find",
    "has",
    "kinds",
    "of_type",
    "play",
    "scenario_toml",
    "unit",
]


def arena(width: int = 7, height: int = 5, rows: Sequence[str] | None = None) -> str:
    """A map: ``rows`` verbatim, or ``width`` x ``height`` floor inside a wall border."""
    if rows is None:
        rows = ["." * width] * height
        rows = ["#" * (width + 2)] + [f"#{r}#" for r in rows] + ["#" * (width + 2)]
    return "\n".join(rows) + "\n"


def unit(uid: str, team: str, creature: str, at: Square, **overrides: Any) -> dict[str, Any]:
    """One ``[[units]]`` table. Keyword overrides use the scenario's unit keys."""
    return {"id": uid, "team": team, "creature": creature, "at": list(at), **overrides}


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} as TOML")


def scenario_toml(
    map_text: str, units: Iterable[dict[str, Any]], max_rounds: int = 30, name: str = "test"
) -> str:
    """The scenario TOML text for ``map_text`` and ``units``."""
    lines = [f'name = "{name}"', f"max_rounds = {max_rounds}", f'map = """\n{map_text}"""']
    for u in units:
        lines.append("[[units]]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in u.items()]
    return "\n".join(lines) + "\n"


def build(
    map_text: str,
    units: Iterable[dict[str, Any]],
    seed: int = 0,
    order: Sequence[str] | None = None,
    max_rounds: int = 30,
    tries: int = 2000,
    content_dir: str | None = None,
) -> Battle:
    """Build a battle; with ``order``, the first seed from ``seed`` whose initiative order
    starts with ``order``. ``content_dir``: a replacement for rules/data (variant rules)."""
    text = scenario_toml(map_text, list(units), max_rounds)
    for s in range(seed, seed + (tries if order else 1)):
        b = Battle.from_toml(text, seed=s, content_dir=content_dir)
        if not order or list(b.initiative_order[: len(order)]) == list(order):
            return b
    raise AssertionError(f"no seed in [{seed}, {seed + tries}) gives order {order}")


def _matches(a: Action, kind: ActionKind, fields: dict[str, Any]) -> bool:
    if a.kind is not kind:
        return False
    for k, v in fields.items():
        got = getattr(a, k)
        if k == "square" and v is not None:
            v = tuple(v)
        if got != v:
            return False
    return True


def find(b: Battle, kind: ActionKind, **fields: Any) -> Action:
    """The single legal action of ``kind`` whose fields match; the first if several."""
    acts = [a for a in b.legal_actions() if _matches(a, kind, fields)]
    if not acts:
        legal = ", ".join(str(a) for a in b.legal_actions())
        raise AssertionError(f"no legal {kind.name} {fields} for {b.decision}; legal: {legal}")
    return acts[0]


def has(b: Battle, kind: ActionKind, **fields: Any) -> bool:
    return any(_matches(a, kind, fields) for a in b.legal_actions())


def kinds(b: Battle) -> set[ActionKind]:
    return {a.kind for a in b.legal_actions()}


def play(b: Battle, *actions: Action | tuple[ActionKind, dict[str, Any]]) -> list[rules.Event]:
    """Apply each action in turn; return every new event."""
    out: list[rules.Event] = []
    for a in actions:
        if not isinstance(a, Action):
            kind, fields = a
            a = find(b, kind, **fields)
        out += b.apply(a)
    return out


def decline(b: Battle) -> list[rules.Event]:
    """Decline reactions (Free Attacks, parries, dodges) until a TURN decision."""
    out: list[rules.Event] = []
    while b.decision is not None and b.decision.kind is not DecisionKind.TURN:
        out += b.apply(Action(K.DECLINE))
    return out


def advance_to(b: Battle, actor: str, limit: int = 200) -> list[rules.Event]:
    """End turns (declining reactions) until ``actor`` has a TURN decision."""
    out: list[rules.Event] = []
    for _ in range(limit):
        out += decline(b)
        d = b.decision
        if d is None:
            raise AssertionError(f"battle ended before {actor}'s turn")
        if d.actor == actor and d.kind is DecisionKind.TURN:
            return out
        out += b.apply(Action(K.END_TURN))
    raise AssertionError(f"{actor} got no turn within {limit} decisions")


def of_type(events: Iterable[rules.Event], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]
