"""``fray bench``: the quick run prints every figure and every speed target with a
verdict, grouped by what it measures, and says what a MISS means (how fast is for the
bench, never for a test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rules
from experiments import cli
from experiments.benchmarks import engines, maps, suite
from experiments.benchmarks.measure import Figure, format_number
from rules import engine as rules_engine

SCENARIOS = ("duel", "skirmish", "horde")
EXPECTED = [
    *(f"headless.{agent}.{s}.{what}" for agent in ("random", "tactician") for s in SCENARIOS
      for what in ("decisions_per_s", "battles_per_s", "battles_per_cpu_s")),
    *(f"gym.{s}.{o}" for s in SCENARIOS for o in ("random", "berserker")),
    "aec.skirmish", "aec.connect_four", "vector.1", "vector.2", "vector.batched.64",
    "reach.cold_us", "reach.cached_us", "reach.scipy_us",
    *(f"{what}.{s}" for what in ("clone", "json", "memory.battle", "memory.env")
      for s in ("skirmish", "horde")),
    "ppo.skirmish", "ppo.invalid_action_env", "ppo.vector", "learner.sb3.selector",
    "learner.batched.selector",
    "map300.first_decision_s", "map300.first_decision_mib", "crowd.p50_ms", "crowd.p99_ms",
    "crowd.p99_cpu_ms",
]
#: the native engine section: each figure on both engines and their ratio
ENGINE_FIGURES = [f"engines.{what}.{side}" for what in (
    "random.skirmish", "loop.skirmish", "loop.horde", "clone.skirmish",
    "map300.first_decision_s", "tactician.skirmish", "mcts.skirmish", "fuzz")
    for side in ("native", "python", "ratio")]
#: the env figures that need the native engine (the batched vector env)
NATIVE_ENV = ["vector.batched.64", "ppo.vector", "learner.sb3.selector",
              "learner.batched.selector"]
DIFFERENTIAL = ["engines.differential.decisions", "engines.differential.differences"]
NATIVE_GOALS = {  # label -> goal of the native engine targets
    "random skirmish, agents in Python: native / python": ">= 10",
    "random play skirmish (Battle.random_play): native / python": ">= 100",
    "random play horde (Battle.random_play): native / python": ">= 100",
    "clone() mid-skirmish: python / native": ">= 10",
    "first decision 300x300: native / python": "<= 1.0",
    "MCTS iterations/s, native rollouts / python": ">= 20",
    "tactician-vs-tactician skirmish battles/s: native / python": ">= 50",
    "fray fuzz decisions/s: native / python": ">= 20",
    "differential fuzzing: decisions with 0 differences": ">= 1,000,000",
}
TARGETS = 16 + len(NATIVE_GOALS)


def test_bench_quick_prints_every_figure_and_target(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_file = tmp_path / "bench.json"
    assert cli.main(["bench", "--quick", "--json", str(out_file)]) == 0
    out = capsys.readouterr().out
    record = json.loads(out_file.read_text())
    figures = {f["key"]: f for f in record["figures"]}
    assert set(EXPECTED + ENGINE_FIGURES + DIFFERENTIAL) <= set(figures)
    assert f"{record['machine']['cores']} cores" in out.splitlines()[0]
    assert f"engine {record['machine']['engine']}" in out.splitlines()[0]
    for key in ENGINE_FIGURES:  # both engines measured in this run where native is built
        assert bool(figures[key]["values"]) == rules_engine.native_available()
        assert all(value > 0 for value in figures[key]["values"])
    for fig in figures.values():
        line = next(line for line in out.splitlines() if line.strip().startswith(fig["label"]))
        if fig["values"]:  # measured: median and range printed
            assert fig["min"] <= fig["median"] <= fig["max"]
            assert format_number(fig["median"]) in line and fig["unit"] in line
        elif fig["key"] in DIFFERENTIAL:  # no fuzzing record given
            assert fig["note"].startswith("n/a (no record") and fig["note"] in line
        elif fig["key"].startswith("engines.") or fig["key"] in NATIVE_ENV:
            assert fig["note"] == engines.NOT_BUILT and fig["note"] in line
        else:  # only an agent not registered yet may be missing
            assert fig["note"] == "n/a (not registered)" and fig["note"] in line
            assert fig["key"].startswith("headless.tactician.")
    assert len(record["targets"]) == TARGETS
    lines = out.splitlines()
    heading = lines.index(next(line for line in lines if line.startswith("== speed targets")))
    met = sum(t["verdict"] == "PASS" for t in record["targets"])
    assert lines[heading] == f"== speed targets: {met} of {TARGETS} met in this run =="
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
            ("headless", "differential")) or (target["area"] == "native engine" and not
                                              rules_engine.native_available())
    native = {t["label"]: t["goal"] for t in record["targets"] if t["area"] == "native engine"}
    assert native == NATIVE_GOALS


def test_bench_json_into_a_missing_folder_is_a_usage_error(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # fray makes at most a file's own folder (experiments/paths.py), not a tree
    assert cli.main(["bench", "--json", str(tmp_path / "nowhere" / "deeper" / "b.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--json" in err and "nowhere" in err
    assert not (tmp_path / "nowhere").exists()


def test_the_bar_is_weighted_by_each_section_s_measured_length() -> None:
    """Issue 50: counted in sections, the bar's ETA said "2 s" before a 28 s section."""
    from experiments.benchmarks.suite import SECTION_SECONDS, SECTIONS

    assert [title for title, _ in SECTIONS] == list(SECTION_SECONDS)
    assert all(seconds > 0 for seconds in SECTION_SECONDS.values())


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
        fig("gym.skirmish.berserker", 300, 900, 600), fig("aec.connect_four", 150, 250),
        fig("vector.batched.64", 5000), fig("ppo.vector", 80), fig("ppo.invalid_action_env", 100),
        fig("clone.skirmish", 99, 101, 120), fig("vector.1", 10), fig("vector.2", 17),
        fig("learner.sb3.selector", 300, 310), fig("learner.batched.selector", 1500, 1600))}
    judged = {t.label: t for t in suite.targets(figs, {"duel": 2, "horde": 18})}
    env = judged["gym env skirmish (berserker) / connect_four_v3"]
    assert env.value == pytest.approx(3.0) and env.verdict == "PASS"
    batched = judged["batched vector env 64 battles per core / connect_four_v3"]
    assert batched.value == pytest.approx(25.0) and batched.verdict == "MISS"
    assert judged["MaskablePPO batched vector env / InvalidActionEnvDiscrete"].verdict == "MISS"
    assert judged["clone() skirmish"].verdict == "MISS"  # median 101 µs
    learner = judged["batched PPO selector / fray train's MaskablePPO selector"]
    assert learner.value == pytest.approx(1550 / 305) and learner.verdict == "PASS"
    assert judged["AsyncVectorEnv 2 workers / 1 worker"].verdict == "PASS"  # 1.7x
    assert judged["reach cached query"].verdict == "n/a"  # not measured
    assert "units grow 9x" in " ".join(judged)
    assert {t.area for t in judged.values()} == {"rules core", "reach graph", "envs",
                                                 "learner", "big maps and crowds",
                                                 "native engine"}
    assert "short of the target on this machine" in suite.MISS_MEANS


