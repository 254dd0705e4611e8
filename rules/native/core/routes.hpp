// rules/routes.py in C++: the answer of one reach search (Route, Reach) and the
// enemies a path provokes (provokers_of). reach.hpp's searches (reach_search.cpp) fill a
// Reach; routes are built from its labels when asked, as the Python Reach builds them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace fray::reach {

struct MapTable;
struct Costs;
struct Query;
class ReachGraph;
class Searcher;

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
  friend Reach search(const MapTable& map, const Costs& costs,
                      const std::vector<std::uint8_t>& steps, std::array<int, 2> parity_rank,
                      const Query& query, int enemies, int target);
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
