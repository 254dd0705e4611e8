"""Whole battles in the engine (rules/native/play/play.cpp): experiments.replay.play hands a
native battle whose every agent has a native twin to the engine, with byte-identical
replays (actions, reasons, events, result) to the Python agents on the Python engine; in
a battle where some agent has none, the others' twins still decide in the engine."""

from __future__ import annotations

import pytest

import rules
from experiments import replay as replays
from rules import engine

pytestmark = pytest.mark.skipif(not engine.native_available(),
                                reason="the native engine (rules._native) is not built")

CASES = [(scenario, pairing, seed) for scenario in rules.shipped_scenarios()
         for pairing, seed in ((("berserker", "berserker"), 3), (("random", "berserker"), 4),
                               (("tactician", "tactician"), 3), (("tactician", "berserker"), 4),
                               (("berserker", "tactician"), 5),
                               (("skirmisher", "tactician"), 6), (("berserker", "skirmisher"), 7),
                               (("defender", "tactician"), 6), (("berserker", "defender"), 7))]


@pytest.mark.parametrize(("scenario", "pairing", "seed"), CASES)
def test_in_engine_battles_equal_python_battles(monkeypatch: pytest.MonkeyPatch, scenario: str,
                                                pairing: tuple[str, str], seed: int) -> None:
    teams = rules.Battle.from_scenario(scenario, 0, engine="python").scenario.teams
    names = dict(zip(teams, pairing, strict=False))
    played = {}
    calls = []
    original = replays.bridge.play_records
    monkeypatch.setattr(replays.bridge, "play_records",
                        lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs))
    for name in engine.ENGINES:
        monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, name)
        battle, replay = replays.play(scenario, seed, names)
        played[name] = (replay.to_dict(), battle.to_json())
    assert calls == [1]  # the native battle went to the engine, the Python one did not
    assert played["native"] == played["python"]


@pytest.mark.parametrize("scenario", ["duel", "skirmish"])
def test_an_agent_without_native_form_plays_in_python_beside_twins(
        monkeypatch: pytest.MonkeyPatch, scenario: str) -> None:
    """``per_unit()`` has no native form: it decides in Python while the berserkers'
    twins decide in the engine, decision by decision, with the Python engine's replay."""
    for name in ("play_natively", "play_records"):
        monkeypatch.setattr(replays.bridge, name,
                            lambda *args, **kwargs: pytest.fail("played in the engine"))
    asked = []
    original = replays.bridge.native_choice
    monkeypatch.setattr(replays.bridge, "native_choice",
                        lambda *args: asked.append(1) or original(*args))
    played = {}
    for name in engine.ENGINES:
        monkeypatch.setenv(engine.ENVIRONMENT_VARIABLE, name)
        battle, replay = replays.play(scenario, 2, {"party": "per_unit()",
                                                    "monsters": "berserker"})
        assert battle.is_over and replay.result["decisions"] == len(replay.actions)
        played[name] = (replay.to_dict(), battle.to_json())
    assert played["native"] == played["python"]
    assert 0 < len(asked) < len(replay.actions)  # the monsters' decisions only


@pytest.mark.parametrize("scenario", rules.shipped_scenarios())
def test_play_records_are_the_actions_dicts(scenario: str) -> None:
    """``play_records`` (the replay's records built in the engine) gives what
    ``play_natively``'s actions and reasons give through ``Action.to_dict()``, and leaves
    the battle in the same state."""
    import agents
    from rules import bridge

    def played(records: bool) -> tuple[object, str]:
        battle = rules.Battle.from_scenario(scenario, 8, engine="native")
        twins = {team: bridge.twin_of(agents.make("tactician", seed=8 + index))
                 for index, team in enumerate(battle.scenario.teams)}
        if records:
            return bridge.play_records(battle, twins), battle.to_json()
        made = bridge.play_natively(battle, twins)
        return ([action.to_dict() for action, _ in made],
                [reason for _, reason in made]), battle.to_json()

    (actions, reasons), state = played(True)
    assert actions and len(actions) == len(reasons)
    assert any(action["square"] is not None for action in actions)
    assert ((actions, reasons), state) == played(False)
