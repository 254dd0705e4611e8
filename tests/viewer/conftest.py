"""Fixtures for the viewer tests: one replayed battle, its page, and a real headless
Chromium (Debian's /usr/bin/chromium driven by playwright; never a downloaded browser).

Without Chromium (or playwright) the browser tests skip with a one-line reason naming the
install command, so the README's test command passes on a fresh machine; with
``FRAY_REQUIRE_BROWSER=1`` (``.ci/run`` sets it) they fail instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from viewer_replays import reasoned_replay

from experiments.replay import Replay
from experiments.viewer import write_page
from experiments.viewer.browser import VIEWPORT, BrowserMissing, chromium


@pytest.fixture(scope="session")
def replay() -> Replay:
    """Cavalry, seed 1: riders, prone and bleeding units, Free Attacks, parries, dodges."""
    return reasoned_replay("cavalry", 1)


@pytest.fixture(scope="session")
def page_path(replay: Replay, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_page(replay, tmp_path_factory.mktemp("viewer") / "cavalry.html")


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    try:
        with chromium() as launched:
            yield launched
    except BrowserMissing as exc:
        if os.environ.get("FRAY_REQUIRE_BROWSER") == "1":
            pytest.fail(f"FRAY_REQUIRE_BROWSER=1 and {exc}", pytrace=False)
        pytest.skip(f"browser test: {exc}")


@pytest.fixture()
def page(browser, page_path: Path) -> Iterator[object]:
    """A fresh tab on the page at event 0; ``page.requests`` lists every URL it asked for."""
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    tab.requests = []
    tab.errors = []
    tab.on("request", lambda request: tab.requests.append(request.url))
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    tab.goto(page_path.as_uri())
    tab.wait_for_selector("body[data-ready='1']")
    yield tab
    context.close()
