// rules/queries.py: the read-only questions the rules ask. See queries.hpp.
#include "queries.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <unordered_map>

#include "threat_zones.hpp"

namespace fray::queries {

using combatant::ItemState;
using combatant::Status;
using content::kNone;

namespace {

bool by_square(const Square& first, const Square& second) {
  return first.y != second.y ? first.y < second.y : first.x < second.x;
}

bool listed(std::span<const int> numbers, int number) {
  return std::find(numbers.begin(), numbers.end(), number) != numbers.end();
}

// Python's sorted set of squares: sorted by (y, x), repeats dropped.
void as_set(std::vector<Square>& squares) {
  std::sort(squares.begin(), squares.end(), by_square);
  squares.erase(std::unique(squares.begin(), squares.end()), squares.end());
}

// Threat entries (square, enemy number) sorted by square (by_square) then number: as one
// 64-bit key each (y, x and number in 22, 22 and 20 bits) when they fit, which sorts a
// move's few dozen entries faster than comparing the fields.
void sort_threats(std::vector<std::pair<Square, int>>& threats) {
  constexpr std::int64_t kBias = std::int64_t{1} << 21;  // coordinates from -2^21 to 2^21 - 1
  const auto fits = [&](const std::pair<Square, int>& entry) {
    return entry.first.x >= -kBias && entry.first.x < kBias && entry.first.y >= -kBias &&
           entry.first.y < kBias && entry.second >= 0 && entry.second < (1 << 20);
  };
  if (!std::all_of(threats.begin(), threats.end(), fits)) {
    std::sort(threats.begin(), threats.end(), [](const auto& first, const auto& second) {
      if (!(first.first == second.first)) return by_square(first.first, second.first);
      return first.second < second.second;
    });
    return;
  }
  std::vector<std::uint64_t> keys;
  keys.reserve(threats.size());
  for (const auto& [square, number] : threats) {
    keys.push_back(static_cast<std::uint64_t>(square.y + kBias) << 42 |
                   static_cast<std::uint64_t>(square.x + kBias) << 20 |
                   static_cast<std::uint64_t>(number));
  }
  std::sort(keys.begin(), keys.end());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::uint64_t key = keys[i];
    threats[i] = {Square{static_cast<int>(static_cast<std::int64_t>(key >> 20 & ((1U << 22) - 1)) - kBias),
                         static_cast<int>(static_cast<std::int64_t>(key >> 42) - kBias)},
                  static_cast<int>(key & ((1U << 20) - 1))};
  }
}

// H23: queries._within, a Euclidean radius in squares.
bool within(Square first, Square second, int radius) {
  return std::hypot(static_cast<double>(first.x - second.x),
                    static_cast<double>(first.y - second.y)) <= radius + 1e-9;
}

}  // namespace

int Occupancy::holder(Square square) const {
  for (const auto& [where, number] : held) {
    if (where == square) return number;
  }
  return kNone;
}

// S6/S15
bool is_unarmed(const content::Content& tables, const content::Weapon& weapon) {
  return weapon.natural && weapon.skill != kNone &&
         tables.skill_names.name(weapon.skill) == kUnarmedSkill;
}

// H16/S18
int walk_distance(const QueryState& state, Square start, Square end) {
  const std::vector<int>& costs = state.ruleset().movement.diagonal_costs;
  const int dx = std::abs(start.x - end.x);
  const int dy = std::abs(start.y - end.y);
  const int diagonals = std::min(dx, dy);
  int total = std::max(dx, dy) - diagonals;
  for (int i = 0; i < diagonals; ++i) total += costs[static_cast<std::size_t>(i) % costs.size()];
  return total;
}

// H5: in action, of another team, in initiative order.
std::vector<int> enemies(const QueryState& state, int combatant) {
  std::vector<int> out;
  out.reserve(state.initiative_order.size());
  for_each_enemy(state, combatant, [&](int number) { out.push_back(number); });
  return out;
}

// H12
std::vector<Square> threat_squares(const QueryState& state, int combatant,
                                   std::optional<int> reach) {
  const Combatant& who = state.combatant(combatant);
  const int squares = reach ? *reach : who.reach();
  if (squares <= 0) return {};
  return threat_zones::threatened_squares(state.grid, who.position, squares);
}

