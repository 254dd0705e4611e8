"""The battle map: squares, walls, doors, terrain, darkness and drops (H12, H13, H16, H23, S23).

A square is ``(x, y)`` with ``x`` the column and ``y`` the row, ``(0, 0)`` top-left; a square
is 5 ft. Maps are written in scenario files with the glyphs of :data:`LEGEND`.

A :class:`GridMap` is immutable and hashable, so derived structures (the reach graph, threat
zones) can be cached per map. Door state changes during a battle (S12 Open/Close Door):
:meth:`GridMap.with_door` returns the map with one door changed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

from rules.errors import ScenarioError
from rules.limits import MAX_MAP_SIDE, MAX_MAP_SQUARES

Square = tuple[int, int]

@dataclass(frozen=True, slots=True)
class Glyph:
    """What one map glyph stands for (see ``GLYPHS``): ``meaning`` (the legend's words),
    and the terrain it makes: a wall, a door (``closed`` or ``open``), difficult
    terrain, darkness, a drop of ``drop_ft`` feet (``DEFAULT_DROP``: the scenario's
    default depth)."""

    meaning: str
    wall: bool = False
    door: str | None = None
    difficult: bool = False
    dark: bool = False
    drop_ft: int | None = None

    def to_dict(self, default_drop_ft: int) -> dict[str, object]:
        """The glyph as plain data (the viewer page's legend), the default depth resolved."""
        drop = default_drop_ft if self.drop_ft == DEFAULT_DROP else self.drop_ft
        return {"meaning": self.meaning, "wall": self.wall, "door": self.door,
                "difficult": self.difficult, "dark": self.dark, "drop": drop}


#: ``Glyph.drop_ft`` of the glyph whose depth is the scenario's default.
DEFAULT_DROP = 0
#: The one glyph table: glyph -> what it stands for. ``parse_map`` reads it,
#: ``GridMap.to_text`` writes it, the scenario docs and the viewer page's legend
#: (``experiments.viewer.data``) are generated from it.
GLYPHS: dict[str, Glyph] = {
    "#": Glyph("wall: blocks movement, reach and sight", wall=True),
    ".": Glyph("floor"),
    "+": Glyph("closed door: blocks movement, reach and sight until opened", door="closed"),
    "'": Glyph("open door: floor until closed", door="open"),
    "~": Glyph("difficult terrain: entering it costs double (H13)", difficult=True),
    ":": Glyph("dark floor (H23)", dark=True),
    ";": Glyph("dark difficult terrain (H13, H23)", difficult=True, dark=True),
    "_": Glyph("drop of the default depth (S23); 10 ft unless the scenario says otherwise",
               drop_ft=DEFAULT_DROP),
    **{str(n): Glyph(f"drop of {n * 10} ft (S23)", drop_ft=n * 10) for n in range(1, 10)},
}
#: glyph -> what it stands for (derived from ``GLYPHS``).
LEGEND: dict[str, str] = {glyph: spec.meaning for glyph, spec in GLYPHS.items()}
#: The glyph of each terrain (``Glyph`` without its words), for ``GridMap.to_text``.
_GLYPH_OF: dict[tuple, str] = {
    (spec.wall, spec.door, spec.difficult, spec.dark, spec.drop_ft): glyph
    for glyph, spec in GLYPHS.items()}

#: The eight king steps in the fixed order every search uses (it settles ties between
#: equal-cost routes): orthogonal steps first (N, W, E, S), then diagonals (NW, NE, SW, SE).
KING_STEPS: tuple[tuple[int, int], ...] = (
    (0, -1),
    (-1, 0),
    (1, 0),
    (0, 1),
    (-1, -1),
    (1, -1),
    (-1, 1),
    (1, 1),
)
#: The same eight steps row by row (NW, N, NE, W, E, SW, S, SE), derived from
#: :data:`KING_STEPS`: the order of neighbouring-square choices (shift, dodge, dismount,
#: doors) and of the env codec's ``adjacent`` parameter.
KING_STEPS_BY_ROW: tuple[tuple[int, int], ...] = tuple(
    sorted(KING_STEPS, key=lambda step: (step[1], step[0])))


#: Door states of one map kept for sharing (``GridMap.with_door``).
_MAX_VARIANTS = 256


@dataclass(frozen=True)
class GridMap:
    """An immutable, hashable battle map.

    ``drops`` holds ``(square, depth_ft)`` pairs sorted by square (a mapping is accepted
    too); use :meth:`drop_depth`. Every square not listed anywhere is lit floor.
    """

    width: int
    height: int
    walls: frozenset[Square] = frozenset()
    closed_doors: frozenset[Square] = frozenset()
    open_doors: frozenset[Square] = frozenset()
    difficult: frozenset[Square] = frozenset()
    dark: frozenset[Square] = frozenset()
    drops: tuple[tuple[Square, int], ...] = ()
    _drop_depths: Mapping[Square, int] = field(
        init=False, repr=False, compare=False, hash=False, default_factory=dict
    )
    _hash: int = field(init=False, repr=False, compare=False, hash=False, default=0)
    #: walls and closed doors: the squares on the map that block movement
    _blocking: frozenset[Square] = field(init=False, repr=False, compare=False, hash=False,
                                         default=frozenset())
    #: (closed doors, open doors) -> the map in that door state, shared by every door
    #: state of one map, so opening and closing a door gives back the same object
    #: (what caches keyed on the map then find by identity)
    _variants: dict = field(init=False, repr=False, compare=False, hash=False,
                            default_factory=dict)

    def __post_init__(self) -> None:
        # Accept any iterables (and a mapping for drops), store immutable canonical forms.
        for name in ("walls", "closed_doors", "open_doors", "difficult", "dark"):
            object.__setattr__(self, name, frozenset(getattr(self, name)))
        drops = self.drops.items() if isinstance(self.drops, Mapping) else self.drops
        object.__setattr__(self, "drops", tuple(sorted((tuple(sq), d) for sq, d in drops)))
        object.__setattr__(self, "_drop_depths", dict(self.drops))
        object.__setattr__(self, "_blocking", self.walls | self.closed_doors)
        # the dataclass hash of the compared fields, computed once: maps key every cache
        object.__setattr__(self, "_hash", hash((
            self.width, self.height, self.walls, self.closed_doors, self.open_doors,
            self.difficult, self.dark, self.drops)))
        self._variants[self.closed_doors, self.open_doors] = self

    def __hash__(self) -> int:
        return self._hash

    # ----------------------------------------------------------------- queries
    @property
    def doors(self) -> dict[Square, bool]:
        """Every door square -> whether it is open."""
        out = dict.fromkeys(self.closed_doors, False)
        out.update(dict.fromkeys(self.open_doors, True))
        return out

    def in_bounds(self, sq: Square) -> bool:
        x, y = sq
        return 0 <= x < self.width and 0 <= y < self.height

    def is_wall(self, sq: Square) -> bool:
        return sq in self.walls

    def is_difficult(self, sq: Square) -> bool:
        return sq in self.difficult

    def is_dark(self, sq: Square) -> bool:
        return sq in self.dark

    def drop_depth(self, sq: Square) -> int:
        """Depth in feet of the drop at ``sq`` (S23), 0 where there is none."""
        return self._drop_depths.get(sq, 0)

    def blocks_movement(self, sq: Square) -> bool:
        """True for walls, closed doors and squares off the map (H13)."""
        x, y = sq  # in_bounds, inline: the searches and shifts ask this of every step
        return not (0 <= x < self.width and 0 <= y < self.height) or sq in self._blocking

    def blocks_sight(self, sq: Square) -> bool:
        """True for walls, closed doors and squares off the map (H16)."""
        return self.blocks_movement(sq)

    def step_allowed(self, origin: Square, destination: Square) -> bool:
        """Whether one king step from ``origin`` to adjacent ``destination`` is legal on the
        bare map (H13).

        ``destination`` must not block movement and a diagonal step must not cut a corner: both
        squares it passes orthogonally must be open too.
        """
        x, y = destination  # blocks_movement(b), inline: every neighbour of every node asks this
        if not (0 <= x < self.width and 0 <= y < self.height) or destination in self._blocking:
            return False
        dx, dy = x - origin[0], y - origin[1]
        if dx and dy:
            return not (
                self.blocks_movement((origin[0] + dx, origin[1]))
                or self.blocks_movement((origin[0], origin[1] + dy))
            )
        return True

    def neighbours(self, sq: Square) -> tuple[Square, ...]:
        """Squares one legal king step from ``sq``, in :data:`KING_STEPS` order (H13)."""
        x, y = sq
        return tuple([
            (x + dx, y + dy) for dx, dy in KING_STEPS if self.step_allowed(sq, (x + dx, y + dy))
        ])

    def squares(self) -> Iterator[Square]:
        """Every square of the map in reading order (row by row)."""
        for y in range(self.height):
            for x in range(self.width):
                yield (x, y)

    # ----------------------------------------------------------------- changes
    def with_door(self, sq: Square, open: bool) -> GridMap:
        """The same map with the door at ``sq`` opened or closed (S12)."""
        if sq not in self.closed_doors and sq not in self.open_doors:
            raise ValueError(f"no door at {sq}")
        closed = self.closed_doors - {sq}
        opened = self.open_doors - {sq}
        if open:
            opened = opened | {sq}
        else:
            closed = closed | {sq}
        variants = self._variants
        found = variants.get((closed, opened))
        if found is None:
            if len(variants) >= _MAX_VARIANTS:
                variants.clear()
            found = replace(self, closed_doors=closed, open_doors=opened)
            object.__setattr__(found, "_variants", variants)
            variants[closed, opened] = found
        return found

    def to_text(self, *, drop_depth_ft: int = 10) -> str:
        """The map in :data:`LEGEND` glyphs; ``parse_map`` of it gives an equal map.

        A drop of ``drop_depth_ft`` is written ``_``, other depths as a digit (tens of feet);
        a depth that is neither raises ``ValueError``.
        """
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                row.append(self._glyph((x, y), drop_depth_ft))
            rows.append("".join(row))
        return "\n".join(rows) + "\n"

    def _glyph(self, sq: Square, drop_depth_ft: int) -> str:
        """The glyph of ``sq`` (a wall, then a door, then a drop hide the rest)."""
        if sq in self.walls:
            return _GLYPH_OF[True, None, False, False, None]
        if sq in self.closed_doors or sq in self.open_doors:
            door = "closed" if sq in self.closed_doors else "open"
            return _GLYPH_OF[False, door, False, False, None]
        depth = self.drop_depth(sq)
        if depth:
            drop = DEFAULT_DROP if depth == drop_depth_ft else depth
            glyph = _GLYPH_OF.get((False, None, False, False, drop))
            if glyph is None:
                raise ValueError(f"a drop of {depth} ft at {sq} has no glyph")
            return glyph
        return _GLYPH_OF[False, None, sq in self.difficult, sq in self.dark, None]


def parse_map(text: str, *, source: str, drop_depth_ft: int = 10) -> GridMap:
    """Parse a map written in :data:`LEGEND` glyphs.

    Blank lines before the first row and after the last are ignored (TOML multi-line
    strings start with a newline); trailing whitespace on a line is not. Errors are
    :class:`ScenarioError` naming ``source`` and the field ``map``.
    """
    if not isinstance(text, str):
        raise ScenarioError(source, "map", "a multi-line string of map glyphs", text)
    lines = text.split("\n")
    lines = [line.rstrip("\r") for line in lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise ScenarioError(source, "map", "at least one row of map glyphs", "<an empty map>")
    width = len(lines[0])
    if (len(lines) > MAX_MAP_SIDE or width > MAX_MAP_SIDE
            or len(lines) * width > MAX_MAP_SQUARES):
        raise ScenarioError(source, "map", f"at most {MAX_MAP_SIDE} rows and columns and "
                            f"{MAX_MAP_SQUARES} squares", f"<{width}x{len(lines)}>")
    for y, line in enumerate(lines):
        if len(line) != width:
            raise ScenarioError(
                source,
                "map",
                f"rows of equal width {width}",
                f"<row {y} of width {len(line)}>",
            )
    walls: set[Square] = set()
    closed: set[Square] = set()
    opened: set[Square] = set()
    difficult: set[Square] = set()
    dark: set[Square] = set()
    drops: list[tuple[Square, int]] = []
    for y, line in enumerate(lines):
        for x, glyph in enumerate(line):
            sq = (x, y)
            spec = GLYPHS.get(glyph)
            if spec is None:
                raise ScenarioError(
                    source,
                    f"map[{y}][{x}]",
                    f"one of the legend glyphs {''.join(LEGEND)}",
                    f"<{glyph!r} at ({x}, {y})>",
                )
            if spec.wall:
                walls.add(sq)
            if spec.door is not None:
                (closed if spec.door == "closed" else opened).add(sq)
            if spec.difficult:
                difficult.add(sq)
            if spec.dark:
                dark.add(sq)
            if spec.drop_ft is not None:
                drops.append((sq, drop_depth_ft if spec.drop_ft == DEFAULT_DROP else spec.drop_ft))
    return _shared_map(GridMap(
        width,
        len(lines),
        walls=frozenset(walls),
        closed_doors=frozenset(closed),
        open_doors=frozenset(opened),
        difficult=frozenset(difficult),
        dark=frozenset(dark),
        drops=tuple(drops),
    ))


#: Parsed maps by value: every battle of one scenario gets the same map object, so the
#: caches keyed on maps shared across battles (reach graphs, threat zones) find it by
#: identity instead of comparing every square of two equal maps.
_PARSED: dict[GridMap, GridMap] = {}
_MAX_PARSED = 64


def _shared_map(grid: GridMap) -> GridMap:
    """The map equal to ``grid`` parsed before (maps are immutable), else ``grid``."""
    found = _PARSED.get(grid)
    if found is None:
        if len(_PARSED) >= _MAX_PARSED:
            _PARSED.clear()
        found = _PARSED[grid] = grid
    return found


def chebyshev(first: Square, second: Square) -> int:
    """King-move distance between two squares."""
    return max(abs(first[0] - second[0]), abs(first[1] - second[1]))


def line_of_sight(grid: GridMap, viewer: Square, seen: Square) -> bool:
    """Whether ``viewer`` sees ``seen`` (H16).

    The line runs between the two square centres; every square it passes through (a
    supercover line, exact integer arithmetic) other than ``viewer`` and ``seen`` must not block
    sight. Where the line passes exactly through a grid corner it touches the two squares
    beside that corner only at a point: it is blocked there only if **both** of them block
    sight (one pillar does not hide a target seen along its diagonal; two walls meeting
    corner to corner do). This is more permissive than movement, which may not cut any
    corner (H13).
    """
    if viewer == seen:
        return True
    dx, dy = seen[0] - viewer[0], seen[1] - viewer[1]
    nx, ny = abs(dx), abs(dy)
    sx = 1 if dx > 0 else -1
    sy = 1 if dy > 0 else -1
    x, y = viewer
    ix = iy = 0
    while ix < nx or iy < ny:
        # Compare where the line crosses the next vertical (x) and horizontal (y) grid lines:
        # (0.5 + ix) / nx against (0.5 + iy) / ny, cross-multiplied to stay in integers.
        decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx
        if decision == 0:
            if grid.blocks_sight((x + sx, y)) and grid.blocks_sight((x, y + sy)):
                return False
            x += sx
            y += sy
            ix += 1
            iy += 1
        elif decision < 0:
            x += sx
            ix += 1
        else:
            y += sy
            iy += 1
        if (x, y) != seen and grid.blocks_sight((x, y)):
            return False
    return True
