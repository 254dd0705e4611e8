"""Generated scenarios for the size benchmarks: a big open map and a big battle.

Both are scenario TOML text (parsed by :func:`rules.Battle.from_toml` like any file), so
the benchmarks measure exactly what a user's generated scenario would cost:

- :func:`open_map` -- an N x N walled field with two small teams near the middle: the cost
  of the first decision on a map far bigger than any move (the reach graph must not pay
  for the whole map);
- :func:`crowd` -- ``per_team`` vs ``per_team`` on an N x N field with scattered walls and
  marsh: the per-decision cost with many units.
"""

from __future__ import annotations

import numpy as np

PARTY = ("human_warrior", "dwarf", "elf", "human_archer")
MONSTERS = ("orc", "goblin", "goblin_archer", "goblin")


def _rows(size: int, rng: np.random.Generator | None, keep: set[tuple[int, int]]) -> str:
    """Border walls; with ``rng``, ~4% inner walls and ~6% difficult terrain."""
    rows = []
    for y in range(size):
        row = []
        for x in range(size):
            if x in (0, size - 1) or y in (0, size - 1):
                row.append("#")
                continue
            roll = 1.0 if rng is None or (x, y) in keep else rng.random()
            row.append("#" if roll < 0.04 else "~" if roll < 0.10 else ".")
        rows.append("".join(row))
    return "\n".join(rows)


def _units(placed: list[tuple[str, str, str, tuple[int, int]]]) -> str:
    return "".join(
        f'\n[[units]]\nid = "{uid}"\nteam = "{team}"\ncreature = "{creature}"\n'
        f"at = [{at[0]}, {at[1]}]\n"
        for uid, team, creature, at in placed
    )


def _scenario(name: str, description: str, size: int, rng: np.random.Generator | None,
              placed: list[tuple[str, str, str, tuple[int, int]]], max_rounds: int) -> str:
    keep = {at for *_, at in placed}
    return (f'name = "{name}"\ndescription = "{description}"\nmax_rounds = {max_rounds}\n'
            f'map = """\n{_rows(size, rng, keep)}\n"""\n' + _units(placed))


def open_map(size: int = 300, per_team: int = 2, variant: int = 0) -> str:
    """An open ``size`` x ``size`` field, ``per_team`` heroes facing as many orcs in the
    middle, six squares apart. ``variant`` > 0 puts one pillar in row 1 at column
    ``variant``: another map, so nothing cached for an earlier variant applies."""
    mid = size // 2
    placed = [(f"hero_{i}", "party", "human_warrior", (mid - 3, mid + i))
              for i in range(per_team)]
    placed += [(f"orc_{i}", "monsters", "orc", (mid + 3, mid + i)) for i in range(per_team)]
    text = _scenario(f"open_{size}", f"generated {size}x{size} open map", size, None,
                     placed, 30)
    if variant:
        row = "#" + "." * (size - 2) + "#"
        pillar = row[:variant] + "#" + row[variant + 1:]
        text = text.replace(row, pillar, 1)
    return text


def crowd(size: int = 40, per_team: int = 20, seed: int = 0) -> str:
    """``per_team`` party units (west) against ``per_team`` monsters (east) on a
    ``size`` x ``size`` field with scattered walls and difficult terrain."""
    rng = np.random.default_rng(seed)
    inner = size - 2
    placed = []
    for i in range(per_team):  # every other row, then the next column in
        y, column = 1 + (2 * i) % inner, 3 + (2 * i) // inner
        placed.append((f"p{i}", "party", PARTY[i % len(PARTY)], (column, y)))
        placed.append((f"m{i}", "monsters", MONSTERS[i % len(MONSTERS)],
                       (size - 1 - column, y)))
    return _scenario(f"crowd_{per_team}v{per_team}", f"generated {per_team} vs {per_team} "
                     f"on {size}x{size}", size, rng, placed, 40)
