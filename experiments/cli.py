"""The ``fray`` command line: watch battles, list scenarios, run benchmarks.

    fray demo                      # the default scenario: map, combatants, a whole battle
    fray watch duel --seed 3 --party berserker --monsters random
    fray scenarios
    fray bench [--quick]
    fray coverage                  # regenerate docs/coverage.md
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import rules
from experiments import report

DEFAULT_SCENARIO = "skirmish"


def play_battle(scenario: str, seed: int, party: str, monsters: str) -> rules.Battle:
    """Play one battle to the end with the named agents for each team."""
    import agents

    battle = rules.Battle.from_scenario(scenario, seed=seed)
    teams = battle.scenario.teams
    players = {teams[0]: agents.make(party, seed=seed), teams[1]: agents.make(monsters,
                                                                              seed=seed + 1)}
    for extra in teams[2:]:
        players[extra] = agents.make("random", seed=seed + 2)
    while not battle.is_over:
        decision = battle.decision
        assert decision is not None
        actor = battle.combatants[decision.actor]
        battle.apply(players[actor.team].act(battle))
    return battle


def _cmd_watch(args: argparse.Namespace) -> int:
    battle = rules.Battle.from_scenario(args.scenario, seed=args.seed)
    print(report.describe(battle))
    print()
    battle = play_battle(args.scenario, args.seed, args.party, args.monsters)
    log = battle.events if args.full_log else battle.events[-args.tail:]
    if not args.full_log and len(battle.events) > args.tail:
        print(f"... ({len(battle.events) - args.tail} earlier events; --full-log shows all)")
    print(report.log_text(log))
    print()
    print(report.map_text(battle))
    print(f"\nResult: {battle.winner or 'draw'} after {battle.round} rounds, "
          f"{len(battle.events)} events.")
    return 0


def _cmd_scenarios(args: argparse.Namespace) -> int:
    for name in rules.shipped_scenarios():
        sc = rules.load_scenario(name, rules.default_content())
        print(f"{name:<12} {len(sc.units):>3} units  {sc.grid.width}x{sc.grid.height}  "
              f"{sc.description}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from experiments.benchmarks import decisions, reach

    print("== reach graph (30x30, budget 10) ==")
    for key, value in reach.run(repeats=50 if args.quick else 200).items():
        print(f"  {key:<32} {value:>12.2f}")
    print("== rules core: random legal play ==")
    for name, fig in decisions.run(battles=3 if args.quick else 20).items():
        print(f"  {name:<10} {fig['decisions']:>8.0f} decisions  "
              f"{fig['decisions_per_s']:>9.0f} decisions/s")
    from experiments.benchmarks import env_steps

    print("== env: random masked actions (learner = monsters) ==")
    for row in env_steps.run(steps=500 if args.quick else 3000):
        print(f"  {row['scenario']:<10} {row['opponent']:<14} "
              f"{row['steps_per_s']:>9.0f} steps/s")
    return 0


def _cmd_coverage(args: argparse.Namespace) -> int:
    from experiments import coverage

    path = coverage.write()
    print(f"wrote {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fray", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    for name, helptext in (("demo", "watch the default scenario"),
                           ("watch", "watch one battle between two agents")):
        w = sub.add_parser(name, help=helptext)
        if name == "watch":
            w.add_argument("scenario", help="shipped scenario name or a .toml path")
        else:
            w.set_defaults(scenario=DEFAULT_SCENARIO)
        w.add_argument("--seed", type=int, default=1)
        w.add_argument("--party", default="berserker", help="agent for the first team")
        w.add_argument("--monsters", default="berserker", help="agent for the second team")
        w.add_argument("--tail", type=int, default=60, help="events of the log to show")
        w.add_argument("--full-log", action="store_true")
        w.set_defaults(func=_cmd_watch)
    s = sub.add_parser("scenarios", help="list the shipped scenarios")
    s.set_defaults(func=_cmd_scenarios)
    b = sub.add_parser("bench", help="print speed figures")
    b.add_argument("--quick", action="store_true", help="fewer repeats")
    b.set_defaults(func=_cmd_bench)
    c = sub.add_parser("coverage", help="regenerate docs/coverage.md")
    c.set_defaults(func=_cmd_coverage)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except rules.FrayError as exc:
        print(f"fray: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
