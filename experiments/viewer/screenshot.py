"""A screenshot of the viewer page at one moment (for docs/img/viewer.png).

    python -m experiments.viewer.screenshot skirmish --seed 1 --event 150 \\
        --select hero --out docs/img/viewer.png

Plays the scenario with berserkers on both sides (or reads ``--replay FILE``), writes the
page next to the picture and screenshots it in headless Chromium.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments.replay import Replay, play
from experiments.viewer.browser import BrowserMissing, chromium, open_page
from experiments.viewer.page import write_page


def screenshot(replay: Replay, out: Path, event: int | None, select: str | None) -> Path:
    """Write ``out`` (PNG): the page of ``replay`` at ``event`` with ``select`` selected."""
    page_path = write_page(replay, out.with_suffix(".html"))
    with chromium() as browser:
        page = open_page(browser, page_path, event)
        if select is not None:
            page.evaluate(f"window.fray.select({select!r})")
        page.screenshot(path=str(out), full_page=True)
    page_path.unlink()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", nargs="?", default="skirmish")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--replay", default=None, help="a replay file instead of a battle")
    parser.add_argument("--event", type=int, default=None)
    parser.add_argument("--select", default=None, help="a combatant id to select")
    parser.add_argument("--out", default="docs/img/viewer.png")
    args = parser.parse_args(argv)
    replay = (Replay.load(args.replay) if args.replay else
              play(args.scenario, args.seed, {"party": "berserker", "monsters": "berserker"})[1])
    try:
        print(screenshot(replay, Path(args.out), args.event, args.select))
    except BrowserMissing as exc:
        print(f"screenshot: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
