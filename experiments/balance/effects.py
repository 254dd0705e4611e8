"""What each knob does around a setting: its effect curve, the one-step sensitivity table,
and whether it has a measurable effect at all.

Every level of a knob is played on the same search seeds as the setting itself (common
random numbers), so the difference of two levels is a paired comparison: its interval is
a paired bootstrap over the battles (the same resampled battles at both levels). A knob
whose every level's difference from the setting has an interval holding 0 has *no
measurable effect*; one whose levels play exactly the same battles *changes nothing*.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from experiments.balance.battles import Tally, measure
from experiments.balance.evaluation import Evaluator
from experiments.balance.knobs import Knob, Setting, setting_id
from experiments.balance.target import Target
from experiments.comparison.stats import Interval

#: the most levels of a knob its effect curve shows (both ends and the setting's
#: neighbours always among them)
CURVE_LEVELS = 7
RESAMPLES = 400


def paired_difference(first: Tally, second: Tally, metric: str, seed: int = 0,
                      resamples: int = RESAMPLES) -> tuple[float, Interval]:
    """``metric(second) - metric(first)`` for two tallies of the same seeds, with a 95%
    paired-bootstrap interval."""
    a = np.asarray(first.scores(metric))
    b = np.asarray(second.scores(metric))
    if a.size != b.size or a.size == 0:
        raise ValueError(f"paired_difference: expected tallies of the same battles, got "
                         f"{a.size} and {b.size}")
    point = measure(second, metric)[0] - measure(first, metric)[0]
    if np.array_equal(a, b):
        return (0.0, (0.0, 0.0))
    picks = np.random.default_rng(seed).integers(a.size, size=(resamples, a.size))
    reduce = np.median if metric == "rounds" else np.mean
    differences = reduce(b[picks], axis=1) - reduce(a[picks], axis=1)
    low, high = np.percentile(differences, [2.5, 97.5])
    return (float(point), (float(low), float(high)))


def curve_levels(knob: Knob, value: Any) -> list[Any]:
    """The knob's values its curve shows: up to CURVE_LEVELS spread over the range, and
    the setting's value with its neighbours."""
    count = len(knob.values)
    picks = {round(i * (count - 1) / (CURVE_LEVELS - 1)) for i in range(CURVE_LEVELS)} \
        if count > CURVE_LEVELS else set(range(count))
    here = knob.index(value)
    picks |= {i for i in (here - 1, here, here + 1) if 0 <= i < count}
    return [knob.values[i] for i in sorted(picks)]


def level_settings(knobs: Sequence[Knob], setting: Setting) -> list[Setting]:
    """Every setting the curves need: ``setting`` with one knob moved to each level."""
    out = [dict(setting)]
    for knob in knobs:
        for value in curve_levels(knob, setting[knob.key]):
            if value != setting[knob.key]:
                out.append({**setting, knob.key: value})
    return out


def knob_effects(evaluator: Evaluator, knobs: Sequence[Knob], setting: Setting,
                 target: Target, batches: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Per knob, its curve and effect around ``setting`` (``batches`` search batches a
    level), and the one-step sensitivity rows."""
    settings = level_settings(knobs, setting)
    tallies = evaluator.evaluate([(s, "search", b) for s in settings for b in range(batches)])
    pooled: dict[str, Tally] = {}
    for index, s in enumerate(settings):
        total = Tally()
        for tally in tallies[index * batches:(index + 1) * batches]:
            total = total.add(tally)
        pooled[setting_id(s)] = total
    here = pooled[setting_id(setting)]
    metric = target.metric
    effects: dict[str, Any] = {}
    sensitivity: list[dict[str, Any]] = []
    for number, knob in enumerate(knobs):
        curve, differences = [], []
        for value in curve_levels(knob, setting[knob.key]):
            tally = pooled[setting_id({**setting, knob.key: value})]
            estimate, (low, high) = measure(tally, metric)
            difference = paired_difference(here, tally, metric, seed=number)
            differences.append(difference)
            curve.append({"value": value, "estimate": estimate, "low": low, "high": high,
                          "battles": tally.battles, "in_band": target.contains(estimate),
                          "difference": difference[0], "difference_low": difference[1][0],
                          "difference_high": difference[1][1]})
        first = pooled[setting_id({**setting, knob.key: curve[0]["value"]})]
        last = pooled[setting_id({**setting, knob.key: curve[-1]["value"]})]
        effect, (low, high) = paired_difference(first, last, metric, seed=number)
        identical = all(d == (0.0, (0.0, 0.0)) for d in differences)
        no_effect = all(lo <= 0.0 <= hi for _, (lo, hi) in differences)
        effects[knob.key] = {"effect": effect, "low": low, "high": high,
                             "from": curve[0]["value"], "to": curve[-1]["value"],
                             "no_effect": no_effect, "identical": identical,
                             "curve": curve}
        for steps in (-1, 1):
            value = knob.step_from(setting[knob.key], steps)
            if value is None:
                continue
            row = next(point for point in curve if point["value"] == value)
            sensitivity.append({"knob": knob.key, "step": steps, "value": value, **{
                k: row[k] for k in ("estimate", "low", "high", "difference",
                                    "difference_low", "difference_high", "in_band")}})
    return effects, sensitivity


def steps_apart(knobs: Sequence[Knob], one: Setting, other: Setting) -> int:
    """How many knob steps apart two settings are (a changed choice is one step)."""
    return sum(abs(k.index(one[k.key]) - k.index(other[k.key])) if k.numeric
               else int(one[k.key] != other[k.key]) for k in knobs)


def alternatives(knobs: Sequence[Knob], setting: Setting, seen: dict[str, Setting],
                 pooled: dict[str, Tally], target: Target, count: int = 5
                 ) -> list[dict[str, Any]]:
    """Other settings the search measured in band, nearest to ``setting`` first."""
    rows = []
    for key, other in seen.items():
        if other == setting:
            continue
        estimate, (low, high) = measure(pooled[key], target.metric)
        if target.contains(estimate):
            rows.append({"setting": other, "steps": steps_apart(knobs, setting, other),
                         "estimate": estimate, "low": low, "high": high,
                         "battles": pooled[key].battles})
    rows.sort(key=lambda row: (row["steps"], abs(row["estimate"] - target.centre)))
    return rows[:count]
