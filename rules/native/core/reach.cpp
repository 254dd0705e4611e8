// The reach search of rules/reach.py (S17, S18, H12-H14, S23); see reach.hpp.
//
// Choices the sheet leaves open are those of rules/reach.py's module docstring, made the
// same way here: a drop square (S23) is entered but not passed through (a mover starting
// on one may leave it); the start square is never a destination; among routes to a
// destination the one provoking the fewest distinct enemies wins (H13), then the
// cheapest, then the one whose end parity makes the next diagonal cheaper (S18/H14),
// then the one found first by a search expanding squares in cost order, in order of
// discovery, and neighbours in KING_STEPS order.
#include "reach.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "reach_search.hpp"
#include "reach_sweep.hpp"

namespace fray::reach {

namespace {

std::string square_text(int x, int y) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ")";
}

}  // namespace

// The answers reachable_cached keeps: by the query's bytes; all dropped when full.
struct ReachGraph::Answers {
  static constexpr std::size_t kKept = 512;
  static constexpr std::size_t kBytesKept = std::size_t{32} << 20;
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const Reach>> found;
  std::size_t bytes = 0;
  // the answer kept for the query with this key, or nullptr
  std::shared_ptr<const Reach> find(const std::string& key);
  // whether none is kept (then a query's key need not be built to look for it)
  bool empty() {
    const std::lock_guard<std::mutex> lock(mutex);
    return found.empty();
  }
};

namespace {

void append_ints(std::string& key, const int* values, std::size_t count) {
  key.append(reinterpret_cast<const char*>(values), count * sizeof(int));
}

// Every field of the query, as bytes (vector lengths first, so no two queries share one).
std::string query_key(const Query& query) {
  std::string key;
  const int head[5] = {query.x, query.y, query.parity, static_cast<int>(query.blocked.size()),
                       static_cast<int>(query.no_end.size())};
  append_ints(key, head, 5);
  const std::int64_t budget = query.budget;
  key.append(reinterpret_cast<const char*>(&budget), sizeof budget);
  append_ints(key, query.blocked.data(), query.blocked.size());
  append_ints(key, query.no_end.data(), query.no_end.size());
  for (const auto& [square, enemy] : query.threats) {
    const int pair[2] = {square, enemy};
    append_ints(key, pair, 2);
  }
  return key;
}

}  // namespace

std::shared_ptr<const Reach> ReachGraph::Answers::find(const std::string& key) {
  const std::lock_guard<std::mutex> lock(mutex);
  const auto known = found.find(key);
  return known == found.end() ? nullptr : known->second;
}

std::shared_ptr<const Reach> ReachGraph::reachable_cached(const Query& query) const {
  std::string key = query_key(query);
  if (std::shared_ptr<const Reach> known = answers_->find(key)) return known;
  auto found = std::make_shared<const Reach>(reachable(query));
  const std::size_t bytes = key.size() + sizeof(int) * (found->node_of_.size() + found->cost_of_.size() +
                                                        found->pred_of_.size() + found->chosen_.size() +
                                                        found->number_at_.size() +
                                                        found->threat_start_.size() +
                                                        found->threat_enemies_.size());
  const std::lock_guard<std::mutex> lock(answers_->mutex);
  if (answers_->found.size() >= Answers::kKept || answers_->bytes + bytes > Answers::kBytesKept) {
    answers_->found.clear();
    answers_->bytes = 0;
  }
  if (answers_->found.emplace(std::move(key), found).second) answers_->bytes += bytes;
  return found;
}

ReachGraph::ReachGraph(MapTable map, Costs costs)
    : map_(std::move(map)), costs_(costs), answers_(std::make_shared<Answers>()) {
  if (map_.width < 1 || map_.height < 1) {
    throw std::invalid_argument("map: expected a width and height of at least 1, got " +
                                std::to_string(map_.width) + "x" + std::to_string(map_.height));
  }
  const std::size_t squares = static_cast<std::size_t>(map_.width) * map_.height;
  if (map_.blocks.size() != squares || map_.difficult.size() != squares ||
      map_.drop.size() != squares) {
    throw std::invalid_argument("map: expected blocks, difficult and drop tables of " +
                                std::to_string(squares) + " squares each");
  }
  if (costs_.orthogonal < 1 || costs_.diagonal[0] < 1 || costs_.diagonal[1] < 1 ||
      costs_.difficult_multiplier < 1) {
    throw std::invalid_argument("costs: expected positive integer costs");
  }
  // reach.py: the parity whose next diagonal is cheaper ranks first (0 on a tie)
  parity_rank_ = costs_.diagonal[0] <= costs_.diagonal[1] ? std::array<int, 2>{0, 1}
                                                          : std::array<int, 2>{1, 0};
  auto blocks = [&](int x, int y) {
    return x < 0 || y < 0 || x >= map_.width || y >= map_.height ||
           map_.blocks[y * map_.width + x] != 0;
  };
  // grid.py GridMap.step_allowed (H13): the target open, a diagonal cutting no corner
  steps_.assign(squares, 0);
  for (int y = 0; y < map_.height; ++y) {
    for (int x = 0; x < map_.width; ++x) {
      std::uint8_t allowed = 0;
      for (int k = 0; k < 8; ++k) {
        const int dx = KING_STEPS[k][0];
        const int dy = KING_STEPS[k][1];
        if (blocks(x + dx, y + dy)) continue;
        if (dx != 0 && dy != 0 && (blocks(x + dx, y) || blocks(x, y + dy))) continue;
        allowed = static_cast<std::uint8_t>(allowed | (1U << k));
      }
      steps_[y * map_.width + x] = allowed;
    }
  }
  if (squares <= static_cast<std::size_t>(kSweepSquares)) {
    sweep_ = std::make_shared<const SweepTables>(map_, steps_);
  }
}

