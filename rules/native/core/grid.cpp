// rules/grid.py: the battle map's questions (H13, H16, S12, S23). See grid.hpp.
#include "grid.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace fray::grid {

namespace {

// A number no grid has had yet (walls_serial).
std::uint64_t fresh_serial() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

Grid::Grid(int width, int height) {
  if (width < 1 || height < 1) {
    throw std::invalid_argument("Grid: width and height must be at least 1, got " +
                                std::to_string(width) + " x " + std::to_string(height));
  }
  const auto squares = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  table_.width = width;
  table_.height = height;
  table_.blocks.assign(squares, 0);
  table_.difficult.assign(squares, 0);
  table_.drop.assign(squares, 0);
  wall_.assign(squares, 0);
  door_.assign(squares, static_cast<std::uint8_t>(Door::none));
  dark_.assign(squares, 0);
  drop_depth_.assign(squares, 0);
  walls_serial_ = fresh_serial();
}

std::size_t Grid::checked(Square square) const {
  if (!in_bounds(square)) {
    throw std::out_of_range("Grid: (" + std::to_string(square.x) + ", " +
                            std::to_string(square.y) + ") is off the map");
  }
  return at(square);
}

void Grid::refresh(std::size_t square) {
  table_.blocks[square] =
      wall_[square] || door_[square] == static_cast<std::uint8_t>(Door::closed);
  table_.drop[square] = drop_depth_[square] != 0;
}

void Grid::set_wall(Square square) {
  const std::size_t i = checked(square);
  wall_[i] = 1;
  refresh(i);
  walls_serial_ = fresh_serial();
}

void Grid::set_door(Square square, bool open) {
  const std::size_t i = checked(square);
  door_[i] = static_cast<std::uint8_t>(open ? Door::open : Door::closed);
  refresh(i);
}

void Grid::set_difficult(Square square) { table_.difficult[checked(square)] = 1; }

void Grid::set_dark(Square square) { dark_[checked(square)] = 1; }

void Grid::set_drop(Square square, int depth_ft) {
  const std::size_t i = checked(square);
  drop_depth_[i] = depth_ft;
  refresh(i);
}

void Grid::open_door(Square square, bool open) {
  if (door(square) == Door::none) {
    throw std::invalid_argument("no door at (" + std::to_string(square.x) + ", " +
                                std::to_string(square.y) + ")");
  }
  set_door(square, open);
}

// H13: GridMap.step_allowed.
bool Grid::step_allowed(Square origin, Square destination) const {
  if (blocks_movement(destination)) return false;
  const int dx = destination.x - origin.x;
  const int dy = destination.y - origin.y;
  if (dx != 0 && dy != 0) {
    return !(blocks_movement({origin.x + dx, origin.y}) ||
             blocks_movement({origin.x, origin.y + dy}));
  }
  return true;
}

// H13: GridMap.neighbours, in KING_STEPS order.
Neighbours Grid::neighbours(Square square) const {
  Neighbours out;
  for (const auto& [dx, dy] : KING_STEPS) {
    const Square near{square.x + dx, square.y + dy};
    if (step_allowed(square, near)) out.squares[static_cast<std::size_t>(out.size++)] = near;
  }
  return out;
}

int chebyshev(Square first, Square second) {
  return std::max(std::abs(first.x - second.x), std::abs(first.y - second.y));
}

// H16: rules.grid.line_of_sight, step for step.
bool line_of_sight(const Grid& grid, Square viewer, Square seen) {
  if (viewer == seen) return true;
  const long long dx = static_cast<long long>(seen.x) - viewer.x;
  const long long dy = static_cast<long long>(seen.y) - viewer.y;
  const long long nx = std::llabs(dx);
  const long long ny = std::llabs(dy);
  const int sx = dx > 0 ? 1 : -1;
  const int sy = dy > 0 ? 1 : -1;
  int x = viewer.x;
  int y = viewer.y;
  long long ix = 0;
  long long iy = 0;
  while (ix < nx || iy < ny) {
    // Where the line crosses the next vertical and horizontal grid lines, cross-multiplied:
    // (0.5 + ix) / nx against (0.5 + iy) / ny.
    const long long decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx;
    if (decision == 0) {
      if (grid.blocks_sight({x + sx, y}) && grid.blocks_sight({x, y + sy})) return false;
      x += sx;
      y += sy;
      ++ix;
      ++iy;
    } else if (decision < 0) {
      x += sx;
      ++ix;
    } else {
      y += sy;
      ++iy;
    }
    const Square here{x, y};
    if (!(here == seen) && grid.blocks_sight(here)) return false;
  }
  return true;
}

}  // namespace fray::grid
