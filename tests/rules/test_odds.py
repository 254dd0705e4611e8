"""rules.odds against the engine itself: exact enumeration of forced dice, and a
chi-square check of sampled outcomes (H2, H6, H7, H9, H10, H5, S24)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import pytest
from builders import unit
from scipy import stats
from scripted import make

import rules
from rules import Action, ActionKind, Battle, DecisionKind, odds
from rules import events as ev
from rules.roller import Roller

K = ActionKind
D = DecisionKind
ROLL_EVENTS = (ev.AttackRolled, ev.ParryRolled, ev.DodgeRolled, ev.Resisted, ev.SkillRolled)


class NeedDie(Exception):
    """The engine asked for a die the script has no face for."""

    def __init__(self, sides: int) -> None:
        super().__init__(sides)
        self.sides = sides


class ScriptedRoller(Roller):
    """Returns scripted faces only; any further die raises NeedDie."""

    def die(self, sides: int) -> int:
        if not self.forced:
            raise NeedDie(sides)
        return super().die(sides)


def reaction(defence: str, parry_item: str | None) -> Callable[[Battle], Action]:
    """The target's answers for ``defence``; every other reaction declines."""

    def answer(b: Battle) -> Action:
        d = b.decision
        assert d is not None
        legal = b.legal_actions()
        if d.kind is D.PARRY and defence in ("parry", "both"):
            return next(a for a in legal if a.kind is K.PARRY and a.item == parry_item)
        if d.kind is D.DODGE and defence in ("dodge", "both"):
            return next(a for a in legal if a.kind is K.DODGE)
        if d.kind is D.FREE_ATTACK and defence == "free attacks":
            return next(a for a in legal if a.kind is K.FREE_ATTACK)
        return Action(K.DECLINE)

    return answer


def run(base: Battle, action: Action, answer: Callable[[Battle], Action], faces: list[int]
        ) -> tuple[Battle, int | None]:
    """Apply ``action`` with scripted ``faces``; (battle, sides of the die still needed)."""
    b = base.clone()
    b.dice = ScriptedRoller(0)
    b.dice.force(*faces)
    try:
        b.apply(action)
        while b.decision is not None and b.decision.kind is not D.TURN:
            b.apply(answer(b))
    except NeedDie as need:
        return b, need.sides
    return b, None


def enumerate_engine(base: Battle, action: Action, target: str, defence: str = "none",
                     parry_item: str | None = None) -> tuple[dict[int, Fraction], Fraction,
                                                             Fraction]:
    """Exact distribution of the target's HP loss (and P(bleeds), P(knocked prone)) by
    running the engine over every die face; d100 faces are grouped by the level the
    engine logs for them, so one representative per group is explored further."""
    answer = reaction(defence, parry_item)
    hp0 = base.combatants[target].hp
    dist: dict[int, Fraction] = {}
    bleeds = prone = Fraction(0)
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        faces, weight = stack.pop()
        b, sides = run(base, action, answer, faces)
        if sides is None:
            t = b.combatants[target]
            lost = hp0 - t.hp
            dist[lost] = dist.get(lost, Fraction(0)) + weight
            bleeds += weight if t.bleeding and not base.combatants[target].bleeding else 0
            prone += weight if t.prone and t.in_action else 0
            continue
        if sides != 100:
            stack += [([*faces, f], weight / sides) for f in range(1, sides + 1)]
            continue
        groups: dict[str, list[int]] = {}
        for face in range(1, 101):
            probe, _ = run(base, action, answer, [*faces, face])
            rolled = [e for e in probe.events[len(base.events):] if isinstance(e, ROLL_EVENTS)]
            last = rolled[-1]
            key = getattr(last, "level", None) or str(getattr(last, "success", None))
            groups.setdefault(key, []).append(face)
        for members in groups.values():
            stack.append(([*faces, members[0]], weight * Fraction(len(members), 100)))
    return dict(sorted(dist.items())), bleeds, prone


def room(attacker: dict, target: dict) -> Battle:
    """The attacker's TURN first (initiative forced)."""
    return make([attacker, target], init=[12, 1])


