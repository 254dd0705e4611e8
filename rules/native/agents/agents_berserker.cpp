// agents/berserker.py in C++ (agents_berserker.hpp). Each function names the Python it
// mirrors; ties are broken by Seeded::below exactly where the Python agent calls choose.
#include "agents_berserker.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "reach_sweep.hpp"

namespace fray::agents {

using actions::ActionKind;
using K = actions::ActionKind;

namespace {

constexpr std::size_t kNoChoice = std::numeric_limits<std::size_t>::max();

// The walls' table per square index, kept per thread for the last grid asked (it
// depends on the walls alone): for a _passable square (on the map and no wall; closed
// doors count as floor) bit k set when KING_STEPS[k] leads to a passable square without
// cutting the corner of an impassable one (H13), as _neighbours steps; none for a wall.
// On maps of up to reach::kSweepSquares squares narrower than 63, also each step's
// squares as a bitboard (step_from[k]: bit i set when steps[i] has bit k), for the
// level-by-level search.
struct WallTables {
  std::uint64_t serial = 0;
  std::vector<std::uint8_t> steps;
  int words = 0;  // the bitboards' 64-bit words, 0 where the map gets none
  std::array<reach::Board, 8> step_from{};
};

const WallTables& walls_of(const grid::Grid& grid) {
  thread_local WallTables tables;
  if (tables.serial != grid.walls_serial() || tables.steps.empty()) {
    const int width = grid.width();
    const int height = grid.height();
    const auto open = [&](int x, int y) {
      return 0 <= x && x < width && 0 <= y && y < height && !grid.is_wall({x, y});
    };
    tables.steps.assign(static_cast<std::size_t>(width * height), 0);
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        if (!open(x, y)) continue;
        const auto at = static_cast<std::size_t>(y * width + x);
        for (std::size_t k = 0; k < grid::KING_STEPS.size(); ++k) {
          const auto [dx, dy] = grid::KING_STEPS[k];
          if (!open(x + dx, y + dy)) continue;
          if (dx != 0 && dy != 0 && !(open(x + dx, y) && open(x, y + dy))) continue;  // H13
          tables.steps[at] = static_cast<std::uint8_t>(tables.steps[at] | (1U << k));
        }
      }
    }
    tables.words = 0;
    tables.step_from = {};
    if (width * height <= reach::kSweepSquares && width + 1 < 64) {
      tables.words = (width * height + 63) / 64;
      for (int i = 0; i < width * height; ++i) {
        for (unsigned bits = tables.steps[static_cast<std::size_t>(i)]; bits != 0; bits &= bits - 1) {
          tables.step_from[static_cast<std::size_t>(std::countr_zero(bits))]
                          [static_cast<std::size_t>(i >> 6)] |= std::uint64_t{1} << (i & 63);
        }
      }
    }
    tables.serial = grid.walls_serial();
  }
  return tables;
}

// search() over bitboards of W words: the squares first reached at each level at once
// (a breadth-first search's distances do not depend on its order).
template <int W>
std::vector<int> search_boards(int width, const WallTables& walls, const std::vector<int>& sources) {
  std::array<int, 8> offset{};
  for (std::size_t k = 0; k < offset.size(); ++k) {
    offset[k] = grid::KING_STEPS[k][1] * width + grid::KING_STEPS[k][0];
  }
  std::vector<int> dist(walls.steps.size(), kFar);
  reach::Board frontier{};
  for (const int source : sources) {
    dist[static_cast<std::size_t>(source)] = 0;
    frontier[static_cast<std::size_t>(source >> 6)] |= std::uint64_t{1} << (source & 63);
  }
  reach::Board seen = frontier;
  for (int level = 1;; ++level) {
    reach::Board next{};
    for (std::size_t k = 0; k < offset.size(); ++k) {
      reach::step_into<W>(frontier, walls.step_from[k], offset[k], next);
    }
    std::uint64_t any = 0;
    for (int i = 0; i < W; ++i) {
      next[i] &= ~seen[i];
      seen[i] |= next[i];
      any |= next[i];
    }
    if (any == 0) return dist;
    for (int i = 0; i < W; ++i) {
      for (std::uint64_t word = next[i]; word != 0; word &= word - 1) {
        dist[static_cast<std::size_t>(i * 64 + std::countr_zero(word))] = level;
      }
    }
    frontier = next;
  }
}

