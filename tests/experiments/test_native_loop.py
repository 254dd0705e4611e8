"""``fray fuzz --native-loop`` (issue 23): random battles played inside the native engine
with its invariants checked there, the full ones on a sample; a failing battle is played
again decision by decision and recorded, shrunk and written like any other finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments import cli
from experiments.fuzzing import fuzz, native_loop
from experiments.fuzzing.fuzz_campaign import campaign, shipped_cases
from experiments.fuzzing.invariants import need
from experiments.replay import Replay
from rules import Battle, engine

needs_native = pytest.mark.skipif(not engine.native_available(),
                                  reason="the native engine (rules._native) is not built")


@needs_native
@pytest.mark.parametrize("index", range(3))
def test_the_uniform_chooser_makes_the_native_loops_choices(index: int) -> None:
    """fuzz.run with uniform_chooser (one decision at a time, on the Python engine) ends
    where the native loop ends: the failure replays are the loop's own battles."""
    text, source = shipped_cases()[index]
    case = fuzz.Case(text, source, 1234 + index)
    native, made = native_loop.play(case)
    python = Battle.from_toml(text, seed=case.seed, source=source, engine="python")
    chooser = native_loop.uniform_chooser(case.seed)
    decisions = 0
    while not python.is_over:
        acts = python.legal_actions()
        python.apply(acts[chooser(python, acts)[0]])
        decisions += 1
    assert python.to_json() == native.to_json()
    assert made == decisions > native_loop.SAMPLE_EVERY  # several chunks were played


def late_round(battle: Battle) -> None:
    """A planted, wrong invariant: no battle reaches round 3."""
    need(battle.round < 3, "planted", f"round {battle.round}")


@needs_native
def test_a_failure_in_the_loop_is_replayed_shrunk_and_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    original = native_loop.check_state

    def planted(battle: Battle) -> None:
        original(battle)
        late_round(battle)

    monkeypatch.setattr(native_loop, "check_state", planted)
    checks = fuzz.Checks(json_every=0, replay=False, extra=(late_round,))
    summary = campaign(tmp_path, seconds=60, battles=1, seed=2, native_loop=True,
                       checks=checks, shrink_seconds=5, shrink_tests=40)
    assert len(summary.found) == 1
    found = summary.found[0]
    assert (found.failure.kind, found.failure.name) == ("invariant", "planted")
    assert found.shrunk_to is not None and found.shrunk_to <= found.decisions
    replay = Replay.load(found.path)
    assert replay.failure is not None and replay.failure["name"] == "planted"


@needs_native
def test_a_clean_native_loop_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["fuzz", "--native-loop", "--battles", "4", "--seconds", "120",
                     "--generated", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "in 4 battles" in out and "no failures" in out


def test_native_loop_and_differential_do_not_mix(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["fuzz", "--native-loop", "--differential", "--seconds", "1",
                     "--out", str(tmp_path)])
    assert code == 2
    assert "--native-loop" in capsys.readouterr().err


@needs_native
def test_same_end_compares_the_state_and_every_event() -> None:
    """The loop's determinism check: the same seed played twice ends the same; another
    seed, or one event's field changed with the state and the event count alike, does not;
    a log read back through JSON (its names interned afresh) gives the same bytes."""
    from rules.events import RoundStarted

    text, source = shipped_cases()[0]
    first, _ = native_loop.play(fuzz.Case(text, source, 77))
    again, _ = native_loop.play(fuzz.Case(text, source, 77), checked=False)
    other, _ = native_loop.play(fuzz.Case(text, source, 78), checked=False)
    assert native_loop.same_end(first, again) and first.to_dict() == again.to_dict()
    assert not native_loop.same_end(first, other) and first.to_dict() != other.to_dict()
    restored = Battle.from_json(first.to_json(), engine="native")
    native = first._driver.to_native(first)  # type: ignore[union-attr]
    assert restored._driver.to_native(restored).event_bytes() == native.event_bytes()  # type: ignore[union-attr]
    one, two = first.clone(), first.clone()
    one._driver.to_native(one).append_events([RoundStarted(round=1)])  # type: ignore[union-attr]
    two._driver.to_native(two).append_events([RoundStarted(round=2)])  # type: ignore[union-attr]
    assert one.to_dict(events=False) == two.to_dict(events=False)
    assert not native_loop.same_end(one, two) and one.to_dict() != two.to_dict()
