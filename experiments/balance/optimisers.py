"""Optimisers over a grid of knob values, behind one ask/tell interface.

Every knob is an index into its values: a range is an ordered integer (the optimiser may
learn that neighbours behave alike), a choice list is categorical. Three are kept, so
docs/balance.md's comparison can be rerun (``experiments.balance.compare``):

- ``optuna``: Optuna's TPE sampler (multivariate, seeded), the default;
- ``nevergrad``: nevergrad's NGOpt (its own choice of algorithm for the space and budget);
- ``grid``: every setting in turn, round and round (plain grid search).

All are deterministic for a seed and a sequence of told values.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Sequence
from typing import Any, Protocol

from experiments.balance.knobs import Knob, Setting

OPTIMISERS = ("optuna", "nevergrad", "grid")


class Optimiser(Protocol):
    def ask(self) -> tuple[Setting, Any]:
        """The next setting to evaluate, and a handle to tell its value with."""

    def tell(self, handle: Any, value: float) -> None:
        """The (noisy) loss of the setting asked with ``handle``: smaller is better."""


class OptunaOptimiser:
    """Optuna's TPE (multivariate, ``n_startup_trials`` random settings first)."""

    def __init__(self, knobs: Sequence[Knob], seed: int, startup: int) -> None:
        import optuna

        optuna.logging.set_verbosity(logging.WARNING)
        sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup,
                                             multivariate=True)
        self.study = optuna.create_study(direction="minimize", sampler=sampler)
        self.knobs = list(knobs)

    def ask(self) -> tuple[Setting, Any]:
        trial = self.study.ask()
        setting = {}
        for knob in self.knobs:
            top = len(knob.values) - 1
            index = (trial.suggest_int(knob.key, 0, top) if knob.numeric
                     else trial.suggest_categorical(knob.key, list(range(top + 1))))
            setting[knob.key] = knob.values[index]
        return setting, trial

    def tell(self, handle: Any, value: float) -> None:
        self.study.tell(handle, value)


class NevergradOptimiser:
    """nevergrad's NGOpt over ordered (TransitionChoice) and unordered (Choice) indices."""

    def __init__(self, knobs: Sequence[Knob], seed: int, budget: int) -> None:
        import nevergrad as ng
        import numpy as np

        space = {knob.key: (ng.p.TransitionChoice(list(range(len(knob.values))))
                            if knob.numeric else ng.p.Choice(list(range(len(knob.values)))))
                 for knob in knobs}
        parametrization = ng.p.Dict(**space)
        parametrization.random_state = np.random.RandomState(seed)
        self.optimizer = ng.optimizers.NGOpt(parametrization=parametrization,
                                             budget=max(1, budget))
        self.knobs = {knob.key: knob for knob in knobs}

    def ask(self) -> tuple[Setting, Any]:
        candidate = self.optimizer.ask()
        return ({key: self.knobs[key].values[int(index)]
                 for key, index in candidate.value.items()}, candidate)

    def tell(self, handle: Any, value: float) -> None:
        self.optimizer.tell(handle, value)


class GridOptimiser:
    """Every setting in turn (the first knob varying slowest), then again."""

    def __init__(self, knobs: Sequence[Knob]) -> None:
        self.knobs = list(knobs)
        self.cycle = itertools.cycle(itertools.product(*(k.values for k in knobs)))

    def ask(self) -> tuple[Setting, Any]:
        values = next(self.cycle)
        return {k.key: v for k, v in zip(self.knobs, values, strict=True)}, None

    def tell(self, handle: Any, value: float) -> None:
        return None


def make_optimiser(name: str, knobs: Sequence[Knob], seed: int, budget: int) -> Optimiser:
    """An optimiser by name for a search of ``budget`` evaluations."""
    if name == "optuna":
        return OptunaOptimiser(knobs, seed, startup=max(4, min(10, budget // 5)))
    if name == "nevergrad":
        return NevergradOptimiser(knobs, seed, budget)
    if name == "grid":
        return GridOptimiser(knobs)
    raise ValueError(f"optimiser: expected one of {', '.join(OPTIMISERS)}, got {name!r}")
