"""Log lines read like a referee's (issue 7, part 6): no Python reprs (tuples, booleans,
None, list brackets), one name per item, readable squares and paths. One exact line per
event class, and every line of random battles on every shipped scenario checked for
leaks.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import rules
from rules import events as ev

EXAMPLES: dict[type[ev.Event], list[tuple[ev.Event, str]]] = {
    ev.BattleStarted: [(ev.BattleStarted(1, "duel", ("hero", "orc_1"), (11, 2)),
                        "battle 'duel' begins; initiative: hero 11, orc_1 2")],
    ev.RoundStarted: [(ev.RoundStarted(2), "--- round 2 ---")],
    ev.TurnStarted: [(ev.TurnStarted(1, "hero"), "hero's turn")],
    ev.TurnEnded: [(ev.TurnEnded(1, "hero"), "hero ends its turn")],
    ev.ActionTaken: [
        (ev.ActionTaken(1, "hero", "MELEE_ATTACK target=orc_1 item=hero.battle_axe"),
         "hero: attack orc_1 with battle axe"),
        (ev.ActionTaken(1, "hero", "MOVE square=(6, 3)"), "hero: move to (6, 3)"),
        (ev.ActionTaken(1, "m", "CAST_SPELL target=gob item=firebolt"),
         "m: cast firebolt at gob"),
        (ev.ActionTaken(1, "m", "USE_ITEM item=m.healing_potion"), "m: use healing potion"),
        (ev.ActionTaken(1, "hero", "PICK_UP item=gob.spear"), "hero: pick up gob's spear"),
        (ev.ActionTaken(1, "hero", "FIGHT_DEFENSIVELY"), "hero: fight defensively")],
    ev.Moved: [
        (ev.Moved(1, "hero", ((2, 2), (3, 2), (4, 3)), 2, True),
         "hero moves (2, 2) -> (3, 2) -> (4, 3) (cost 2)"),
        (ev.Moved(1, "hero", ((2, 2), (3, 2)), 1, False),
         "hero moves (2, 2) -> (3, 2) (cost 1, cut short)"),
        (ev.Moved(1, "hero", ((2, 2),), 0, False),
         "hero stays at (2, 2) (the move is cut short)")],
    ev.Provoked: [(ev.Provoked(1, "hero", "gob"), "hero provokes a Free Attack from gob")],
    ev.FreeAttackDeclined: [(ev.FreeAttackDeclined(1, "gob", "hero"), "gob lets hero go")],
    ev.AttackRolled: [
        (ev.AttackRolled(1, "dwarf", "orc", "battle_axe", "melee", 57, 44, "SUCCESS"),
         "dwarf attacks orc with battle axe: 44 vs 57% -> success"),
        (ev.AttackRolled(1, "gob", "hero", "spear", "free", 40, 10, "SUCCESS"),
         "gob takes a Free Attack at hero with spear: 10 vs 40% -> success"),
        (ev.AttackRolled(1, "a", "b", "grapple", "grapple", 50, 30, "SUCCESS"),
         "a tries to grapple b (grapple): 30 vs 50% -> success")],
    ev.SkillRolled: [(ev.SkillRolled(1, "hero", "ride", "mount", 35, 36, "FAILURE"),
                      "hero rolls ride (mount): 36 vs 35% -> failure")],
    ev.ParryRolled: [(ev.ParryRolled(1, "dwarf", "dwarf.battle_axe", 60, 30, "SUCCESS"),
                      "dwarf parries with battle axe: 30 vs 60% -> success")],
    ev.DodgeRolled: [
        (ev.DodgeRolled(1, "hero", 40, 20, "SUCCESS", (1, 2), "shift"),
         "hero dodges to (1, 2): 20 vs 40% -> success"),
        (ev.DodgeRolled(1, "hero", 40, 90, "FAILURE", None, "prone"),
         "hero dodges by falling prone: 90 vs 40% -> failure"),
        (ev.DodgeRolled(1, "r", 40, 20, "SUCCESS", None, "saddle"),
         "r dodges by falling from the saddle: 20 vs 40% -> success"),
        (ev.DodgeRolled(1, "hero", 40, 20, "SUCCESS", None, "none"),
         "hero dodges without disadvantage (fighting defensively): 20 vs 40% -> success")],
    ev.DamageDealt: [
        (ev.DamageDealt(1, "hero", "orc", 7, (6,), 0, 0, 3, 4, 3, "success"),
         "orc takes 4 damage from hero, success: rolled 7 (dice 6), armour 3 -> 3 HP"),
        (ev.DamageDealt(1, "hero", "orc", 9, (), 0, 0, 0, 9, -2, "critical"),
         "orc takes 9 damage from hero, critical: rolled 9 -> -2 HP")],
    ev.ItemWorn: [(ev.ItemWorn(1, "b", "b.buckler", 7), "b's buckler loses 1 AP -> 7 AP")],
    ev.ItemBroken: [(ev.ItemBroken(1, "b", "b.buckler"), "b's buckler breaks")],
    ev.ItemMoved: [
        (ev.ItemMoved(1, "hero", "hero.javelin.2", "ready", "ground", (5, 2)),
         "hero's javelin #2 lies on the ground at (5, 2)"),
        (ev.ItemMoved(1, "hero", "gob.spear", "ground", "ready", (3, 2)),
         "hero picks up gob's spear (in hand)"),
        (ev.ItemMoved(1, "hero", "hero.longsword", "ready", "sheathed", None),
         "hero sheathes longsword")],
    ev.StatusChanged: [(ev.StatusChanged(1, "orc", "out of action", "hit by hero"),
                        "orc is out of action (hit by hero)")],
    ev.HitPointsChanged: [(ev.HitPointsChanged(1, "orc", -1, 5, "bleeding"),
                           "orc loses 1 HP (bleeding) -> 5 HP")],
    ev.Resisted: [(ev.Resisted(1, "a", "trip (STR vs DEX)", 80, 81, False),
                   "a rolls trip (STR vs DEX): 81 vs 80% -> failure")],
    ev.SpellCast: [
        (ev.SpellCast(1, "m", "firebolt", "gob", 70, 20, "SUCCESS", 3),
         "m casts firebolt at gob: 20 vs 70% -> success (3 PP)"),
        (ev.SpellCast(1, "m", "heal", "m", 0, 0, "SCROLL", 0),
         "m reads a scroll of heal at m (no roll, no PP)")],
    ev.Concentration: [(ev.Concentration(1, "m", "casting bless (1/2)"),
                        "m: casting bless (1/2)")],
    ev.DoorChanged: [(ev.DoorChanged(1, "hero", (3, 1), True),
                      "hero opens the door at (3, 1)")],
    ev.Fell: [(ev.Fell(1, "hero", 20, 7, 3, 4),
               "hero falls 20 ft: rolled 7, reduced by 3 -> 4 damage")],
    ev.Spoke: [(ev.Spoke(1, "hero"), "hero speaks")],
    ev.Reasoned: [(ev.Reasoned(1, "hero", "closest enemy"), "hero reasons: closest enemy")],
    ev.ManoeuvreDefeated: [
        (ev.ManoeuvreDefeated(1, "a", "b", "trip", "parry"), "b's parry defeats a's trip"),
        (ev.ManoeuvreDefeated(1, "a", "b", "grapple", "distance"),
         "b is out of reach of a's grapple")],
    ev.BattleEnded: [
        (ev.BattleEnded(3, "party", "no other team has anyone in action"),
         "battle over: party wins (no other team has anyone in action)"),
        (ev.BattleEnded(30, None, "round limit 30 reached"),
         "battle over: a draw (round limit 30 reached)")],
}


def test_every_event_class_has_an_exact_example() -> None:
    assert set(EXAMPLES) == set(ev.EVENT_TYPES.values())


@pytest.mark.parametrize(("event", "line"), [x for xs in EXAMPLES.values() for x in xs],
                         ids=lambda x: type(x).__name__ if isinstance(x, ev.Event) else "")
def test_event_line(event: ev.Event, line: str) -> None:
    assert str(event) == f"[r{event.round}] {line}"
    assert ev.event_from_dict(ev.event_to_dict(event)) == event


LEAKS = [re.compile(p) for p in (
    r"\(\d+,\)",               # a one-element tuple
    r"\b(True|False|None)\b",  # Python literals
    r"[\[\]{}]",               # list, dict or format brackets
    r"np\.|int64",             # numpy reprs
    r"\w\.\w",                 # an item uid ("hero.longsword") instead of its label
    r"\w_\w+ \w",              # an item or skill id with underscores in running text
)]


def _leaks(line: str) -> list[str]:
    return [p.pattern for p in LEAKS if p.search(line)]


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_random_battle_lines_read_without_python_reprs(scenario: str) -> None:
    b = rules.Battle.from_scenario(scenario, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(600):  # enough decisions for most kinds of line to appear
        if b.is_over:
            break
        acts = b.legal_actions()
        b.apply(acts[int(rng.integers(len(acts)))])
    names = sorted((c.id for c in b.combatants.values()), key=len, reverse=True)
    for e in b.events:
        line = e.text()  # without the "[r3] " prefix
        for name in names:  # unit ids may hold underscores ("orc_1")
            line = line.replace(name, "X")
        assert not _leaks(line), (str(e), _leaks(line))
