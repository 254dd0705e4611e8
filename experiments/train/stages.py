"""One overall progress bar for a training run made of stages (issue 50).

``fray train --imitate`` runs demonstrations, behaviour cloning, DAgger rounds (more
demonstrations, more cloning), then PPO. Each stage keeps its own bar, but the first one's
ETA (the demonstrations': a minute) said nothing of the whole run (half an hour, two
thirds of it cloning). :class:`Stages` adds one bar over all of them, in estimated
seconds: each stage's size is its work (battles, samples through a cloning epoch, PPO
steps) times :data:`UNIT_SECONDS`, the time a unit of that kind took on the reference
machine. Only the ratios between kinds matter: the bar's rate, and so its ETA, is this
machine's own pace. A cloning stage's size is first estimated from
:data:`DECISIONS_PER_BATTLE`, then set exactly when its demonstrations exist.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tqdm import tqdm

#: seconds a unit of each kind of work takes, fray-spatial on skirmish on the 2-core
#: machine: a demonstration battle (the tactician's, its decisions encoded), one
#: demonstration decision through one cloning epoch, one PPO step. The first two from the
#: README's imitate example as issue 50 timed it (31 minutes: 300 battles in about 11,
#: about 196,000 samples through cloning epochs in about 20); the PPO step from
#: `fray train skirmish --policy fray-spatial` (about 50 steps/s with its updates).
#: Under heavy load cloning slows far more than the battles (torch's threads wait), so
#: the ratios, and the first ETA, hold for a machine not shared with other work.
UNIT_SECONDS = {"battle": 2.2, "sample": 0.006, "step": 0.02}
#: decisions the trained team (monsters) makes in a demonstration battle on skirmish:
#: 470 in 6 battles of `fray train skirmish --imitate tactician --imitate-battles 6`
DECISIONS_PER_BATTLE = 78
#: the share of the demonstrations cloning trains on (imitation.split holds out the rest)
TRAINED_SHARE = 0.9


class Stages:
    """The overall bar of ``stages``: (name, kind of work, amount) in the order they run.

    ``begin(name, amount)`` starts a stage (``amount`` replaces the estimate when it is
    known by then) and returns the function its loop calls with the units it did."""

    def __init__(self, stages: Sequence[tuple[str, str, float]], progress: bool = True) -> None:
        self._kinds = {name: kind for name, kind, _ in stages}
        self._sizes = {name: amount * UNIT_SECONDS[kind] for name, kind, amount in stages}
        self._order = [name for name, _, _ in stages]
        self._done: dict[str, float] = {}
        self.bar = tqdm(total=sum(self._sizes.values()), desc="overall", unit="s",
                        disable=not progress, dynamic_ncols=True, smoothing=0,
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix} "
                                   "[{elapsed}<{remaining}]")

    def begin(self, name: str, amount: float | None = None) -> Callable[[float], None]:
        """Start stage ``name``; the function that advances it by units of its kind."""
        if amount is not None:
            self._sizes[name] = amount * UNIT_SECONDS[self._kinds[name]]
            self.bar.total = sum(self._sizes.values())
        for earlier in self._order[:self._order.index(name)]:
            self._finish(earlier)
        number = self._order.index(name) + 1
        self.bar.set_postfix_str(f"stage {number}/{len(self._order)}: {name}", refresh=True)
        unit = UNIT_SECONDS[self._kinds[name]]

        def advance(units: float) -> None:
            left = self._sizes[name] - self._done.get(name, 0.0)
            step = min(left, units * unit)
            self._done[name] = self._done.get(name, 0.0) + step
            self.bar.update(step)

        return advance

    def _finish(self, name: str) -> None:
        """Count what is left of a stage that ended (its estimate was too high)."""
        left = self._sizes[name] - self._done.get(name, 0.0)
        if left > 0:
            self._done[name] = self._sizes[name]
            self.bar.update(left)

    def close(self) -> None:
        for name in self._order:
            self._finish(name)
        self.bar.close()

    @property
    def total(self) -> float:
        """The whole run's estimated seconds (reference machine)."""
        return sum(self._sizes.values())

    @property
    def done(self) -> float:
        """The estimated seconds of work done so far."""
        return sum(self._done.values())


def imitation_stages(battles: int, epochs: int, rounds: int, steps: int,
                     demonstrations: bool = True) -> list[tuple[str, str, float]]:
    """The stages of ``fray train --imitate``: demonstrations (unless loaded from a file),
    cloning, each DAgger round's demonstrations (half as many) and cloning (half the
    epochs, on everything so far), then PPO's ``steps``."""
    samples = battles * DECISIONS_PER_BATTLE * TRAINED_SHARE
    stages: list[tuple[str, str, float]] = []
    if demonstrations:
        stages.append(("demonstrations", "battle", battles))
    stages.append(("behaviour cloning", "sample", samples * epochs))
    for number in range(1, rounds + 1):
        more = max(1, battles // 2)
        samples += more * DECISIONS_PER_BATTLE * TRAINED_SHARE
        stages.append((f"DAgger {number} demonstrations", "battle", more))
        stages.append((f"DAgger {number} cloning", "sample", samples * max(1, epochs // 2)))
    stages.append(("PPO", "step", steps))
    return stages
