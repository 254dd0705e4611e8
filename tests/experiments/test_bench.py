"""``fray bench``: the quick run prints every figure and every speed target with a
verdict, grouped by what it measures, and says what a MISS means (how fast is for the
bench, never for a test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rules
from experiments import cli
from experiments.benchmarks import maps, suite
from experiments.benchmarks.measure import Figure, format_number

SCENARIOS = ("duel", "skirmish", "horde")
EXPECTED = [
    *(f"headless.{agent}.{s}.{what}" for agent in ("random", "tactician") for s in SCENARIOS
      for what in ("decisions_per_s", "battles_per_s", "battles_per_cpu_s")),
    *(f"gym.{s}.{o}" for s in SCENARIOS for o in ("random", "berserker")),
    "aec.skirmish", "aec.connect_four", "vector.1", "vector.2",
    "reach.cold_us", "reach.cached_us", "reach.scipy_us",
    *(f"{what}.{s}" for what in ("clone", "json", "memory.battle", "memory.env")
      for s in ("skirmish", "horde")),
    "ppo.skirmish", "ppo.invalid_action_env",
    "map300.first_decision_s", "map300.first_decision_mib", "crowd.p50_ms", "crowd.p99_ms",
    "crowd.p99_cpu_ms",
]


def test_bench_quick_prints_every_figure_and_target(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_file = tmp_path / "bench.json"
    assert cli.main(["bench", "--quick", "--json", str(out_file)]) == 0
    out = capsys.readouterr().out
    record = json.loads(out_file.read_text())
    figures = {f["key"]: f for f in record["figures"]}
    assert set(EXPECTED) <= set(figures)
    assert f"{record['machine']['cores']} cores" in out.splitlines()[0]
    for fig in figures.values():
        line = next(line for line in out.splitlines() if line.strip().startswith(fig["label"]))
        if fig["values"]:  # measured: median and range printed
            assert fig["min"] <= fig["median"] <= fig["max"]
            assert format_number(fig["median"]) in line and fig["unit"] in line
        else:  # only an agent not registered yet may be missing
            assert fig["note"] == "n/a (not registered)" and fig["note"] in line
            assert fig["key"].startswith("headless.tactician.")
    assert len(record["targets"]) == 13
    lines = out.splitlines()
    heading = lines.index(next(line for line in lines if line.startswith("== speed targets")))
    met = sum(t["verdict"] == "PASS" for t in record["targets"])
    assert lines[heading] == f"== speed targets: {met} of 13 met in this run =="
    assert lines[heading + 1] == suite.MISS_MEANS  # what a MISS means, in one line
    assert "issue" not in out
    areas = [line.strip() for line in lines[heading:] if line.startswith(" ") and
             line.rstrip().endswith(":")]
    assert areas == [f"{area}:" for area in dict.fromkeys(t["area"] for t in
                                                          record["targets"])]
    for target in record["targets"]:
        line = next(line for line in out.splitlines() if target["label"] in line
                    and "target" in line)
        assert line.rstrip().endswith(target["verdict"])
        assert target["verdict"] in ("PASS", "MISS") or target["label"].startswith(
            "headless")


def test_bench_json_into_a_missing_folder_is_a_usage_error(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli.main(["bench", "--json", str(tmp_path / "nowhere" / "b.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--json" in err and "nowhere" in err


def test_generated_scenarios_parse_with_the_units_asked_for() -> None:
    crowd = rules.Battle.from_toml(maps.crowd(40, 20), seed=0)
    assert (crowd.grid.width, crowd.grid.height) == (40, 40)
    teams = [c.team for c in crowd.combatants.values()]
    assert teams.count("party") == teams.count("monsters") == 20
    big = rules.Battle.from_toml(maps.open_map(300, variant=5), seed=0)
    assert (big.grid.width, big.grid.height) == (300, 300) and len(big.combatants) == 4
    assert big.grid.blocks_movement((5, 1)) and not big.grid.blocks_movement((4, 1))


def test_targets_judge_medians_and_ratios() -> None:
    def fig(key: str, *values: float) -> Figure:
        return Figure(key, key, "/s", list(values))

    figs = {f.key: f for f in (
        fig("gym.skirmish.berserker", 100, 300, 200), fig("aec.connect_four", 150, 250),
        fig("clone.skirmish", 99, 101, 120), fig("vector.1", 10), fig("vector.2", 17))}
    judged = {t.label: t for t in suite.targets(figs, {"duel": 2, "horde": 18})}
    env = judged["gym env skirmish (berserker) / connect_four_v3"]
    assert env.value == pytest.approx(1.0) and env.verdict == "PASS"
    assert judged["clone() skirmish"].verdict == "MISS"  # median 101 µs
    assert judged["AsyncVectorEnv 2 workers / 1 worker"].verdict == "PASS"  # 1.7x
    assert judged["reach cached query"].verdict == "n/a"  # not measured
    assert "units grow 9x" in " ".join(judged)
    assert {t.area for t in judged.values()} == {"rules core", "reach graph", "envs",
                                                 "learner", "big maps and crowds"}
    assert "short of the target on this machine" in suite.MISS_MEANS
