// rules/reach_search.py's two searches in C++ (see reach_search.hpp and reach.cpp's comment on the
// choices they make): the window a budget can reach, Dial's bucket-queue Dijkstra without
// threats, the label-setting search with Pareto pruning over provoked sets with them.
#include "reach_search.hpp"
#include "reach_masks.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace fray::reach {

namespace {

// The squares a search can reach: every step costs at least 1, so nothing farther than
// `budget` king steps from the start (a square outside is never within the budget, and
// the Python search never records it either). Tables are sized to this box, so a query
// on a 300x300 map costs its neighbourhood, not the map.
struct Window {
  int x0 = 0;
  int y0 = 0;
  int width = 0;
  int height = 0;

  Window(const MapTable& map, int x, int y, std::int64_t budget) {
    const std::int64_t reach = std::min<std::int64_t>(budget, std::max(map.width, map.height));
    x0 = static_cast<int>(std::max<std::int64_t>(0, x - reach));
    y0 = static_cast<int>(std::max<std::int64_t>(0, y - reach));
    width = static_cast<int>(std::min<std::int64_t>(map.width - 1, x + reach)) - x0 + 1;
    height = static_cast<int>(std::min<std::int64_t>(map.height - 1, y + reach)) - y0 + 1;
  }
  Window(int left, int top, int right, int bottom)
      : x0(left), y0(top), width(right - left + 1), height(bottom - top + 1) {}
  int squares() const { return width * height; }
  int nodes() const { return 2 * squares(); }
  bool contains(int x, int y) const {
    return x >= x0 && y >= y0 && x < x0 + width && y < y0 + height;
  }
  // window square of map square (x, y) (which must be inside)
  int local(int x, int y) const { return (y - y0) * width + (x - x0); }
};

// `count` empty lists, reused by this thread's searches with their capacity kept (a
// search's buckets and label fronts; searches never nest). `which` names the use. Not
// inlined: the searches then keep the lists' address, where GCC would look the
// thread-local up again at each use in their loops (it counts that as cheap).
[[gnu::noinline]] std::vector<std::vector<int>>& scratch_lists(std::size_t which,
                                                               std::size_t count) {
  thread_local std::array<std::vector<std::vector<int>>, 3> pools;
  std::vector<std::vector<int>>& pool = pools.at(which);
  if (pool.size() < count) pool.resize(count);
  for (std::size_t i = 0; i < count; ++i) pool[i].clear();
  return pool;
}
constexpr std::size_t kBuckets = 0;
constexpr std::size_t kFronts = 1;
constexpr std::size_t kSettled = 2;  // one list: the labels in the order settled

// The cheapest step's cost (every step costs at least that: multipliers are at least 1).
int cheapest_step(const Costs& costs) {
  return std::min({costs.orthogonal, costs.diagonal[0], costs.diagonal[1]});
}

// The window of a route to map square `target` that provokes nobody (Searcher::plain with
// a goal; search()): the box around the squares n with king steps start -> n -> target
// at most the budget's king steps (the budget over the cheapest step). A node outside it
// costs more than the budget with the goal bound added (Searcher::goal_bound), so the
// targeted plain search never enters it, and leaving it out of the window changes
// nothing but the tables' size. None when the target is off the map or too far for any
// route within the budget.
std::optional<Window> goal_window(const MapTable& map, const Costs& costs, const Query& query,
                                  int target) {
  if (target < 0 || target >= map.width * map.height) return std::nullopt;
  const int goal_x = target % map.width;
  const int goal_y = target / map.width;
  const std::int64_t steps = std::min<std::int64_t>(query.budget / cheapest_step(costs),
                                                    2 * std::max(map.width, map.height));
  if (std::max(std::abs(goal_x - query.x), std::abs(goal_y - query.y)) > steps) return std::nullopt;
  const int most = static_cast<int>(steps);
  // |n - start| + |n - target| <= steps on each axis: from ceil((s + t - steps) / 2) to
  // floor((s + t + steps) / 2) (>> 1 floors a negative sum too)
  const auto low = [most](int start, int goal) { return std::max(0, (start + goal - most + 1) >> 1); };
  const auto high = [most](int start, int goal, int size) {
    return std::min(size - 1, (start + goal + most) >> 1);
  };
  return Window(low(query.x, goal_x), low(query.y, goal_y), high(query.x, goal_x, map.width),
                high(query.y, goal_y, map.height));
}

}  // namespace

