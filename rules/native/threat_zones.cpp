// rules/threat_zones.py: threat zones (H12). See threat_zones.hpp.
#include "threat_zones.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace fray::threat_zones {

namespace {

// The breadth-first walk of threatened_squares: (square, depth) in the order reached,
// the origin first; stops early once `wanted` (when given) is reached.
template <typename Reached>
void walk(const Grid& grid, Square origin, int reach_squares, Reached&& reached) {
  std::vector<std::pair<Square, int>> frontier{{origin, 0}};
  for (std::size_t next = 0; next < frontier.size(); ++next) {
    const auto [square, depth] = frontier[next];
    if (depth == reach_squares) continue;
    for (const Square near : grid.neighbours(square)) {
      const bool seen = std::any_of(frontier.begin(), frontier.end(),
                                    [&](const auto& entry) { return entry.first == near; });
      if (seen) continue;
      frontier.emplace_back(near, depth + 1);
      if (reached(near)) return;
    }
  }
}

}  // namespace

std::vector<Square> threatened_squares(const Grid& grid, Square origin, int reach_squares) {
  std::vector<Square> out;
  walk(grid, origin, reach_squares, [&](Square square) {
    out.push_back(square);
    return false;
  });
  return out;
}

bool threatens(const Grid& grid, Square origin, int reach_squares, Square square) {
  if (square == origin) return false;
  if (reach_squares >= 0 && grid::chebyshev(origin, square) > reach_squares) return false;
  // one step: the walk's first ring is the legal king steps (grid.neighbours)
  if (reach_squares == 1) return grid.step_allowed(origin, square);
  bool found = false;
  walk(grid, origin, reach_squares, [&](Square reached) { return found = reached == square; });
  return found;
}

}  // namespace fray::threat_zones
