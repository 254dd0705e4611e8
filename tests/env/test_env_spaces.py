"""The action codec: fixed size per scenario, exact masks, injective encoding (issue 4)."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest

import agents
import rules
from env.spaces import KING, LAYOUT, ActionCodec, EncodingError
from rules import Action, ActionKind, Battle

K = ActionKind
SCENARIOS = rules.shipped_scenarios()
#: Extra fuzz coverage for what no shipped scenario carries yet: crossbows (LOAD_CROSSBOW),
#: scrolls (USE_ITEM with a target), stacks of thrown weapons (split items), a mount.
ARSENAL = """
name = "arsenal"
max_rounds = 12
map = '''
############
#....#.....#
#..~.+..:..#
#....#..:_.#
#..........#
############
'''
[[units]]
id = "crossbowman"
team = "party"
creature = "human_archer"
at = [1, 1]
equipment = [
    { item = "light_crossbow", state = "ready" },
    { item = "bolt", count = 6 },
    { item = "javelin", count = 3 },
    { item = "scroll_of_healing", count = 2 },
    { item = "healing_potion" },
    { item = "torch" },
]
[[units]]
id = "horse_1"
team = "party"
creature = "horse"
at = [2, 4]
[[units]]
id = "knight"
team = "party"
creature = "human_warrior"
at = [3, 4]
[[units]]
id = "orc_1"
team = "monsters"
creature = "orc"
at = [9, 4]
[[units]]
id = "shaman_1"
team = "monsters"
creature = "goblin_shaman"
at = [10, 1]
[[units]]
id = "wolf_1"
team = "monsters"
creature = "wolf"
at = [7, 1]
"""
#: states checked per scenario; the whole fuzz stays well under a minute on 2 cores
STATES_PER_SCENARIO = 2000
FULL_DECODE_EVERY = 25  # decode every index of the space on these states
CLONE_STEP_EVERY = 6  # step a random masked index on a clone of these states
STEP_ALL_EVERY = 250  # step every masked index, each on its own clone


def _check_state(codec: ActionCodec, b: Battle) -> np.ndarray:
    """Mask == legal set, no duplicates, round trip; returns the set indices."""
    d = b.decision
    assert d is not None
    legal = b.legal_actions()
    assert len(set(legal)) == len(legal), f"duplicate legal actions: {legal}"
    mask = codec.mask(b)
    assert mask.dtype == np.int8 and mask.shape == (codec.n,)
    idx = np.flatnonzero(mask)
    assert len(idx) == len(legal) > 0
    decoded = [codec.decode(b, d.actor, int(i)) for i in idx]
    assert None not in decoded
    assert len(set(decoded)) == len(decoded)
    assert set(decoded) == set(legal)
    for a in legal:
        i = codec.encode(b, d.actor, a)
        assert i is not None and mask[i] == 1
        assert codec.decode(b, d.actor, i) == a
    return idx


def _full_decode(codec: ActionCodec, b: Battle, mask_idx: np.ndarray) -> None:
    """Every index of the space: set iff it decodes to a legal action."""
    d = b.decision
    assert d is not None
    legal = set(b.legal_actions())
    in_mask = set(mask_idx.tolist())
    for i in range(codec.n):
        a = codec.decode(b, d.actor, i)
        assert (a is not None and a in legal) == (i in in_mask), (i, a, codec.describe(i))


def _new_battle(scenario: str, seed: int) -> Battle:
    if scenario == "arsenal":
        return Battle.from_toml(ARSENAL, seed=seed)
    return Battle.from_scenario(scenario, seed=seed)


@pytest.mark.parametrize("scenario", [*SCENARIOS, "arsenal"])
def test_mask_is_exact_over_random_states(scenario: str) -> None:
    """Fuzz: random and berserker play mixed, on every shipped scenario. At every state the
    mask decodes to exactly legal_actions(); masked indices step without raising."""
    rng = np.random.default_rng(zlib.crc32(scenario.encode()))
    b = _new_battle(scenario, int(rng.integers(2**31)))
    codec = ActionCodec(b)
    n = codec.n
    rusher = agents.make("berserker", seed=1)
    kinds_seen: set[ActionKind] = set()
    for state in range(STATES_PER_SCENARIO):
        if b.is_over:
            b = _new_battle(scenario, int(rng.integers(2**31)))
            assert ActionCodec(b).n == n  # n depends only on the scenario
        idx = _check_state(codec, b)
        kinds_seen |= {a.kind for a in b.legal_actions()}
        if state % FULL_DECODE_EVERY == 0:
            _full_decode(codec, b, idx)
        d = b.decision
        assert d is not None
        if state % STEP_ALL_EVERY == 0:
            for i in idx:
                other = b.clone()
                other.apply(codec.decode(other, d.actor, int(i)))
        elif state % CLONE_STEP_EVERY == 0:
            other = b.clone()
            other.apply(codec.decode(other, d.actor, int(rng.choice(idx))))
        if rng.random() < 0.5:
            action = codec.decode(b, d.actor, int(rng.choice(idx)))
        else:
            action = rusher.act(b)
        assert action is not None
        b.apply(action)
    assert {K.END_TURN, K.MOVE, K.FULL_MOVE} <= kinds_seen
    if scenario == "arsenal":
        assert {K.LOAD_CROSSBOW, K.USE_ITEM, K.MOUNT, K.CAST_SPELL} <= kinds_seen


def test_layout_covers_every_action_kind_once() -> None:
    codec = ActionCodec(Battle.from_scenario("duel", seed=0))
    assert set(LAYOUT) == set(ActionKind)
    assert [k for k, *_ in codec.layout()] == [k.name for k in ActionKind]
    offsets = [(o, s) for _, o, s, _ in codec.layout()]
    assert offsets[0] == (0, 1)  # END_TURN is index 0
    for (o1, s1), (o2, _) in itertools.pairwise(offsets):
        assert o2 == o1 + s1
    assert codec.n == sum(s for _, s in offsets)
    assert "total n" in codec.layout_text()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_n_depends_only_on_the_scenario(scenario: str) -> None:
    sizes = {ActionCodec(Battle.from_scenario(scenario, seed=s)).n for s in range(3)}
    assert len(sizes) == 1


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_move_windows_cover_the_longest_move(scenario: str) -> None:
    """The square windows hold every destination of any unit or mount: radius >= the
    largest race MOV of the scenario (every step costs at least 1, S18)."""
    b = Battle.from_scenario(scenario, seed=0)
    codec = ActionCodec(b)
    top = max(b.content.races[c.race].mov for c in b.combatants.values())
    assert codec.full_move_radius >= top
    assert codec.move_radius >= top // b.content.ruleset.movement.move_divisor
    assert min(b.content.ruleset.movement.diagonal_costs) >= 1


def test_encode_rejects_what_the_layout_cannot_hold() -> None:
    b = Battle.from_scenario("duel", seed=0)
    codec = ActionCodec(b)
    actor = b.decision.actor
    x, y = b.combatants[actor].position
    assert codec.encode(b, actor, Action(K.END_TURN, target="hero")) is None
    assert codec.encode(b, actor, Action(K.MOVE)) is None
    assert codec.encode(b, actor, Action(K.MELEE_ATTACK, target="nobody", item="x")) is None
    assert codec.encode(b, actor, Action(K.SHIFT, square=(x + 2, y))) is None
    far = (x + codec.full_move_radius + 1, y)
    assert codec.encode(b, actor, Action(K.FULL_MOVE, square=far)) is None
    for index in (codec.n, -1):
        with pytest.raises(IndexError, match="outside"):
            codec.decode(b, actor, index)
        with pytest.raises(IndexError, match="outside"):
            codec.block_of(index)


def test_relative_squares_round_trip() -> None:
    b = Battle.from_scenario("duel", seed=0)
    codec = ActionCodec(b)
    actor = b.decision.actor
    x, y = b.combatants[actor].position
    for dx, dy in KING:
        a = Action(K.SHIFT, square=(x + dx, y + dy))
        i = codec.encode(b, actor, a)
        assert i is not None and codec.decode(b, actor, i) == a
    assert codec.decode(b, actor, codec.encode(b, actor, Action(K.DODGE))) == Action(K.DODGE)


def test_own_items_come_first() -> None:
    """A unit's own starting items take the first item slots of its table."""
    b = Battle.from_scenario("duel", seed=0)
    codec = ActionCodec(b)
    for cid, c in b.combatants.items():
        own = [i.uid for i in c.inventory]
        table = codec._item_list["any"][cid]
        assert list(table[: len(own)]) == own


