"""``fray inspect SCENARIO``: every combatant's derived values and the map's legend."""

from __future__ import annotations

import pytest

import rules
from experiments import cli
from experiments.comparison import report
from rules.grid import LEGEND


@pytest.mark.parametrize("scenario", ["crypt", "cavalry", "casters"])
def test_inspect_prints_derived_values_of_every_combatant(
        scenario: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["inspect", scenario, "--seed", "2"]) == 0
    out = capsys.readouterr().out
    battle = rules.Battle.from_scenario(scenario, seed=2)
    assert report.map_text(battle) in out
    for c in battle.combatants.values():
        assert f"{c.id} ({c.team}): {c.name}" in out
        assert f"MOV {c.mov} squares per round, {c.move_squares} per MOVE action" in out
        assert f"capacity {c.capacity_stones:.2f} stones, load {c.load_stones:.2f}" in out
        assert f"HP {c.hp}/{c.max_hp}" in out
        base, now = c.base_skill("dodge"), c.skill("dodge")
        assert (f"dodge {base}->{now}" if base != now else f"dodge {now}") in out
        for inst in c.inventory:
            if inst.item in battle.content.weapons:
                w = battle.content.weapons[inst.item]
                assert f"{w.skill} {c.skill(w.skill)}%" in out


def test_inspect_legend_lists_the_glyphs_the_map_uses(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["inspect", "crypt"]) == 0
    out = capsys.readouterr().out
    grid_text = rules.Battle.from_scenario("crypt", seed=1).grid.to_text()
    for glyph, meaning in LEGEND.items():
        assert (f"  {glyph}  {meaning}" in out) == (glyph in grid_text)


def test_inspect_shows_reach_and_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["inspect", "skirmish"]) == 0
    out = capsys.readouterr().out
    battle = rules.Battle.from_scenario("skirmish", seed=1)
    content = battle.content
    factor = content.ruleset.modifiers.long_range_factor
    shown = 0
    for c in battle.combatants.values():
        for inst in c.inventory:
            w = content.weapons.get(inst.item)
            if w is None:
                continue
            shown += 1
            if w.kind == "missile":
                assert f"range {w.range} sq, up to {w.range * factor} sq" in out
            else:
                squares = content.ruleset.misc.reach_squares[w.reach]
                assert f"reach {w.reach} ({squares} sq)" in out
    assert shown


@pytest.mark.parametrize(("argv", "message"), [
    (["no_such_place"], "no_such_place: name: expected a shipped scenario"),
    (["duel", "--seed", "-2"], "--seed: expected a whole number >= 0"),
])
def test_inspect_errors_are_one_line(argv: list[str], message: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["inspect", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