bool threatens_now(const QueryState& state, int combatant, Square square) {
  const Combatant& who = state.combatant(combatant);
  const int squares = who.threat_reach();
  return squares > 0 && threat_zones::threatens(state.grid, who.position, squares, square);
}

// H12
bool weapon_reaches(const QueryState& state, int combatant, int reach_letter, Square square) {
  const int squares = state.ruleset().reach_squares.at(static_cast<std::size_t>(reach_letter));
  return threat_zones::threatens(state.grid, state.combatant(combatant).position, squares, square);
}

// S5/H12
bool can_free_attack(const QueryState& state, int enemy, int provoker) {
  const Combatant& attacker = state.combatant(enemy);
  const Combatant& provoked = state.combatant(provoker);
  return attacker.team != provoked.team && !attacker.free_attack_used && provoked.in_action() &&
         threatens_now(state, enemy, provoked.position);
}

// S5/H12
std::vector<int> provokers_at(const QueryState& state, int mover, std::optional<Square> square) {
  const Square where = square ? *square : state.combatant(mover).position;
  std::vector<int> out;
  for_each_enemy(state, mover, [&](int number) {
    if (!state.combatant(number).free_attack_used && threatens_now(state, number, where)) {
      out.push_back(number);
    }
  });
  return out;
}

// H13/H22: the living hold their squares; in-action holders win the entry.
Occupancy occupied(const QueryState& state, std::span<const int> exclude) {
  Occupancy out;
  out.held.reserve(state.roster.combatants.size());
  for (const Combatant& c : state.roster.combatants) {
    if (c.status == Status::dead || listed(exclude, c.id)) continue;
    auto found = std::find_if(out.held.begin(), out.held.end(),
                              [&](const auto& entry) { return entry.first == c.position; });
    if (found == out.held.end()) {
      out.held.emplace_back(c.position, c.id);
    } else if (c.status == Status::active) {
      found->second = c.id;
    }
  }
  return out;
}

// occupied()'s entry for one square: its first living holder placed it, each later one in
// action took it over.
int holder_at(const QueryState& state, Square square, std::span<const int> exclude) {
  int holder = kNone;
  for (const Combatant& c : state.roster.combatants) {
    if (c.status == Status::dead || c.position != square || listed(exclude, c.id)) continue;
    if (holder == kNone || c.status == Status::active) holder = c.id;
  }
  return holder;
}

// H22
Mover mover_of(const QueryState& state, int combatant) {
  const Combatant& who = state.combatant(combatant);
  Mover out;
  out.ids[0] = who.id;
  out.count = 1;
  out.body = who.id;
  if (who.riding != kNone) {
    out.body = state.combatant(who.riding).id;
    out.ids[1] = out.body;
    out.count = 2;
  }
  return out;
}

// H12/H13
RouteTables route_tables(const QueryState& state, int combatant, bool provoking) {
  const Combatant& who = state.combatant(combatant);
  const Mover mover = mover_of(state, combatant);
  RouteTables out;
  out.blocked.reserve(state.roster.combatants.size());
  out.no_end.reserve(state.roster.combatants.size());
  for (const Combatant& other : state.roster.combatants) {
    if (other.status == Status::dead || listed(mover.moving(), other.id)) continue;
    if (other.status == Status::active && other.team != who.team) {
      out.blocked.push_back(other.position);  // H13: enemies block
    } else {
      out.no_end.push_back(other.position);  // allies and the fallen: passed, not ended on
    }
  }
  as_set(out.blocked);
  as_set(out.no_end);
  std::erase_if(out.no_end, [&](const Square& square) {
    return std::binary_search(out.blocked.begin(), out.blocked.end(), square, by_square);
  });
  out.provoking = provoking;
  if (provoking) {
    const std::vector<int> threatening = enemies(state, combatant);
    out.threats.reserve(8 * threatening.size());  // a reach of one square each, or more
    for (const int number : threatening) {
      const Combatant& enemy = state.combatant(number);
      if (!enemy.threatens() || enemy.free_attack_used) continue;
      for (const Square square : threat_squares(state, number)) out.threats.emplace_back(square, number);
    }
    sort_threats(out.threats);
  }
  return out;
}

// S17/H22
int move_budget(const QueryState& state, int combatant, bool full) {
  const Combatant& body = state.combatant(mover_of(state, combatant).body);
  return full ? body.mov() : body.move_squares();
}

