"""fray balance: known answers (a monotone knob lands in the band that brute force finds,
a decoy knob is flagged, an unreachable band is reported so), the knob syntax, and the
command end to end with --resume giving the same result."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from experiments import cli
from experiments.balance.battles import measure
from experiments.balance.evaluation import Evaluator
from experiments.balance.knobs import KnobError, parse_knob, parse_knobs, scenario_path
from experiments.balance.search import plan, run_balance
from experiments.balance.target import Target
from experiments.comparison.runner import AgentSpec
from experiments.comparison.stats import bernoulli_sprt
from experiments.replay import DATA_DIR

DUEL = scenario_path("duel")
AXE = "creatures.orc.skills.axe=20..90:10"        # the orc's weapon skill: monotone
DECOY = "creatures.human_warrior.skills.ride=10..60:10"   # nobody rides in a duel
BAND = Target.parse("party_win=0.40..0.60")


def evaluator(out: Path, batch_size: int, seed: int = 0) -> Evaluator:
    return Evaluator(out, DATA_DIR, DUEL, AgentSpec("tactician"), AgentSpec("tactician"),
                     seed, batch_size, workers=1, progress=False)


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> dict[int, float]:
    """Brute force: party_win of every axe value on 600 battles each (other seeds than
    the search's: its own run seed)."""
    knob = parse_knob(AXE, DATA_DIR, DUEL)
    brute = evaluator(tmp_path_factory.mktemp("brute"), 200, seed=99)
    return {value: measure(brute.pooled({knob.key: value}, "final", 3), "party_win")[0]
            for value in knob.values}


def test_the_truth_is_monotone_and_the_band_is_reachable(truth: dict[int, float]) -> None:
    rates = [truth[value] for value in sorted(truth)]
    assert rates[0] > 0.6 > 0.4 > rates[-1]      # the band lies inside the range
    assert sum(a >= b - 0.05 for a, b in itertools.pairwise(rates)) == len(rates) - 1


def test_a_monotone_knob_lands_in_the_band_and_a_decoy_is_flagged(
        truth: dict[int, float], tmp_path: Path) -> None:
    knobs = parse_knobs([AXE, DECOY], DATA_DIR, DUEL)
    steps = plan(3000, knobs)
    run = evaluator(tmp_path, steps.batch_size)
    result = run_balance(run, knobs, BAND, steps, seed=1)
    axe = result["recommended"]["creatures.orc.skills.axe"]
    assert BAND.contains(truth[axe]), (axe, truth)
    assert result["in_band"] is True
    assert result["battles_used"] <= 3000
    decoy = result["knobs"]["creatures.human_warrior.skills.ride"]
    assert decoy["no_effect"] and decoy["identical"]
    effect = result["knobs"]["creatures.orc.skills.axe"]
    assert not effect["no_effect"] and effect["high"] < 0   # more axe skill, fewer party wins
    assert result["estimate"]["battles"] == steps.final * steps.batch_size


def test_an_unreachable_band_is_reported_with_the_closest_setting(tmp_path: Path) -> None:
    knobs = parse_knobs([AXE], DATA_DIR, DUEL)
    target = Target.parse("party_win=0.97..1.0")
    steps = plan(1500, knobs)
    result = run_balance(evaluator(tmp_path, steps.batch_size), knobs, target, steps, seed=2)
    assert result["in_band"] is False and result["unreachable"] is True
    assert result["recommended"] == {"creatures.orc.skills.axe": 20}   # the closest
    assert result["sprt"]["verdict"] == "out_of_band"


@pytest.mark.parametrize(("text", "message"), [
    ("creatures.orc.skills.scimitar=1..5", "no such key in creatures.toml; close keys"),
    ("creatures.orc.skills=1..5", "is a table of creatures.toml"),
    ("creatures.orc.skills.axe=50..10", "expected LOW <= HIGH"),
    ("creatures.orc.skills.axe=1..5:0.5", "expected whole LOW, HIGH and STEP"),
    ("creatures.orc.skills.axe=1..5:0", "expected a STEP > 0"),
    ("creatures.orc.race=1..3", "a range needs a number"),
    ("scenario.units.orc_9.creature=orc|wolf", "no unit 'orc_9'"),
    ("nowhere.x=1..2", "expected KEY to start with scenario or a content file"),
    ("creatures.orc.skills.axe", "expected KEY=LOW..HIGH[:STEP] or KEY=a|b"),
])
def test_a_bad_knob_is_one_line_naming_the_problem(text: str, message: str) -> None:
    with pytest.raises(KnobError, match=r"^--knob") as caught:
        parse_knob(text, DATA_DIR, DUEL)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_knob_values_ranges_choices_and_units() -> None:
    assert parse_knob("ruleset.defence.parries_per_round=1..3", DATA_DIR, DUEL).values \
        == (1, 2, 3)
    assert parse_knob("creatures.orc.skills.axe=40..50:5", DATA_DIR, DUEL).values \
        == (40, 45, 50)
    floats = parse_knob("ruleset.burden.moderate.skill_factor=0.5..1.0:0.25", DATA_DIR, DUEL)
    assert floats.values == (0.5, 0.75, 1.0) and floats.numeric
    choice = parse_knob("scenario.units.orc_1.creature=orc|troll", DATA_DIR, DUEL)
    assert choice.values == ("orc", "troll") and not choice.numeric
    present = parse_knob("scenario.units.orc_1.present=true|false", DATA_DIR, DUEL)
    assert present.values == (True, False)
    assert parse_knob("scenario.max_rounds=5..10:5", DATA_DIR, DUEL).values == (5, 10)


def test_a_unit_can_be_swapped_and_removed(tmp_path: Path) -> None:
    import rules
    from experiments.balance.knobs import write_setting

    content, scenario = write_setting({"scenario.units.orc_1.creature": "troll",
                                       "scenario.max_rounds": 7}, DATA_DIR, DUEL,
                                      tmp_path / "a")
    parsed = rules.load_scenario(scenario, rules.load_content(content))
    assert parsed.max_rounds == 7
    assert [u.creature for u in parsed.units] == ["human_warrior", "troll"]
    skirmish = scenario_path("skirmish")
    content, scenario = write_setting({"scenario.units.wolf_1.present": False}, DATA_DIR,
                                      skirmish, tmp_path / "b")
    parsed = rules.load_scenario(scenario, rules.load_content(content))
    assert "wolf_1" not in [u.id for u in parsed.units] and len(parsed.units) == 7


def test_bernoulli_sprt_decides_each_way() -> None:
    assert bernoulli_sprt([1.0] * 200, 0.4, 0.6)[0] == "H1"
    assert bernoulli_sprt([0.0] * 200, 0.4, 0.6)[0] == "H0"
    assert bernoulli_sprt([0.5] * 200, 0.4, 0.6) == ("continue", 200)


def balance_command(out: Path, *extra: str) -> list[str]:
    return ["balance", "duel", "--knob", AXE, "--knob", DECOY,
            "--target", "party_win=0.40..0.60", "--party", "tactician",
            "--monsters", "tactician", "--budget", "1000", "--seed", "3",
            "--out", str(out), "--workers", "1", "--quiet", *extra]


def test_the_command_writes_its_report_and_resume_gives_the_same_result(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = tmp_path / "first"
    assert cli.main(balance_command(first)) == 0
    printed = capsys.readouterr().out
    quiet = next(line for line in printed.splitlines() if line.startswith("no measurable"))
    assert "recommended:" in printed and "creatures.human_warrior.skills.ride" in quiet
    result = json.loads((first / "balance.json").read_text())
    assert set(result) >= {"recommended", "estimate", "in_band", "battles_used", "knobs"}
    assert set(result["estimate"]) == {"metric", "value", "low", "high", "battles"}
    assert result["knobs"]["creatures.orc.skills.axe"].keys() >= {"effect", "low", "high"}
    page = (first / "report.html").read_text()
    assert "data:image/png;base64," in page and "One-step sensitivity" in page
    assert (first / "effects.png").stat().st_size > 0

    # a second run of the same seed: the same report
    again = tmp_path / "again"
    assert cli.main(balance_command(again)) == 0
    assert (again / "balance.json").read_text() == (first / "balance.json").read_text()

    # a run killed half way (its checkpoint cut, a half-written line left): --resume
    killed = tmp_path / "killed"
    killed.mkdir()
    lines = (first / "batches.jsonl").read_text().splitlines(keepends=True)
    (killed / "batches.jsonl").write_text("".join(lines[:len(lines) // 2]) + lines[-1][:30])
    (killed / "run.json").write_text((first / "run.json").read_text().replace(
        str(first), str(killed)))
    assert cli.main(balance_command(killed)) == 2
    assert "pass --resume" in capsys.readouterr().err
    assert cli.main(balance_command(killed, "--resume")) == 0
    assert (killed / "balance.json").read_text() == (first / "balance.json").read_text()


def test_the_command_rejects_bad_arguments(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    command = balance_command(tmp_path / "x")
    swap = {"party_win=0.40..0.60": "party_win=0.6..0.4"}
    assert cli.main([swap.get(word, word) for word in command]) == 2
    assert "expected finite LOW <= HIGH" in capsys.readouterr().err
    assert cli.main([{"1000": "10"}.get(word, word) for word in command]) == 2
    assert "--budget: expected at least 200 battles" in capsys.readouterr().err


def test_fray_knobs_sorts_nudges_by_effect_and_says_what_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows_file = tmp_path / "knobs.json"
    assert cli.main(["knobs", "duel", "--only", "creatures.orc.skills", "--battles", "300",
                     "--workers", "1", "--quiet", "--json", str(rows_file)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("as shipped: party_win ")
    rows = json.loads(rows_file.read_text())[1:]
    assert {row["knob"] for row in rows} == {f"creatures.orc.skills.{skill}" for skill in (
        "axe", "sword", "brawl", "grapple", "dodge", "throw", "listen", "spot")}
    by_move = {(row["knob"], row["to"]): row for row in rows}
    listen = by_move[("creatures.orc.skills.listen", 33)]
    assert listen["changes_nothing"] and listen["win_change"] == 0.0   # never rolled here
    assert "changes nothing" in next(line for line in printed.splitlines()
                                     if line.startswith("creatures.orc.skills.listen"))
    moved = [row for row in rows if not row["changes_nothing"]]
    assert moved and {row["knob"] for row in moved} >= {"creatures.orc.skills.axe"}
    sizes = [abs(row["win_change"]) for row in moved]
    assert sizes == sorted(sizes, reverse=True)
    assert rows.index(moved[-1]) < rows.index(listen)      # what changes nothing goes last
    assert cli.main(["knobs", "duel", "--only", "nothing.like.this", "--quiet"]) == 2


def test_fray_scenarios_shows_the_stored_balance_of_every_shipped_scenario(
        capsys: pytest.CaptureFixture[str]) -> None:
    import rules
    from experiments.balance.fairness import stored_table

    table = stored_table()
    assert set(table["scenarios"]) == set(rules.shipped_scenarios())
    for name in ("duel_fair", "skirmish_fair"):   # docs/balance.md's pre-registered bar
        row = table["scenarios"][name]
        assert 0.45 <= row["low"] <= row["high"] <= 0.55 and row["battles"] >= 2000
    assert cli.main(["scenarios"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("duel_fair"))
    row = table["scenarios"]["duel_fair"]
    assert f"{row['party_win']:.2f} [{row['low']:.2f}-{row['high']:.2f}]" in line


def test_the_fair_scenarios_measurement_is_reproducible(tmp_path: Path) -> None:
    from experiments.balance.fairness import measure_scenarios

    first = measure_scenarios(["duel_fair"], 300, seed=2048, workers=1)
    again = measure_scenarios(["duel_fair"], 300, seed=2048, workers=1)
    assert first == again and first["scenarios"]["duel_fair"]["battles"] == 300


def test_fray_knobs_nudges_the_scenarios_own_numbers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows_file = tmp_path / "knobs.json"
    assert cli.main(["knobs", "duel_fair", "--only", "scenario", "--battles", "200",
                     "--workers", "1", "--quiet", "--json", str(rows_file)]) == 0
    rows = json.loads(rows_file.read_text())[1:]
    moves = {(row["knob"], row["to"]) for row in rows}
    assert moves == {("scenario.max_rounds", 27), ("scenario.max_rounds", 33),
                     ("scenario.units.orc_1.skills.axe", 54),
                     ("scenario.units.orc_1.skills.axe", 66),
                     ("scenario.units.orc_1.hp", 8), ("scenario.units.orc_1.hp", 10)}
    hp = {row["to"]: row for row in rows if row["knob"] == "scenario.units.orc_1.hp"}
    assert hp[10]["win_change"] < 0 < hp[8]["win_change"]   # a tougher orc: fewer party wins


def test_a_setting_the_rules_refuse_is_one_line_from_the_worker_that_checks_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Settings are written and checked in the tasks (the driver only plans): a refused
    one still ends the run with one line naming the setting and the rule."""
    assert cli.main(["balance", "duel", "--knob", "scenario.max_rounds=-3..-1", "--target",
                 "party_win=0.4..0.6", "--party", "tactician", "--monsters", "tactician",
                 "--budget", "400", "--quiet", "--workers", "2",
                 "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert "setting scenario.max_rounds=" in err and "max_rounds: expected an integer" in err
    assert "\n" not in err