// _distance_map over the mask: a breadth-first search from every source at once.
std::vector<int> search_queue(int width, const WallTables& walls, const std::vector<int>& sources) {
  std::array<int, 8> offset{};
  for (std::size_t k = 0; k < offset.size(); ++k) {
    offset[k] = grid::KING_STEPS[k][1] * width + grid::KING_STEPS[k][0];
  }
  std::vector<int> dist(walls.steps.size(), kFar);
  std::vector<int> frontier;
  frontier.reserve(walls.steps.size());
  for (const int source : sources) {
    dist[static_cast<std::size_t>(source)] = 0;
    frontier.push_back(source);
  }
  for (std::size_t next = 0; next < frontier.size(); ++next) {
    const int i = frontier[next];
    // _neighbours: a blocked square has none (its steps are none)
    const int d = dist[static_cast<std::size_t>(i)] + 1;
    for (unsigned bits = walls.steps[static_cast<std::size_t>(i)]; bits != 0; bits &= bits - 1) {
      const auto j = static_cast<std::size_t>(i + offset[static_cast<std::size_t>(std::countr_zero(bits))]);
      if (dist[j] == kFar) {
        dist[j] = d;
        frontier.push_back(static_cast<int>(j));
      }
    }
  }
  return dist;
}

// search_queue's distances, over bitboards where the map has them. Debug builds (the
// sanitized one) compare the two on every search.
std::vector<int> search(int width, const WallTables& walls, const std::vector<int>& sources) {
  if (walls.words == 0) return search_queue(width, walls, sources);
  std::vector<int> dist = walls.words <= 4   ? search_boards<4>(width, walls, sources)
                          : walls.words <= 8 ? search_boards<8>(width, walls, sources)
                                             : search_boards<16>(width, walls, sources);
#ifndef NDEBUG
  if (dist != search_queue(width, walls, sources)) {
    throw std::logic_error("distance_map: the bitboard search differs from the queue's");
  }
#endif
  return dist;
}

std::vector<int> source_indices(const grid::Grid& grid,
                                const std::vector<combatant::Square>& sources) {
  std::vector<int> out;
  out.reserve(sources.size());
  for (const combatant::Square& square : sources) out.push_back(square.y * grid.width() + square.x);
  std::sort(out.begin(), out.end());
  return out;
}

// The distance maps computed on this thread, by the walls' serial and the sources (the
// maps never change once made, so clones and agents share them).
class DistanceCache {
 public:
  Distances get(const grid::Grid& grid, std::vector<int> sources) {
    Key key{grid.walls_serial(), std::move(sources)};
    auto found = maps_.find(key);
    if (found != maps_.end()) return found->second;
    auto dist = std::make_shared<const std::vector<int>>(
        search(grid.width(), walls_of(grid), key.sources));
    stored_ += dist->size();
    if (stored_ > kMostStored) {  // bounded: start afresh
      maps_.clear();
      stored_ = dist->size();
    }
    maps_.emplace(std::move(key), dist);
    return dist;
  }

 private:
  // about 16 MB of distances per thread (some 10,000 maps of a 20 x 20 battle map)
  static constexpr std::size_t kMostStored = std::size_t{1} << 22;
  struct Key {
    std::uint64_t serial;
    std::vector<int> sources;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const {
      std::uint64_t hash = key.serial * 0x9e3779b97f4a7c15ULL;
      for (const int source : key.sources) {
        hash ^= static_cast<std::uint64_t>(source) + 0x9e3779b97f4a7c15ULL + (hash << 6) +
                (hash >> 2);
      }
      return static_cast<std::size_t>(hash);
    }
  };
  std::unordered_map<Key, Distances, KeyHash> maps_;
  std::size_t stored_ = 0;
};

// kinds[kind][0], or std::logic_error where Python's kinds[kind] raises KeyError.
std::size_t first_of(const ByKind& kinds, ActionKind kind) {
  const std::span<const std::size_t> found = kinds[kind];
  if (found.empty()) {
    throw std::logic_error("berserker: no " +
                           std::string(actions::ACTION_KIND_NAMES[static_cast<std::size_t>(kind)]) +
                           " among the legal actions");
  }
  return found.front();
}