def test_native_targets_judge_the_ratios_and_the_fuzzing_record(tmp_path: Path) -> None:
    def fig(key: str, *values: float) -> Figure:
        return Figure(key, key, "x", list(values))

    figs = {f.key: f for f in (
        fig("engines.random.skirmish.ratio", 1.2, 1.4, 12), fig("engines.loop.horde.ratio", 150),
        fig("engines.clone.skirmish.ratio", 10, 11), fig("engines.map300.first_decision_s."
                                                         "ratio", 0.6, 1.1, 0.9))}
    record = tmp_path / "fuzz.json"
    record.write_text(json.dumps({"decisions": 1_200_000, "differences": 0}))
    assert engines.read_record(record) is None
    figs.update((f.key, f) for f in engines.differential(record))
    judged = {t.label: t for t in suite.native_targets(figs)}
    assert {label: t.goal for label, t in judged.items()} == NATIVE_GOALS
    assert {t.area for t in judged.values()} == {"native engine"}
    verdicts = {label: t.verdict for label, t in judged.items()}
    assert verdicts == {
        "random skirmish, agents in Python: native / python": "MISS",  # median 1.4x
        "random play skirmish (Battle.random_play): native / python": "n/a",
        "random play horde (Battle.random_play): native / python": "PASS",
        "clone() mid-skirmish: python / native": "PASS",  # median 10.5x
        "first decision 300x300: native / python": "PASS",  # median 0.9x
        "MCTS iterations/s, native rollouts / python": "n/a",
        "tactician-vs-tactician skirmish battles/s: native / python": "n/a",
        "fray fuzz decisions/s: native / python": "n/a",
        "differential fuzzing: decisions with 0 differences": "PASS",
    }
    record.write_text(json.dumps({"decisions": 1_200_000, "differences": 1}))
    figs.update((f.key, f) for f in engines.differential(record))
    fuzzing = suite.native_targets(figs)[-1]
    assert fuzzing.value == 1_200_000 and fuzzing.verdict == "MISS"
    absent = suite.native_targets({})[-1]
    assert absent.value is None and absent.verdict == "n/a"


def test_engine_section_is_na_without_the_native_engine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_engine, "native_available", lambda: False)
    monkeypatch.setattr(rules_engine, "native_module", lambda: None)
    figs = {f.key: f for f in engines.figures(quick=True)}
    assert list(figs) == ENGINE_FIGURES + DIFFERENTIAL
    for key in ENGINE_FIGURES:
        assert not figs[key].values and figs[key].note == engines.NOT_BUILT
    assert not figs[DIFFERENTIAL[0]].values
    judged = suite.native_targets(figs)
    assert [t.verdict for t in judged] == ["n/a"] * len(NATIVE_GOALS)
    assert all(suite.target_line(t).rstrip().endswith("n/a") for t in judged)


def test_bench_differential_record_that_is_not_one_is_a_usage_error(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "fuzz.json"
    record.write_text(json.dumps({"decisions": 10}))
    assert cli.main(["bench", "--differential", str(record)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--differential" in err and "differences" in err


def test_doc_figures_print_the_date_and_machine_then_each_figure(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50: the docs' figures come from experiments/benchmarks/doc_figures.py, which
    prints them under the date and the machine they were measured on."""
    from experiments.benchmarks import doc_figures

    assert set(doc_figures.FIGURES) >= {"cli", "demo", "mcts", "sweep", "ppo", "imitate"}
    assert doc_figures.main(["cli"]) == 0
    header, line = capsys.readouterr().out.splitlines()
    assert header.startswith("doc figures, 20") and "UTC" in header
    assert "cores, load average" in header
    assert line.startswith("cli: fray --version ") and "python -c pass" in line
    assert "fray tournament --help " in line and "fray tournament --bogus " in line
    with pytest.raises(SystemExit):
        doc_figures.main(["no-such-figure"])
