"""Where one-step search has headroom over the tactician: at decisions of
tactician-vs-tactician battles, every MCTS root candidate (``agents.mcts.candidates``) is
valued by many paired rollouts in the engine, and the best alternative is held up against
the tactician's own choice on rollouts it was not picked on.

For each sampled decision (every ``every``-th decision of the battles of seeds
``seed .. seed + battles - 1``, both teams, at least two candidates):

1. ``rounds`` rounds of ``rules.native_agents.search_round``: every candidate applied to
   a clone under the same re-seeded dice (common random numbers), then the tactician
   playing both teams for ``depth`` decisions; the value is MCTS's leaf value
   (``agents.mcts.hp_balance`` for the deciding team).
2. The first half of the rounds picks the best candidate other than the tactician's
   choice (the winner's curse stays in that half); the second half measures its paired
   gain over the tactician's choice, with its standard error.

A decision has *headroom* when that held-out gain is above ``z`` standard errors. The
report counts decisions with headroom, the mean held-out gain with a Student-t interval,
and both by decision kind (a turn, a reaction) and by the kind of the better action, so
it says where a deeper search could gain and how much.

    python -m experiments.search_headroom duel --battles 20 --every 3 --rounds 200
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import rules
from agents.mcts import DEFAULT_ROLLOUT_DEPTH, candidates
from experiments.comparison.stats import mean_interval
from rules import native_agents
from rules.native_agents import native_agent, native_choice

DEFAULT_ROUNDS = 200
DEFAULT_Z = 2.0


@dataclass(frozen=True)
class Sample:
    """One decision's measurement (values from the deciding team's side)."""

    seed: int
    decision: int
    decision_kind: str
    team: str
    candidates: int
    tactician: str  # the tactician's action
    tactician_value: float  # its mean value over the held-out rounds
    best: str  # the best other candidate of the first half
    best_kind: str
    gain: float  # mean paired gain of best over the tactician's, held-out rounds
    error: float  # the standard error of that mean

    @property
    def headroom(self) -> bool:
        """Whether the held-out gain is clear of noise (``DEFAULT_Z`` errors)."""
        return self.error > 0 and self.gain > DEFAULT_Z * self.error


def paired_gain(first: Sequence[float], second: Sequence[float]) -> tuple[float, float]:
    """Mean of ``first[i] - second[i]`` and its standard error (0 with fewer than 2)."""
    differences = [a - b for a, b in zip(first, second, strict=True)]
    mean = sum(differences) / len(differences)
    if len(differences) < 2:
        return mean, 0.0
    variance = sum((d - mean) ** 2 for d in differences) / (len(differences) - 1)
    return mean, math.sqrt(variance / len(differences))


def measure(battle: rules.Battle, tactician_choice: rules.Action, rollout: object, seed: int,
            rounds: int, depth: int) -> tuple[rules.Action, float, float, float] | None:
    """(best other candidate, the tactician's held-out mean, the held-out paired gain and
    its error) at ``battle``'s decision, or None with fewer than two candidates."""
    options = candidates(battle, battle.legal_actions())
    if tactician_choice not in options:
        options = [tactician_choice, *options]
    if len(options) < 2:
        return None
    team = battle.combatants[battle.decision.actor].team
    values = [native_agents.search_round(battle, options, seed * 1_000_003 + r, rollout,
                                         depth, team) for r in range(rounds)]
    half = rounds // 2
    mine = options.index(tactician_choice)
    others = [k for k in range(len(options)) if k != mine]
    best = max(others, key=lambda k: sum(row[k] for row in values[:half]))
    held = values[half:]
    gain, error = paired_gain([row[best] for row in held], [row[mine] for row in held])
    return options[best], sum(row[mine] for row in held) / len(held), gain, error


def samples(scenario: str, battles: int, seed: int = 0, every: int = 3,
            rounds: int = DEFAULT_ROUNDS, depth: int = DEFAULT_ROLLOUT_DEPTH
            ) -> Iterator[Sample]:
    """The measured decisions of tactician-vs-tactician battles (module docstring)."""
    for battle_seed in range(seed, seed + battles):
        battle = rules.Battle.from_scenario(scenario, seed=battle_seed, engine="native")
        players = {team: native_agent("tactician", battle_seed + index)
                   for index, team in enumerate(battle.scenario.teams)}
        rollout = native_agent("tactician", 10**6 + battle_seed)
        made = 0
        while battle.decision is not None:
            decision = battle.decision
            team = battle.combatants[decision.actor].team
            action, _ = native_choice(battle, players[team])
            if made % every == 0:
                found = measure(battle, action, rollout, battle_seed * 10_000 + made, rounds,
                                depth)
                if found is not None:
                    best, mine_value, gain, error = found
                    yield Sample(battle_seed, made, decision.kind.name, team,
                                 len(candidates(battle, battle.legal_actions())), str(action),
                                 mine_value, str(best), best.kind.name, gain, error)
            battle.apply(action)
            made += 1


def report(found: Sequence[Sample]) -> list[str]:
    """Lines: decisions with headroom and the mean held-out gain, in all and by kind."""
    lines = []

    def line(label: str, group: Sequence[Sample]) -> str:
        mean, (low, high) = mean_interval([s.gain for s in group])
        clear = sum(s.headroom for s in group)
        return (f"{label}: {len(group)} decisions, {clear} with headroom "
                f"({clear / max(1, len(group)):.1%}), mean held-out gain {mean:+.4f} "
                f"[{low:+.4f}, {high:+.4f}]")

    lines.append(line("all", found))
    for kind in sorted({s.decision_kind for s in found}):
        lines.append(line(f"decision {kind}", [s for s in found if s.decision_kind == kind]))
    better = Counter(s.best_kind for s in found if s.headroom)
    if better:
        lines.append("the better action's kind, where there is headroom: " + ", ".join(
            f"{kind} {count}" for kind, count in better.most_common()))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print the report, write every sample as a JSON line (``--out``)."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario")
    parser.add_argument("--battles", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every", type=int, default=3, help="measure every N-th decision")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                        help="paired rollouts per candidate (half pick, half measure)")
    parser.add_argument("--depth", type=int, default=DEFAULT_ROLLOUT_DEPTH,
                        help="rollout decisions before the leaf value")
    parser.add_argument("--out", type=Path, help="JSON lines file: one sample each")
    args = parser.parse_args(argv)
    if not rules.engine.native_available():
        print("search_headroom: needs the native engine (rollouts in C++)", file=sys.stderr)
        return 2
    if args.rounds < 4 or args.every < 1 or args.battles < 1:
        print("search_headroom: --rounds >= 4, --every >= 1, --battles >= 1", file=sys.stderr)
        return 2
    found = []
    for sample in samples(args.scenario, args.battles, args.seed, args.every, args.rounds,
                          args.depth):
        found.append(sample)
        if args.out is not None:
            with args.out.open("a") as handle:
                handle.write(json.dumps(asdict(sample)) + "\n")
    for text in report(found):
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
