"""Which option a selector model plays, unit by unit (``fray train --options``).

    python -m experiments.train.option_report learned:runs/sel1/checkpoints/step_N.json \\
        --scenario skirmish --opponent berserker --battles 20 --seed 10000

Battle ``i`` uses battle seed ``seed + i``; the selector plays its team deterministically
(as in evaluations) and the opponent plays the other teams. Prints, per unit, how many of
its decisions each option played, and the selector's mean probability of its first
option at the decisions it was asked.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field

import numpy as np


@dataclass
class OptionReport:
    """Decisions played by each option, per unit, and the mean first-option probability."""

    options: list[str]
    played: dict[str, Counter[str]] = field(default_factory=dict)
    first_probabilities: list[float] = field(default_factory=list)

    @property
    def mean_first(self) -> float:
        return float(np.mean(self.first_probabilities)) if self.first_probabilities else 0.0

    def lines(self) -> list[str]:
        total = sum(sum(c.values()) for c in self.played.values())
        other = total - sum(c[self.options[0]] for c in self.played.values())
        out = [f"mean P({self.options[0]}) {self.mean_first:.3f}; {other} of {total} "
               f"decisions played by another option"]
        for unit in sorted(self.played):
            counts = ", ".join(f"{name} {n}" for name, n in self.played[unit].most_common())
            out.append(f"  {unit}: {counts}")
        return out


def option_report(model: str, scenario: str = "skirmish", opponent: str = "berserker",
                  battles: int = 20, seed: int = 10_000, team: str = "monsters"
                  ) -> OptionReport:
    """Play ``battles`` battles with the selector ``model`` (a ``learned:`` spec) as
    ``team`` and count the option behind each of its decisions."""
    import agents
    import rules

    selector = agents.make(model, seed=0)
    if getattr(selector, "options", None) is None:
        raise ValueError(f"{model} is not a selector model (it was not trained with --options)")
    report = OptionReport(options=selector.options)
    choose, probabilities = selector._options.choose, selector.probabilities

    def counted_choose(battle: rules.Battle, option: int) -> rules.Action:
        unit = battle.decision.actor
        report.played.setdefault(unit, Counter())[report.options[option]] += 1
        return choose(battle, option)

    def spied_probabilities(battle: rules.Battle) -> tuple[np.ndarray, object]:
        probs, setup = probabilities(battle)
        report.first_probabilities.append(float(probs[0]))
        return probs, setup

    selector._options.choose = counted_choose  # type: ignore[method-assign]
    selector.probabilities = spied_probabilities  # type: ignore[method-assign]
    for i in range(battles):
        battle = rules.Battle.from_scenario(scenario, seed=seed + i)
        other = agents.make(opponent, seed=seed + i)
        while not battle.is_over:
            actor = battle.combatants[battle.decision.actor]
            battle.apply((selector if actor.team == team else other).act(battle))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="learned:PATH of a selector checkpoint")
    parser.add_argument("--scenario", default="skirmish")
    parser.add_argument("--team", default="monsters")
    parser.add_argument("--opponent", default="berserker")
    parser.add_argument("--battles", type=int, default=20)
    parser.add_argument("--seed", type=int, default=10_000)
    args = parser.parse_args(argv)
    import rules

    try:
        report = option_report(args.model, args.scenario, args.opponent, args.battles,
                               args.seed, args.team)
    except (ValueError, OSError, rules.FrayError) as exc:
        print(f"option_report: error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.model}:")
    print("\n".join(report.lines()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
