"""Map parsing, terrain queries and line of sight (H13, H16, H23, S23)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import ScenarioError
from rules.grid import KING_STEPS, LEGEND, GridMap, chebyshev, line_of_sight, parse_map

ROOM = """
#######
#.....#
#.....#
#######
"""


def grid(text: str, **kw: int) -> GridMap:
    return parse_map(text, source="test.toml", **kw)


# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("glyph", "check"),
    [
        ("#", lambda g: g.is_wall((0, 0)) and g.blocks_movement((0, 0))),
        (".", lambda g: g == GridMap(1, 1)),
        ("+", lambda g: g.closed_doors == {(0, 0)} and g.doors == {(0, 0): False}),
        ("'", lambda g: g.open_doors == {(0, 0)} and g.doors == {(0, 0): True}),
        ("~", lambda g: g.is_difficult((0, 0)) and not g.is_dark((0, 0))),
        (":", lambda g: g.is_dark((0, 0)) and not g.is_difficult((0, 0))),
        (";", lambda g: g.is_dark((0, 0)) and g.is_difficult((0, 0))),
        ("_", lambda g: g.drop_depth((0, 0)) == 10),
        *[(str(n), lambda g, n=n: g.drop_depth((0, 0)) == 10 * n) for n in range(1, 10)],
    ],
)
def test_each_legend_glyph_h13_h16_h23_s23(glyph: str, check) -> None:
    g = grid(glyph)
    assert (g.width, g.height) == (1, 1)
    assert check(g)


def test_legend_lists_every_glyph_and_each_parses() -> None:
    assert set(LEGEND) == set("#.+'~:;_123456789")
    g = grid("".join(LEGEND))
    assert g.width == len(LEGEND)
    assert g.to_text() == "".join(LEGEND).replace("1", "_") + "\n"  # 10 ft is the default


def test_default_drop_depth_is_a_parameter_s23() -> None:
    g = grid("_3", drop_depth_ft=20)
    assert (g.drop_depth((0, 0)), g.drop_depth((1, 0))) == (20, 30)
    assert g.drops == (((0, 0), 20), ((1, 0), 30))
    assert g.to_text(drop_depth_ft=20) == "_3\n"


def test_coordinates_and_blank_lines_h13() -> None:
    g = grid(ROOM)
    assert (g.width, g.height) == (7, 4)
    assert g.is_wall((0, 0)) and g.is_wall((6, 3)) and not g.is_wall((1, 1))
    assert not g.in_bounds((7, 0)) and not g.in_bounds((0, 4)) and not g.in_bounds((-1, 0))
    assert grid("\n\n  \n" + ROOM + "\n   \n") == g
    assert grid(ROOM.replace("\n", "\r\n")) == g
    assert g.to_text() == ROOM.lstrip("\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "#######\n#.....#\n#....#\n#######",
            "test.toml: map: expected rows of equal width 7, got <row 2 of width 6>",
        ),
        (
            "#####\n#...#\n#...?\n",
            "test.toml: map[2][4]: expected one of the legend glyphs #.+'~:;_123456789, "
            "got <'?' at (4, 2)>",
        ),
        (
            "##\n# \n",
            "test.toml: map[1][1]: expected one of the legend glyphs #.+'~:;_123456789, "
            "got <' ' at (1, 1)>",
        ),
        ("", "test.toml: map: expected at least one row of map glyphs, got <an empty map>"),
        ("\n  \n\n", "test.toml: map: expected at least one row of map glyphs, got <an empty map>"),
        (None, "test.toml: map: expected a multi-line string of map glyphs, got None"),
    ],
)
def test_parse_errors_name_file_field_expected_found(text: object, message: str) -> None:
    with pytest.raises(ScenarioError) as info:
        parse_map(text, source="test.toml")  # type: ignore[arg-type]
    assert str(info.value) == message
    assert info.value.file == "test.toml"
    assert info.value.field.startswith("map")


# ---------------------------------------------------------------- the map value


def test_gridmap_is_immutable_and_hashable() -> None:
    g = grid(ROOM)
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.width = 3  # type: ignore[misc]
    assert hash(g) == hash(grid(ROOM))
    assert {g: 1}[grid(ROOM)] == 1
    assert GridMap(2, 1, drops={(1, 0): 20}) == GridMap(2, 1, drops=(((1, 0), 20),))


def test_with_door_s12() -> None:
    g = grid("#+#'#")
    opened = g.with_door((1, 0), True)
    assert opened.doors == {(1, 0): True, (3, 0): True}
    assert not opened.blocks_movement((1, 0)) and g.blocks_movement((1, 0))
    closed = opened.with_door((3, 0), False)
    assert closed.doors == {(1, 0): True, (3, 0): False}
    assert closed.with_door((3, 0), True) == opened
    assert opened.with_door((1, 0), False) == g
    with pytest.raises(ValueError, match="no door"):
        g.with_door((0, 0), True)


@pytest.mark.parametrize(
    ("square", "blocks"),
    [
        ((0, 0), True),
        ((1, 0), True),
        ((2, 0), False),
        ((3, 0), False),
        ((4, 0), False),
        ((5, 0), True),
        ((-1, 0), True),
        ((0, 1), True),
    ],
)
def test_blocks_movement_and_sight_h13_h16(square: tuple[int, int], blocks: bool) -> None:
    g = grid("#+'~:")  # wall, closed door, open door, difficult, dark
    assert g.blocks_movement(square) is blocks
    assert g.blocks_sight(square) is blocks


def test_neighbours_do_not_cut_corners_h13() -> None:
    g = grid(
        """
