"""A replay as a short animated GIF of ``env.render.render_rgb`` frames (Pillow).

One frame before the first action and one after every action that changed what the map
shows (a move, a wound, a fall, a door), thinned evenly to at most ``max_frames``; the last
frame is held. A caption strip above the map names the scenario, the round and the acting
combatant.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

import rules
from env.render import PALETTE, TEAM_COLOURS, render_rgb
from experiments.replay import Replay
from experiments.viewer.data import apply_recorded, unit_state


def _caption(frame: Image.Image, text: str, height: int) -> Image.Image:
    """``frame`` with a strip of ``text`` above it."""
    out = Image.new("RGB", (frame.width, frame.height + height), PALETTE["wall"])
    out.paste(frame, (0, height))
    font = ImageFont.load_default(size=max(8, height - 6))
    ImageDraw.Draw(out).text((4, height // 2), text, fill=PALETTE["initials"], font=font,
                             anchor="lm")
    return out


def _frame(battle: rules.Battle, cell: int, caption: int) -> Image.Image:
    actor = battle.current_actor
    text = (f"{battle.scenario.name}  round {battle.round}"
            + (f"  {actor}" if actor and not battle.is_over
               else f"  winner: {battle.winner or 'none'}" if battle.is_over else ""))
    return _caption(Image.fromarray(render_rgb(battle, cell=cell)), text, caption)


def replay_frames(replay: Replay, cell: int = 16, max_frames: int = 120,
                  caption: int = 16) -> list[Image.Image]:
    """The frames of the animation (see the module docstring)."""
    if max_frames < 2:
        raise ValueError(f"max_frames: expected at least 2, got {max_frames}")
    battle = replay.new_battle()

    def shown(battle: rules.Battle) -> tuple:
        return (tuple(tuple(unit_state(c)) for c in battle.combatants.values()),
                tuple(sorted(battle.grid.doors.items())))

    frames = [_frame(battle, cell, caption)]
    last = shown(battle)
    for index in range(len(replay.actions)):
        apply_recorded(battle, replay, index)
        now = shown(battle)
        if now != last or battle.is_over:
            frames.append(_frame(battle, cell, caption))
            last = now
    if len(frames) > max_frames:  # keep the first and the last, thin the rest evenly
        step = (len(frames) - 1) / (max_frames - 1)
        frames = [frames[round(i * step)] for i in range(max_frames)]
    return frames


def _palette() -> Image.Image:
    """A "P" image holding the look's colours (and greys for antialiased text)."""
    colours = [*PALETTE.values(), *TEAM_COLOURS]
    values = []
    for colour in colours:
        values += [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    for grey in range(0, 256, 32):
        values += [grey, grey, grey]
    values += values[-3:] * (256 - len(values) // 3)
    image = Image.new("P", (1, 1))
    image.putpalette(values)
    return image


#: a GIF's least width in pixels (a 9-square duel at 16 pixels a square was 144 wide, too
#: small to read the initials), within a square's least and greatest size
GIF_WIDTH = 480
GIF_CELL = (16, 48)


def readable_cell(width: int) -> int:
    """Pixels per square for a map ``width`` squares wide: at least ``GIF_WIDTH`` wide."""
    least, most = GIF_CELL
    return max(least, min(most, -(-GIF_WIDTH // max(1, width))))


def write_gif(replay: Replay, path: str | Path, *, cell: int | None = None,
              frame_ms: int = 250, max_frames: int = 120) -> Path:
    """Write the replay as an animated GIF at ``path`` (folders created); return it.
    ``cell``: pixels per square (default ``readable_cell`` of the map's width); the
    caption strip grows with it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if cell is None:
        cell = readable_cell(replay.new_battle().grid.width)
    palette = _palette()
    frames = [f.quantize(palette=palette, dither=Image.Dither.NONE)
              for f in replay_frames(replay, cell=cell, max_frames=max_frames,
                                     caption=max(16, cell * 2 // 3))]
    durations = [frame_ms] * (len(frames) - 1) + [max(2000, frame_ms)]
    frames[0].save(path, format="GIF", save_all=True, append_images=frames[1:],
                   duration=durations, loop=0, optimize=False)
    return path
