"""``fray knobs SCENARIO``: every numeric knob of the ruleset and of the scenario's
creatures (and the scenario's own numbers: ``max_rounds``, its units' overrides) nudged
one step each way, and what that does to the party's win rate and the battle's length.

One step is a tenth of the value, at least 1 for a whole number (a skill of 50 moves to 45
and 55, a CON of 13 to 12 and 14, a factor of 0.5 to 0.45 and 0.55). Every variant plays
the same seeds as the scenario as shipped (common random numbers), so each effect is a
paired difference with a paired-bootstrap interval; a variant whose battles are exactly
the shipped ones *changes nothing* in this scenario. A nudge the content's checks refuse
(a divisor of 0, a table out of order) is listed as refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rules
from experiments.balance.battles import Tally, measure
from experiments.balance.effects import paired_difference
from experiments.balance.evaluation import Evaluator
from experiments.balance.knobs import KnobError, read_toml
from experiments.comparison.sweep import leaves


@dataclass(frozen=True)
class Nudge:
    """A knob and its value as shipped."""

    key: str
    value: int | float

    def step(self) -> int | float:
        if isinstance(self.value, int):
            return max(1, round(abs(self.value) * 0.1))
        return abs(self.value) * 0.1 if self.value else 0.1

    def moved(self, direction: int) -> int | float:
        value = self.value + direction * self.step()
        return value if isinstance(self.value, int) else round(value, 10)


def numeric_knobs(base: Path, scenario: Path, only: str = "") -> list[Nudge]:
    """The ruleset's numbers, those of the creatures the scenario musters, and the
    scenario's own (``max_rounds``, its units' overrides such as ``hp`` or a skill); those
    whose key starts with ``only``."""
    found = [Nudge(f"ruleset.{key}", value)
             for key, value in leaves(read_toml(base / "ruleset.toml")).items()
             if isinstance(value, int | float) and not isinstance(value, bool)]
    parsed = rules.load_scenario(scenario, rules.load_content(base))
    creatures = read_toml(base / "creatures.toml")
    for creature in sorted({unit.creature for unit in parsed.units}):
        found += [Nudge(f"creatures.{creature}.{key}", value)
                  for key, value in leaves(creatures[creature]).items()
                  if isinstance(value, int | float) and not isinstance(value, bool)]
    data = read_toml(scenario)
    found += [Nudge(f"scenario.{key}", value) for key, value in data.items()
              if isinstance(value, int) and not isinstance(value, bool)]
    for unit in data.get("units", []):   # the scenario's own overrides of its units
        found += [Nudge(f"scenario.units.{unit['id']}.{key}", value)
                  for key, value in leaves(unit).items()
                  if isinstance(value, int | float) and not isinstance(value, bool)]
    return [knob for knob in found if knob.key.startswith(only)]


def nudge_all(evaluator: Evaluator, knobs: list[Nudge]) -> list[dict[str, Any]]:
    """One row per knob and direction, sorted by the size of the effect on party_win
    (refused nudges last)."""
    variants: list[tuple[Nudge, int, dict[str, Any]]] = []
    refused: list[dict[str, Any]] = []
    for knob in knobs:
        for direction in (-1, 1):
            setting = {knob.key: knob.moved(direction)}
            try:
                evaluator.files(setting)
            except KnobError as exc:
                refused.append({"knob": knob.key, "from": knob.value,
                                "to": setting[knob.key], "refused": str(exc)})
                continue
            variants.append((knob, direction, setting))
    settings = [{}] + [setting for _, _, setting in variants]
    tallies = evaluator.evaluate([(setting, "search", 0) for setting in settings])
    base: Tally = tallies[0]
    rows = []
    for number, ((knob, _, setting), tally) in enumerate(zip(variants, tallies[1:],
                                                              strict=True)):
        win = paired_difference(base, tally, "party_win", seed=number)
        rounds = paired_difference(base, tally, "rounds", seed=number)
        rows.append({"knob": knob.key, "from": knob.value, "to": setting[knob.key],
                     "party_win": measure(tally, "party_win")[0],
                     "win_change": win[0], "win_low": win[1][0], "win_high": win[1][1],
                     "rounds": measure(tally, "rounds")[0], "rounds_change": rounds[0],
                     "rounds_low": rounds[1][0], "rounds_high": rounds[1][1],
                     "changes_nothing": tally == base,
                     "measurable": not (win[1][0] <= 0 <= win[1][1]
                                        and rounds[1][0] <= 0 <= rounds[1][1])})
    rows.sort(key=lambda row: (row["changes_nothing"], -abs(row["win_change"]),
                               -abs(row["rounds_change"]), row["knob"], row["to"]))
    base_row = {"knob": "(as shipped)", "party_win": measure(base, "party_win")[0],
                "party_win_interval": measure(base, "party_win")[1],
                "rounds": measure(base, "rounds")[0], "battles": base.battles}
    return [base_row, *rows, *refused]


def knobs_table(rows: list[dict[str, Any]]) -> str:
    """The printed table."""
    base, *rest = rows
    if not rest:
        return "no numeric knob matches"
    low, high = base["party_win_interval"]
    lines = [f"as shipped: party_win {base['party_win']:.3f} [{low:.3f}, {high:.3f}], median "
             f"rounds {base['rounds']:g}, {base['battles']} battles (a draw counts half)", ""]
    width = max([len("knob"), *(len(r["knob"]) for r in rest)])
    head = (f"{'knob':<{width}}  {'from -> to':<16} {'win change [95% CI]':<26} "
            f"{'rounds change [95% CI]':<24} note")
    lines += [head, "-" * len(head)]
    for r in rest:
        move = f"{r['from']:g} -> {r['to']:g}"
        if "refused" in r:
            lines.append(f"{r['knob']:<{width}}  {move:<16} refused: {r['refused']}")
            continue
        win = f"{r['win_change']:+.3f} [{r['win_low']:+.3f}, {r['win_high']:+.3f}]"
        rounds = f"{r['rounds_change']:+.1f} [{r['rounds_low']:+.1f}, {r['rounds_high']:+.1f}]"
        note = ("changes nothing" if r["changes_nothing"] else
                "" if r["measurable"] else "no measurable effect")
        lines.append(f"{r['knob']:<{width}}  {move:<16} {win:<26} {rounds:<24} {note}")
    changed = [r for r in rest if "refused" not in r]
    nothing = sum(r["changes_nothing"] for r in changed)
    lines.append(f"\n{len(changed)} nudges, {nothing} change nothing in this scenario; "
                 f"intervals: paired bootstrap on the same seeds")
    return "\n".join(lines)

