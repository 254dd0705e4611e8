"""House rules H19-H25 in scripted battles: manoeuvres, first aid, items, mounts, light,
speech, ending (H18, spells, is in test_rules_h_spells.py).

Every test builds a small inline scenario, fixes initiative and every die it needs and
checks the exact outcome: decisions, HP, positions and events.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import decline, kinds, unit
from scripted import (
    BIG,
    D,
    K,
    act,
    archer,
    end_turn,
    hit,
    mage,
    make,
    next_turn,
    of,
    one,
    squares,
    swordsman,
    turn_of,
    used_up,
)

import rules
from rules import Action
from rules import events as ev


# ================================================================== H19 unarmed, manoeuvres
def _brawlers() -> rules.Battle:
    return make([swordsman("a", "party", (2, 2), equipment=[],
                           characteristics={"str": 16, "siz": 14, "con": 10, "dex": 10},
                           skills={"brawl": 50, "grapple": 50, "sword": 50}),
                 swordsman("b", "monsters", (3, 2), hp=20)], init=(12, 1))


def test_H19_unarmed_attack_is_d3_plus_damage_bonus_and_provokes() -> None:
    b = _brawlers()
    events = hit(b, K.UNARMED_ATTACK, "b", None, 30, 2, 3)  # d3 2 + d4 3
    assert one(events, ev.Provoked).enemy == "b"
    assert one(events, ev.AttackRolled).mode == "unarmed"
    dmg = one(events, ev.DamageDealt)
    assert (dmg.rolled, dmg.dice, dmg.damage) == (5, (2, 3), 5)
    used_up(b)


@pytest.mark.parametrize(("resist_roll", "held"), [(80, True), (81, False)])
def test_H19_grapple_attack_roll_then_str_vs_str(resist_roll: int, held: bool) -> None:
    b = _brawlers()
    events = hit(b, K.GRAPPLE, "b", None, 30, resist_roll)
    assert one(events, ev.AttackRolled).weapon == "grapple"
    res = one(events, ev.Resisted)
    assert (res.chance, res.success) == (80, held)  # 50 + 5 x (16 - 10)
    assert (b.combatants["b"].grappled_by == "a") is held
    next_turn(b, "b")
    assert (K.MOVE in kinds(b)) is not held
    used_up(b)


def test_H19_grappled_combatant_breaks_free_with_its_own_grapple() -> None:
    b = _brawlers()
    hit(b, K.GRAPPLE, "b", None, 30, 50)
    assert b.combatants["b"].grappled_by == "a"
    next_turn(b, "b")
    assert not kinds(b) & {K.MOVE, K.SHIFT, K.FULL_MOVE, K.DISENGAGE}
    # b's grapple 35 (stat block) rolls 20; STR 10 vs 16 -> 20%: 15 succeeds
    events = hit(b, K.GRAPPLE, "a", None, 20, 15)
    assert one(events, ev.Resisted).chance == 20
    assert b.combatants["b"].grappled_by is None
    assert K.MOVE in kinds(b)
    used_up(b)


def test_H19_failed_grapple_attack_roll_skips_the_resistance_roll() -> None:
    b = _brawlers()
    events = hit(b, K.GRAPPLE, "b", None, 60)
    assert not of(events, ev.Resisted) and b.combatants["b"].grappled_by is None
    used_up(b)


@pytest.mark.parametrize(("resist_roll", "prone"), [(80, True), (81, False)])
def test_H19_trip_is_str_vs_dex(resist_roll: int, prone: bool) -> None:
    b = _brawlers()
    b.combatants["b"].characteristics["dex"] = 10
    events = hit(b, K.TRIP, "b", None, 30, resist_roll)
    res = one(events, ev.Resisted)
    assert (res.purpose, res.chance) == ("trip (STR vs DEX)", 80)
    assert b.combatants["b"].prone is prone
    used_up(b)


def test_H19_disarm_drops_the_targets_weapon_in_its_square() -> None:
    b = make([swordsman("a", "party", (2, 2),
                        characteristics={"str": 16, "siz": 14, "con": 10, "dex": 10}),
              swordsman("b", "monsters", (3, 2))], init=(12, 1))
    events = hit(b, K.DISARM, "b", None, 30, 50)
    assert one(events, ev.AttackRolled).weapon == "sword"  # with the attacker's weapon skill
    assert one(events, ev.Resisted).chance == 80
    assert b.combatants["b"].item("b.longsword") is None
    assert [(g.uid, g.square) for g in b.ground] == [("b.longsword", (3, 2))]
    assert not b.combatants["b"].threatens
    used_up(b)


# ================================================================== H20 first aid
def test_H20_first_aid_is_full_adjacent_and_heals_1d3() -> None:
    b = make([swordsman("a", "party", (2, 2), skills={"first_aid": 50}),
              swordsman("near", "party", (3, 3), hp=10), swordsman("far", "party", (4, 2)),
              swordsman("z", "monsters", (7, 1))], init=(12, 6, 5, 1))
    b.combatants["near"].hp = 4
    b.combatants["far"].hp = 1
    targets = {a.target for a in b.legal_actions() if a.kind is K.FIRST_AID}
    assert targets == {"near"}  # far is 2 squares away; a itself is unhurt
    b.dice.force(30, 3)
    events = act(b, K.FIRST_AID, target="near")
    assert one(events, ev.SkillRolled).skill == "first_aid"
    assert b.combatants["near"].hp == 7 and b.combatants["a"].actions_used == ["full"]
    next_turn(b, "a")
    b.dice.force(60)  # a failure heals nothing
    act(b, K.FIRST_AID, target="near")
    assert b.combatants["near"].hp == 7
    used_up(b)


def test_H20_first_aid_never_heals_above_maximum() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("near", "party", (3, 2), hp=10),
              swordsman("z", "monsters", (7, 1))], init=(12, 6, 1))
    b.combatants["near"].hp = 9
    b.dice.force(10, 3)
    events = act(b, K.FIRST_AID, target="near")
    assert one(events, ev.HitPointsChanged).amount == 1 and b.combatants["near"].hp == 10


# ================================================================== H21 items
def test_H21_items_weigh_in_stones_and_count_towards_encumbrance() -> None:
    gear = [{"item": "longsword", "state": "ready"}, {"item": "rope", "count": 3}]
    b = make([swordsman("a", "party", (1, 1), equipment=gear, armour="leather",
                        armour_training="light"),
              swordsman("z", "monsters", (7, 3))], init=(12, 1))
    a = b.combatants["a"]
    assert a.load_stones == pytest.approx(0.15 + 3 * 0.7 + 0.7)
    events = act(b, K.DROP_ITEM, item="a.rope")
    assert one(events, ev.ItemMoved).state_to == "ground"
    assert a.load_stones == pytest.approx(0.15 + 0.7)  # the whole stack of 3 left


def test_H21_hands_limit_what_can_be_readied() -> None:
    gear = [{"item": "longsword", "state": "ready"}, {"item": "buckler", "state": "ready"},
            {"item": "greatsword", "state": "sheathed"}, {"item": "dagger", "state": "sheathed"}]
    b = make([swordsman("a", "party", (1, 1), equipment=gear),
              swordsman("z", "monsters", (7, 3))], init=(12, 1))
    assert not any(a.kind is K.READY_WEAPON for a in b.legal_actions())  # both hands full
    act(b, K.DROP_ITEM, item="a.buckler")
    ready = {a.item for a in b.legal_actions() if a.kind is K.READY_WEAPON}
    assert ready == {"a.dagger"}  # one free hand: not the two-handed greatsword
    act(b, K.SHEATHE_WEAPON, item="a.longsword")
    assert b.combatants["a"].item("a.longsword").state == "sheathed"
    ready = {a.item for a in b.legal_actions() if a.kind is K.READY_WEAPON}
    assert ready == {"a.dagger", "a.greatsword", "a.longsword"}
    events = act(b, K.READY_WEAPON, item="a.greatsword")
    moved = one(events, ev.ItemMoved)
    assert (moved.state_from, moved.state_to) == ("sheathed", "ready")
    assert b.combatants["a"].hands_used() == 2


def test_H21_drop_is_free_once_per_turn_and_lies_in_the_square() -> None:
    b = make([swordsman("a", "party", (2, 2), equipment=[
        {"item": "longsword", "state": "ready"}, {"item": "dagger", "state": "sheathed"}]),
        swordsman("b", "monsters", (3, 2))], init=(12, 1))
    events = act(b, K.DROP_ITEM, item="a.dagger")
    assert not of(events, ev.Provoked)  # a FREE action does not provoke
    assert [(g.uid, g.state, g.square) for g in b.ground] == [("a.dagger", "ground", (2, 2))]
    a = b.combatants["a"]
    assert a.actions_used == [] and K.DROP_ITEM not in kinds(b)
    assert {K.MELEE_ATTACK, K.MOVE, K.FULL_ATTACK} <= kinds(b)


def test_H21_pick_up_is_a_move_action_and_provokes() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=20)],
             init=(12, 1))
    hit(b, K.MELEE_ATTACK, "b", "a.longsword", 99)  # fumble: the sword is on the ground
    next_turn(b, "a")
    assert Action(K.PICK_UP, item="a.longsword") in b.legal_actions()
    events = act(b, K.PICK_UP, item="a.longsword")
    assert one(events, ev.Provoked).enemy == "b"
    assert b.combatants["a"].item("a.longsword") is None  # not yet: the Free Attack first
    events = decline(b)
    moved = one(events, ev.ItemMoved)
    assert (moved.item, moved.state_from, moved.state_to) == ("a.longsword", "ground", "ready")
    assert b.ground == [] and b.combatants["a"].actions_used == ["move"]
    assert K.MELEE_ATTACK in kinds(b)


# ================================================================== H22 mounts
def _riders() -> rules.Battle:
    return make([swordsman("r", "party", (1, 1), riding="h", skills={"ride": 60}),
                 unit("h", "party", "horse", (1, 1)),
                 swordsman("z", "monsters", (9, 6))], BIG, init=(10, 12, 1))


def test_H22_rider_shares_the_square_and_moves_with_the_mounts_mov() -> None:
    b = _riders()
    r, h = b.combatants["r"], b.combatants["h"]
    assert r.position == h.position == (1, 1) and r.riding == "h" and h.ridden_by == "r"
    assert h.move_squares == 6 and r.move_squares == 5
    dests = squares(b, K.MOVE)
    assert (7, 1) in dests and (8, 1) not in dests  # the horse's 6, not the rider's 5
    events = act(b, K.MOVE, square=(7, 1))
    assert one(events, ev.Moved).actor == "r"
    assert r.position == h.position == (7, 1)


def test_H22_ridden_mount_takes_no_turns() -> None:
    b = _riders()
    assert b.initiative_order[0] == "h"  # highest initiative, yet never a turn
    assert b.decision == rules.Decision(D.TURN, "r")
    seen = []
    for _ in range(6):
        d = b.decision
        assert d is not None
        seen.append(d.actor)
        end_turn(b)
    assert "h" not in seen and set(seen) == {"r", "z"}
    assert not any(isinstance(e, ev.TurnStarted) and e.actor == "h" for e in b.events)


def test_H22_dismounted_mount_takes_turns_again() -> None:
    b = _riders()
    b.dice.force(30)  # Ride 60
    act(b, K.DISMOUNT, square=(2, 1))
    assert b.combatants["r"].riding is None and b.combatants["h"].ridden_by is None
    assert b.combatants["r"].position == (2, 1) and b.combatants["h"].position == (1, 1)
    next_turn(b, "h")
    assert b.round == 2


# ================================================================== H23 light
DARK = """
#########
#:::::::#
#:::::::#
#:::::::#
#:::::::#
#:::::::#
#########
"""


def test_H23_attacks_against_a_target_in_the_dark_are_halved() -> None:
    b = make([swordsman("a", "party", (1, 1)), swordsman("b", "monsters", (2, 1))], DARK,
             init=(12, 1))
    b.dice.force(95)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.AttackRolled).chance == 25
    # the attacker's own square does not matter, only the target's
    m = "#####\n#.:.#\n#####\n"
    b = make([swordsman("a", "party", (2, 1)), swordsman("b", "monsters", (3, 1))], m,
             init=(12, 1))
    b.dice.force(95)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.AttackRolled).chance == 50


@pytest.mark.parametrize(("torch_at", "chance"), [
    ((6, 1), 50),  # 4 squares straight: lit
    ((5, 3), 50),  # (3, 2) away: within a radius of 4
    ((5, 4), 25),  # (3, 3) away: outside a radius of 4 (Euclidean, documented choice)
])
def test_H23_a_lit_torch_lights_a_radius_of_4(torch_at: tuple[int, int], chance: int) -> None:
    b = make([swordsman("t", "party", torch_at, equipment=[{"item": "torch"}]),
              swordsman("a", "party", (1, 1)), swordsman("b", "monsters", (2, 1))], DARK,
             init=(12, 6, 1))
    events = act(b, K.LIGHT_TORCH, item="t.torch")
    torch = b.combatants["t"].item("t.torch")
    assert torch.lit and torch.state == "ready" and one(events, ev.ItemMoved).state_to == "ready"
    turn_of(b, "a")
    b.dice.force(95)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.AttackRolled).chance == chance


def test_H23_a_dropped_lit_torch_still_lights_its_square() -> None:
    b = make([swordsman("t", "party", (4, 1), equipment=[{"item": "torch"}]),
              swordsman("a", "party", (1, 1)), swordsman("b", "monsters", (2, 1))], DARK,
             init=(12, 6, 1))
    act(b, K.LIGHT_TORCH, item="t.torch")
    next_turn(b, "t")
    act(b, K.DROP_ITEM, item="t.torch")
    act(b, K.MOVE, square=(7, 5))
    turn_of(b, "a")
    b.dice.force(95)
    events = act(b, K.MELEE_ATTACK, target="b", item="a.longsword")
    assert one(events, ev.AttackRolled).chance == 50


# ================================================================== H24 speak
def test_H24_speak_is_free_once_per_turn_with_only_a_log_event() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2))],
             init=(12, 1))
    before = b.clone()
    legal_before = set(b.legal_actions())
    events = act(b, K.SPEAK)
    assert [type(e) for e in events] == [ev.ActionTaken, ev.Spoke]
    assert events[1].actor == "a"
    assert set(b.legal_actions()) == legal_before - {Action(K.SPEAK)}
    for cid, c in b.combatants.items():
        o = before.combatants[cid]
        assert (c.position, c.hp, c.actions_used, c.prone, c.inventory) == \
            (o.position, o.hp, o.actions_used, o.prone, o.inventory)
    next_turn(b, "b")
    assert K.SPEAK in kinds(b)


# ================================================================== H25 ending
def test_H25_battle_ends_when_a_team_has_nobody_in_action() -> None:
    b = make([swordsman("a", "party", (2, 2)), swordsman("b", "monsters", (3, 2), hp=2)],
             init=(12, 1))
    events = hit(b, K.MELEE_ATTACK, "b", "a.longsword", 30, 4)
    end = one(events, ev.BattleEnded)
    assert (end.winner, b.winner, b.is_over) == ("party", "party", True)
    assert b.decision is None and b.legal_actions() == []
    with pytest.raises(rules.IllegalActionError):
        b.apply(Action(K.END_TURN))


def test_H25_round_limit_is_a_draw() -> None:
    b = make([swordsman("a", "party", (1, 1)), swordsman("b", "monsters", (7, 3))],
             init=(12, 1), max_rounds=2)
    for _ in range(3):
        end_turn(b)
    assert not b.is_over and b.round == 2
    events = end_turn(b)
    end = one(events, ev.BattleEnded)
    assert (end.winner, b.winner, b.is_over, b.round) == (None, None, True, 2)
    assert "round limit" in end.reason


FREE_KINDS = (K.SHIFT, K.DROP_ITEM, K.FALL_PRONE, K.PREPARE_COMPONENTS, K.NOCK_ARROW,
              K.SPEAK)


def test_H25_every_free_action_is_once_per_turn() -> None:
    b = make([mage("m", "party", (2, 2), equipment=[
        {"item": "short_bow", "state": "ready"}, {"item": "arrow", "count": 3},
        {"item": "dagger"}, {"item": "torch"}]), swordsman("z", "monsters", (7, 3))],
        init=(12, 1))
    plays = [Action(K.PREPARE_COMPONENTS), Action(K.NOCK_ARROW, item="m.short_bow"),
             Action(K.SPEAK), Action(K.DROP_ITEM, item="m.torch"),
             Action(K.CAST_SPELL, target="z", item="spark"),
             Action(K.SHIFT, square=(3, 2)), Action(K.FALL_PRONE)]
    b.dice.force(80)  # the spark misses
    for a in plays:
        assert a.kind in kinds(b), a
        b.apply(a)
        assert a.kind not in kinds(b) or a.kind is K.CAST_SPELL, a
    assert not any(a.kind is K.CAST_SPELL and a.item == "spark" for a in b.legal_actions())
    assert not kinds(b) & set(FREE_KINDS)
    assert b.combatants["m"].actions_used == []
    next_turn(b, "m")
    assert {K.DROP_ITEM, K.SPEAK} <= kinds(b)


@pytest.mark.parametrize("engine", rules.engine.ENGINES)
def test_H25_free_actions_per_turn_2_gives_every_free_action_twice(
        engine: str, tmp_path: Path) -> None:
    """misc.free_actions_per_turn = 2: every voluntary FREE action twice a turn, on both
    engines (the knob was read by neither before issue 47)."""
    if engine == "native" and not rules.engine.native_available():
        pytest.skip("the native engine is not built here")
    from experiments.comparison.sweep import base_folder, write_variant

    folder = write_variant(base_folder(None), tmp_path / "twice",
                           {"misc.free_actions_per_turn": 2})
    b = make([mage("m", "party", (2, 2), equipment=[
        {"item": "dagger"}, {"item": "torch"}, {"item": "short_bow", "state": "ready"}]),
        swordsman("z", "monsters", (7, 3))], init=(12, 1), content_dir=str(folder),
        engine=engine)
    for _ in range(2):
        assert K.SPEAK in kinds(b)
        b.apply(Action(K.SPEAK))
    assert K.SPEAK not in kinds(b)
    b.apply(Action(K.DROP_ITEM, item="m.torch"))
    b.apply(Action(K.DROP_ITEM, item="m.dagger"))
    assert K.DROP_ITEM not in kinds(b)
    assert b.combatants["m"].free_used == ["speak", "speak", "drop_item", "drop_item"]
    next_turn(b, "m")
    assert K.SPEAK in kinds(b) and b.combatants["m"].free_used == []


def test_H25_random_play_always_ends() -> None:
    import random

    for seed in range(6):
        b = make([swordsman("a", "party", (1, 1)), mage("m", "party", (1, 3)),
                  swordsman("b", "monsters", (7, 1)), archer("c", "monsters", (7, 3))],
                 init=(), max_rounds=4, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not b.is_over:
            b.apply(rng.choice(b.legal_actions()))
            steps += 1
            assert steps < 3000
        assert b.round <= 4 and b.decision is None
