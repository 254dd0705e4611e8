"""``fray fuzz --differential`` (issue 23): the two engines play the same battles and are
compared after every decision. Clean runs find nothing; a planted difference in the
native legal actions is found, named, shrunk, written, and reproduced by ``fray replay``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from experiments import cli
from experiments.benchmarks.engines import read_record
from experiments.fuzzing import differential, fuzz, generate
from experiments.fuzzing.fuzz_campaign import campaign, shipped_cases
from experiments.fuzzing.reproduce import reproduce
from experiments.replay import Replay
from rules import engine
from rules.actions import Action, ActionKind
from rules.bridge.driver import NativeDriver

needs_native = pytest.mark.skipif(not engine.native_available(),
                                  reason="the native engine (rules._native) is not built")


@pytest.fixture
def native_drops_a_destination(monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted native bug: the native legal actions forget the last MOVE destination."""
    original = NativeDriver.legal_actions

    def dropping(self: NativeDriver, battle: object) -> list[Action]:
        found = original(self, battle)
        moves = [index for index, action in enumerate(found) if action.kind is ActionKind.MOVE]
        return found[:moves[-1]] + found[moves[-1] + 1:] if len(moves) > 1 else found

    monkeypatch.setattr(NativeDriver, "legal_actions", dropping)


@needs_native
def test_the_engines_agree_on_every_shipped_scenario() -> None:
    """40 random decisions on each shipped scenario, everything compared at every one."""
    checks = differential.differential_checks()
    rng = np.random.default_rng(23)
    compared = 0
    for text, source in shipped_cases():
        choices = [int(x) for x in rng.integers(0, 1 << 16, size=40)]
        outcome = differential.run_choices(fuzz.Case(text, source, 7), choices, checks)
        assert outcome.failure is None, f"{source}: {outcome.failure}"
        assert outcome.battle.engine == "python"
        compared += outcome.decisions
    assert compared == 40 * len(shipped_cases())


@needs_native
def test_a_clean_command_run_reports_zero_differences(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["fuzz", "--differential", "--json-every", "0", "--battles", "1",
                     "--seconds", "120", "--agents", "random", "--seed", "3",
                     "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "decisions compared on both engines in 1 battles" in out
    assert "0 differences between the engines" in out
    lines = (tmp_path / "battles.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["failure"] is None
    record = tmp_path / "differential.json"  # what fray bench --differential reads
    assert read_record(record) is None
    assert json.loads(record.read_text())["differences"] == 0
    assert json.loads(record.read_text())["decisions"] == json.loads(lines[0])["decisions"]


@needs_native
def test_a_planted_native_difference_is_found_shrunk_written_and_replayed(
        native_drops_a_destination: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    summary = campaign(tmp_path, seconds=60, battles=1, seed=1, agent_pool=["random"],
                       differential=True, shrink_seconds=3, shrink_tests=60)
    assert len(summary.found) == 1
    found = summary.found[0]
    assert (found.failure.kind, found.failure.name) == ("differential", "legal")
    assert found.failure.message.startswith("action ")  # the first differing one
    assert "python MOVE square=" in found.failure.message
    assert found.shrunk_to is not None and found.shrunk_to <= found.decisions
    assert found.path.name == "00-differential-legal.json"
    replay = Replay.load(found.path)
    assert replay.failure is not None
    assert replay.failure["checks"]["differential"] is True
    shrunk, original = (generate.scenario_data(text) for text in (replay.scenario_text,
                                                                   shipped_cases()[0][0]))
    assert (len(shrunk["units"]), len(shrunk["map"])) < (len(original["units"]),
                                                         len(original["map"]))
    again = reproduce(replay)  # what `fray replay` runs
    assert again.failure is not None and again.failure.signature == found.failure.signature
    assert cli.main(["replay", str(found.path)]) == 1
    assert "REPRODUCED" in capsys.readouterr().out
    monkeypatch.undo()  # "fix" the native search: the engines agree again
    assert reproduce(replay).failure is None
    assert cli.main(["replay", str(found.path)]) == 0
    assert "no longer happens" in capsys.readouterr().out


@needs_native
def test_the_command_exits_1_and_names_the_difference(
        native_drops_a_destination: None, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["fuzz", "--differential", "--battles", "1", "--seconds", "60",
                     "--agents", "random", "--shrink-seconds", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "DIFFERENCE differential legal" in out
    assert "1 difference between the engines" in out
    assert json.loads((tmp_path / "differential.json").read_text())["differences"] == 1
    assert (tmp_path / "failures" / "00-differential-legal.json").is_file()


@needs_native
def test_one_engine_raising_is_an_exception_difference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> list[Action]:
        raise IndexError("planted")

    monkeypatch.setattr(NativeDriver, "legal_actions", broken)
    text, source = shipped_cases()[0]
    outcome = differential.run_choices(fuzz.Case(text, source, 1), [0] * 30,
                                       differential.differential_checks())
    failure = outcome.failure
    assert failure is not None and (failure.kind, failure.name) == ("differential",
                                                                    "exception")
    assert "python raises nothing; native raises IndexError: planted" in failure.message
    assert failure.where.startswith("native ")


def test_first_difference_names_the_key_path_and_both_values() -> None:
    python = {"round": 3, "combatants": [{"id": "a", "hp": 9}, {"id": "b", "hp": 4}]}
    native = {"round": 3, "combatants": [{"id": "a", "hp": 9}, {"id": "b", "hp": 5}]}
    assert (differential.first_difference(python, native)
            == "combatants[1].hp: python 4, native 5")
    assert differential.first_difference(python, python) is None
    assert "length python 2, native 1" in differential.first_difference(
        python, {**python, "combatants": python["combatants"][:1]})
    long = differential.first_difference({"x": "a" * 999}, {"x": "b"})
    assert long is not None and len(long) < 2 * differential.SHOWN


def test_differential_needs_the_native_engine(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(engine, "native_available", lambda: False)
    assert cli.main(["fuzz", "--differential", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--differential: the native engine is not built" in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(differential.NativeUnavailable):
        differential.run_choices(fuzz.Case(*shipped_cases()[0], 1), [],
                                 differential.differential_checks())


@pytest.mark.parametrize(("argv", "message"), [
    (["--json-every", "5"], "--json-every: only with --differential"),
    (["--differential", "--json-every", "-1"], "--json-every: expected a whole number"),
])
def test_differential_bad_arguments_are_one_line(argv: list[str], message: str,
                                                 tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    if "--differential" in argv and not engine.native_available():
        pytest.skip("the native engine (rules._native) is not built")
    assert cli.main(["fuzz", *argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_differential_checks_round_trip_through_a_replay() -> None:
    checks = differential.differential_checks(json_every=7)
    again = fuzz.Checks.from_dict(json.loads(json.dumps(checks.to_dict())))
    assert again.differential and again.json_every == 7
    assert not fuzz.Checks.from_dict({}).differential
