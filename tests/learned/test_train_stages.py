"""``fray train --imitate``'s overall bar (issue 50): one bar over demonstrations,
behaviour cloning, DAgger rounds and PPO, sized in estimated seconds, so its ETA covers
the whole run (each stage's own bar covered only itself)."""

from __future__ import annotations

import pytest

from experiments.train.stages import (
    DECISIONS_PER_BATTLE,
    TRAINED_SHARE,
    UNIT_SECONDS,
    Stages,
    imitation_stages,
)


def test_the_readme_example_is_mostly_cloning_and_its_stages_come_in_order() -> None:
    stages = imitation_stages(battles=200, epochs=8, rounds=1, steps=1)
    assert [name for name, _, _ in stages] == [
        "demonstrations", "behaviour cloning", "DAgger 1 demonstrations", "DAgger 1 cloning",
        "PPO"]
    seconds = {name: amount * UNIT_SECONDS[kind] for name, kind, amount in stages}
    cloning = seconds["behaviour cloning"] + seconds["DAgger 1 cloning"]
    total = sum(seconds.values())
    assert 0.5 < cloning / total < 0.8  # issue 50's run: 20 of its 31 minutes
    assert seconds["behaviour cloning"] == pytest.approx(
        200 * DECISIONS_PER_BATTLE * TRAINED_SHARE * 8 * UNIT_SECONDS["sample"])
    assert imitation_stages(200, 8, 0, 100, demonstrations=False)[0][0] == "behaviour cloning"


def test_the_overall_bar_advances_across_stages_and_ends_full() -> None:
    stages = Stages([("demonstrations", "battle", 10), ("behaviour cloning", "sample", 1000),
                     ("PPO", "step", 100)], progress=False)
    total = 10 * UNIT_SECONDS["battle"] + 1000 * UNIT_SECONDS["sample"] + 100 * UNIT_SECONDS[
        "step"]
    assert stages.total == pytest.approx(total)
    advance = stages.begin("demonstrations")
    advance(4)
    assert stages.done == pytest.approx(4 * UNIT_SECONDS["battle"])
    advance(100)  # never past its stage
    assert stages.done == pytest.approx(10 * UNIT_SECONDS["battle"])
    cloning = stages.begin("behaviour cloning", amount=500)  # known exactly now
    assert stages.total == pytest.approx(total - 500 * UNIT_SECONDS["sample"])
    cloning(250)
    stages.begin("PPO")  # the stage before counts as done when the next begins
    assert stages.done == pytest.approx(10 * UNIT_SECONDS["battle"]
                                         + 500 * UNIT_SECONDS["sample"])
    stages.close()
    assert stages.done == pytest.approx(stages.total)
