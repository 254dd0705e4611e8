"""See a battle: the offline replay viewer page and animated GIFs of replays.

    from experiments.replay import play
    from experiments.viewer import write_page
    battle, replay = play("skirmish", seed=1, agents_by_team={"party": "berserker"})
    write_page(replay, "skirmish.html")      # open it in a browser, offline

``viewer_data`` is what the page embeds (format in :mod:`experiments.viewer.data`);
``write_gif`` animates a replay with ``env.render.render_rgb`` frames.
"""

from experiments.viewer.data import viewer_data
from experiments.viewer.gif import write_gif
from experiments.viewer.page import build_page, write_page

__all__ = ["build_page", "viewer_data", "write_gif", "write_page"]
