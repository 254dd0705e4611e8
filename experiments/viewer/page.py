"""The replay viewer page: one self-contained HTML file (no network, works from file://).

The template (``page.html``), its scripts (:data:`SCRIPTS`) and style (``viewer.css``)
are package data; :func:`build_page` inlines them with the data of
:func:`experiments.viewer.data.viewer_data` as JSON in a ``<script type="application/json">``
element, so the page needs nothing but a browser.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path

from experiments.replay import Replay
from experiments.viewer.data import viewer_data

#: The page's scripts, inlined in this order: data -> state, the map canvas, the panels.
SCRIPTS = ("model.js", "map.js", "viewer.js")


def _asset(name: str) -> str:
    """One of the package's template files."""
    return resources.files("experiments.viewer").joinpath(name).read_text(encoding="utf-8")


def build_page(replay: Replay, progress: bool = False, partial: bool = False) -> str:
    """The viewer page of ``replay`` as HTML text (re-simulates the replay; ``progress``:
    a progress bar on stderr; ``partial``: see :func:`viewer_data`)."""
    data = json.dumps(viewer_data(replay, progress=progress, partial=partial),
                      separators=(",", ":"))
    # inside <script>, "</" could end the element early and "<!--" start a comment
    data = data.replace("</", "<\\/").replace("<!--", "<\\!--")
    page = _asset("page.html")
    title = html.escape(f"fray replay: {replay.scenario_name} (seed {replay.seed})")
    scripts = "\n".join(_asset(name) for name in SCRIPTS)
    for key, value in (("__FRAY_TITLE__", title), ("__FRAY_CSS__", _asset("viewer.css")),
                       ("__FRAY_JS__", scripts), ("__FRAY_DATA__", data)):
        page = page.replace(key, value, 1)
    return page


def write_page(replay: Replay, path: str | Path, *, progress: bool = False,
               partial: bool = False) -> Path:
    """Write the viewer page of ``replay`` to ``path`` (folders created); return the path.

    Raises ``experiments.replay.ReplayError`` if an action is not legal on re-simulation,
    unless ``partial`` (then the page shows the battle up to that action and says so).
    """
    path = Path(path)
    html_text = build_page(replay, progress=progress, partial=partial)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html_text, encoding="utf-8")
    return path
