"""Headless Chromium for the viewer (screenshots, timing, tests): Debian's
``/usr/bin/chromium`` driven by playwright, never a downloaded browser.

    with chromium() as browser:
        page = open_page(browser, Path("battle.html"), event=120)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: The browser binary unless ``FRAY_CHROMIUM`` names another (read at each launch).
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic")
#: A common laptop window; the page fits it without scrolling (and 1280x800 up).
VIEWPORT = {"width": 1400, "height": 900}


class BrowserMissing(RuntimeError):
    """No Chromium at :func:`chromium_path`, or no playwright to drive it."""


def chromium_path() -> Path:
    """The Chromium binary to launch: ``$FRAY_CHROMIUM`` or :data:`CHROMIUM`."""
    return Path(os.environ.get("FRAY_CHROMIUM") or CHROMIUM)


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched headless Chromium (a playwright ``Browser``), closed on exit.

    Raises :class:`BrowserMissing` (a one-line message naming the install command) if the
    binary or playwright is missing; never downloads a browser.
    """
    path = chromium_path()
    if not path.exists():
        raise BrowserMissing(f"no Chromium at {path}: apt-get install chromium "
                             "(Debian's package; or set FRAY_CHROMIUM to its path)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise BrowserMissing(f"playwright is missing ({exc}): "
                             "pip install -e \".[test]\"") from exc

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(path),
                                             args=list(CHROMIUM_ARGS))
        try:
            yield browser
        finally:
            browser.close()


def open_page(browser: Any, path: Path, event: int | None = None) -> Any:
    """A new tab showing the viewer page at ``path`` (at ``event``), ready."""
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(path.resolve().as_uri() + ("" if event is None else f"#e={event}"))
    page.wait_for_selector("body[data-ready='1']")
    return page
