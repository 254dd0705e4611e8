// rules/routes.py in C++ (see routes.hpp): a Reach's destinations, routes and provokers.
#include "routes.hpp"

#include <algorithm>
#include <tuple>

namespace fray::reach {

std::pair<int, int> Reach::destination(std::size_t number) const {
  const int local = node(chosen_.at(number)) >> 1;
  return {x0_ + local % window_width_, y0_ + local / window_width_};
}

std::optional<std::size_t> Reach::number_of(int x, int y) const {
  const int local_x = x - x0_;
  const int local_y = y - y0_;
  if (number_at_.empty() || local_x < 0 || local_y < 0 || local_x >= window_width_) {
    return std::nullopt;
  }
  const std::size_t local = static_cast<std::size_t>(local_y * window_width_ + local_x);
  if (local >= number_at_.size() || number_at_[local] < 0) return std::nullopt;
  return static_cast<std::size_t>(number_at_[local]);
}

std::vector<int> Reach::provokers(std::size_t number) const {
  std::vector<int> out;
  provokers(number, out);
  return out;
}

// provokers_of along the route's window squares, kept in a per-thread list
void Reach::provokers(std::size_t number, std::vector<int>& out) const {
  out.clear();
  if (threat_start_.empty()) return;
  thread_local std::vector<int> scratch;
  std::vector<int>& locals = scratch;
  locals.clear();
  for (int at = chosen_.at(number); at >= 0; at = pred_of_[at]) locals.push_back(node(at) >> 1);
  std::reverse(locals.begin(), locals.end());
  provokers_of(locals, threat_start_, threat_enemies_, out);
}

// routes.py Reach._route: the path back along the predecessors, its provokers (H13).
Route Reach::route(std::size_t number) const {
  const int label = chosen_.at(number);
  std::vector<int> locals;
  for (int at = label; at >= 0; at = pred_of_[at]) locals.push_back(node(at) >> 1);
  std::reverse(locals.begin(), locals.end());
  Route route;
  std::tie(route.x, route.y) = destination(number);
  route.cost = cost_of_[label];
  route.end_parity = node(label) & 1;
  route.path.reserve(locals.size());
  for (int local : locals) route.path.push_back(map_square(local));
  if (!threat_start_.empty()) route.provokers = provokers_of(locals, threat_start_, threat_enemies_);
  return route;
}

std::vector<int> provokers_of(const std::vector<int>& path, const std::vector<int>& start,
                              const std::vector<int>& enemies) {
  std::vector<int> order;
  provokers_of(path, start, enemies, order);
  return order;
}

void provokers_of(const std::vector<int>& path, const std::vector<int>& start,
                  const std::vector<int>& enemies, std::vector<int>& out) {
  out.clear();
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {  // leaving each square but the last
    for (int at = start[path[i]]; at < start[path[i] + 1]; ++at) {
      const int enemy = enemies[at];
      if (std::find(out.begin(), out.end(), enemy) == out.end()) out.push_back(enemy);
    }
  }
}

}  // namespace fray::reach