CASES = {
    # name: (attacker unit, target unit, action kind, item)
    "sword vs orc": (unit("a", "party", "human_warrior", (2, 2)),
                     unit("t", "monsters", "orc", (3, 2), hp=3),
                     K.MELEE_ATTACK, "a.longsword"),
    "great axe vs shield": (unit("a", "monsters", "orc", (2, 2)),
                            unit("t", "party", "human_warrior", (3, 2)),
                            K.MELEE_ATTACK, "a.great_axe"),
    "club crush": (unit("a", "monsters", "goblin_shaman", (2, 2)),
                   unit("t", "party", "halfling", (3, 2), hp=4),
                   K.FULL_ATTACK, "a.club"),
    "snake poison": (unit("a", "monsters", "giant_snake", (2, 2)),
                     unit("t", "party", "human_archer", (3, 2), hp=3),
                     K.MELEE_ATTACK, "a.snake_bite"),
    "unarmed": (unit("a", "party", "dwarf", (2, 2)),
                unit("t", "monsters", "goblin", (3, 2), hp=2),
                K.UNARMED_ATTACK, None),
    "javelin": (unit("a", "monsters", "orc", (2, 2),
                     equipment=[{"item": "javelin", "state": "ready", "count": 2}]),
                unit("t", "party", "elf", (6, 2)),
                K.MISSILE_ATTACK, "a.javelin"),
    "arrow vs shield": (unit("a", "monsters", "goblin_archer", (1, 1)),
                        unit("t", "party", "human_warrior", (6, 3)),
                        K.MISSILE_ATTACK, "a.short_bow"),
}


def case(name: str) -> tuple[Battle, Action]:
    attacker, target, kind, item = CASES[name]
    b = room(attacker, target)
    for prepare in (K.READY_WEAPON, K.NOCK_ARROW):  # a javelin to hand, an arrow nocked
        if Action(prepare, item=item) in b.legal_actions():
            b.apply(Action(prepare, item=item))
    action = Action(kind, target="t", item=item)
    assert action in b.legal_actions(), (action, b.legal_actions())
    return b, action


def parry_item_of(b: Battle, action: Action) -> str | None:
    """The item the odds choose for a parry (the test then forces the same one)."""
    o = odds.attack_odds(b, action, "parry")
    if o.parry_chance is None:
        return None
    missile = action.kind is K.MISSILE_ATTACK
    for uid, (chance, _ap) in odds.parry_options(b, b.combatants["t"], missile).items():
        if chance == o.parry_chance:
            return uid
    return None


@pytest.mark.parametrize(("name", "defence"), [
    ("sword vs orc", "none"), ("sword vs orc", "dodge"),
    ("great axe vs shield", "parry"), ("sword vs orc", "both"),
    ("club crush", "none"), ("club crush", "dodge"),
    ("snake poison", "none"), ("unarmed", "none"), ("unarmed", "dodge"),
    ("javelin", "dodge"), ("arrow vs shield", "parry"),
])
def test_odds_equal_forced_dice_enumeration(name: str, defence: str) -> None:
    b, action = case(name)
    item = parry_item_of(b, action) if defence in ("parry", "both") else None
    if defence in ("parry", "both"):
        assert item is not None, "the case must have a parry to test"
    predicted = odds.attack_odds(b, action, defence, parry_item=item)
    engine, bleeds, prone = enumerate_engine(b, action, "t", defence, item)
    assert predicted.damage == engine
    assert predicted.bleeds == bleeds
    assert predicted.knocked_down == prone
    hp = b.combatants["t"].hp
    assert predicted.drops == sum((p for d, p in engine.items() if hp - d <= 0), Fraction(0))
    assert sum(predicted.levels.values()) == 1 and sum(predicted.damage.values()) == 1


def test_levels_follow_h2_for_the_modified_chance() -> None:
    b, action = case("sword vs orc")
    o = odds.attack_odds(b, action)
    # human warrior sword 75 in moderate chain: x1/2 (S20) -> 37; H2 at 37: critical
    # 01-02, special 03-07, success 08-37, fumble 97-00
    assert o.chance == 37
    assert o.levels == {rules.SuccessLevel.CRITICAL: Fraction(2, 100),
                        rules.SuccessLevel.SPECIAL: Fraction(5, 100),
                        rules.SuccessLevel.SUCCESS: Fraction(30, 100),
                        rules.SuccessLevel.FAILURE: Fraction(60, 100),
                        rules.SuccessLevel.FUMBLE: Fraction(3, 100)}
    assert o.hit == Fraction(37, 100)


def test_defence_never_adds_damage_and_bad_input_is_named() -> None:
    b, action = case("great axe vs shield")
    none = odds.attack_odds(b, action, "none").expected_damage
    assert odds.attack_odds(b, action, "both").expected_damage <= none
    with pytest.raises(ValueError, match="defence: expected one of"):
        odds.attack_odds(b, action, "block")
    with pytest.raises(ValueError, match="attack_odds: expected one of"):
        odds.attack_odds(b, Action(K.END_TURN))


