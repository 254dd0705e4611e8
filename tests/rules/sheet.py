"""Stock units and helpers for the sheet-rule tests (test_rules_s_*.py).

Every test builds a small inline scenario (``builders``), fixes initiative by seed search
and every die it depends on with ``battle.dice.force`` (faces are consumed in the order the
engine rolls them), plays actions and checks the exact outcome: who decides what, the
budget left, positions, HP and events.

Stock units: ``hero`` is a human warrior without armour (MOV 10, 5 squares per MOVE;
sword 75, shield 65, dodge 40, brawl 45; STR 14 + SIZ 13 -> damage bonus 1d4; 7 HP);
``gob`` is a goblin (spear 40, buckler, leather AP 2; STR 9 + SIZ 7 -> damage bonus
-1d4; 4 HP). A goblin's spear hit rolls d100, then 1d6 (spear 1d6+1), then 1d4 (bonus).
"""


from __future__ import annotations

from typing import Any

from builders import K, advance_to, arena, build, decline, of_type, play, unit

import rules
from rules import DecisionKind
from rules import events as ev
from rules.content import default_content

D = DecisionKind
RS = default_content().ruleset

MOVE_KINDS = {K.MOVE, K.FULL_MOVE, K.DISENGAGE}
ATTACK_KINDS = {K.MELEE_ATTACK, K.MISSILE_ATTACK, K.FIGHT_DEFENSIVELY, K.UNARMED_ATTACK,
                K.GRAPPLE, K.TRIP, K.DISARM, K.USE_ITEM}
FULL_KINDS = {K.FULL_MOVE, K.FULL_ATTACK, K.DISENGAGE, K.COUP_DE_GRACE, K.FIRST_AID,
              K.LIGHT_TORCH, K.LOAD_CROSSBOW}


def hero(at: tuple[int, int], uid: str = "hero", **kw: Any) -> dict[str, Any]:
    return unit(uid, "party", "human_warrior", at, **({"armour": "none"} | kw))


def gob(at: tuple[int, int], uid: str = "gob", **kw: Any) -> dict[str, Any]:
    return unit(uid, "monsters", "goblin", at, **kw)


def duel(hero_at=(2, 2), gob_at=(3, 2), order=("hero", "gob"), width=9, height=5,
         hero_kw=None, gob_kw=None, extra=()) -> rules.Battle:
    units = [hero(hero_at, **(hero_kw or {})), gob(gob_at, **(gob_kw or {})), *extra]
    return build(arena(width, height), units, order=list(order))


def decision(b: rules.Battle) -> tuple[D, str, str | None]:
    d = b.decision
    assert d is not None
    return d.kind, d.actor, d.source


def turn_of(b: rules.Battle, actor: str) -> None:
    assert decision(b) == (D.TURN, actor, None)


# ---------------------------------------------------------------- S6 action cases
def archer(at=(2, 2), **kw: Any) -> dict[str, Any]:
    return unit("shooter", "party", "human_archer", at, **kw)


def mage(at=(2, 2), **kw: Any) -> dict[str, Any]:
    return unit("mage", "party", "human_mage", at, **kw)


def setup_actor(actor_unit: dict[str, Any], *, order=None, extra=(), pre=()) -> rules.Battle:
    """``actor_unit`` at its square with ``gob`` adjacent on its right; ``pre`` actions
    (none of which may provoke) are played first."""
    x, y = actor_unit["at"]
    units = [actor_unit, gob((x + 1, y)), *extra]
    b = build(arena(9, 5), units, order=list(order or [actor_unit["id"]]))
    for a in pre:
        events = play(b, a)
        assert not of_type(events, ev.Provoked), a
    return b


def coup_de_grace_setup() -> rules.Battle:
    b = build(arena(9, 5), [hero((2, 2)), gob((3, 2)), gob((2, 3), uid="gob2", hp=1)],
              order=["hero", "gob", "gob2"])
    b.dice.force(10, 1, 1)  # hit gob2: 1d8+1 = 2, +1d4 = 1, leather 2 -> 1 damage
    play(b, (K.MELEE_ATTACK, {"target": "gob2"}))
    decline(b)
    assert b.combatants["gob2"].status == "out"
    play(b, (K.END_TURN, {}))
    advance_to(b, "hero")
    assert b.round == 2
    return b


def first_aid_setup() -> rules.Battle:
    b = build(arena(9, 5), [hero((2, 2), hp=20), gob((3, 2))], order=["gob", "hero"])
    b.dice.force(10, 4, 1)
    play(b, (K.MELEE_ATTACK, {"target": "hero"}))
    decline(b)
    assert b.combatants["hero"].hp == 16
    play(b, (K.END_TURN, {}))
    advance_to(b, "hero")
    return b


HERO_SWORD_TORCH = {"equipment": [{"item": "longsword", "state": "ready"}, "torch"]}
CROSSBOWMAN = {"equipment": [{"item": "light_crossbow", "state": "ready"},
                             {"item": "bolt", "count": 5}]}

