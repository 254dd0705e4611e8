"""How large the viewer page is and how long it takes to open, for the longest battle.

    python -m experiments.viewer.measure [--seeds 5] [--opens 5] [--out DIR]

Plays every shipped scenario with berserkers on both sides for seeds 1..N, takes the
battle with the most events, writes its page and opens it ``--opens`` times in headless
Chromium (Debian's /usr/bin/chromium through playwright), timing from navigation start to
the page's ``data-ready`` mark (``performance.now()`` inside the page, so browser start-up
is not counted). Prints one line per figure; docs/viewer.md quotes them.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import rules
from experiments.replay import Replay, play
from experiments.viewer.browser import chromium, open_page
from experiments.viewer.page import build_page


def longest_battle(seeds: int) -> Replay:
    """The berserker-vs-berserker replay with the most events over the shipped scenarios."""
    from tqdm import tqdm

    best: Replay | None = None
    jobs = [(name, seed) for name in rules.shipped_scenarios() for seed in range(1, seeds + 1)]
    for name, seed in tqdm(jobs, desc="battles", unit="battle"):
        _, replay = play(name, seed, {"party": "berserker", "monsters": "berserker"})
        if best is None or len(replay.events) > len(best.events):
            best = replay
    if best is None:
        raise ValueError("no shipped scenario to play")
    return best


def open_times(path: Path, opens: int) -> list[float]:
    """Milliseconds from navigation start to the page's ready mark, per open."""
    out = []
    with chromium() as browser:
        for _ in range(opens):
            page = open_page(browser, path)
            out.append(page.evaluate("performance.now()"))
            page.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="example: python -m experiments.viewer.measure "
                                     "--seeds 5 --opens 5")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1..N per scenario")
    parser.add_argument("--opens", type=int, default=5, help="times to open the page")
    parser.add_argument("--out", default="viewer-measure", help="folder for the page")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.opens < 1:
        parser.error("--seeds and --opens: expected whole numbers >= 1")
    replay = longest_battle(args.seeds)
    start = time.perf_counter()
    html = build_page(replay)
    build = time.perf_counter() - start
    path = Path(args.out) / f"{replay.scenario_name}-{replay.seed}.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    times = open_times(path.resolve(), args.opens)
    print(f"longest battle: {replay.scenario_name} seed {replay.seed}, "
          f"{len(replay.events)} events, {len(replay.actions)} actions, "
          f"{replay.result.get('rounds')} rounds")
    print(f"page: {path} {path.stat().st_size / 1024:.0f} KiB, built in {build:.1f} s")
    print(f"open in Chromium (navigation start -> ready), {args.opens} opens: median "
          f"{statistics.median(times):.0f} ms, max {max(times):.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
