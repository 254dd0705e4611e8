// rules/threat_zones.py: the squares a combatant threatens (H12).
//
// Reach walks legal king steps on the bare map (walls and closed doors stop it, corners
// are not cut: H13); difficult terrain, drops and other combatants do not stop it. The
// Python reference caches each zone per map, square and reach; here a zone is walked when
// asked (reach is 1 or 2 squares: at most 24 squares), and threatens() answers whether one
// square is in a zone without listing it.
#pragma once

#include <vector>

#include "grid.hpp"

namespace fray::threat_zones {

using grid::Grid;
using grid::Square;

// H12: threatened_squares(grid, origin, reach_squares): every square at most
// `reach_squares` legal king steps from `origin`, the origin excluded, in the order the
// breadth-first walk reaches them (Python returns a frozenset: the order is not a rule).
std::vector<Square> threatened_squares(const Grid& grid, Square origin, int reach_squares);

// H12: whether `square` is in threatened_squares(grid, origin, reach_squares).
bool threatens(const Grid& grid, Square origin, int reach_squares, Square square);

}  // namespace fray::threat_zones