// S7/H10
std::vector<Square> free_adjacent(const QueryState& state, int combatant, bool avoid_drops) {
  const Combatant& who = state.combatant(combatant);
  std::array<int, 2> exclude{who.id, who.riding};
  const Occupancy held = occupied(state, {exclude.data(), who.riding != kNone ? 2u : 1u});
  std::vector<Square> out;
  out.reserve(grid::KING_STEPS_BY_ROW.size());
  for (const auto& [dx, dy] : grid::KING_STEPS_BY_ROW) {
    const Square square{who.position.x + dx, who.position.y + dy};
    if (!state.grid.step_allowed(who.position, square) || held.contains(square)) continue;
    if (avoid_drops && state.grid.drop_depth(square) != 0) continue;
    out.push_back(square);
  }
  return out;
}

// H23
bool is_lit(const QueryState& state, Square square) {
  if (!state.grid.is_dark(square)) return true;
  const int radius = state.ruleset().torch_radius;
  for (const Combatant& c : state.roster.combatants) {
    for (const ItemInstance& inst : c.inventory) {
      if (inst.lit && within(c.position, square, radius)) return true;
    }
  }
  return std::any_of(state.ground.begin(), state.ground.end(), [&](const ItemInstance& inst) {
    return inst.lit && inst.square && within(*inst.square, square, radius);
  });
}

// H16
std::optional<int> in_range(const QueryState& state, int shooter, int target, int base_range) {
  const content::ModifierRules& modifiers = state.ruleset().modifiers;
  const Square from = state.combatant(shooter).position;
  const Square to = state.combatant(target).position;
  const int distance = walk_distance(state, from, to);
  if (distance > base_range * modifiers.long_range_factor) return std::nullopt;
  if (!grid::line_of_sight(state.grid, from, to)) return std::nullopt;
  return distance > base_range ? modifiers.long_range : 0;
}

// H18
bool spell_target_ok(const QueryState& state, int caster, int target, int spell_range) {
  const Combatant& from = state.combatant(caster);
  const Combatant& to = state.combatant(target);
  if (spell_range == 0) return to.id == from.id;
  if (grid::chebyshev(from.position, to.position) > spell_range) return false;
  return grid::line_of_sight(state.grid, from.position, to.position);
}

std::optional<std::size_t> ammo_of(const Combatant& combatant, int ammo) {
  if (ammo == kNone) return std::nullopt;
  for (std::size_t i = 0; i < combatant.inventory.size(); ++i) {
    const ItemInstance& inst = combatant.inventory[i];
    if (inst.item == ammo && inst.count > 0 && inst.state != ItemState::ground) return i;
  }
  return std::nullopt;
}

// H13/S23: a breadth-first walk, one legal king step at a time in KING_STEPS_BY_ROW order.
std::vector<Square> way_back(const QueryState& state, const std::vector<Square>& walked,
                             std::span<const int> bodies) {
  const Occupancy held = occupied(state, bodies);
  for (std::size_t end = walked.size(); end > 0; --end) {
    if (!held.contains(walked[end - 1])) return {walked.begin(), walked.begin() + end};
  }
  if (walked.empty()) return walked;
  const Grid& grid = state.grid;
  const Square start = walked.back();
  const auto key = [](Square square) {
    return (static_cast<long long>(square.x) << 32) ^ static_cast<unsigned int>(square.y);
  };
  std::unordered_map<long long, Square> came_from{{key(start), start}};
  std::vector<Square> frontier{start};
  while (!frontier.empty()) {
    std::vector<Square> following;
    for (const Square square : frontier) {
      for (const auto& [dx, dy] : grid::KING_STEPS_BY_ROW) {
        const Square near{square.x + dx, square.y + dy};
        if (came_from.contains(key(near)) || !grid.step_allowed(square, near) ||
            grid.drop_depth(near) != 0) {
          continue;
        }
        came_from.emplace(key(near), square);
        if (!held.contains(near)) {
          std::vector<Square> extra{near};
          while (!(came_from.at(key(extra.back())) == start)) {
            extra.push_back(came_from.at(key(extra.back())));
          }
          std::vector<Square> out = walked;
          out.insert(out.end(), extra.rbegin(), extra.rend());
          return out;
        }
        following.push_back(near);
      }
    }
    frontier = std::move(following);
  }
  return walked;
}

}  // namespace fray::queries
