"""Replays the viewer tests build (imported by conftest and the tests, as tests/rules
does with its builders)."""

from __future__ import annotations

from experiments.replay import Replay, play, rerun

#: A reason with markup in it: the page must show it as text (and not end its script).
ODD_REASON = "test reason </script><b>not bold</b> & more"


def reasoned_replay(scenario: str, seed: int) -> Replay:
    """A berserker battle whose every fifth action carries a reason (re-simulated so the
    Reasoned events are in the replay's events)."""
    _, replay = play(scenario, seed, {"party": "berserker", "monsters": "berserker"})
    replay.reasons = [(ODD_REASON if i == 0 else f"test reason {i}") if i % 5 == 0 else None
                      for i in range(len(replay.actions))]
    replay.finish(rerun(replay))
    return replay
