"""Helpers for the scripted house-rule tests (test_rules_h_*.py), on top of builders.py:
battles with exact initiative, and short ways to act, hit and read events."""


from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from builders import advance_to, decline, of_type, scenario_toml, unit

import rules
from rules import Action, ActionKind, DecisionKind
from rules import events as ev

K = ActionKind
D = DecisionKind

ROOM = """
#########
#.......#
#.......#
#.......#
#########
"""

BIG = """
###########
#.........#
#.........#
#.........#
#.........#
#.........#
#.........#
###########
"""


# ------------------------------------------------------------------ helpers
# builders.py (shared with the S tests) writes the scenarios; ``make`` adds exact
# initiative: the d12 of each unit (in unit order) is forced before the battle starts.
def make(units: Iterable[dict[str, Any]], map_text: str = ROOM, *, init: Iterable[int] = (),
         max_rounds: int = 10, seed: int = 1, content_dir: str | None = None,
         engine: str | None = None) -> rules.Battle:
    """A battle whose initiative d12s (one per unit, in unit order) are ``init``
    (``content_dir``: variant rules; ``engine``: as ``Battle.from_toml``)."""
    faces = list(init)

    text = scenario_toml(map_text.strip() + "\n", list(units), max_rounds)
    b = rules.Battle.from_toml(text, seed=seed, force=faces, content_dir=content_dir,
                               engine=engine)
    assert b.dice.forced == [], "every initiative face must be used"
    return b


def act(b: rules.Battle, kind: ActionKind, **kw: Any) -> list[ev.Event]:
    """Apply an action that must be legal now."""
    action = Action(kind, **kw)
    assert action in b.legal_actions(), f"{action} not legal for {b.decision}"
    return b.apply(action)


def decline_all(b: rules.Battle) -> list[ev.Event]:
    return decline(b)


def end_turn(b: rules.Battle) -> list[ev.Event]:
    return b.apply(Action(K.END_TURN))


def turn_of(b: rules.Battle, actor: str) -> list[ev.Event]:
    return advance_to(b, actor)


def next_turn(b: rules.Battle, actor: str) -> list[ev.Event]:
    """End the current turn, then play on until ``actor``'s next turn."""
    out = decline(b) + end_turn(b)
    return out + advance_to(b, actor)


def of(events: Iterable[ev.Event], cls: type) -> list[Any]:
    return of_type(events, cls)


def one(events: Iterable[ev.Event], cls: type) -> Any:
    found = of(events, cls)
    assert len(found) == 1, f"expected one {cls.__name__}, got {found}"
    return found[0]


def squares(b: rules.Battle, kind: ActionKind) -> set[tuple[int, int]]:
    return {a.square for a in b.legal_actions() if a.kind is kind and a.square is not None}


def used_up(b: rules.Battle) -> None:
    assert b.dice.forced == [], f"unused forced dice: {b.dice.forced}"


# A plain unarmoured human swordsman: STR 10 + SIZ 10 = 20 -> no damage bonus (H6).
def swordsman(uid: str, team: str, at: tuple[int, int], **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "characteristics": {"str": 10, "con": 10, "siz": 10, "dex": 10},
        "armour": "none",
        "equipment": [{"item": "longsword", "state": "ready"}],
        "skills": {"sword": 50, "dodge": 40, "shield": 50},
    }
    base.update(kw)
    return unit(uid, team, "human_warrior", at, **base)


def hit(b: rules.Battle, kind: ActionKind, target: str, item: str | None, *dice: int,
        **kw: Any) -> list[ev.Event]:
    """The turn owner attacks; the target declines every defence; ``dice`` are forced."""
    b.dice.force(*dice)
    out = act(b, kind, target=target, item=item, **kw)
    out += decline_all(b)
    return out


# A human mage (no damage bonus, H6) who casts at 70%.
def mage(uid: str, team: str, at: tuple[int, int], **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"characteristics": {"str": 10, "con": 10, "siz": 10, "dex": 10},
                            "skills": {"cast": 70, "dagger": 50, "dodge": 30}}
    base.update(kw)
    return unit(uid, team, "human_mage", at, **base)


# An unarmoured archer (STR 16 + SIZ 14 = 30 -> +1d4 damage bonus, H6) with 5 rounds.
def archer(uid: str, team: str, at: tuple[int, int], weapon: str = "short_bow",
            ammo: str = "arrow", **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "characteristics": {"str": 16, "siz": 14, "con": 10, "dex": 10},
        "armour": "none",
        "equipment": [{"item": weapon, "state": "ready"}, {"item": ammo, "count": 5}],
        "skills": {"bow": 50, "crossbow": 50, "sling": 50, "throw": 50, "dodge": 30},
    }
    base.update(kw)
    return unit(uid, team, "human_archer", at, **base)