std::optional<std::pair<int, int>> ReachGraph::step(int ax, int ay, int bx, int by,
                                                    int parity) const {
  auto inside = [&](int x, int y) { return x >= 0 && y >= 0 && x < map_.width && y < map_.height; };
  if (!inside(ax, ay) || map_.blocks[ay * map_.width + ax] != 0 || (parity != 0 && parity != 1) ||
      !inside(bx, by)) {
    return std::nullopt;
  }
  for (int k = 0; k < 8; ++k) {
    if (ax + KING_STEPS[k][0] != bx || ay + KING_STEPS[k][1] != by) continue;
    if ((steps_[ay * map_.width + ax] & (1U << k)) == 0) return std::nullopt;
    const int factor = map_.difficult[by * map_.width + bx] != 0 ? costs_.difficult_multiplier : 1;
    if (k >= 4) return std::pair{costs_.diagonal[parity] * factor, 1 - parity};  // S18
    return std::pair{costs_.orthogonal * factor, parity};
  }
  return std::nullopt;
}

std::pair<int, int> ReachGraph::path_cost(const std::vector<std::pair<int, int>>& path,
                                          int parity) const {
  int cost = 0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    const auto [ax, ay] = path[i - 1];
    const auto [bx, by] = path[i];
    const auto taken = step(ax, ay, bx, by, parity);
    if (!taken) {
      throw std::invalid_argument("illegal step " + square_text(ax, ay) + " -> " +
                                  square_text(bx, by));
    }
    cost += taken->first;
    parity = taken->second;
  }
  return {cost, parity};
}

Reach ReachGraph::reachable(const Query& query) const {
  const int enemies = checked_enemies(query);
  if (query.budget < 0) return {};
  return search(map_, costs_, steps_, parity_rank_, query, enemies);
}

int ReachGraph::checked_enemies(const Query& query) const {
  if (query.parity != 0 && query.parity != 1) {
    throw std::invalid_argument("expected parity 0 or 1, got " + std::to_string(query.parity));
  }
  if (query.x < 0 || query.y < 0 || query.x >= map_.width || query.y >= map_.height ||
      map_.blocks[query.y * map_.width + query.x] != 0) {
    throw std::invalid_argument("start " + square_text(query.x, query.y) +
                                " is not a square a combatant can stand on");
  }
  int enemies = 0;
  for (const auto& [square, enemy] : query.threats) {
    if (enemy < 0) throw std::invalid_argument("threats: expected enemy numbers >= 0");
    enemies = std::max(enemies, enemy + 1);
  }
  return enemies;
}

std::optional<Route> ReachGraph::cheapest(const Query& query, int x, int y) const {
  const int enemies = checked_enemies(query);
  if (query.budget < 0 || x < 0 || y < 0 || x >= map_.width || y >= map_.height) {
    return std::nullopt;
  }
  if (const std::shared_ptr<const Reach> known =
          answers_->empty() ? nullptr : answers_->find(query_key(query))) {
    const std::optional<std::size_t> number = known->number_of(x, y);
    if (!number) return std::nullopt;
    return known->route(*number);
  }
  // not searched yet: a search for this destination alone (not kept: a move's route is
  // asked once, as it is taken)
  const Reach found = search(map_, costs_, steps_, parity_rank_, query, enemies, y * map_.width + x);
  if (found.size() == 0) return std::nullopt;
  return found.route(0);
}

std::vector<Destination> ReachGraph::destinations(const Query& query) const {
  checked_enemies(query);
  if (!query.threats.empty()) {
    throw std::invalid_argument("destinations: expected a plain query (no threats)");
  }
  if (query.budget < 0) return {};
  if (sweep_) return sweep(map_, costs_, *sweep_, query);
  const std::shared_ptr<const Reach> found = reachable_cached(query);
  std::vector<Destination> out;
  out.reserve(found->size());
  found->each_by_square([&](std::size_t number, int x, int y) {
    out.push_back({x, y, found->cost(number)});
  });
  return out;
}

std::vector<Destination> ReachGraph::free_destinations(const Query& query) const {
  checked_enemies(query);
  if (query.budget < 0) return {};
  if (sweep_) return sweep(map_, costs_, *sweep_, query, true);
  const std::shared_ptr<const Reach> found = reachable_cached(query);
  std::vector<Destination> out;
  std::vector<int> provokers;
  found->each_by_square([&](std::size_t number, int x, int y) {
    found->provokers(number, provokers);
    if (provokers.empty()) out.push_back({x, y, found->cost(number)});
  });
  return out;
}

}  // namespace fray::reach