def test_a_split_off_javelin_gets_an_overflow_slot() -> None:
    """H16/H21: throwing one javelin of a pair creates a new item; it has an index."""
    text = """
name = "javelins"
max_rounds = 5
map = '''
#######
#.....#
#######
'''
[[units]]
id = "orc_1"
team = "monsters"
creature = "orc"
at = [1, 1]
equipment = [{ item = "javelin", state = "ready", count = 2 }]
[[units]]
id = "hero"
team = "party"
creature = "human_warrior"
at = [5, 1]
"""
    for seed in range(40):
        b = Battle.from_toml(text, seed=seed)
        codec = ActionCodec(b)
        assert codec.split_capacity == {"orc_1.javelin": 1}
        while not b.is_over:
            d = b.decision
            throws = [a for a in b.legal_actions() if a.kind is K.MISSILE_ATTACK]
            if throws and d.actor == "orc_1":
                b.apply(throws[0])
                break
            b.apply(next(a for a in b.legal_actions() if a.kind in (K.END_TURN, K.DECLINE)))
        split = codec.split_items(b)
        if split:
            assert list(split.values()) == [("orc_1.javelin", 0)]
            uid = next(iter(split))
            hero = b.combatants["hero"]
            for a in (Action(K.PICK_UP, item=uid), Action(K.DROP_ITEM, item=uid)):
                i = codec.encode(b, hero.id, a)
                assert i is not None and codec.decode(b, hero.id, i) == a
            return
    pytest.fail("the orc never threw a javelin")


def test_unencodable_legal_action_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    b = Battle.from_scenario("duel", seed=0)
    codec = ActionCodec(b)
    bogus = Action(K.MOVE, square=(99, 99))
    monkeypatch.setattr(Battle, "legal_actions", lambda self: [bogus])
    with pytest.raises(EncodingError, match="has no index"):
        codec.mask(b)
