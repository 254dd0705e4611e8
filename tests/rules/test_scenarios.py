"""The shipped scenarios (experiments/scenarios, DESIGN.md "Scenario files").

Every scenario loads with the two teams of DESIGN.md, every unit on a floor square and
everyone in the initiative order (S1). Then each scenario's theme is exercised through
the public API only (legal actions in, events out): doors and difficult terrain (S12, H13)
in skirmish, missiles from cover (H16) in ambush, a big melee in horde (H25), venom (S24)
and pits (S23) in snake_pit, mounts (H22) in cavalry, darkness and torches (H23) in crypt,
spells (H18) in casters.

Three ways of playing appear: uniform random play over the legal actions, random play
uniform over action *kinds* (so rare kinds such as a nock-and-shoot come up often), and
a scripted "charge" policy that closes in and attacks (so melee actually happens on the
bigger maps).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

import rules
from rules import ActionKind as K
from rules import DecisionKind as DK
from rules import queries as q
from rules.events import (
    ActionTaken,
    AttackRolled,
    BattleEnded,
    DamageDealt,
    DoorChanged,
    Fell,
    HitPointsChanged,
    Moved,
    Resisted,
    SpellCast,
    TurnStarted,
)
from rules.grid import chebyshev, line_of_sight

SCENARIOS = rules.shipped_scenarios()
THEMED = ("skirmish", "ambush", "horde", "snake_pit", "cavalry", "crypt", "casters")

Policy = Callable[[rules.Battle, np.random.Generator], rules.Action]


# ---------------------------------------------------------------------------- helpers
def uniform(b: rules.Battle, rng: np.random.Generator) -> rules.Action:
    acts = b.legal_actions()
    return acts[rng.integers(len(acts))]


def kind_uniform(b: rules.Battle, rng: np.random.Generator) -> rules.Action:
    """Random legal play, uniform over the action kinds on offer, then over the actions."""
    acts = b.legal_actions()
    kinds = sorted({a.kind for a in acts}, key=lambda k: k.value)
    kind = kinds[rng.integers(len(kinds))]
    pool = [a for a in acts if a.kind is kind]
    return pool[rng.integers(len(pool))]


def charge(b: rules.Battle, rng: np.random.Generator, light: bool = False) -> rules.Action:
    """Scripted: (light a torch,) attack if possible, nock a bow, else MOVE closer to the
    nearest enemy, else end the turn. Reactions are random."""
    acts = b.legal_actions()
    d = b.decision
    assert d is not None
    if d.kind is not DK.TURN:
        return acts[rng.integers(len(acts))]
    c = b.combatants[d.actor]
    wanted = [(K.LIGHT_TORCH,)] if light else []
    wanted += [(K.MELEE_ATTACK, K.MISSILE_ATTACK), (K.NOCK_ARROW,)]
    for kinds in wanted:
        pool = [a for a in acts if a.kind in kinds]
        if pool:
            return pool[rng.integers(len(pool))]
    foes = [e.position for e in b.combatants.values() if e.in_action and e.team != c.team]
    moves = [a for a in acts if a.kind is K.MOVE]
    if foes and moves:

        def gap(sq: tuple[int, int]) -> int:
            return min(chebyshev(sq, f) for f in foes)

        best = min(moves, key=lambda a: gap(a.square))
        if gap(best.square) < gap(c.position):
            return best
    return rules.Action(K.END_TURN)


def play(
    b: rules.Battle,
    policy: Policy,
    rng: np.random.Generator,
    watch: Callable[[rules.Battle, rules.Action], Callable[[list], None] | None] | None = None,
    limit: int = 200_000,
) -> rules.Battle:
    """Play to the end. ``watch(b, action)`` runs before each apply and may return a
    callback that gets the events the action produced."""
    for _ in range(limit):
        if b.is_over:
            return b
        act = policy(b, rng)
        after = watch(b, act) if watch is not None else None
        events = b.apply(act)
        if after is not None:
            after(events)
    raise AssertionError(f"{b.scenario.name}: no end after {limit} decisions")


def to_turn_of(b: rules.Battle, actor: str) -> rules.Battle:
    """End turns (no reactions can arise) until ``actor`` has a TURN decision."""
    for _ in range(200):
        d = b.decision
        assert d is not None, "the battle ended"
        if d.kind is DK.TURN and d.actor == actor:
            return b
        assert d.kind is DK.TURN
        b.apply(rules.Action(K.END_TURN))
    raise AssertionError(f"{actor} never got a turn")


def apply_declining(b: rules.Battle, action: rules.Action) -> list:
    """Apply ``action`` and DECLINE every reaction it causes; all events produced."""
    events = b.apply(action)
    while b.decision is not None and b.decision.kind is not DK.TURN:
        events += b.apply(rules.Action(K.DECLINE))
    return events


def only(events: list, cls: type) -> list:
    return [e for e in events if isinstance(e, cls)]


def legal(b: rules.Battle, kind: K, **fields) -> rules.Action:
    """The legal action of ``kind`` with the given fields (exactly one)."""
    found = [a for a in b.legal_actions() if a.kind is kind
             and all(getattr(a, k) == v for k, v in fields.items())]
    assert len(found) == 1, f"{kind.name} {fields} not legal: {b.legal_actions()}"
    return found[0]


# ---------------------------------------------------------------------------- every scenario
def test_the_themed_scenarios_are_shipped() -> None:
    assert set(THEMED) <= set(SCENARIOS)


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_loads_with_two_teams_on_floor(name: str) -> None:
    b = rules.Battle.from_scenario(name, seed=11)
    sc = b.scenario
    assert sc.name == name
    assert sc.description.strip()
    assert 1 <= sc.max_rounds <= 200
    assert set(sc.teams) == {"party", "monsters"}
    teams = {c.team for c in b.combatants.values()}
    assert teams == {"party", "monsters"}
    squares: dict[tuple[int, int], str] = {}
    specs = {u.id: u for u in sc.units}
    for c in b.combatants.values():
        assert b.grid.in_bounds(c.position), c.id
        assert not b.grid.blocks_movement(c.position), f"{c.id} on a wall or closed door"
        assert b.grid.drop_depth(c.position) == 0, f"{c.id} starts over a drop"
        spec = specs[c.id]  # a unit may set its current state (long_fight does)
        assert c.in_action is not spec.out_of_action and c.max_hp > 0 and c.hp <= c.max_hp
        if spec.current_hp is None and not spec.out_of_action and not spec.bleeding:
            assert c.hp == c.max_hp, c.id
        if c.riding is None:
            assert c.position not in squares, f"{c.id} shares {squares.get(c.position)}'s square"
            squares[c.position] = c.id
        else:  # H22: a rider shares its mount's square
            mount = b.combatants[c.riding]
            assert mount.position == c.position and mount.ridden_by == c.id


@pytest.mark.parametrize("name", SCENARIOS)
def test_initiative_order_holds_every_unit_once(name: str) -> None:
    b = rules.Battle.from_scenario(name, seed=5)
    assert sorted(b.initiative_order) == sorted(b.combatants)
    assert len(set(b.initiative_order)) == len(b.initiative_order)
    inits = [b.combatants[i].initiative for i in b.initiative_order]
    assert inits == sorted(inits, reverse=True)  # S1: highest first
    assert b.decision is not None and b.decision.kind is DK.TURN


@pytest.mark.parametrize("name", SCENARIOS)
def test_random_battle_ends_within_max_rounds(name: str) -> None:
    b = play(rules.Battle.from_scenario(name, seed=2), uniform, np.random.default_rng(2))
    assert b.is_over and b.decision is None and b.legal_actions() == []
    assert 1 <= b.round <= b.scenario.max_rounds
    end = b.events[-1]
    assert isinstance(end, BattleEnded)
    assert b.winner in (None, "party", "monsters")
    if b.winner is None:  # H25: a draw only at the round limit (or mutual wipe-out)
        assert b.round == b.scenario.max_rounds or not any(
            c.in_action for c in b.combatants.values())


# ---------------------------------------------------------------------------- skirmish
def test_skirmish_is_mixed_arms_on_a_walled_map() -> None:
    b = rules.Battle.from_scenario("skirmish", seed=0)
    g = b.grid
    assert 18 <= g.width <= 22 and 18 <= g.height <= 22
    assert g.walls and g.closed_doors and g.open_doors and g.difficult
    for team in ("party", "monsters"):
        members = [c for c in b.combatants.values() if c.team == team]
        assert len(members) == 4
        kinds = {b.content.weapons[i.item].kind for c in members for i, _ in
                 c.ready_weapons()}
        assert kinds == {"melee", "missile"}, team


def test_skirmish_doors_open_and_close() -> None:
    """S12: Open/Close Door are MOVE actions; a closed door blocks, an open one does not."""
    b = to_turn_of(rules.Battle.from_scenario("skirmish", seed=1), "dwarf")
    door = (9, 8)
    assert door in b.grid.closed_doors
    beyond = (10, 8)
    assert all(a.square != beyond for a in b.legal_actions() if a.kind is K.MOVE)
    events = apply_declining(b, legal(b, K.OPEN_DOOR, square=door))
    assert only(events, DoorChanged)[0].open is True
    assert b.grid.doors[door] is True
    assert any(a.square == beyond for a in b.legal_actions() if a.kind is K.MOVE)
    # S2: a second MOVE action is left, so the dwarf could shut it again
    assert legal(b, K.CLOSE_DOOR, square=door)

    b = to_turn_of(b, "warrior")
    door = (4, 14)
    assert door in b.grid.open_doors
    events = apply_declining(b, legal(b, K.CLOSE_DOOR, square=door))
    assert only(events, DoorChanged)[0].open is False
    assert b.grid.doors[door] is False
    assert all(a.square[1] > 14 for a in b.legal_actions() if a.kind is K.MOVE)


@pytest.mark.parametrize(("square", "cost"), [((7, 16), 2), ((7, 18), 1), ((6, 18), 1)])
def test_skirmish_difficult_terrain_costs_double(square: tuple[int, int], cost: int) -> None:
    """H13: entering difficult terrain costs double (the Moved event's cost)."""
    b = to_turn_of(rules.Battle.from_scenario("skirmish", seed=3), "elf")
    start = b.combatants["elf"].position
    assert start == (7, 17)
    assert b.grid.is_difficult(square) == (cost == 2)
    moved = only(apply_declining(b, legal(b, K.MOVE, square=square)), Moved)
    assert len(moved) == 1
    assert moved[0].path == (start, square) and moved[0].complete
    assert moved[0].cost == cost
    # and difficult squares are not a Shift (S7) destination
    assert all(not b.grid.is_difficult(a.square) for a in
               rules.Battle.from_scenario("skirmish", seed=3).legal_actions()
               if a.kind is K.SHIFT)


def test_skirmish_random_play_offers_doors() -> None:
    seen: set[K] = set()

    def watch(b: rules.Battle, act: rules.Action) -> None:
        seen.update(a.kind for a in b.legal_actions() if a.kind in (K.OPEN_DOOR,
                                                                     K.CLOSE_DOOR))

    for seed in range(2):
        play(rules.Battle.from_scenario("skirmish", seed=seed), uniform,
             np.random.default_rng(seed), watch)
    assert seen == {K.OPEN_DOOR, K.CLOSE_DOOR}


# ---------------------------------------------------------------------------- ambush
def test_ambush_archers_shoot_from_cover() -> None:
    """H16: goblin archers start out of reach behind a crenellated wall: it hides some of
    the party; after a FREE nock they shoot whoever they see."""
    b = rules.Battle.from_scenario("ambush", seed=4)
    archers = [c for c in b.combatants.values() if c.creature == "goblin_archer"]
    spears = [c for c in b.combatants.values() if c.creature == "goblin"]
    party = [c for c in b.combatants.values() if c.team == "party"]
    assert len(archers) >= 3 and len(spears) >= 3 and 3 <= len(party) <= 5
    for a in archers:
        assert min(chebyshev(a.position, p.position) for p in party) >= 5
        assert not all(line_of_sight(b.grid, a.position, p.position) for p in party)
    shooter = next(a for a in archers
                   if any(line_of_sight(b.grid, a.position, p.position) for p in party))
    to_turn_of(b, shooter.id)
    bow = f"{shooter.id}.short_bow"
    assert not any(a.kind is K.MISSILE_ATTACK for a in b.legal_actions())  # not nocked
    apply_declining(b, legal(b, K.NOCK_ARROW, item=bow))
    shots = [a for a in b.legal_actions() if a.kind is K.MISSILE_ATTACK]
    seen = {p.id for p in party if line_of_sight(b.grid, shooter.position, p.position)}
    assert shots and {a.target for a in shots} == seen
    rolled = only(apply_declining(b, shots[0]), AttackRolled)
    assert rolled[0].attacker == shooter.id and rolled[0].mode == "missile"


def test_ambush_random_play_has_missile_attacks() -> None:
    shots: list[str] = []

    def watch(b: rules.Battle, act: rules.Action) -> None:
        if act.kind is K.MISSILE_ATTACK:
            shots.append(b.combatants[b.decision.actor].creature)

    for seed in range(6):
        play(rules.Battle.from_scenario("ambush", seed=seed), kind_uniform,
             np.random.default_rng(seed), watch)
    assert "goblin_archer" in shots


# ---------------------------------------------------------------------------- horde
def test_horde_is_a_horde() -> None:
    b = rules.Battle.from_scenario("horde", seed=0)
    monsters = [c for c in b.combatants.values() if c.team == "monsters"]
    party = [c for c in b.combatants.values() if c.team == "party"]
    assert len(monsters) >= 12 and len(party) == 4
    assert all(c.creature.startswith("goblin") for c in monsters)
    assert b.grid.width >= 36 and b.grid.height >= 36


def test_horde_charge_battle_terminates() -> None:
    for seed in range(2):
        b = play(rules.Battle.from_scenario("horde", seed=seed),
                 charge, np.random.default_rng(seed))
        assert b.is_over and b.round <= b.scenario.max_rounds
        assert only(b.events, AttackRolled)  # they did meet


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
