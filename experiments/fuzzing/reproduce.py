"""Re-running a fuzzer's finding (``fray replay`` of a failure replay): above both
:mod:`experiments.fuzzing.fuzz` and :mod:`experiments.fuzzing.differential`, which it
chooses between, so neither imports the other (issue 47)."""

from __future__ import annotations

from experiments.fuzzing import differential
from experiments.fuzzing.fuzz import Case, Checks, Outcome, action_chooser, run
from experiments.replay import Replay


def reproduce(replay: Replay) -> Outcome:
    """Re-run a failure replay (or any replay) under the checks it records (a differential
    finding plays on both engines again and compares them)."""
    recorded = (replay.failure or {}).get("checks", {})
    checks = Checks.from_dict(recorded) if recorded else Checks()
    runner = differential.run if checks.differential else run
    return runner(Case.of_replay(replay), action_chooser(replay.actions), checks,
                  replay.agents)