def test_pending_hit_odds_equal_enumeration_from_the_reaction() -> None:
    b, action = case("great axe vs shield")
    item = parry_item_of(b, action)
    b.dice.force(10)  # a plain success for the orc's axe
    b.apply(action)
    assert b.decision is not None and b.decision.kind is D.PARRY
    parry = Action(K.PARRY, item=item)
    engine, _, _ = enumerate_engine(b, parry, "t", "parry", item)
    assert odds.pending_hit_odds(b, "parry", item).damage == engine
    b.dice.force(20)  # a successful parry (shield 65 for the warrior: 20 is a success)
    b.apply(parry)
    assert b.decision is not None and b.decision.kind is D.DODGE
    dodge = next(a for a in b.legal_actions() if a.kind is K.DODGE)
    engine, _, _ = enumerate_engine(b, dodge, "t", "dodge")
    assert odds.pending_hit_odds(b, "dodge").damage == engine
    engine, _, _ = enumerate_engine(b, Action(K.DECLINE), "t", "none")
    assert odds.pending_hit_odds(b, "none").damage == engine


def test_route_risk_equals_forced_dice_enumeration_of_the_free_attack() -> None:
    b = room(unit("a", "party", "human_warrior", (2, 2), hp=4),
             unit("t", "monsters", "orc", (3, 2)))
    risk = odds.route_risk(b, "a", (1, 2))  # stepping away from the orc provokes it
    assert risk.provokers == ("t",)
    engine, _, prone = enumerate_engine(b, Action(K.MOVE, square=(1, 2)), "a", "free attacks")
    assert risk.damage == engine
    assert risk.drops == sum((p for d, p in engine.items() if 4 - d <= 0), Fraction(0))
    assert risk.wounds == 1 - engine[0]
    assert risk.stops == risk.drops + prone  # dropped, or knocked prone in action (H13)
    assert odds.route_risk(b, "a", (2, 1)).provokers == ("t",)
    assert odds.route_risk(b, "a", (2, 1)).damage == engine  # same enemy, same blow


def test_route_risks_searches_once_and_agrees_with_route_risk_per_square() -> None:
    b = rules.Battle.from_scenario("skirmish", seed=1)
    actor = b.decision.actor
    squares = [a.square for a in b.legal_actions() if a.kind is K.MOVE][:12]
    assert squares
    many = odds.route_risks(b, actor, squares)
    assert list(many) == squares
    for square in squares:
        assert many[square] == odds.route_risk(b, actor, square)
    with pytest.raises(ValueError, match="cannot move to"):
        odds.route_risks(b, actor, [(0, 0)])  # a wall


SAMPLED = [("great axe vs shield", "parry"), ("club crush", "dodge"),
           ("arrow vs shield", "none"), ("snake poison", "none")]


@pytest.mark.parametrize(("name", "defence"), SAMPLED)
def test_sampled_outcomes_fit_the_prediction(name: str, defence: str) -> None:
    """Chi-square of 5,000 seeded engine outcomes per case (20,000 in all)."""
    b, action = case(name)
    item = parry_item_of(b, action) if defence in ("parry", "both") else None
    predicted = odds.attack_odds(b, action, defence, parry_item=item)
    answer = reaction(defence, item)
    hp0 = b.combatants["t"].hp
    samples = 5000
    seen: Counter[int] = Counter()
    for seed in range(samples):
        probe = b.clone()
        probe.dice.reseed(seed)
        probe.apply(action)
        while probe.decision is not None and probe.decision.kind is not D.TURN:
            probe.apply(answer(probe))
        seen[hp0 - probe.combatants["t"].hp] += 1
    bins: list[tuple[list[int], Fraction]] = []
    current: list[int] = []
    mass = Fraction(0)
    for value, p in predicted.damage.items():
        current.append(value)
        mass += p
        if mass * samples >= 5:
            bins.append((current, mass))
            current, mass = [], Fraction(0)
    if current:
        last_values, last_mass = bins.pop() if bins else ([], Fraction(0))
        bins.append((last_values + current, last_mass + mass))
    observed = [sum(seen[v] for v in values) for values, _ in bins]
    expected = [float(m) * samples for _, m in bins]
    assert sum(observed) == samples
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_fray_odds_prints_a_table_and_rejects_unknown_ids(capsys: pytest.CaptureFixture
                                                          ) -> None:
    from experiments.cli import main

    assert main(["odds", "duel", "hero", "orc_1"]) == 0
    out = capsys.readouterr().out
    assert "melee attack with longsword: chance 37%" in out
    assert out.count("  both ") == 3  # longsword, its Full Attack, unarmed
    assert main(["odds", "duel", "hero", "orc_9"]) == 2
    assert "TARGET: expected one of hero, orc_1, got 'orc_9'" in capsys.readouterr().err
