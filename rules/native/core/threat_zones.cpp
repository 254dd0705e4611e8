// rules/threat_zones.py: threat zones (H12). See threat_zones.hpp.
#include "threat_zones.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace fray::threat_zones {

namespace {

// The breadth-first walk of threatened_squares: (square, depth) in the order reached,
// the origin first; stops early once `wanted` (when given) is reached.
// This thread's frontier, kept between walks with its capacity (a walk never starts
// inside another): no allocation per walk. Not inlined, so that a walk keeps its address
// (GCC would look the thread-local up again at each use in the loop).
[[gnu::noinline]] std::vector<std::pair<Square, int>>& thread_frontier() {
  thread_local std::vector<std::pair<Square, int>> frontier;
  return frontier;
}

// The breadth-first walk from origin, calling reached(square) on each square as it is
// first reached until it returns true.
template <typename Reached>
void walk(const Grid& grid, Square origin, int reach_squares, Reached&& reached) {
  std::vector<std::pair<Square, int>>& frontier = thread_frontier();
  frontier.clear();
  frontier.emplace_back(origin, 0);
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
  if (reach_squares == 1) {  // the walk's first ring: the legal king steps, in their order
    const grid::Neighbours near = grid.neighbours(origin);
    out.assign(near.begin(), near.end());
    return out;
  }
  // the whole box of side 2 * reach + 1 but its centre, the most a walk reaches (up to a
  // reach of 3; a longer one grows the list as it goes)
  const int side = 2 * std::clamp(reach_squares, 0, 3) + 1;
  out.reserve(static_cast<std::size_t>(side * side - 1));
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