...
.#.
...
"""
    )
    assert g.neighbours((0, 0)) == ((1, 0), (0, 1))
    assert g.neighbours((1, 0)) == ((0, 0), (2, 0))
    open_room = grid("...\n...\n...")
    assert open_room.neighbours((1, 1)) == tuple((1 + dx, 1 + dy) for dx, dy in KING_STEPS)
    door = grid(".+\n..")
    assert not door.step_allowed((0, 0), (1, 1))
    assert door.with_door((1, 0), True).step_allowed((0, 0), (1, 1))


@pytest.mark.parametrize(
    ("a", "b", "d"), [((0, 0), (0, 0), 0), ((0, 0), (3, 1), 3), ((2, 5), (4, 1), 4)]
)
def test_chebyshev(a, b, d) -> None:
    assert chebyshev(a, b) == d == chebyshev(b, a)


# ---------------------------------------------------------------- line of sight (H16)

SIGHT = """
.......
...#...
.......
..#....
...#...
.......
"""


@pytest.mark.parametrize(
    ("a", "b", "seen"),
    [
        ((0, 1), (6, 1), False),  # the wall at (3, 1) is in the way
        ((0, 0), (6, 0), True),
        ((3, 0), (3, 2), False),
        ((3, 1), (3, 2), True),  # an end square never blocks, even a wall
        ((1, 2), (3, 0), True),  # a diagonal past the corner of one wall (2, 1) or (3, 1)
        ((1, 2), (4, 5), False),  # (2, 3) and (3, 4) sit on the diagonal itself
        ((2, 4), (3, 3), False),  # through the corner where walls (2, 3) and (3, 4) meet
        ((1, 5), (4, 2), False),  # the same corner on a longer diagonal
        ((3, 3), (4, 2), True),  # corner between (3, 2) and (4, 3): neither blocks
        ((0, 5), (6, 2), False),  # slope -1/2 crosses the wall at (3, 4)
        ((0, 2), (6, 2), True),
        ((5, 5), (6, 0), True),
        ((0, 0), (0, 0), True),
    ],
)
def test_line_of_sight_h16(a, b, seen) -> None:
    g = grid(SIGHT)
    assert line_of_sight(g, a, b) is seen
    assert line_of_sight(g, b, a) is seen


def test_line_of_sight_doors_h16() -> None:
    g = grid(".+.'.")
    assert not line_of_sight(g, (0, 0), (2, 0))
    assert line_of_sight(g, (2, 0), (4, 0))
    assert line_of_sight(g.with_door((1, 0), True), (0, 0), (4, 0))


def _los_reference(g: GridMap, a, b) -> bool:
    """Exact geometry with fractions: cut the segment between the centres where it crosses
    grid lines; the square holding each piece's midpoint is crossed, and must not block
    unless it is an end square. Where a cut is a grid corner, the two squares around it
    that no piece crosses are only touched: the line is blocked if both block."""
    ax, ay = Fraction(2 * a[0] + 1, 2), Fraction(2 * a[1] + 1, 2)
    bx, by = Fraction(2 * b[0] + 1, 2), Fraction(2 * b[1] + 1, 2)
    cuts = {Fraction(0), Fraction(1)}
    for p0, p1 in ((ax, bx), (ay, by)):
        if p0 != p1:
            for k in range(int(min(p0, p1)), int(max(p0, p1)) + 2):
                t = (k - p0) / (p1 - p0)
                if 0 < t < 1:
                    cuts.add(t)
    ordered = sorted(cuts)

    def at(t: Fraction) -> tuple[Fraction, Fraction]:
        return ax + (bx - ax) * t, ay + (by - ay) * t

    def square_of(t: Fraction) -> tuple[int, int]:
        px, py = at(t)
        return int(px), int(py)  # positive coordinates: int() is floor

    crossed = [square_of((t0 + t1) / 2) for t0, t1 in pairwise(ordered)]
    if any(sq not in (a, b) and g.blocks_sight(sq) for sq in crossed):
        return False
    for i, t in enumerate(ordered[1:-1]):
        px, py = at(t)
        if px.denominator == 1 and py.denominator == 1:
            cx, cy = int(px), int(py)
            around = {(cx - 1, cy - 1), (cx, cy - 1), (cx - 1, cy), (cx, cy)}
            touched = around - {crossed[i], crossed[i + 1]}
            assert len(touched) == 2
            if all(g.blocks_sight(sq) for sq in touched):
                return False
    return True


@st.composite
def sight_cases(draw):
    w = draw(st.integers(1, 7))
    h = draw(st.integers(1, 7))
    rows = ["".join(draw(st.sampled_from("..#+'")) for _ in range(w)) for _ in range(h)]
    g = grid("\n".join(rows))
    square = st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))
    return g, draw(square), draw(square)


@settings(max_examples=300, deadline=None)
@given(sight_cases())
def test_line_of_sight_matches_exact_geometry_h16(case) -> None:
    g, a, b = case
    assert line_of_sight(g, a, b) == _los_reference(g, a, b)
    assert line_of_sight(g, a, b) == line_of_sight(g, b, a)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda w: st.lists(
            st.text(alphabet=list(LEGEND), min_size=w, max_size=w), min_size=1, max_size=6
        )
    )
)
def test_to_text_round_trips(rows: list[str]) -> None:
    g = grid("\n".join(rows))
    assert grid(g.to_text()) == g
