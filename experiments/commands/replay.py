"""``fray replay FILE``: re-simulate a replay, verify every event, show the battle.

A replay written by ``fray fuzz`` carries a ``failure``: it is re-run under the checks
that found it, and the command says whether the failure still happens.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from experiments.paths import input_file, output_file

if TYPE_CHECKING:  # rules (and numpy) load when the command runs, not for --help
    import rules
    from experiments.replay import Replay

EXAMPLE = """examples:
  fray replay battle.json                 # verify and show the last 60 events and the map
  fray replay battle.json --full-log
  fray replay battle.json --html battle.html   # the battle on its map, in a browser
  fray replay fuzz-out/failures/00-invariant-hp.json   # re-run a fuzzer's finding

Exit status: 0 when every event matches (for a fuzzer's finding: when the failure no
longer happens), 1 on a mismatch (the first differing event is named) or when the
recorded failure happens again, 2 for a file that cannot be read."""


def load(path: str) -> Replay:
    """The replay in ``path``; every action is checked to be readable (else one line)."""
    import rules
    from experiments.replay import Replay, ReplayError

    replay = Replay.load(path)
    for index, data in enumerate(replay.actions):
        try:
            rules.Action.from_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReplayError(f"{path}: actions[{index}]: expected an action "
                              f"{{kind, target, square, item}}, got {data!r} ({exc})") from None
    failure = replay.failure
    if failure is None:  # its scenario and content are checked before anything is shown
        try:
            replay.new_battle()
        except rules.ContentError as exc:
            raise ReplayError(f"{path}: {exc}") from None
    if failure is not None and not (isinstance(failure, dict) and {"kind", "name", "step"}
                                    <= set(failure)):
        raise ReplayError(f"{path}: failure: expected a table with kind, name, step "
                          f"(a fuzzer's finding), got {failure!r}")
    return replay


def show(battle: rules.Battle, args: argparse.Namespace) -> None:
    """The event log (tail or full) and the map at the end."""
    from experiments.comparison import report

    events = battle.events
    shown = events if args.full_log else events[-args.tail:]
    if len(shown) < len(events):
        print(f"... ({len(events) - len(shown)} earlier events; --full-log shows all)")
    print(report.log_text(shown))
    print()
    print(report.map_text(battle))


def write_html(replay: Replay, args: argparse.Namespace) -> None:
    """``--html OUT.html``: the offline viewer page of the replay (experiments.viewer)."""
    from experiments.commands import UsageError
    from experiments.viewer import write_page

    if args.html is None:
        return
    try:
        page = write_page(replay, args.html, progress=True,
                          partial=replay.failure is not None)
        print(f"Viewer page: {page}")
    except OSError as exc:
        raise UsageError(f"--html: cannot write {args.html}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    from experiments.commands import UsageError
    from experiments.fuzzing.reproduce import reproduce
    from experiments.replay import first_mismatch, rerun, verify

    if args.tail < 0:
        raise UsageError(f"--tail: expected a whole number >= 0, got {args.tail}")
    if args.html is not None and not args.html.lower().endswith((".html", ".htm")):
        raise UsageError(f"--html: expected a file name ending in .html, got {args.html!r}")
    replay = load(args.file)
    name = replay.scenario_name
    if replay.failure is not None:
        recorded = replay.failure
        outcome = reproduce(replay)
        show(outcome.battle, args)
        write_html(replay, args)
        print(f"\nRecorded failure: {recorded.get('kind')} {recorded.get('name')} after "
              f"action {recorded.get('step')}: {recorded.get('message')}")
        if outcome.failure is not None and outcome.failure.name == recorded.get("name"):
            print(f"REPRODUCED on '{name}': {outcome.failure}")
            return 1
        mismatch = first_mismatch(replay, outcome.battle)
        if outcome.failure is not None:
            print(f"a different failure happens now: {outcome.failure}")
            return 1
        print("the recorded failure no longer happens"
              + (f" (the events differ: {mismatch})" if mismatch else ""))
        return 0
    mismatch = verify(replay)
    if mismatch is not None:
        print(f"MISMATCH in '{name}': {mismatch}")
        return 1
    battle = rerun(replay)
    show(battle, args)
    write_html(replay, args)
    checked = (f"all {len(battle.events)} events" if replay.events else
               "its result (a compact replay keeps no events)")
    print(f"\nVerified: {checked} of '{name}' (seed {battle.seed}) "
          f"match. Result: {battle.winner or 'draw'} after {battle.round} rounds, "
          f"{len(replay.actions)} actions.")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``fray replay`` (the viewer adds ``--html``)."""
    parser.add_argument("file", type=input_file,
                        help="a replay file (JSON, experiments/replay.py format)")
    parser.add_argument("--tail", type=int, default=60, help="events of the log to show")
    parser.add_argument("--full-log", action="store_true", help="show every event")
    parser.add_argument("--html", metavar="OUT.html", default=None, type=output_file,
                        help="also write the offline viewer page (open it in a browser)")


def add_parser(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("replay",
                       description="Re-simulate a replay, verify that every event matches "
                       "and show the battle in the terminal.", epilog=EXAMPLE,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(r)
    r.set_defaults(func=run)