// This thread's cache; not inlined, so that its lookups keep its address (GCC would look
// the thread-local up again at each use in their loops).
[[gnu::noinline]] DistanceCache& thread_cache() {
  thread_local DistanceCache cache;
  return cache;
}

}  // namespace

Distances distance_map(const grid::Grid& grid, const std::vector<combatant::Square>& sources) {
  return thread_cache().get(grid, source_indices(grid, sources));
}

Distances Berserker::distances(const View& view, const combatant::Combatant& self) {
  std::vector<combatant::Square> squares;
  for (const combatant::Combatant& other : view.state.roster.combatants) {
    if (other.in_action() && other.team != self.team) squares.push_back(other.position);
  }
  return distance_map(view.map.grid, squares);
}

Choice Berserker::act(const View& view) {
  const ByKind kinds(view.legal);
  const state::PendingDecision& decision = *view.state.decision;
  switch (decision.kind) {
    case actions::DecisionKind::TURN:
      return {turn(view, kinds, decision.actor), {}};
    case actions::DecisionKind::FREE_ATTACK: {
      // _free_attack: on the provoker itself first, else any, else decline
      const std::span<const std::size_t> hits = kinds[K::FREE_ATTACK];
      for (const std::size_t i : hits) {
        const auto& target = view.legal[i].target;
        if (target && decision.source != content::kNone &&
            combatant_number(view, *target) == decision.source) {
          return {i, {}};
        }
      }
      return {hits.empty() ? first_of(kinds, K::DECLINE) : hits.front(), {}};
    }
    case actions::DecisionKind::PARRY: {
      // _parry: the first item that can, else decline
      const std::span<const std::size_t> parries = kinds[K::PARRY];
      return {parries.empty() ? first_of(kinds, K::DECLINE) : parries.front(), {}};
    }
    case actions::DecisionKind::DODGE: {
      // _dodge: a Shift to a random open square, else the first dodge, else decline
      const std::span<const std::size_t> dodges = kinds[K::DODGE];
      std::vector<std::size_t> to_square;
      for (const std::size_t i : dodges) {
        if (view.legal[i].square) to_square.push_back(i);
      }
      if (!to_square.empty()) {
        return {to_square[static_cast<std::size_t>(
                    seeded_.below(static_cast<int>(to_square.size())))], {}};
      }
      return {dodges.empty() ? first_of(kinds, K::DECLINE) : dodges.front(), {}};
    }
  }
  return {default_answer(view.legal), {}};  // a decision kind it has no rule for
}

std::optional<Choice> Berserker::act_without_moves(const View& view) {
  const ByKind kinds(view.legal);
  const int actor = view.state.decision->actor;
  const std::size_t chosen = before_approach(
      view, kinds, view.state.roster.combatants.at(static_cast<std::size_t>(actor)));
  if (chosen == kNoChoice) return std::nullopt;
  return Choice{chosen, {}};
}

Choice Berserker::act_after_without_moves(const View& view) {
  const ByKind kinds(view.legal);
  const int actor = view.state.decision->actor;
  return {from_approach(view, kinds, view.state.roster.combatants.at(static_cast<std::size_t>(actor))),
          {}};
}

std::size_t Berserker::turn(const View& view, const ByKind& kinds, int actor) {
  const combatant::Combatant& self = view.state.roster.combatants.at(static_cast<std::size_t>(actor));
  const std::size_t chosen = before_approach(view, kinds, self);
  if (chosen != kNoChoice) return chosen;
  return from_approach(view, kinds, self);
}

std::size_t Berserker::from_approach(const View& view, const ByKind& kinds,
                                     const combatant::Combatant& self) {
  const std::size_t move = approach(view, kinds, self);
  return move != kNoChoice ? move : first_of(kinds, K::END_TURN);
}

