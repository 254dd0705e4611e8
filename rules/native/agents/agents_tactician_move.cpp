// agents/tactician.py's step 6 in C++ (agents_tactician.hpp): Tactician.move, into_reach,
// close_in, disengage and _ready_melee, and ScriptedAgent.tie, the only place the
// tactician draws from its generator (S7, S12, H12, H13).
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "agents_berserker.hpp"
#include "agents_tactician.hpp"
#include "agents_tactics.hpp"
#include "grid.hpp"

namespace fray::agents {

namespace {

using combatant::Combatant;
using combatant::Square;
using content::kNone;
using K = actions::ActionKind;
namespace t = tactics;

using t::square_or;

// The value of an optional score (`s.value if s else 0`).
double value_or_zero(const std::optional<t::Scored>& scored) {
  return scored ? scored->value : 0.0;
}

}  // namespace

// ScriptedAgent.tie (tactics::tie)
std::size_t Tactician::tie(std::span<const std::size_t> options,
                           const std::vector<double>& keys) {
  return t::tie(seeded_, options, keys);
}

// ScriptedAgent.tie with tuple keys of two (tactics::tie)
std::size_t Tactician::tie(std::span<const std::size_t> options,
                           const std::vector<std::pair<double, double>>& keys) {
  return t::tie(seeded_, options, keys);
}

// Tactician.move: into reach by the least-provoking route, else ready a melee weapon,
// else disengage when engaged, else close in
Tactician::Step Tactician::move(const Turn& turn) {
  const std::vector<int> foes = t::enemies_of(turn.odds, turn.self);
  if (foes.empty()) return std::nullopt;
  const bool armed = has_ready_melee(turn.me);
  // the best melee on each foe, which into_reach and close_in both ask (nothing changes
  // in between): found once, when first asked
  MeleeValues values;
  const auto melee_values = [&]() -> const MeleeValues& {
    if (values.empty()) {
      for (const int foe : foes) values.push_back(t::hypothetical_melee(turn.odds, turn.self, foe));
    }
    return values;
  };
  if (armed && turn.me.actions_used.empty()) {
    if (Step choice = into_reach(turn, foes, melee_values())) return choice;
  }
  if (!armed) {
    if (Step choice = ready_melee(turn)) return choice;
  }
  if (threatened(turn)) return disengage(turn);
  return close_in(turn, foes, melee_values());
}

// Tactician.disengage (S7): to the square fewest enemies threaten, if fewer than here
Tactician::Step Tactician::disengage(const Turn& turn) {
  const std::size_t here = t::threatened_by(turn.odds, turn.self, turn.me.position).size();
  const std::span<const std::size_t> options = turn.kinds[K::DISENGAGE];
  if (options.empty()) return std::nullopt;
  std::vector<double> keys;
  for (const std::size_t index : options) {
    keys.push_back(static_cast<double>(
        t::threatened_by(turn.odds, turn.self, square_or(turn.view.legal[index], turn.me)).size()));
  }
  const std::size_t best = tie(options, keys);
  const std::size_t after =
      t::threatened_by(turn.odds, turn.self, square_or(turn.view.legal[best], turn.me)).size();
  if (after >= here) return std::nullopt;
  return Choice{best, "disengage: " + std::to_string(here) + " -> " + std::to_string(after) +
                          " enemies threaten"};
}

// Tactician.into_reach: a MOVE that ends in reach of an enemy: fewest provokers (H13),
// then the best target there less the route's cost, plus a flank bonus
Tactician::Step Tactician::into_reach(const Turn& turn, const std::vector<int>& foes,
                                      const MeleeValues& values) {
  std::vector<std::size_t> reaching;
  std::vector<std::vector<std::size_t>> in_reach;  // places in foes
  std::vector<Square> squares;
  const int reach = turn.me.reach();
  for (const std::size_t index : turn.kinds[K::MOVE]) {
    const Square square = square_or(turn.view.legal[index], turn.me);
    std::vector<std::size_t> found;
    for (std::size_t f = 0; f < foes.size(); ++f) {
      if (t::reaches_with(turn.odds, reach, square, foes[f])) found.push_back(f);
    }
    if (found.empty()) continue;
    reaching.push_back(index);
    in_reach.push_back(std::move(found));
    squares.push_back(square);
  }
  if (reaching.empty()) return std::nullopt;
  const std::vector<std::pair<int, double>> costs = t::fewest_route_costs(turn.odds, turn.self, squares);
  const std::vector<int> allies = t::allies_of(turn.odds, turn.self);
  std::vector<int> provokers;
  // Python keeps (provokers, -value, action, scored) and ties by `-v` of that -value:
  // the key is the value itself, so the lowest value wins. Mirrored as it is.
  std::vector<double> keys;
  std::vector<std::size_t> targets;  // places in foes
  for (std::size_t k = 0; k < reaching.size(); ++k) {
    std::size_t target = in_reach[k].front();  // max by value: the first of equals
    for (const std::size_t f : in_reach[k]) {
      if (value_or_zero(values[f]) > value_or_zero(values[target])) target = f;
    }
    const Square there = turn.odds.at(foes[target]).position;
    int flank = 0;
    for (const int ally : allies) {
      if (grid::chebyshev(turn.odds.at(ally).position, there) == 1) ++flank;
    }
    const double value = value_or_zero(values[target]) - costs[k].second + 0.05 * flank;
    provokers.push_back(costs[k].first);
    keys.push_back(value);
    targets.push_back(target);
  }
  int fewest = provokers.front();
  for (const int count : provokers) fewest = std::min(fewest, count);
  std::vector<std::size_t> options;
  std::vector<double> option_keys;
  for (std::size_t k = 0; k < reaching.size(); ++k) {
    if (provokers[k] != fewest) continue;
    options.push_back(reaching[k]);
    option_keys.push_back(keys[k]);
  }
  const std::size_t best = tie(options, option_keys);
  std::size_t k = 0;
  while (reaching[k] != best) ++k;
  const std::optional<t::Scored>& scored = values[targets[k]];
  const std::string why = scored ? t::focus_reason(turn.view, *scored, "approach") : "approach";
  return Choice{best, why + "; route provokes " + std::to_string(fewest)};
}

// Tactician.close_in: FULL_MOVE or MOVE toward the best-valued target (less 0.02 a
// square away), fewest provokers first (H13), else the door toward it
Tactician::Step Tactician::close_in(const Turn& turn, const std::vector<int>& foes,
                                    const MeleeValues& values) {
  int target = foes.front();
  double best = 0.0;
  for (std::size_t f = 0; f < foes.size(); ++f) {  // max: the first of equals
    const double score = value_or_zero(values[f]) -
                         0.02 * grid::chebyshev(turn.me.position, turn.odds.at(foes[f]).position);
    if (f == 0 || score > best) {
      target = foes[f];
      best = score;
    }
  }
  const grid::Grid& map = turn.view.map.grid;
  const Distances distances = distance_map(map, {turn.odds.at(target).position});
  const auto at = [&](Square square) {
    return (*distances)[static_cast<std::size_t>(square.y * map.width() + square.x)];
  };
  const int here = at(turn.me.position);
  const std::string name = turn.view.state.roster.ids.name(target);
  for (const K kind : {K::FULL_MOVE, K::MOVE}) {
    std::vector<std::size_t> options;
    std::vector<Square> squares;
    for (const std::size_t index : turn.kinds[kind]) {
      const Square square = square_or(turn.view.legal[index], turn.me);
      if (at(square) < here) {
        options.push_back(index);
        squares.push_back(square);
      }
    }
    if (options.empty()) continue;
    const std::vector<std::pair<int, double>> costs =
        t::fewest_route_costs(turn.odds, turn.self, squares, kind == K::FULL_MOVE);
    int fewest = costs.front().first;
    for (const auto& [count, cost] : costs) fewest = std::min(fewest, count);
    std::vector<std::size_t> fewest_options;
    std::vector<double> keys;
    for (std::size_t k = 0; k < options.size(); ++k) {
      if (costs[k].first != fewest) continue;
      fewest_options.push_back(options[k]);
      keys.push_back(static_cast<double>(at(squares[k])));
    }
    const std::size_t chosen = tie(fewest_options, keys);
    return Choice{chosen, "close in on " + name + " (" + std::to_string(here) + " -> " +
                              std::to_string(at(square_or(turn.view.legal[chosen], turn.me))) +
                              " steps)"};
  }
  if (here >= kFar) return std::nullopt;
  for (const std::size_t index : turn.kinds[K::OPEN_DOOR]) {
    if (at(square_or(turn.view.legal[index], turn.me)) < here) {
      return Choice{index, "open the door toward " + name};
    }
  }
  return std::nullopt;
}

// Tactician._ready_melee (tactics::ready_melee)
Tactician::Step Tactician::ready_melee(const Turn& turn) {
  return t::ready_melee(turn.view, turn.kinds, turn.me);
}

}  // namespace fray::agents