// Everything a query's two searches share: the window, its tables and the edges.
class Searcher {
 public:
  Searcher(const MapTable& map, const Costs& costs, const std::vector<std::uint8_t>& steps,
           std::array<int, 2> parity_rank, const Query& query, std::int64_t budget)
      : Searcher(map, costs, steps, parity_rank, query, budget,
                 Window(map, query.x, query.y, budget)) {}
  Searcher(const MapTable& map, const Costs& costs, const std::vector<std::uint8_t>& steps,
           std::array<int, 2> parity_rank, const Query& query, std::int64_t budget,
           const Window& window)
      : map_(map), costs_(costs), steps_(steps), parity_rank_(parity_rank), window_(window) {
    // every simple route is shorter than the window's nodes, and no chosen route repeats
    // a node, so a larger budget reaches nothing more
    int largest_step = std::max({costs.orthogonal, costs.diagonal[0], costs.diagonal[1]}) *
                       costs.difficult_multiplier;
    const std::int64_t longest = static_cast<std::int64_t>(window_.nodes()) * largest_step;
    budget_ = std::min(budget, longest);
    if (budget_ > std::numeric_limits<int>::max() / 4) {
      throw std::invalid_argument("budget: the native reach search handles paths costing up to " +
                                  std::to_string(std::numeric_limits<int>::max() / 4) +
                                  ", got a map and costs allowing " + std::to_string(budget_));
    }
    limit_ = static_cast<int>(budget_) + 1;
    source_ = window_.local(query.x, query.y) * 2 + query.parity;
    thread_local std::vector<std::uint8_t> forbidden;
    thread_local std::vector<std::uint8_t> no_end;
    forbidden.assign(static_cast<std::size_t>(window_.squares()), 0);
    for (int square : query.blocked) mark(forbidden, square);
    no_end.assign(static_cast<std::size_t>(window_.squares()), 0);
    for (int square : query.no_end) mark(no_end, square);
    forbidden_ = forbidden.data();
    no_end_ = no_end.data();
    // per window square its map square and its legal steps that stay in the window
    // (edges() then needs no division and no bounds test)
    thread_local std::vector<int> squares;
    thread_local std::vector<std::uint8_t> allowed;
    thread_local std::vector<std::uint8_t> difficult;
    squares.resize(static_cast<std::size_t>(window_.squares()));
    allowed.resize(static_cast<std::size_t>(window_.squares()));
    difficult.resize(static_cast<std::size_t>(window_.squares()));
    // plain pointers: each use of a thread_local in the loops would look its address up
    int* const square_at = squares.data();
    std::uint8_t* const allowed_at = allowed.data();
    std::uint8_t* const difficult_at = difficult.data();
    // the steps whose target column (row) is inside the window, by column (row)
    const auto inside = [](int at, int size, int axis) {
      std::uint8_t bits = 0;
      for (int k = 0; k < 8; ++k) {
        const int to = at + KING_STEPS[k][axis];
        if (to >= 0 && to < size) bits = static_cast<std::uint8_t>(bits | (1U << k));
      }
      return bits;
    };
    for (int y = 0; y < window_.height; ++y) {
      const std::uint8_t row = inside(y, window_.height, 1);
      const auto first = static_cast<std::size_t>(y * window_.width);
      const int first_square = (window_.y0 + y) * map_.width + window_.x0;
      for (int x = 0; x < window_.width; ++x) {
        const std::uint8_t column =
            x == 0 || x == window_.width - 1 ? inside(x, window_.width, 0) : 0xFF;
        square_at[first + x] = first_square + x;
        allowed_at[first + x] = static_cast<std::uint8_t>(steps_[first_square + x] & row & column);
        difficult_at[first + x] = map_.difficult[first_square + x];
      }
    }
    square_of_ = square_at;
    allowed_ = allowed_at;
    difficult_ = difficult_at;
    for (int k = 0; k < 8; ++k) {
      local_step_[k] = KING_STEPS[k][1] * window_.width + KING_STEPS[k][0];
    }
  }

