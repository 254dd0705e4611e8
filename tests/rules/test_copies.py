"""The cheap copies behind ``Battle.clone``: a copied roller builds its generator only on
its first roll, combatants and items are copied field by field. Each copy must roll,
read and change exactly like an independent deep copy would."""

from __future__ import annotations

import copy

import rules
from rules.roller import Roller


def _faces(roller: Roller, count: int = 20) -> list[int]:
    return [roller.die(100) for _ in range(count)]


def test_a_copied_roller_rolls_what_the_original_rolls_next() -> None:
    original = Roller(42)
    _faces(original, 3)
    copied = original.copy()
    again = copied.copy()  # a copy of a copy that has not rolled yet
    assert copied.state() == original.state() == again.state()
    expected = _faces(original)
    assert _faces(copied) == expected
    assert _faces(again) == expected
    assert copied.uniform() == original.uniform()


def test_a_copied_roller_is_independent_of_its_source() -> None:
    original = Roller(7)
    copied = original.copy()
    state = copied.state()
    state["bit_generator"]["state"]["state"] = 1  # a caller's change to what it got
    first = _faces(copied, 5)
    assert first == _faces(Roller(7), 5)
    assert _faces(original, 5) == first  # rolling the copy did not move the original


def test_a_copied_roller_keeps_forced_faces_and_reseeds_like_a_fresh_one() -> None:
    original = Roller(3)
    original.force(12, 55)
    copied = original.copy()
    assert copied.forced == [12, 55]
    copied.forced.clear()
    assert original.forced == [12, 55]
    copied.reseed(99)
    assert _faces(copied) == _faces(Roller(99))


def test_a_copied_roller_restores_from_its_state() -> None:
    copied = Roller(5).copy()
    restored = Roller.from_state(copied.state())
    assert _faces(restored) == _faces(copied)


def test_combatant_copy_equals_a_deep_copy_and_shares_nothing_mutable() -> None:
    battle = rules.Battle.from_scenario("skirmish", seed=4)
    for combatant in battle.combatants.values():
        copied = combatant.copy()
        deep = copy.deepcopy(combatant)
        assert copied == deep
        assert copied.content is combatant.content
        copied.inventory[0].state = "ground"
        copied.characteristics["str"] += 1
        copied.actions_used.append("move")
        assert combatant == deep


def test_item_copy_is_an_equal_independent_item() -> None:
    battle = rules.Battle.from_scenario("skirmish", seed=4)
    item = next(iter(battle.combatants.values())).inventory[0]
    copied = item.copy()
    assert copied == item and copied is not item
    copied.count += 5
    assert copied.count != item.count
