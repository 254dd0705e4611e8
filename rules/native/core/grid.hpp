// rules/grid.py: the battle map (H12, H13, H16, H23, S23) and its questions.
//
// A square is (x, y), x the column and y the row, (0, 0) top-left; squares are numbered
// y * width + x in reading order. The map keeps the reach search's MapTable (reach.hpp:
// what blocks movement, difficult terrain, drops) as its own tables, so the search and
// the rules read one home per fact, and beside it what only the rules ask: which blocking
// squares are walls and which are doors (and whether each is open), darkness and the depth
// of each drop. Unlike the immutable Python GridMap, a door is opened or closed in place
// (set_door, S12); the native battle state owns its map. Nothing here knows Python.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "combatant.hpp"
#include "reach.hpp"

namespace fray::grid {

using combatant::Square;

// rules/grid.py KING_STEPS (reach.hpp's, the one table): orthogonal steps first (N, W, E,
// S), then diagonals (NW, NE, SW, SE).
using reach::KING_STEPS;

// rules/grid.py KING_STEPS_BY_ROW: the same steps row by row (NW, N, NE, W, E, SW, S, SE),
// the order of neighbouring-square choices (shift, dodge, dismount, doors).
inline constexpr std::array<std::array<int, 2>, 8> KING_STEPS_BY_ROW{{
    {-1, -1}, {0, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {0, 1}, {1, 1}}};

// What stands on a door square.
enum class Door : std::uint8_t { none, closed, open };

// Up to eight squares one king step away, in the order asked (neighbours()).
struct Neighbours {
  std::array<Square, 8> squares{};
  int size = 0;
  const Square* begin() const { return squares.data(); }
  const Square* end() const { return squares.data() + size; }
};

class Grid {
 public:
  // A width x height map of lit floor; std::invalid_argument unless both are at least 1.
  Grid(int width, int height);

  // ---------------------------------------------------------------- building
  // Each std::out_of_range for a square off the map.
  void set_wall(Square square);
  void set_door(Square square, bool open);  // a door there, closed or open
  void set_difficult(Square square);
  void set_dark(Square square);
  void set_drop(Square square, int depth_ft);  // S23; a depth of 0 is no drop

  // ---------------------------------------------------------------- changes
  // GridMap.with_door (S12): the door at `square` opened or closed, in place;
  // std::invalid_argument if there is no door there.
  void open_door(Square square, bool open);

  // ---------------------------------------------------------------- queries
  int width() const { return table_.width; }
  int height() const { return table_.height; }
  // The reach search's tables (ReachGraph takes them).
  const reach::MapTable& table() const { return table_; }
  // Names the size and walls of this map: two grids of equal serial have the same ones
  // (copies keep it; the constructor and set_wall draw a new one), so caches of what
  // depends on the walls alone (agents' distance maps) can key on it.
  std::uint64_t walls_serial() const { return walls_serial_; }

  bool in_bounds(Square square) const {
    return 0 <= square.x && square.x < table_.width && 0 <= square.y && square.y < table_.height;
  }
  int index(Square square) const { return square.y * table_.width + square.x; }
  // Off the map: no wall, no door, not difficult, not dark, no drop (Python's sets).
  bool is_wall(Square square) const { return in_bounds(square) && wall_[at(square)]; }
  Door door(Square square) const {
    return in_bounds(square) ? static_cast<Door>(door_[at(square)]) : Door::none;
  }
  bool is_difficult(Square square) const {
    return in_bounds(square) && table_.difficult[at(square)];
  }
  bool is_dark(Square square) const { return in_bounds(square) && dark_[at(square)]; }
  // Depth in feet of the drop at `square` (S23), 0 where there is none.
  int drop_depth(Square square) const { return in_bounds(square) ? drop_depth_[at(square)] : 0; }

  // H13: walls, closed doors and squares off the map.
  bool blocks_movement(Square square) const {
    return !in_bounds(square) || table_.blocks[at(square)];
  }
  // H16: the same squares.
  bool blocks_sight(Square square) const { return blocks_movement(square); }
  // H13: one king step from `origin` to adjacent `destination` on the bare map: the
  // destination does not block movement and a diagonal step cuts no corner.
  bool step_allowed(Square origin, Square destination) const;
  // H13: the squares one legal king step from `square`, in KING_STEPS order.
  Neighbours neighbours(Square square) const;

 private:
  std::size_t at(Square square) const { return static_cast<std::size_t>(index(square)); }
  std::size_t checked(Square square) const;  // at(), std::out_of_range off the map
  void refresh(std::size_t square);  // table_.blocks and table_.drop from the rest

  reach::MapTable table_;             // blocks, difficult, drop (the reach search's)
  std::vector<std::uint8_t> wall_;    // walls
  std::vector<std::uint8_t> door_;    // Door per square
  std::vector<std::uint8_t> dark_;    // darkness (H23)
  std::vector<int> drop_depth_;       // feet (S23)
  std::uint64_t walls_serial_ = 0;    // walls_serial()
};

// King-move distance between two squares.
int chebyshev(Square first, Square second);

// H16: whether `viewer` sees `seen`: rules.grid.line_of_sight's supercover line between the
// square centres in exact integers; a line through a grid corner is blocked there only
// when both squares beside the corner block sight.
bool line_of_sight(const Grid& grid, Square viewer, Square seen);

}  // namespace fray::grid
