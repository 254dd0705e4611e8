"""The themes of the shipped snake_pit, cavalry, crypt and casters scenarios, through the
public API only (legal actions in, events out): venom (S24) and pits (S23) in snake_pit,
mounts (H22) in cavalry, darkness and torches (H23) in crypt, spells (H18) in casters.
The scenarios' common checks and the other themes are in test_scenarios.py; the ways of
playing in scenario_helpers.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scenario_helpers import (
    apply_declining,
    charge,
    legal,
    only,
    play,
    to_turn_of,
    uniform,
)

import rules
from rules import ActionKind as K
from rules import DecisionKind as DK
from rules import queries as q
from rules.events import (
    ActionTaken,
    AttackRolled,
    DamageDealt,
    Fell,
    HitPointsChanged,
    Moved,
    Resisted,
    SpellCast,
    TurnStarted,
)
from rules.grid import chebyshev


# ---------------------------------------------------------------------------- snake_pit
def test_snake_pit_has_snakes_and_pits() -> None:
    b = rules.Battle.from_scenario("snake_pit", seed=0)
    snakes = [c for c in b.combatants.values() if c.creature == "giant_snake"]
    assert snakes and all(c.team == "monsters" and c.snake for c in snakes)
    depths = {d for _, d in b.grid.drops}
    assert len(depths) >= 3 and min(depths) >= 10


def test_snake_pit_venom_is_saved_at_con_x5() -> None:
    """S24: a poisoned hit needs a CON x5 save against snakes, even if armour holds; a
    failed save costs HP to the poison."""
    battles = 0
    for seed in range(16):
        b = play(rules.Battle.from_scenario("snake_pit", seed=seed), uniform,
                 np.random.default_rng(seed))
        battles += _check_poison(b)
    assert battles >= 3


def _check_poison(b: rules.Battle) -> bool:
    events = b.events
    found = False
    for i, e in enumerate(events):
        if not (isinstance(e, Resisted) and e.purpose.startswith("poison")):
            continue
        found = True
        victim = b.combatants[e.actor]
        assert victim.team == "party"
        assert e.purpose == "poison (CON x5)"
        assert e.chance == victim.char("con") * 5
        # the save follows a snake bite that got through parry and dodge
        hit = next(x for x in reversed(events[:i]) if isinstance(x, DamageDealt))
        assert hit.target == e.actor and b.combatants[hit.attacker].creature == "giant_snake"
        assert hit.rolled - hit.parried - hit.dodged > 0
        if not e.success:
            loss = events[i + 1]
            assert isinstance(loss, HitPointsChanged) and loss.actor == e.actor
            assert loss.cause == "poison" and -6 <= loss.amount <= -1
    return found


@pytest.mark.parametrize(("square", "depth"), [((4, 3), 10), ((6, 5), 30)])
def test_snake_pit_moving_into_a_drop_falls(square: tuple[int, int], depth: int) -> None:
    """S23: d6 per 10 ft; armour does not help; the faller lands prone in the pit."""
    b = to_turn_of(rules.Battle.from_scenario("snake_pit", seed=6), "warrior")
    w = b.combatants["warrior"]
    assert b.grid.drop_depth(square) == depth
    hp = w.hp
    events = apply_declining(b, legal(b, K.MOVE, square=square))
    (fell,) = only(events, Fell)
    assert fell.actor == "warrior" and fell.depth_ft == depth
    dice = depth // 10
    assert dice <= fell.rolled <= 6 * dice
    assert fell.damage == max(0, fell.rolled - fell.reduced)
    assert w.position == square and w.prone
    assert only(events, Moved)[-1].path[-1] == square
    assert w.hp == hp - fell.damage
    if fell.damage:
        assert only(events, HitPointsChanged)[-1].cause == "falling"


# ---------------------------------------------------------------------------- cavalry
def test_cavalry_rider_moves_at_the_mounts_mov() -> None:
    """H22: a rider moves with its mount's MOV, and the two move together."""
    b = to_turn_of(rules.Battle.from_scenario("cavalry", seed=0), "knight_1")
    knight, horse = b.combatants["knight_1"], b.combatants["horse_1"]
    assert knight.riding == "horse_1" and horse.ridden_by == "knight_1"
    assert horse.move_squares > knight.move_squares
    moves = [a.square for a in b.legal_actions() if a.kind is K.MOVE]
    far = max(chebyshev(knight.position, sq) for sq in moves)
    assert far > knight.move_squares
    assert far == horse.move_squares
    dest = next(sq for sq in moves if chebyshev(knight.position, sq) == far)
    apply_declining(b, legal(b, K.MOVE, square=dest))
    assert knight.position == horse.position == dest


def test_cavalry_ridden_mounts_take_no_turns() -> None:
    """H22: a ridden mount takes no turns of its own; once its rider is off, it does."""
    ridden_turns = free_turns = 0
    for seed in range(3):
        b = rules.Battle.from_scenario("cavalry", seed=seed)
        rng = np.random.default_rng(seed)
        round_one = True
        while not b.is_over:
            d = b.decision
            c = b.combatants[d.actor]
            if d.kind is DK.TURN and c.is_mount:
                if c.ridden_by is not None:
                    ridden_turns += 1
                else:
                    free_turns += 1
            if round_one and b.round > 1:
                round_one = False
                started = {e.actor for e in only(b.events, TurnStarted) if e.round == 1}
                assert not started & {"horse_1", "horse_2"}
                assert {"knight_1", "knight_2"} <= started
            b.apply(uniform(b, rng))
    assert ridden_turns == 0
    assert free_turns > 0  # riders dismount in random play and the horses act again


