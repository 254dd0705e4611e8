// The reach search of rules/reach.py (S17, S18, H12-H14, S23) over compiled tables.
//
// rules/reach.py is the reference: the same graph (nodes (x, y, parity), KING_STEPS
// order), the same searches (Dial's bucket Dijkstra without threats, the label-setting
// search with Pareto pruning over provoked sets with them) and the same choice of route,
// so that every destination, its cost, its path, its end parity and the enemies its path
// provokes come out identical (tests/native/test_reach_differential.py checks it).
// The Python side compiles a GridMap, the occupancy and the threat zones into the tables
// below (rules/native_reach.py); nothing here knows Python.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

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

// rules/routes.py Route: path from the start to the destination, both included.
struct Route {
  int x = 0;
  int y = 0;
  int cost = 0;
  std::vector<int> path;       // square indices
  std::vector<int> provokers;  // enemy numbers, in the order provoked (H13)
  int end_parity = 0;
};

// rules/routes.py Reach: one query's destinations in the order first reached, each with
// its chosen route, built when asked (from the search's labels, as the Python one does).
class Reach {
 public:
  std::size_t size() const { return chosen_.size(); }
  // destination number `number` (below size()) as (x, y)
  std::pair<int, int> destination(std::size_t number) const;
  // the chosen route to destination number `number`
  Route route(std::size_t number) const;
  // the number of destination (x, y), or none if it is not one
  std::optional<std::size_t> number_of(int x, int y) const;
  // the cost of the chosen route to destination number `number` (route(number).cost)
  int cost(std::size_t number) const { return cost_of_[chosen_.at(number)]; }
  // the enemies the chosen route provokes, in order (route(number).provokers)
  std::vector<int> provokers(std::size_t number) const;
  // the same into `out` (cleared first), reusing its capacity
  void provokers(std::size_t number, std::vector<int>& out) const;
  // Calls visit(number, x, y) for every destination in (x, y) order, as Python sorts them.
  template <typename Visit>
  void each_by_square(Visit&& visit) const {
    if (number_at_.empty()) return;
    const int height = static_cast<int>(number_at_.size()) / window_width_;
    for (int x = 0; x < window_width_; ++x) {
      for (int y = 0; y < height; ++y) {
        const int number = number_at_[static_cast<std::size_t>(y * window_width_ + x)];
        if (number >= 0) visit(static_cast<std::size_t>(number), x0_ + x, y0_ + y);
      }
    }
  }

 private:
  friend class ReachGraph;
  friend class Searcher;
  int node(int label) const { return node_of_.empty() ? label : node_of_[label]; }
  int map_square(int local) const {
    return (y0_ + local / window_width_) * map_width_ + x0_ + local % window_width_;
  }

  // the search's window of the map (reach.cpp Window), squares numbered in it
  int x0_ = 0, y0_ = 0, window_width_ = 1, map_width_ = 1;
  // per label its node, cost and predecessor (a plain search's labels are its nodes:
  // node_of_ empty); the chosen label per destination; per window square its
  // destination number, or -1
  std::vector<int> node_of_, cost_of_, pred_of_, chosen_, number_at_;
  // H12: the enemies threatening window square s are threat_enemies_[threat_start_[s] ..
  // threat_start_[s + 1]), by number; both empty without threats
  std::vector<int> threat_start_, threat_enemies_;
};

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

  // reachable(query), kept for the next equal query (rules.native_reach's answer cache,
  // here for the step's own searches: a turn lists its moves again after every free
  // action and reaction, and a move's route is searched again when it is taken). Bounded
  // in answers and bytes; shared by the copies of this graph; safe across threads.
  std::shared_ptr<const Reach> reachable_cached(const Query& query) const;

  // The chosen route to (x, y), or none if it is not a destination.
  std::optional<Route> cheapest(const Query& query, int x, int y) const;

 private:
  struct Answers;
  MapTable map_;
  Costs costs_;
  std::shared_ptr<Answers> answers_;
  // per square: bit k set when KING_STEPS[k] is a legal step from it on the bare map
  std::vector<std::uint8_t> steps_;
  std::array<int, 2> parity_rank_{0, 1};
};

// rules/routes.py provokers_of (H13): leaving a threatened square (the start included)
// provokes each enemy threatening it, each at most once, those of one step by number.
// The enemies threatening square s are enemies[start[s] .. start[s + 1]), in increasing
// number; path holds such squares.
std::vector<int> provokers_of(const std::vector<int>& path, const std::vector<int>& start,
                              const std::vector<int>& enemies);
// the same into `out` (cleared first), reusing its capacity
void provokers_of(const std::vector<int>& path, const std::vector<int>& start,
                  const std::vector<int>& enemies, std::vector<int>& out);

}  // namespace fray::reach
