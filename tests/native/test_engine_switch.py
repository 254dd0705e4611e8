"""One API, two engines (issue 23): ``engine=`` on every way to build a battle,
``FRAY_ENGINE``, ``battle.engine``, ``fray --engine`` and ``fray --version``; a battle on
either engine clones, pickles, deep-copies and round-trips through JSON into the other,
and every copy continues exactly as the original."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

import rules
from experiments.cli import main
from rules import Battle, engine

NATIVE = pytest.mark.skipif(not engine.native_available(),
                            reason="the native engine is not built here (no C++20 compiler)")


def _play(battle: Battle, seed: int, decisions: int | None = None) -> Battle:
    """Uniform random play from ``seed``: ``decisions`` of them, or to the end."""
    pick = random.Random(seed)
    done = 0
    while not battle.is_over and (decisions is None or done < decisions):
        actions = battle.legal_actions()
        battle.apply(actions[pick.randrange(len(actions))])
        done += 1
    return battle


@NATIVE
@pytest.mark.parametrize("name", ["native", "python"])
def test_every_constructor_takes_the_engine(name: str) -> None:
    text = rules.scenario.load_scenario("duel", rules.default_content()).text
    built = [Battle.from_scenario("duel", seed=1, engine=name),
             Battle.from_toml(text, seed=1, engine=name)]
    built.append(Battle.from_json(built[0].to_json(), engine=name))
    built.append(built[0].clone())
    assert [battle.engine for battle in built] == [name] * 4


@NATIVE
def test_the_environment_variable_picks_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, "python")
    assert Battle.from_scenario("duel", seed=1).engine == "python"
    assert Battle.from_scenario("duel", seed=1, engine="native").engine == "native"
    monkeypatch.delenv(engine.ENVIRONMENT_VARIABLE)
    assert Battle.from_scenario("duel", seed=1).engine == "native"


def test_an_unknown_engine_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="engine: expected 'native' or 'python', got 'rust'"):
        Battle.from_scenario("duel", seed=1, engine="rust")


@NATIVE
@pytest.mark.parametrize(("first", "second"), [("native", "python"), ("python", "native")])
def test_json_written_by_one_engine_continues_identically_on_the_other(
        first: str, second: str) -> None:
    mid = _play(Battle.from_scenario("skirmish", seed=7, engine=first), seed=3, decisions=80)
    moved = Battle.from_json(mid.to_json(), engine=second)
    assert moved.engine == second and moved.to_json() == mid.to_json()
    assert moved.legal_actions() == mid.legal_actions()
    assert _play(moved, seed=11).to_json() == _play(mid, seed=11).to_json()


@NATIVE
def test_a_native_battle_clones_pickles_and_deep_copies() -> None:
    mid = _play(Battle.from_scenario("cavalry", seed=5, engine="native"), seed=2, decisions=60)
    copies = [mid.clone(), pickle.loads(pickle.dumps(mid)), copy.deepcopy(mid)]
    assert all(battle.engine == "native" for battle in copies)
    ends = {_play(battle, seed=9).to_json() for battle in [mid, *copies]}
    assert len(ends) == 1


@NATIVE
@pytest.mark.parametrize("scenario", ["duel", "skirmish", "horde", "cavalry", "crypt"])
def test_both_engines_play_the_same_battle(scenario: str) -> None:
    """The same seed and choices give the same events on both engines (the differential
    fuzzer, ``fray fuzz --differential``, checks this at every decision at scale)."""
    python = _play(Battle.from_scenario(scenario, seed=4, engine="python"), seed=4)
    native = _play(Battle.from_scenario(scenario, seed=4, engine="native"), seed=4)
    assert native.to_json() == python.to_json()


def forget_engine_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``FRAY_ENGINE`` for the test, and whatever ``fray --engine`` sets in it undone
    afterwards (a bare ``delenv`` of an unset variable records nothing to restore, and
    the next tests in the process would run on the engine the command chose)."""
    monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, "native")
    monkeypatch.delenv(engine.ENVIRONMENT_VARIABLE)


def test_version_names_the_engine(capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    forget_engine_choice(monkeypatch)
    assert main(["--engine", "python", "--version"]) == 0
    assert capsys.readouterr().out.strip().endswith("engine: python (asked for)")


def test_the_engine_option_is_checked(capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    forget_engine_choice(monkeypatch)
    assert main(["--engine", "rust", "odds", "--help"]) == 2
    assert "invalid choice: 'rust'" in capsys.readouterr().err