std::size_t Berserker::before_approach(const View& view, const ByKind& kinds,
                                       const combatant::Combatant& self) {
  if (!kinds[K::STAND_UP].empty()) return kinds[K::STAND_UP].front();
  const std::span<const std::size_t> attacks = kinds[K::MELEE_ATTACK];
  if (!attacks.empty()) {
    // min(attacks, key=wound): the lowest hp / max(1, max_hp), the first listed of equals
    std::size_t chosen = kNoChoice;
    double lowest = 0.0;
    for (const std::size_t i : attacks) {
      const int number = combatant_number(view, view.legal[i].target.value());
      const combatant::Combatant& target =
          view.state.roster.combatants.at(static_cast<std::size_t>(number));
      const double wound =
          static_cast<double>(target.hp) / static_cast<double>(std::max(1, target.max_hp));
      if (chosen == kNoChoice || wound < lowest) {
        chosen = i;
        lowest = wound;
      }
    }
    return chosen;
  }
  if (!has_ready_melee(self)) {
    for (const std::size_t i : kinds[K::READY_WEAPON]) {  // _is_melee
      const auto& uid = view.legal[i].item;
      const combatant::ItemInstance* inst = uid ? item_of(view, self, *uid) : nullptr;
      const content::Weapon* weapon = inst ? weapon_of(self, *inst) : nullptr;
      if (weapon != nullptr && weapon->kind == content::WeaponKind::melee) return i;
    }
    std::size_t drop = kNoChoice;
    for (const std::size_t i : kinds[K::DROP_ITEM]) {  // _is_ready_missile
      const auto& uid = view.legal[i].item;
      const combatant::ItemInstance* inst = uid ? item_of(view, self, *uid) : nullptr;
      if (inst == nullptr || inst->state != combatant::ItemState::ready) continue;
      const content::Weapon* weapon = weapon_of(self, *inst);
      if (weapon != nullptr && weapon->kind == content::WeaponKind::missile) {
        drop = i;
        break;
      }
    }
    if (drop != kNoChoice) {
      bool melee_in_pack = false;  // _melee_in_pack
      for (const combatant::ItemInstance& inst : self.inventory) {
        if (inst.state != combatant::ItemState::carried &&
            inst.state != combatant::ItemState::sheathed &&
            inst.state != combatant::ItemState::hidden) {
          continue;
        }
        const content::Weapon* weapon = weapon_of(self, inst);
        if (weapon != nullptr && weapon->kind == content::WeaponKind::melee) {
          melee_in_pack = true;
          break;
        }
      }
      if (melee_in_pack) return drop;
    }
  }
  return kNoChoice;
}

std::size_t Berserker::approach(const View& view, const ByKind& kinds,
                                const combatant::Combatant& self) {
  const Distances distances_here = distances(view, self);
  const std::vector<int>& dist = *distances_here;
  const int width = view.map.grid.width();
  const auto at = [&](const combatant::Square& square) {
    return dist[static_cast<std::size_t>(square.y * width + square.x)];
  };
  const int here = at(self.position);
  const int reach = std::max(1, self.reach());
  // score(action): the distance at the action's square, else at the combatant's own
  std::vector<int> scores(view.legal.size());
  for (std::size_t i = 0; i < view.legal.size(); ++i) {
    const auto& square = view.legal[i].square;
    scores[i] = square ? at({square->x, square->y}) : here;
  }
  const std::span<const std::size_t> moves = kinds[K::MOVE];
  if (self.actions_used.empty() && has_ready_melee(self)) {  // can attack after moving
    std::vector<std::size_t> into_reach;
    for (const std::size_t i : moves) {
      if (scores[i] <= reach) into_reach.push_back(i);
    }
    if (!into_reach.empty()) return best(into_reach, scores);
  }
  for (const ActionKind kind : {K::FULL_MOVE, K::MOVE}) {
    const std::span<const std::size_t> options = kinds[kind];
    if (!options.empty()) {
      const std::size_t chosen = best(options, scores);  // draws even when not taken
      if (scores[chosen] < here) return chosen;
    }
  }
  std::vector<std::size_t> doors;
  for (const std::size_t i : kinds[K::OPEN_DOOR]) {
    if (scores[i] < here) doors.push_back(i);
  }
  if (!doors.empty()) return best(doors, scores);
  return kNoChoice;
}

std::size_t Berserker::best(std::span<const std::size_t> options,
                            const std::vector<int>& scores) {
  int low = scores[options.front()];
  for (const std::size_t i : options) low = std::min(low, scores[i]);
  std::vector<std::size_t> lowest;
  for (const std::size_t i : options) {
    if (scores[i] == low) lowest.push_back(i);
  }
  return lowest[static_cast<std::size_t>(seeded_.below(static_cast<int>(lowest.size())))];
}

}  // namespace fray::agents
