"""``fray balance``'s method: search, race, effects, final evaluation.

The budget (battles) is cut into batches of battles and shared out (:func:`plan`):

1. **Search** (55%): ``repeats`` independent runs of the optimiser (each its own seed),
   asking 4 settings at a time. An evaluation plays the setting's next batch of the search
   stream and tells the optimiser the loss of everything that setting has played so far
   (:meth:`Target.loss`: distance of the estimate from the band's centre plus its standard
   error). Noise is met three ways: common seeds (batch k is the same battles for every
   setting), pooling (a setting asked again adds battles rather than a fresh guess), and
   the standard error in the loss (a setting lucky on few battles does not win).
2. **Race** (10%): the repeats' winners (the least loss each) play more batches, round
   robin; the least loss is the recommended setting.
3. **Effects** (10%): each knob's curve around it (:mod:`experiments.balance.effects`).
4. **Final** (25%): the recommended setting on fresh seeds never used to select it: the
   estimate with its interval (Wilson for rates, order statistics for the median) and
   Wald's SPRT at each edge of the band.

The search is deterministic for a seed: the same seed gives the same battles, the same
recommendation and the same report, and a resumed run reads its played batches back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from experiments.balance.battles import Tally, measure
from experiments.balance.effects import alternatives, knob_effects, level_settings
from experiments.balance.evaluation import Evaluator
from experiments.balance.knobs import Knob, Setting, setting_id
from experiments.balance.optimisers import make_optimiser
from experiments.balance.target import Target, interval_inside, interval_outside

#: settings asked of the optimiser at once (evaluated in parallel); fixed, so a run's
#: result does not depend on how many workers play it
PARALLEL = 4
SHARES = {"search": 0.55, "race": 0.10, "effects": 0.10, "final": 0.25}
MIN_BATCH, MAX_BATCH = 10, 200


@dataclass(frozen=True)
class Plan:
    """How a budget is spent, in batches of ``batch_size`` battles."""

    batch_size: int
    search: int
    repeats: int
    race: int
    effects: int
    final: int

    @property
    def battles(self) -> int:
        return self.batch_size * (self.search + self.race + self.effects + self.final)


def plan(budget: int, knobs: Sequence[Knob]) -> Plan:
    """The shares of ``budget`` (at least 20 batches of at least MIN_BATCH battles)."""
    batch = max(MIN_BATCH, min(MAX_BATCH, budget // 400))
    batches = budget // batch
    if batches < 20:
        raise ValueError(f"--budget: expected at least {20 * MIN_BATCH} battles, got {budget}")
    final = max(1, round(batches * SHARES["final"]))
    race = max(1, round(batches * SHARES["race"]))
    levels = len(level_settings(knobs, {k.key: k.values[0] for k in knobs}))
    effects = max(1, round(batches * SHARES["effects"]) // levels) * levels
    search = batches - final - race - effects
    if search < PARALLEL:
        raise ValueError(f"--budget: {budget} battles leave no search after the knobs' "
                         f"{levels} effect levels; expected a larger budget or fewer knobs")
    repeats = 3 if search >= 12 * PARALLEL else 1
    return Plan(batch, search, repeats, race, effects, final)


@dataclass
class SearchState:
    """Everything the search has played, pooled by setting."""

    seen: dict[str, Setting]
    pooled: dict[str, Tally]
    played: dict[str, int]

    def loss(self, key: str, target: Target) -> float:
        return target.loss(self.pooled[key])

    def add(self, setting: Setting, tally: Tally) -> None:
        key = setting_id(setting)
        self.seen.setdefault(key, dict(setting))
        self.pooled[key] = self.pooled.get(key, Tally()).add(tally)
        self.played[key] = self.played.get(key, 0) + 1

    def play(self, evaluator: Evaluator, settings: Sequence[Setting]) -> None:
        """The next search batch of each setting (a setting twice: two batches)."""
        requests, upcoming = [], dict(self.played)
        for setting in settings:
            key = setting_id(setting)
            requests.append((setting, "search", upcoming.get(key, 0)))
            upcoming[key] = upcoming.get(key, 0) + 1
        for setting, tally in zip(settings, evaluator.evaluate(requests), strict=True):
            self.add(setting, tally)


def search(evaluator: Evaluator, knobs: Sequence[Knob], target: Target, steps: Plan,
           seed: int, optimiser: str = "optuna") -> tuple[Setting, SearchState,
                                                          list[dict[str, Any]]]:
    """Repeats of the optimiser and the race of their winners: (the recommended setting,
    what was played, each repeat's winner)."""
    state = SearchState({}, {}, {})
    winners: list[dict[str, Any]] = []
    per_repeat = steps.search // steps.repeats
    for repeat in range(steps.repeats):
        chooser = make_optimiser(optimiser, knobs, seed * 1000 + repeat, per_repeat)
        visited: list[str] = []
        asked = 0
        while asked < per_repeat:
            asks = [chooser.ask() for _ in range(min(PARALLEL, per_repeat - asked))]
            asked += len(asks)
            state.play(evaluator, [setting for setting, _ in asks])
            for setting, handle in asks:
                key = setting_id(setting)
                visited.append(key)
                chooser.tell(handle, state.loss(key, target))
        best = min(dict.fromkeys(visited), key=lambda key: state.loss(key, target))
        winners.append({"repeat": repeat, "setting": state.seen[best],
                        "loss": state.loss(best, target)})
    candidates = list(dict.fromkeys(setting_id(w["setting"]) for w in winners))
    # the race tells no optimiser anything: its batches go out together
    state.play(evaluator, [state.seen[candidates[number % len(candidates)]]
                           for number in range(steps.race)])
    best = min(candidates, key=lambda key: state.loss(key, target))
    return state.seen[best], state, winners


def run_balance(evaluator: Evaluator, knobs: Sequence[Knob], target: Target, steps: Plan,
                seed: int, optimiser: str = "optuna") -> dict[str, Any]:
    """The whole method; the content of ``balance.json``."""
    recommended, state, winners = search(evaluator, knobs, target, steps, seed, optimiser)
    levels = len(level_settings(knobs, recommended))
    effects, sensitivity = knob_effects(evaluator, knobs, recommended, target,
                                        max(1, steps.effects // levels))
    final = evaluator.pooled(recommended, "final", steps.final)
    value, (low, high) = measure(final, target.metric)
    sprt = target.sprt(final)
    in_band = target.contains(value) and sprt["verdict"] != "out_of_band"
    return {
        "recommended": recommended,
        "estimate": {"metric": target.metric, "value": value, "low": low, "high": high,
                     "battles": final.battles},
        "in_band": bool(in_band),
        "battles_used": evaluator.used,
        "knobs": effects,
        "target": {"metric": target.metric, "low": target.low, "high": target.high},
        "interval_in_band": interval_inside((low, high), target),
        "unreachable": interval_outside((low, high), target),
        "sprt": sprt,
        "sensitivity": sensitivity,
        "alternatives": alternatives(knobs, recommended, state.seen, state.pooled, target),
        "repeats": winners,
        "search": [{"setting": state.seen[key], "estimate": _finite(measure(tally,
                    target.metric)[0]), "battles": tally.battles}
                   for key, tally in state.pooled.items()],
        "plan": {"batch_size": steps.batch_size, "search_batches": steps.search,
                 "repeats": steps.repeats, "race_batches": steps.race,
                 "effect_batches": steps.effects, "final_batches": steps.final},
        "optimiser": optimiser,
        "draws": "a draw (max_rounds reached, no winner) counts half a win for each side",
    }


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value
