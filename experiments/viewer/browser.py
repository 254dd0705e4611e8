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

#: The browser binary; ``FRAY_CHROMIUM`` overrides it.
CHROMIUM = os.environ.get("FRAY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic")
VIEWPORT = {"width": 1400, "height": 1000}


class BrowserMissing(RuntimeError):
    """No Chromium at :data:`CHROMIUM`."""


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched headless Chromium (a playwright ``Browser``), closed on exit."""
    if not Path(CHROMIUM).exists():
        raise BrowserMissing(f"{CHROMIUM} not found: install Debian's chromium package "
                             "(apt-get install chromium) or set FRAY_CHROMIUM")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
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