PROVOKING_CASES: dict[str, tuple[Any, Any, str]] = {
    # name: (setup, provoking action (kind, fields), actor)
    "missile": (lambda: setup_actor(archer(), pre=[(K.NOCK_ARROW, {"item": "shooter.short_bow"})]),
                (K.MISSILE_ATTACK, {"target": "gob"}), "shooter"),
    "spell_casting": (lambda: setup_actor(mage()),
                      (K.CAST_SPELL, {"item": "firebolt", "target": "gob"}), "mage"),
    "use_potion": (lambda: setup_actor(mage()),
                   (K.USE_ITEM, {"item": "mage.healing_potion"}), "mage"),
    "use_scroll": (lambda: setup_actor(mage()),
                   (K.USE_ITEM, {"item": "mage.scroll_of_healing", "target": "mage"}), "mage"),
    "move": (lambda: setup_actor(hero((2, 2))), (K.MOVE, {"square": (1, 2)}), "hero"),
    "sheathe": (lambda: setup_actor(hero((2, 2))),
                (K.SHEATHE_WEAPON, {"item": "hero.longsword"}), "hero"),
    "stand_up": (lambda: setup_actor(hero((2, 2)), pre=[(K.FALL_PRONE, {})]),
                 (K.STAND_UP, {}), "hero"),
    "pick_up": (lambda: setup_actor(hero((2, 2)), pre=[(K.DROP_ITEM, {"item": "hero.torch"})]),
                (K.PICK_UP, {"item": "hero.torch"}), "hero"),
    "full_move": (lambda: setup_actor(hero((2, 2))), (K.FULL_MOVE, {"square": (1, 4)}), "hero"),
    "full_attack": (lambda: setup_actor(hero((2, 2))), (K.FULL_ATTACK, {"target": "gob"}), "hero"),
    "light_torch": (lambda: setup_actor(hero((2, 2), **HERO_SWORD_TORCH)),
                    (K.LIGHT_TORCH, {"item": "hero.torch"}), "hero"),
    "coup_de_grace": (coup_de_grace_setup, (K.COUP_DE_GRACE, {"target": "gob2"}), "hero"),
    "first_aid": (first_aid_setup, (K.FIRST_AID, {"target": "hero"}), "hero"),
    "load_crossbow": (lambda: setup_actor(archer(**CROSSBOWMAN)),
                      (K.LOAD_CROSSBOW, {"item": "shooter.light_crossbow"}), "shooter"),
    "unarmed": (lambda: setup_actor(hero((2, 2))), (K.UNARMED_ATTACK, {"target": "gob"}), "hero"),
    "grapple": (lambda: setup_actor(hero((2, 2))), (K.GRAPPLE, {"target": "gob"}), "hero"),
    "trip": (lambda: setup_actor(hero((2, 2))), (K.TRIP, {"target": "gob"}), "hero"),
    "disarm": (lambda: setup_actor(hero((2, 2))), (K.DISARM, {"target": "gob"}), "hero"),
    "failed_mount": (lambda: setup_actor(hero((2, 2)), extra=[unit("horse", "party", "horse",
                                                              (1, 2))]),
                     (K.MOUNT, {"target": "horse"}), "hero"),
    "failed_dismount": (lambda: setup_actor(hero((2, 2), riding="horse"),
                                       extra=[unit("horse", "party", "horse", (2, 2))]),
                        (K.DISMOUNT, {"square": (2, 1)}), "hero"),
}


def s6_quiet(actor_unit, action, pre=(), force=()) -> list[rules.Event]:
    b = setup_actor(actor_unit, pre=pre)
    b.dice.force(*force)
    events = play(b, action)
    events += decline(b)  # parries and dodges of the target, if any
    return events


NON_PROVOKING_CASES = {
    "armed_melee": (hero((2, 2)), (K.MELEE_ATTACK, {"target": "gob"}), (), (96,)),
    "fight_defensively": (hero((2, 2)), (K.FIGHT_DEFENSIVELY, {}), (), ()),
    "ready_weapon": (hero((2, 2), equipment=[{"item": "longsword", "state": "ready"},
                                             {"item": "dagger", "state": "sheathed"}]),
                     (K.READY_WEAPON, {"item": "hero.dagger"}), (), ()),
    "quick_spell": (mage(), (K.CAST_SPELL, {"item": "spark", "target": "gob"}), (), (96,)),
    "shift": (hero((2, 2)), (K.SHIFT, {"square": (1, 2)}), (), ()),
    "disengage": (hero((2, 2)), (K.DISENGAGE, {"square": (1, 2)}), (), ()),
    "drop": (hero((2, 2)), (K.DROP_ITEM, {"item": "hero.torch"}), (), ()),
    "fall_prone": (hero((2, 2)), (K.FALL_PRONE, {}), (), ()),
    "speak": (hero((2, 2)), (K.SPEAK, {}), (), ()),
    "nock": (archer(), (K.NOCK_ARROW, {"item": "shooter.short_bow"}), (), ()),
    "prepare_components": (mage(), (K.PREPARE_COMPONENTS, {}), (), ()),
}
