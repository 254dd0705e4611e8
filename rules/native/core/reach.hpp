// The reach search of rules/reach.py (S17, S18, H12-H14, S23) over compiled tables.
//
// rules/reach.py is the reference: the same graph (nodes (x, y, parity), KING_STEPS
// order), the same searches (Dial's bucket Dijkstra without threats, the label-setting
// search with Pareto pruning over provoked sets with them) and the same choice of route,
// so that every destination, its cost, its path, its end parity and the enemies its path
// provokes come out identical (tests/native/test_reach_differential.py checks it).
// The Python side compiles a GridMap, the occupancy and the threat zones into the tables
// below (rules/bridge/reach.py); nothing here knows Python.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "routes.hpp"

namespace fray::reach {

// rules/grid.py KING_STEPS: orthogonal steps first (N, W, E, S), then diagonals (NW, NE,
// SW, SE). The order settles ties between equal-cost routes.
inline constexpr std::array<std::array<int, 2>, 8> KING_STEPS{{
    {0, -1}, {-1, 0}, {1, 0}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1}}};

// A GridMap as the reach search sees it, one byte per square in reading order
// (index y * width + x), each nonzero where the square is so.
struct MapTable {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> blocks;     // walls and closed doors (H13)
  std::vector<std::uint8_t> difficult;  // difficult terrain (H13)
  std::vector<std::uint8_t> drop;       // drops (S23): entered, never passed through
};

// The ruleset's movement costs (S17, S18, H13).
struct Costs {
  int orthogonal = 1;
  std::array<int, 2> diagonal{1, 2};  // S18: by parity, 1st diagonal, 2nd diagonal
  int difficult_multiplier = 2;       // H13
};

// One query's occupancy and threat zones. Squares are map indices (y * width + x);
// entries off the map are ignored, as the Python search ignores them.
struct Query {
  int x = 0;
  int y = 0;
  int parity = 0;              // H14: the diagonal count carried in
  std::int64_t budget = 0;
  std::vector<int> blocked;    // enemies in action: never entered (H13)
  std::vector<int> no_end;     // allies and the fallen: passed, not ended on
  // H12: (square, enemy) pairs, enemies numbered in the order of their ids (the order
  // provokers are listed in); none: the plain search.
  std::vector<std::pair<int, int>> threats;
};

// One destination of a plain query and the cost of its chosen route (routes.py
// Reach.cost).
struct Destination {
  int x = 0;
  int y = 0;
  int cost = 0;
};

struct SweepTables;  // reach_sweep.hpp

// rules/reach.py ReachGraph: movement over one map with one set of costs.
class ReachGraph {
 public:
  // Throws std::invalid_argument on tables of the wrong size or costs below 1.
  ReachGraph(MapTable map, Costs costs);

  const MapTable& map() const { return map_; }
  const Costs& costs() const { return costs_; }

  // (cost, parity after) of one step from square a to adjacent square b, or none if the
  // step is illegal (off the map, into a wall or closed door, cutting a corner: H13).
  std::optional<std::pair<int, int>> step(int ax, int ay, int bx, int by, int parity) const;

  // (cost, end parity) of walking path (x, y pairs); std::invalid_argument on an illegal
  // step.
  std::pair<int, int> path_cost(const std::vector<std::pair<int, int>>& path, int parity) const;

  // Every square the mover can end on within the budget, in the order first reached,
  // with the route chosen to it (fewest provoked enemies, then cheapest, then the end
  // parity that makes the next diagonal cheaper, then the route found first).
  // std::invalid_argument for a start that is no square to stand on or a bad parity.
  Reach reachable(const Query& query) const;

  // reachable(query), kept for the next equal query (rules.bridge.reach's answer cache,
  // here for the step's own searches: the tactician's route risks, then its move's route
  // when taken; the turn's listing on maps too large to sweep, listed again after every
  // free action and reaction). Bounded in answers and bytes; shared by the copies of this
  // graph; safe across threads.
  std::shared_ptr<const Reach> reachable_cached(const Query& query) const;

  // The chosen route to (x, y), or none if it is not a destination: reachable(query)'s,
  // from the kept answer if there is one, else from a search that stops once that
  // route is settled (reach_search.hpp).
  std::optional<Route> cheapest(const Query& query, int x, int y) const;

  // The destinations of a plain query (no threats: std::invalid_argument otherwise) with
  // their costs, in (x, y) order as Python sorts squares: reachable(query)'s, without
  // the routes (the turn's listing: legal.cpp walk). Swept on maps up to kSweepSquares
  // squares (reach_sweep.hpp), else from reachable_cached.
  std::vector<Destination> destinations(const Query& query) const;

  // The destinations of `query` whose chosen route provokes nobody (H13), with their
  // costs, in (x, y) order: reachable(query)'s destinations with no provokers, without
  // the routes (the chosen route provokes fewest, so these are the squares some route
  // within the budget reaches leaving no threatened square, the start's included).
  // Swept like destinations() on maps up to kSweepSquares squares, else from
  // reachable_cached. What the scripted agents' moves need when a move provoking nobody
  // exists (agents_tactics.cpp fewest_route_costs).
  std::vector<Destination> free_destinations(const Query& query) const;

 private:
  // the enemies' count of a query (one more than the largest number), after checking
  // its start, parity and enemy numbers as reachable() documents
  int checked_enemies(const Query& query) const;
  struct Answers;
  MapTable map_;
  Costs costs_;
  std::shared_ptr<Answers> answers_;
  std::shared_ptr<const SweepTables> sweep_;  // the map's boards when it is swept, else null
  // per square: bit k set when KING_STEPS[k] is a legal step from it on the bare map
  std::vector<std::uint8_t> steps_;
  std::array<int, 2> parity_rank_{0, 1};
};

}  // namespace fray::reach
