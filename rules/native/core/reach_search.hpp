// The searches of ReachGraph::reachable (rules/reach_search.py dijkstra and labels),
// apart from reach.cpp's graph, cache and checks: the window, its tables, Dial's search
// without threats and the label-setting search with them (reach_search.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "reach.hpp"

namespace fray::reach {

// The search of a checked query (reach.cpp ReachGraph::reachable checks the start, the
// parity and the enemy numbers; `enemies` is one more than the largest): its
// destinations with their chosen routes. steps: per map square the legal KING_STEPS bits
// on the bare map; parity_rank: the rank of each end parity (S18/H14).
//
// With a target (a map square index, >= 0) the answer holds that destination alone, with
// the route the whole search chooses to it, or nothing when it is none: the search stops
// once no route still to come can be chosen over the best found (ReachGraph::cheapest).
Reach search(const MapTable& map, const Costs& costs, const std::vector<std::uint8_t>& steps,
             std::array<int, 2> parity_rank, const Query& query, int enemies, int target = -1);

}  // namespace fray::reach