  // A result with the window and, if any, the threats of the squares in it, each
  // square's enemies in increasing number (H12).
  Reach start(const Query& query) const {
    Reach reach;
    reach.x0_ = window_.x0;
    reach.y0_ = window_.y0;
    reach.window_width_ = window_.width;
    reach.map_width_ = map_.width;
    if (query.threats.empty()) return reach;
    std::vector<std::pair<int, int>> pairs;
    for (const auto& [square, enemy] : query.threats) {
      if (square < 0 || square >= map_.width * map_.height) continue;
      const int x = square % map_.width;
      const int y = square / map_.width;
      if (window_.contains(x, y)) pairs.emplace_back(window_.local(x, y), enemy);
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    reach.threat_start_.assign(window_.squares() + 1, 0);
    for (const auto& [local, enemy] : pairs) {
      ++reach.threat_start_[local + 1];
      reach.threat_enemies_.push_back(enemy);
    }
    for (int local = 0; local < window_.squares(); ++local) {
      reach.threat_start_[local + 1] += reach.threat_start_[local];
    }
    return reach;
  }

  // Calls visit(target node, cost) for node's out-edges in KING_STEPS order: none out of
  // a drop square (S23) unless the node is the source. H13: a diagonal may not cut the
  // corner of a wall or closed door (steps_ knows), entering difficult terrain multiplies
  // the step; S18/H14: a diagonal costs diagonal[parity] and flips the parity.
  template <typename Visit>
  void edges(int node, Visit&& visit) const {
    const int local = node >> 1;
    const int parity = node & 1;
    if (node != source_ && map_.drop[square_of_[local]] != 0) return;
    // the allowed steps in KING_STEPS order, lowest bit first; beyond the window: beyond
    // the budget
    for (unsigned allowed = allowed_[local]; allowed != 0; allowed &= allowed - 1) {
      const int k = std::countr_zero(allowed);
      const int to = local + local_step_[k];
      const int factor = difficult_[to] != 0 ? costs_.difficult_multiplier : 1;
      if (k >= 4) {
        visit(to * 2 + 1 - parity, costs_.diagonal[parity] * factor);
      } else {
        visit(to * 2 + parity, costs_.orthogonal * factor);
      }
    }
  }

  // Dial's bucket-queue Dijkstra (rules/reach_search.py dijkstra), then the choice per
  // destination (routes.py Reach._pick): the cheaper parity, on a tie the better rank.
  // With a goal (a window square, else -1) it stops at the first cost above a settled
  // node of the goal's: every cost at or below it is final then, and a node still
  // tentative costs more, so the choice between the two parities is already made.
  // With `never_left` (a result's threat_start_, Reach::provokers' table) the squares it
  // marks threatened are entered but never left: the routes provoking nobody (H13;
  // search() below). Returns whether a node of the goal's is within the budget.
  // (Targeted: a template argument, so that the whole search's loop stays as it was;
  // not inlined into search(), where the compiler would stop inlining the loop's pushes;
  // flattened, so that every push and helper in the loops is inlined: GCC left calls to
  // vector::push_back there.)
  template <bool Targeted>
  [[gnu::noinline, gnu::flatten]] bool plain(Reach& found, [[maybe_unused]] int goal,
                                             const int* never_left = nullptr) const {
    const auto left = [never_left](int node) {
      return never_left == nullptr || never_left[node >> 1] == never_left[(node >> 1) + 1];
    };
    // Targeted: a node is entered only when its cost plus a lower bound of what remains
    // to the goal (goal_bound) is within the budget. Such a node is never on the chosen
    // route nor behind one of its nodes' predecessors, and the nodes kept are settled in
    // the same order with the same predecessors as without the bound (goal_bound's comment).
    [[maybe_unused]] const int* const slack = Targeted ? goal_bound(goal) : nullptr;
    const int nodes = window_.nodes();
    std::vector<int>& dist = found.cost_of_;
    std::vector<int>& pred = found.pred_of_;
    dist.assign(nodes, limit_);
    pred.assign(nodes, -1);
    for (int local = 0; local < window_.squares(); ++local) {
      if (forbidden_[local] != 0) dist[2 * local] = dist[2 * local + 1] = -1;
    }
    dist[source_] = 0;
    std::vector<std::vector<int>>& buckets = scratch_lists(kBuckets, static_cast<std::size_t>(limit_));
    std::vector<int>& settled = scratch_lists(kSettled, 1)[0];
    settled.push_back(source_);
    if (left(source_)) {
      edges(source_, [&](int target, int cost) {
        if constexpr (Targeted) {
          if (cost > slack[target >> 1]) return;
        }
        if (cost < dist[target]) {
          dist[target] = cost;
          pred[target] = source_;
          buckets[cost].push_back(target);
        }
      });
    }
    const auto settled_below = [&](int node, int cost) {
      return dist[node] >= 0 && dist[node] < cost;
    };
    for (int cost = 1; cost < limit_; ++cost) {
      if constexpr (Targeted) {
        if (settled_below(2 * goal, cost) || settled_below(2 * goal + 1, cost)) break;
      }
      for (std::size_t at = 0; at < buckets[cost].size(); ++at) {
        const int node = buckets[cost][at];
        if (dist[node] != cost) continue;
        settled.push_back(node);
        if (!left(node)) continue;
        edges(node, [&](int target, int step) {
          const int reached = cost + step;
          if (reached < dist[target]) {
            if constexpr (Targeted) {
              if (reached > slack[target >> 1]) return;
            }
            dist[target] = reached;
            pred[target] = node;
            buckets[reached].push_back(target);
          }
        });
      }
    }
    const int budget = limit_ - 1;
    std::vector<int> reached;
    bool goal_reached = false;
    if constexpr (Targeted) {
      goal_reached = settled_below(2 * goal, limit_) || settled_below(2 * goal + 1, limit_);
      reached = only_if_destination(goal, goal_reached);
    } else {
      reached = destinations(settled, found);
    }
    found.chosen_.reserve(reached.size());
    for (int local : reached) {
      const int d0 = dist[2 * local];
      const int d1 = dist[2 * local + 1];
      const bool ok0 = d0 >= 0 && d0 <= budget;
      const bool ok1 = d1 >= 0 && d1 <= budget;
      int label = 2 * local + 1;
      if (ok0 && ok1) {
        if (d0 != d1) {
          label = d0 < d1 ? 2 * local : 2 * local + 1;
        } else {
          label = parity_rank_[0] < parity_rank_[1] ? 2 * local : 2 * local + 1;
        }
      } else if (ok0) {
        label = 2 * local;
      }
      found.chosen_.push_back(label);
    }
    return goal_reached;
  }

  // The label-setting search over (node, provoked set) with Pareto pruning (H13;
  // rules/reach_search.py labels), then the choice per destination: fewest provoked,
  // cheapest, the better end parity, the first label (routes.py Reach._pick).
  // With a goal (a window square, else -1) it stops at the first cost above a label of
  // the goal's provoking the fewest any route can (those threatening the start: every
  // route leaves it): no label still to come provokes fewer or costs as little, every
  // label costing as little exists already, and none of those is pruned later (a label
  // is pruned only by a cheaper or equal one), so the choice is already made.
  template <std::size_t K, bool Targeted>
  [[gnu::noinline, gnu::flatten]] void labels(Reach& found, [[maybe_unused]] int goal) const {
    const int nodes = window_.nodes();
    MaskTable<K> masks;
    std::vector<int> square_mask(window_.squares(), 0);
    for (int local = 0; local < window_.squares(); ++local) {
      const int first = found.threat_start_[local];
      const int last = found.threat_start_[local + 1];
      if (first == last) continue;
      Bits<K> bits;
      for (int at = first; at < last; ++at) {
        const int enemy = found.threat_enemies_[at];
        bits.words[enemy >> 6] |= std::uint64_t{1} << (enemy & 63);
      }
      square_mask[local] = masks.intern(bits);
    }
    // same[mask][node]: the cheapest label at node with that provoked set (a killed label
    // stays a valid witness); same[0] is free: the cost of the label that provoked
    // nobody, which dominates every label costing as much or more; 0 where forbidden.
    std::vector<std::vector<int>> same(1, std::vector<int>(nodes, limit_));
    for (int local = 0; local < window_.squares(); ++local) {
      if (forbidden_[local] != 0) same[0][2 * local] = same[0][2 * local + 1] = 0;
    }
    same[0][source_] = 0;
    found.node_of_ = {source_};
    found.cost_of_ = {0};
    found.pred_of_ = {-1};
    std::vector<int> mask_of{0};
    std::vector<std::uint8_t> dead{0};
    // at least a label per node reached, most often not many more
    for (std::vector<int>* labels : {&found.node_of_, &found.cost_of_, &found.pred_of_, &mask_of}) {
      labels->reserve(static_cast<std::size_t>(nodes));
    }
    dead.reserve(static_cast<std::size_t>(nodes));
    std::vector<std::vector<int>>& front = scratch_lists(kFronts, static_cast<std::size_t>(nodes));
    front[source_].push_back(0);
    std::vector<std::vector<int>>& buckets = scratch_lists(kBuckets, static_cast<std::size_t>(limit_));
    buckets[0].push_back(0);
    std::vector<int>& settled = scratch_lists(kSettled, 1)[0];
    std::vector<int> keep;
    [[maybe_unused]] const int fewest = Targeted ? masks.count(square_mask[source_ >> 1]) : 0;
    [[maybe_unused]] int best_at_goal = limit_;  // the cheapest label of the goal's provoking `fewest`
    for (int cost = 0; cost < limit_; ++cost) {
      if constexpr (Targeted) {
        if (best_at_goal < cost) break;
      }
      for (std::size_t at = 0; at < buckets[cost].size(); ++at) {
        const int label = buckets[cost][at];
        if (dead[label] != 0) continue;
        settled.push_back(label);
        const int node = found.node_of_[label];
        // H13: leaving the node's square provokes those threatening it
        const int mask = masks.unite(mask_of[label], square_mask[node >> 1]);
        if (static_cast<int>(same.size()) <= mask) same.resize(masks.size());
        if (same[mask].empty()) same[mask].assign(nodes, limit_);
        std::vector<int>& cheapest = same[mask];
        const std::vector<int>& free = same[0];
        edges(node, [&](int target, int step) {
          const int reached = cost + step;
          if (reached >= free[target] || reached >= cheapest[target]) return;
          cheapest[target] = reached;
          const int added = static_cast<int>(found.node_of_.size());
          std::vector<int>& labs = front[target];
          if (!labs.empty()) {
            if (mask != 0) {
              for (int other : labs) {
                if (found.cost_of_[other] <= reached && masks.subset(mask_of[other], mask)) {
                  return;  // an existing label dominates the new one
                }
              }
            }
            keep.clear();
            for (int other : labs) {
              if (found.cost_of_[other] >= reached && masks.subset(mask, mask_of[other])) {
                dead[other] = 1;  // the new label dominates it
              } else {
                keep.push_back(other);
              }
            }
            labs.swap(keep);
          }
          labs.push_back(added);
          if constexpr (Targeted) {
            if ((target >> 1) == goal && masks.count(mask) == fewest) {
              best_at_goal = std::min(best_at_goal, reached);
            }
          }
          buckets[reached].push_back(added);
          found.node_of_.push_back(target);
          found.cost_of_.push_back(reached);
          mask_of.push_back(mask);
          found.pred_of_.push_back(label);
          dead.push_back(0);
        });
      }
    }
    std::vector<int> reached;
    if constexpr (Targeted) {
      reached = only_if_destination(goal, !front[2 * goal].empty() || !front[2 * goal + 1].empty());
    } else {
      reached = destinations(settled, found);
    }
    found.chosen_.reserve(reached.size());
    for (int local : reached) {
      int best = -1;
      int best_count = 0, best_cost = 0, best_rank = 0;
      for (int parity = 0; parity < 2; ++parity) {
        for (int label : front[2 * local + parity]) {
          const int count = masks.count(mask_of[label]);
          const int cost = found.cost_of_[label];
          const int rank = parity_rank_[parity];
          if (best < 0 || count < best_count ||
              (count == best_count &&
               (cost < best_cost ||
                (cost == best_cost && (rank < best_rank || (rank == best_rank && label < best)))))) {
            best = label;
            best_count = count;
            best_cost = cost;
            best_rank = rank;
          }
        }
      }
      found.chosen_.push_back(best);
    }
  }

  // Per window square, the budget less a lower bound of the cost from it to `goal`: the
  // king steps between them (Chebyshev) times the cheapest step. The bound is consistent
  // (a step moves it by at most one king step and costs at least the cheapest step), so
  // a node whose cost plus its bound exceeds the budget has no descendant within it.
  // Dropping those nodes keeps the rest of the search as it was: a node n within the
  // bound is given its final cost only by a predecessor p within it too (cost(p) +
  // bound(p) <= cost(p) + step + bound(n) = cost(n) + bound(n)), so the pushes of nodes
  // within the bound into each cost's bucket come from the same expansions, in the same
  // order, and each such node is settled in the same place with the same predecessor.
  // The goal's nodes (bound 0) are kept whenever they are within the budget. (An A*
  // order would settle fewer nodes but change which of two equally cheap predecessors a
  // node keeps; this keeps Dial's order, so the route is the Python search's.)
  const int* goal_bound(int goal) const {
    thread_local std::vector<int> slack;
    slack.resize(static_cast<std::size_t>(window_.squares()));
    const int cheapest = cheapest_step(costs_);
    const int budget = limit_ - 1;
    const int goal_x = goal % window_.width;
    const int goal_y = goal / window_.width;
    int* const out = slack.data();
    for (int y = 0; y < window_.height; ++y) {
      const int rows = std::abs(y - goal_y);
      int* const row = out + static_cast<std::ptrdiff_t>(y) * window_.width;
      for (int x = 0; x < window_.width; ++x) {
        row[x] = budget - cheapest * std::max(rows, std::abs(x - goal_x));
      }
    }
    return out;
  }

  // plain<true> from an unthreatened start with the threatened squares entered but never
  // left (unprovoked_route); false when the start is threatened or no such route
  // reaches the goal within the budget.
  bool unprovoked(Reach& found, int goal) const {
    const int start = source_ >> 1;
    if (found.threat_start_[start] != found.threat_start_[start + 1]) return false;
    return plain<true>(found, goal, found.threat_start_.data());
  }

  // A result's destination numbers by window square (Reach::number_at_).
  void numbered(Reach& answer) const {
    answer.number_at_.assign(static_cast<std::size_t>(window_.squares()), -1);
    for (std::size_t number = 0; number < answer.chosen_.size(); ++number) {
      answer.number_at_[static_cast<std::size_t>(answer.node(answer.chosen_[number]) >> 1)] =
          static_cast<int>(number);
    }
  }

  int window_squares() const { return window_.squares(); }
  // the window square of map square `square`, or -1 when it lies outside the window
  int local_of(int square) const {
    const int x = square % map_.width;
    const int y = square / map_.width;
    return window_.contains(x, y) ? window_.local(x, y) : -1;
  }

 private:
  void mark(std::vector<std::uint8_t>& table, int square) const {
    if (square < 0 || square >= map_.width * map_.height) return;
    const int x = square % map_.width;
    const int y = square / map_.width;
    if (window_.contains(x, y)) table[window_.local(x, y)] = 1;
  }

  // The window squares of settled labels in the order first settled, without the start
  // square and the squares no move may end on (routes.py Reach._keys).
  std::vector<int> destinations(const std::vector<int>& settled, const Reach& found) const {
    std::vector<std::uint8_t> seen(no_end_, no_end_ + window_.squares());
    seen[source_ >> 1] = 1;
    std::vector<int> out(static_cast<std::size_t>(window_.squares()));  // at most one each
    std::size_t count = 0;
    for (int label : settled) {
      const int local = found.node(label) >> 1;
      if (seen[local] == 0) {
        seen[local] = 1;
        out[count++] = local;
      }
    }
    out.resize(count);
    return out;
  }

  // {goal} when the goal is reached and a move may end there (destinations' rules), else {}.
  std::vector<int> only_if_destination(int goal, bool reached) const {
    if (!reached || goal == source_ >> 1 || no_end_[goal] != 0) return {};
    return {goal};
  }

  const MapTable& map_;
  const Costs& costs_;
  const std::vector<std::uint8_t>& steps_;
  std::array<int, 2> parity_rank_;
  Window window_;
  std::int64_t budget_ = 0;
  int limit_ = 1;
  int source_ = 0;
  // this thread's tables of the window (the constructor's: searches never nest), and the
  // index steps of KING_STEPS in the window
  const std::uint8_t* forbidden_ = nullptr;
  const std::uint8_t* no_end_ = nullptr;
  const int* square_of_ = nullptr;
  const std::uint8_t* allowed_ = nullptr;
  const std::uint8_t* difficult_ = nullptr;
  std::array<int, 8> local_step_{};
};

namespace {

// The route chosen to one square when some route there provokes nobody (else none):
// Dial's search in the target's window (goal_window), with threatened squares entered but
// never left. When a route provokes nobody, the chosen one is one of those (fewest
// provoked first), the cheapest, then the better end parity, then the first found. The
// label search's labels that provoke nobody are Dial's search's nodes over the graph
// whose threatened squares are never left, settled in the same order with the same
// predecessors: such a label's parent provoked nobody either, it is pruned or killed
// only by a cheaper one of its node that provoked nobody (never by one that provoked
// someone), and its children are made in the order it is settled. So that plain search
// finds the same route, at a fraction of the cost (the scripted agents' moves mostly
// provoke nobody). A threatened start provokes on every route. Without threats it is
// the whole answer, a route or none.
std::optional<Reach> unprovoked_route(const MapTable& map, const Costs& costs,
                                      const std::vector<std::uint8_t>& steps,
                                      std::array<int, 2> parity_rank, const Query& query,
                                      int target) {
  const std::optional<Window> window = goal_window(map, costs, query, target);
  if (!window) return std::nullopt;
  const Searcher searcher(map, costs, steps, parity_rank, query, query.budget, *window);
  Reach found = searcher.start(query);
  const int goal = searcher.local_of(target);
  if (goal < 0) return std::nullopt;  // (never: the window holds the target)
  if (query.threats.empty()) {
    searcher.plain<true>(found, goal);
  } else if (!searcher.unprovoked(found, goal)) {
    return std::nullopt;
  }
  searcher.numbered(found);
  return found;
}

}  // namespace

Reach search(const MapTable& map, const Costs& costs, const std::vector<std::uint8_t>& steps,
             std::array<int, 2> parity_rank, const Query& query, int enemies, int target) {
  const int words = (enemies + 63) / 64;
  if (words > 64) {
    throw std::invalid_argument("threats: the native reach search handles up to 4096 enemies, got " +
                                std::to_string(enemies));
  }
  if (target >= 0) {
    if (std::optional<Reach> found = unprovoked_route(map, costs, steps, parity_rank, query, target)) {
      return std::move(*found);
    }
  }
  // every destination, or the route to `target` that provokes someone (or none at all)
  const Searcher searcher(map, costs, steps, parity_rank, query, query.budget);
  Reach found = searcher.start(query);
  const int goal = target < 0 ? -1 : searcher.local_of(target);
  const auto run = [&]<bool Targeted>() {
    if (query.threats.empty()) {
      searcher.plain<Targeted>(found, goal);
    } else if (words <= 1) {
      searcher.labels<1, Targeted>(found, goal);
    } else if (words <= 2) {
      searcher.labels<2, Targeted>(found, goal);
    } else if (words <= 4) {
      searcher.labels<4, Targeted>(found, goal);
    } else if (words <= 16) {
      searcher.labels<16, Targeted>(found, goal);
    } else {
      searcher.labels<64, Targeted>(found, goal);
    }
  };
  if (target < 0) {
    run.operator()<false>();
  } else if (goal >= 0) {
    run.operator()<true>();
  }  // else the target lies beyond the window, so beyond the budget: no destination
  searcher.numbered(found);
  return found;
}

}  // namespace fray::reach
