"""fray sweep: variant content folders, common random numbers, the report, the TOML
writer, and every error path."""

from __future__ import annotations

import csv
import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules
from experiments import cli
from experiments.comparison.sweep import (
    SweepError,
    parse_setting,
    read_ruleset,
    toml_text,
    variants,
    write_variant,
)
from experiments.replay import DATA_DIR

RULESET = read_ruleset(DATA_DIR)


def test_the_writer_round_trips_the_shipped_ruleset_and_it_loads(tmp_path: Path) -> None:
    folder = write_variant(DATA_DIR, tmp_path / "same", {})
    assert tomllib.loads((folder / "ruleset.toml").read_text()) == RULESET
    assert rules.load_content(folder) == rules.load_content(DATA_DIR)
    for path in DATA_DIR.glob("*.toml"):
        if path.name != "ruleset.toml":
            assert (folder / path.name).read_bytes() == path.read_bytes()


keys = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
               max_size=8)
scalars = (st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text(max_size=10)
           | st.floats(allow_nan=False))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(keys, inner, max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(keys, values | st.dictionaries(keys, values, max_size=3),
                       max_size=4))
def test_the_toml_writer_round_trips_any_table(data: dict) -> None:
    assert tomllib.loads(toml_text(data, header="a header\nof two lines")) == data


def test_settings_take_typed_values_and_make_a_grid() -> None:
    heavy = parse_setting("burden.heavy.skill_factor=0.1,0.5,1", RULESET)
    assert heavy.values == (0.1, 0.5, 1.0)
    formula = parse_setting("hit_points.formula=siz_half,con_siz_half", RULESET)
    assert formula.values == ("siz_half", "con_siz_half")
    grid = variants([heavy, formula])
    assert len(grid) == 6
    assert grid[1] == {"burden.heavy.skill_factor": 0.1, "hit_points.formula": "con_siz_half"}


@pytest.mark.parametrize(("text", "message"), [
    ("burden.heavy.skil_factor=0.1", "--set burden.heavy.skil_factor: no such key in "
     "ruleset.toml; close keys: burden.heavy.skill_factor"),
    ("nothing_like_it=1", "its tables: burden, characteristics"),
    ("burden.heavy=0.1", "is a table of ruleset.toml; set one of its keys: "
     "burden.heavy.magic_fumble"),
    ("burden.heavy.skill_factor=abc", "expected a float value (like 0.1), got 'abc'"),
    ("movement.move_divisor=1.5", "expected a int value (like 2), got '1.5'"),
    ("characteristics.names=str", "expected a key holding one value, found a list"),
    ("burden.heavy.skill_factor=0.1,0.1", "expected distinct values"),
    ("burden.heavy.skill_factor", "expected KEY=V1,V2,..."),
])
def test_bad_settings_name_the_key_and_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(SweepError) as caught:
        parse_setting(text, RULESET)
    assert message in str(caught.value)


def test_a_key_set_twice_is_an_error() -> None:
    one = parse_setting("misc.torch_radius=2", RULESET)
    with pytest.raises(SweepError, match="expected each key once"):
        variants([one, one])


def test_sweep_writes_variants_on_the_same_seeds_and_reports_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    assert cli.main(["sweep", "--set", "defence.parries_per_round=0,1",
                     "--set", "modifiers.full_attack=20,60",
                     "--agents", "berserker,random", "--scenario", "duel", "--battles", "2",
                     "--out", str(out), "--workers", "1"]) == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert "defence.parries_per_round=0 modifiers.full_attack=60" in printed
    # one progress bar for the whole sweep (4 variants x 4 battles), not one per variant
    assert "| 16/16 [" in captured.err and "| 4/4 [" not in captured.err
    folders = sorted(out.glob("variant-*"))
    assert len(folders) == 4
    changed = tomllib.loads((folders[1] / "content" / "ruleset.toml").read_text())
    assert changed["defence"]["parries_per_round"] == 0
    assert changed["modifiers"]["full_attack"] == 60
    seeds = [[json.loads(line)["seed"] for line in (f / "battles.jsonl").open()]
             for f in folders]
    assert seeds[0] == seeds[1] == seeds[2] == seeds[3]   # common random numbers
    with (out / "sweep.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 * 3                               # 2 agents + the first team
    assert {r["subject"] for r in rows} == {"berserker", "random", "team:party"}
    assert all(float(r["win_low"]) <= float(r["win_rate"]) <= float(r["win_high"])
               for r in rows)
    assert (out / "sweep.png").stat().st_size > 0


def test_a_variant_the_loader_rejects_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["sweep", "--set", "movement.move_divisor=0", "--agents", "random",
                     "--scenario", "duel", "--battles", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == ("fray: error: variant movement.move_divisor=0: ruleset.toml: "
                   "movement.move_divisor: expected an integer >= 1, got 0\n")


def test_an_unknown_key_on_the_command_line_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["sweep", "--set", "burden.heavy.skil_factor=0.1", "--agents", "random",
                     "--scenario", "duel", "--battles", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fray: error: --set burden.heavy.skil_factor: no such key")
    assert err.count("\n") == 1


def test_sweep_starts_from_the_content_dir(tmp_path: Path) -> None:
    base = write_variant(DATA_DIR, tmp_path / "base", {"misc.torch_radius": 7})
    folder = write_variant(base, tmp_path / "variant", {"misc.bleed_per_round": 2})
    data = tomllib.loads((folder / "ruleset.toml").read_text())
    assert (data["misc"]["torch_radius"], data["misc"]["bleed_per_round"]) == (7, 2)


def test_a_content_dir_without_a_ruleset_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SweepError, match="expected the ruleset of the content folder"):
        read_ruleset(tmp_path)


def test_a_swept_folder_resumes_only_with_the_same_values(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["sweep", "--agents", "berserker", "--scenario", "duel", "--battles", "1",
            "--out", str(tmp_path), "--workers", "1"]
    assert cli.main([*args, "--set", "misc.bleed_per_round=0,2"]) == 0
    before = (tmp_path / "variant-01" / "content" / "ruleset.toml").read_bytes()
    capsys.readouterr()
    assert cli.main([*args, "--set", "misc.bleed_per_round=0,3", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "sweep.json: this folder was swept with ['misc.bleed_per_round=0', " in err
    assert (tmp_path / "variant-01" / "content" / "ruleset.toml").read_bytes() == before
    assert cli.main([*args, "--set", "misc.bleed_per_round=0,2", "--resume"]) == 0
