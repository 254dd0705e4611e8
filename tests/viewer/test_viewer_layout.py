"""The viewer page fits a laptop window: from 1280x800 up nothing scrolls sideways, the map,
its controls, the log and every panel are inside the window, and no panel clips or
scrolls its content (cavalry: ten units, a wide map, an attack with four defences).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: The page's parts that must be inside the window, all of them.
PARTS = ("map", "controls", "scrub", "position", "current-line", "log-panel", "order-panel",
         "units-panel", "legend-panel", "selected-panel", "odds-panel")
#: What a user clicks: the element itself must be on top at its centre.
CLICKABLE = ("map", "first", "back", "play", "forward", "last", "round-select", "speed",
             "scrub", "log")

LAYOUT = """([parts, clickable]) => {
  const box = el => { const r = el.getBoundingClientRect();
                      return [r.left, r.top, r.right, r.bottom]; };
  const root = document.documentElement;
  const onTop = id => {
    const el = document.getElementById(id), r = el.getBoundingClientRect();
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return hit !== null && (hit === el || el.contains(hit));
  };
  const clipped = e => e.scrollWidth > e.clientWidth + 1 ||
    (e.matches('.side-column') && e.scrollHeight > e.clientHeight + 1);
  return {
    boxes: Object.fromEntries(parts.map(id => [id, box(document.getElementById(id))])),
    aside: box(document.querySelector('aside')),
    current: box(document.querySelector('#log li.current')),
    log: box(document.getElementById('log')),
    scrollWidth: root.scrollWidth, clientWidth: root.clientWidth,
    scrollHeight: root.scrollHeight, clientHeight: root.clientHeight,
    clipped: [...document.querySelectorAll('aside section, .side-column, #board > *')]
      .filter(clipped).map(e => e.id || e.className),
    covered: clickable.filter(id => !onTop(id)),
    cell: window.fray.cell,
  };
}"""

#: The event whose odds panel is the largest (most defences), and the unit acting then.
BUSIEST = """() => {
  const D = window.fray.data;
  const e = Object.keys(D.odds).map(Number).sort((a, b) =>
    Object.keys(D.odds[b].defences).length - Object.keys(D.odds[a].defences).length || a - b)[0];
  return [e, D.units[D.owner[e]].id];
}"""

SIZES = [(1280, 800), (1400, 900)]


def check_fits(page, width: int, height: int) -> dict:
    """Assert the page fits a ``width`` x ``height`` window as it is now; its layout."""
    shown = page.evaluate(LAYOUT, [list(PARTS), list(CLICKABLE)])
    assert shown["clientWidth"] == width
    assert shown["scrollWidth"] <= shown["clientWidth"], "the page scrolls sideways"
    assert shown["scrollHeight"] <= shown["clientHeight"], "the page scrolls down"
    for part, (left, top, right, bottom) in shown["boxes"].items():
        assert 0 <= left < right <= width and 0 <= top < bottom <= height, (part, width, height)
    assert shown["clipped"] == [], "a panel clips or scrolls its content"
    assert shown["covered"] == [], "a control is hidden under something else"
    log_top, log_bottom = shown["log"][1], shown["log"][3]
    assert log_top <= shown["current"][1] and shown["current"][3] <= log_bottom + 1
    # the space is used: beside the map only the gap, and the panels reach the right edge
    assert shown["aside"][0] - shown["boxes"]["map"][2] <= 17
    assert shown["aside"][2] >= width - 17
    assert shown["cell"] >= 18, "the map's squares are too small to read"
    return shown


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_page_fits_the_window(browser, page_path: Path, width: int, height: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    tab = context.new_page()
    tab.goto(page_path.as_uri())
    tab.wait_for_selector("body[data-ready='1']")
    event, actor = tab.evaluate(BUSIEST)
    last = int(tab.evaluate("window.fray.data.text.length")) - 1
    for index, select in ((0, None), (event, actor), (last, actor)):
        tab.evaluate(f"window.fray.go({index})")
        if select is not None:
            tab.evaluate(f"window.fray.select({select!r})")
        check_fits(tab, width, height)
    tab.evaluate(f"window.fray.go({event})")
    assert tab.locator("#odds table").nth(1).locator("tr").count() == 5  # four defences
    tab.click("#forward")  # the controls work where they are
    assert tab.evaluate("document.body.dataset.event") == str(event + 1)
    context.close()


def test_the_map_refits_when_the_window_shrinks(page) -> None:
    wide = page.evaluate("window.fray.cell")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function(f"window.fray.cell < {wide}")
    check_fits(page, 1280, 800)
    assert not page.errors


def run_browser_test(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """One browser test in a fresh pytest, with ``env`` over this one's environment."""
    test = Path(__file__).with_name("test_viewer_browser.py")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         f"{test}::test_page_is_offline_and_self_contained"],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=300, check=False)


def test_without_chromium_browser_tests_skip_saying_how_to_install_it() -> None:
    """No browser: a skip whose one-line reason names the install command; required
    (FRAY_REQUIRE_BROWSER=1, as in .ci/run): a failure naming the same."""
    skipped = run_browser_test({"FRAY_CHROMIUM": "/nonexistent/chromium",
                                "FRAY_REQUIRE_BROWSER": ""})
    assert skipped.returncode == 0, skipped.stdout
    reason = next(line for line in skipped.stdout.splitlines() if line.startswith("SKIPPED"))
    assert "no Chromium at /nonexistent/chromium: apt-get install chromium" in reason
    assert "1 skipped" in skipped.stdout
    required = run_browser_test({"FRAY_CHROMIUM": "/nonexistent/chromium",
                                 "FRAY_REQUIRE_BROWSER": "1"})
    assert required.returncode == 1, required.stdout
    assert "FRAY_REQUIRE_BROWSER=1 and no Chromium at /nonexistent/chromium" in required.stdout
    assert "1 error" in required.stdout and "skipped" not in required.stdout
