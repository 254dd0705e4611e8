"""``fray watch SCENARIO`` and ``fray demo``: one whole battle between two agents."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from experiments.paths import output_file

if TYPE_CHECKING:  # rules (and numpy) load when the command runs, not for --help
    import rules

DEFAULT_SCENARIO = "skirmish"


def play_battle(scenario: str, seed: int, party: str, monsters: str,
                content_dir: str | None = None) -> rules.Battle:
    """Play one battle to the end with the named agents for the two teams."""
    from experiments.replay import play

    battle, _ = play(scenario, seed, {"party": party, "monsters": monsters},
                     content_dir=content_dir)
    return battle


def check_agent_names(*names: str) -> None:
    """Fail with one clear line (before anything is printed) for an unknown agent."""
    import agents
    from experiments.commands import UsageError

    for name in names:
        try:
            agents.make(name, seed=0)
        except ValueError as exc:
            raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    import rules
    from experiments.commands import UsageError
    from experiments.comparison import report

    if args.seed < 0:
        raise UsageError(f"--seed: expected a whole number >= 0, got {args.seed}")
    if args.tail < 0:
        raise UsageError(f"--tail: expected a whole number >= 0, got {args.tail}")
    check_agent_names(args.party, args.monsters)
    gif = getattr(args, "gif", None)
    if gif is not None and not gif.lower().endswith(".gif"):
        raise UsageError(f"--gif: expected a file name ending in .gif, got {gif!r}")
    battle = rules.Battle.from_scenario(args.scenario, seed=args.seed,
                                        content_dir=args.content_dir)
    print(report.describe(battle))
    print()
    from experiments.replay import play

    battle, replay = play(args.scenario, args.seed,
                          {"party": args.party, "monsters": args.monsters},
                          content_dir=args.content_dir)
    log = battle.events if args.full_log else battle.events[-args.tail:]
    if not args.full_log and len(battle.events) > args.tail:
        print(f"... ({len(battle.events) - args.tail} earlier events; --full-log shows all)")
    print(report.log_text(log))
    print()
    print(report.map_text(battle))
    print(f"\nResult: {battle.winner or 'draw'} after {battle.round} rounds, "
          f"{len(battle.events)} events.")
    if gif is not None:
        from experiments.viewer import write_gif

        try:
            print(f"Animation: {write_gif(replay, gif)}")
        except OSError as exc:
            raise UsageError(f"--gif: cannot write {gif}: {exc.strerror or exc}") from None
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options ``watch`` takes (``demo`` keeps them while it is a watch)."""
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--party", default="berserker", help="agent for the party")
    parser.add_argument("--monsters", default="berserker", help="agent for the monsters")
    parser.add_argument("--tail", type=int, default=60, help="events of the log to show")
    parser.add_argument("--full-log", action="store_true")
    parser.add_argument("--content-dir", default=None, help="a folder of content TOML")


def add_parser(sub: argparse._SubParsersAction) -> None:
    w = sub.add_parser("watch", description="Watch one battle. Example: fray watch duel --seed 3 "
                       "--party berserker --monsters random")
    w.add_argument("scenario", help="shipped scenario name or a .toml path")
    add_arguments(w)
    w.add_argument("--gif", metavar="OUT.gif", default=None, type=output_file,
                   help="also write the battle as an animated GIF (e.g. --gif duel.gif)")
    w.set_defaults(func=run)