# ---------------------------------------------------------------------------- crypt
def test_crypt_is_dark_with_torches_for_the_party() -> None:
    b = rules.Battle.from_scenario("crypt", seed=0)
    for c in b.combatants.values():
        torches = [i for i in c.inventory if i.item == "torch"]
        if c.team == "monsters":
            assert b.grid.is_dark(c.position) and not q.is_lit(b, c.position)
        elif c.id != "elf":
            assert torches and not torches[0].lit
    assert len(b.grid.dark) > len(list(b.grid.squares())) // 2
    assert b.grid.dark & b.grid.difficult  # ';' dark rubble


def test_crypt_shot_into_the_dark_is_halved() -> None:
    """H23: an attack against a target on an unlit dark square is at x1/2."""
    b = to_turn_of(rules.Battle.from_scenario("crypt", seed=0), "elf")
    elf, gob = b.combatants["elf"], b.combatants["goblin_1"]
    assert not q.is_lit(b, gob.position)
    apply_declining(b, legal(b, K.NOCK_ARROW, item="elf.longbow"))
    assert chebyshev(elf.position, gob.position) <= 20  # base range: no -20 (H16)
    (rolled, *_) = only(apply_declining(b, legal(b, K.MISSILE_ATTACK, target=gob.id)),
                        AttackRolled)
    assert rolled.attacker == "elf" and rolled.target == gob.id
    assert rolled.chance == elf.skill("bow") // 2 == 35


def test_crypt_melee_chance_halves_in_the_dark_only() -> None:
    """H23 in play: every plain melee attack (nobody prone or blessed) rolls at the full
    skill against a lit target and half of it against an unlit one."""
    seen = {True: 0, False: 0}

    def watch(b: rules.Battle, act: rules.Action):
        if act.kind is not K.MELEE_ATTACK:
            return None
        att, tgt = b.combatants[b.decision.actor], b.combatants[act.target]
        if att.prone or tgt.prone or att.buffs:
            return None
        lit = q.is_lit(b, tgt.position)
        skill = b.content.weapons[att.item(act.item).item].skill
        full = att.skill(skill, b.round)

        def check(events: list) -> None:
            rolled = only(events, AttackRolled)[0]
            assert (rolled.attacker, rolled.target) == (att.id, tgt.id)
            assert rolled.chance == (full if lit else full // 2), (lit, full, rolled)
            seen[lit] += 1

        return check

    for seed in range(4):
        policy = (lambda b, rng: charge(b, rng, light=True)) if seed % 2 else charge
        play(rules.Battle.from_scenario("crypt", seed=seed), policy,
             np.random.default_rng(seed), watch)
    assert seen[False] >= 5 and seen[True] >= 1, seen


def test_crypt_lighting_a_torch_lights_the_squares_around() -> None:
    """H23/S14: Light a Torch is a FULL action; the lit torch is in hand and lights the
    dark squares within 4 of its carrier."""
    b = to_turn_of(rules.Battle.from_scenario("crypt", seed=0), "warrior")
    w = b.combatants["warrior"]
    near = [sq for sq in b.grid.dark if math.dist(sq, w.position) <= 4]
    far = [sq for sq in b.grid.dark if math.dist(sq, w.position) > 4.5]
    assert near and far
    assert not any(q.is_lit(b, sq) for sq in near)
    apply_declining(b, legal(b, K.LIGHT_TORCH, item="warrior.torch"))
    torch = w.item("warrior.torch")
    assert torch is not None and torch.lit and torch.state == "ready"
    assert all(q.is_lit(b, sq) for sq in near)
    assert not any(q.is_lit(b, sq) for sq in far)
    assert [a.kind for a in b.legal_actions() if a.kind in (K.MOVE, K.MELEE_ATTACK,
                                                            K.LIGHT_TORCH)] == []
    # the light goes with its carrier
    b.apply(rules.Action(K.END_TURN))
    b = to_turn_of(b, "warrior")
    dest = max((a.square for a in b.legal_actions() if a.kind is K.MOVE),
               key=lambda sq: sq[0])
    apply_declining(b, legal(b, K.MOVE, square=dest))
    assert w.position == dest
    assert {sq for sq in b.grid.dark if q.is_lit(b, sq)} == {
        sq for sq in b.grid.dark if math.dist(sq, dest) <= 4}


# ---------------------------------------------------------------------------- casters
def test_casters_can_cast_from_the_start() -> None:
    b = rules.Battle.from_scenario("casters", seed=0)
    casters = [c for c in b.combatants.values() if c.spells]
    assert {c.team for c in casters} == {"party", "monsters"}
    for c in casters:
        to_turn_of(b, c.id)
        spells = {a.item for a in b.legal_actions() if a.kind is K.CAST_SPELL}
        assert spells and spells <= set(c.spells), c.id
        b.apply(rules.Action(K.END_TURN))


def test_casters_random_play_casts_spells() -> None:
    """H18: spells are cast on both sides; each cast's cost comes off the caster's PP."""
    casters_seen: set[str] = set()
    for seed in range(3):
        b = play(rules.Battle.from_scenario("casters", seed=seed), uniform,
                 np.random.default_rng(seed))
        casts = only(b.events, SpellCast)
        assert casts, seed
        casters_seen |= {b.combatants[e.caster].team for e in casts}
        for c in b.combatants.values():
            spent = sum(e.cost for e in casts if e.caster == c.id)
            assert c.power_points == c.max_power_points - spent, c.id
        taken = [e for e in only(b.events, ActionTaken) if "CAST_SPELL" in e.action]
        assert len(taken) >= len([e for e in casts if e.level != "SCROLL"])
    assert casters_seen == {"party", "monsters"}
