// agents/skirmisher.py in C++ (agents_skirmisher.hpp): Skirmisher.turn and its steps
// escape, shoot and keep_away (stand and prepare are the tactician's). Each function names
// its Python twin; reasons are the Python f-strings.
#include "agents_skirmisher.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "agents_berserker.hpp"
#include "agents_tactics.hpp"
#include "grid.hpp"

namespace fray::agents {

namespace {

using combatant::Combatant;
using combatant::Square;
using K = actions::ActionKind;
namespace t = tactics;

// Skirmisher._enemy_reach: how far (king steps) an enemy is assumed to come and strike in
// one turn.
constexpr int kEnemyReach = 7;

// The walking distance from a square to the nearest enemy (Skirmisher._gap, and
// keep_away's gap): berserker.distance_map over the enemies' squares.
class Gaps {
 public:
  explicit Gaps(const Tactician::Turn& turn) : width_(turn.view.map.grid.width()) {
    for (const int foe : t::enemies_of(turn.odds, turn.self)) {
      foes_.push_back(turn.odds.at(foe).position);
    }
    if (!foes_.empty()) dist_ = distance_map(turn.view.map.grid, foes_);
  }
  // The enemies' squares, in initiative order.
  const std::vector<Square>& foes() const { return foes_; }
  // _gap: 10**6 (kFar) with no enemies, as Python returns; an unreachable square is kFar
  // too (distance_map's FAR).
  int at(Square square) const {
    return foes_.empty() ? kFar : (*dist_)[static_cast<std::size_t>(square.y * width_ + square.x)];
  }

 private:
  int width_;
  std::vector<Square> foes_;
  Distances dist_;
};

// str(action.square): "(x, y)", or "None" for an action without one.
std::string square_of(const actions::Action& action) {
  return action.square ? t::square_text({action.square->x, action.square->y}) : "None";
}

// Tactician._is_melee: the action's item is a melee weapon (an unarmed attack, no item,
// is not: as Python does, so an unarmed Full Attack counts as an aimed shot).
bool is_melee(const Tactician::Turn& turn, const actions::Action& action) {
  const combatant::ItemInstance* inst =
      action.item ? item_of(turn.view, turn.me, *action.item) : nullptr;
  const content::Weapon* weapon = inst != nullptr ? weapon_of(turn.me, *inst) : nullptr;
  return weapon != nullptr && weapon->kind == content::WeaponKind::melee;
}

}  // namespace

// Skirmisher.turn
Choice Skirmisher::turn(const Turn& turn) {
  if (!has_missile(turn.me)) return Tactician::turn(turn);
  if (Step choice = stand(turn)) return std::move(*choice);
  if (Step choice = prepare(turn)) return std::move(*choice);
  if (Step choice = escape(turn)) return std::move(*choice);
  if (Step choice = shoot(turn)) return std::move(*choice);
  if (Step choice = keep_away(turn)) return std::move(*choice);
  const std::span<const std::size_t> end = turn.kinds[K::END_TURN];
  if (end.empty()) throw std::logic_error("skirmisher: no END_TURN among the legal actions");
  return {end.front(), "hold: nothing to shoot, nowhere better"};
}

// Skirmisher._has_missile (H16): Python counts ammunition of any count > 0 in the
// inventory, whatever its state
bool Skirmisher::has_missile(const Combatant& me) {
  bool found = false;
  me.for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
    if (found || weapon.kind != content::WeaponKind::missile) return;
    if (weapon.reload == content::Reload::nock && !me.inventory[index].nocked) {
      const bool ammo = std::any_of(
          me.inventory.begin(), me.inventory.end(), [&](const combatant::ItemInstance& inst) {
            return weapon.ammo != content::kNone && inst.item == weapon.ammo && inst.count > 0;
          });
      if (!ammo) return;
    }
    found = true;
  });
  return found;
}

// Skirmisher.escape: engaged, Shift (S7, never provokes) to the unthreatened square
// farthest from the enemies, else Disengage to the square fewest threaten, farthest first
Tactician::Step Skirmisher::escape(const Turn& turn) {
  if (!threatened(turn)) return std::nullopt;
  const Gaps gaps(turn);
  std::vector<std::size_t> shifts;
  std::vector<double> shift_keys;
  for (const std::size_t index : turn.kinds[K::SHIFT]) {
    const Square square = t::square_or(turn.view.legal[index], turn.me);
    if (!t::threatened_by(turn.odds, turn.self, square).empty()) continue;
    shifts.push_back(index);
    shift_keys.push_back(-static_cast<double>(gaps.at(square)));
  }
  if (!shifts.empty()) {
    const std::size_t best = tie(shifts, shift_keys);
    return Choice{best, "shift out of reach to " + square_of(turn.view.legal[best])};
  }
  const std::span<const std::size_t> options = turn.kinds[K::DISENGAGE];
  if (options.empty()) return std::nullopt;
  std::vector<std::pair<double, double>> keys;  // (enemies threatening, -gap)
  for (const std::size_t index : options) {
    const Square square = t::square_or(turn.view.legal[index], turn.me);
    keys.emplace_back(static_cast<double>(t::threatened_by(turn.odds, turn.self, square).size()),
                      -static_cast<double>(gaps.at(square)));
  }
  const std::size_t best = tie(options, keys);
  return Choice{best, "disengage to " + square_of(turn.view.legal[best])};
}

// Skirmisher.shoot: not when threatened (a shot would provoke, S6); the best missile
// attack, or the best aimed one (a non-melee Full Attack, H17) when it is worth more and
// no enemy can reach it this round
Tactician::Step Skirmisher::shoot(const Turn& turn) {
  if (threatened(turn)) return std::nullopt;
  std::vector<std::size_t> aimed;
  for (const std::size_t index : turn.kinds[K::FULL_ATTACK]) {
    if (!is_melee(turn, turn.view.legal[index])) aimed.push_back(index);
  }
  std::optional<t::Picked> best = t::best_listed(turn.view, turn.kinds[K::MISSILE_ATTACK]);
  if (!aimed.empty() && Gaps(turn).at(turn.me.position) > kEnemyReach) {
    std::optional<t::Picked> best_aimed = t::best_listed(turn.view, aimed);
    if (best_aimed && (!best || best_aimed->scored.value > best->scored.value)) {
      best = std::move(best_aimed);
    }
  }
  if (!best) return std::nullopt;
  return Choice{best->index, t::focus_reason(turn.view, best->scored, "shoot the most exposed")};
}

// Skirmisher.keep_away: a MOVE to an unthreatened square reached by a route that provokes
// nothing (H13): with a target in range there, the farthest from the enemies (if farther
// than here, or nothing is in range here); with none, the nearest to an enemy
Tactician::Step Skirmisher::keep_away(const Turn& turn) {
  const Gaps gaps(turn);
  const std::vector<Square>& foes = gaps.foes();
  if (foes.empty()) return std::nullopt;
  int range = 0;  // max(missile ranges, default=0)
  turn.me.for_each_ready_weapon([&](std::size_t, const content::Weapon& weapon) {
    if (weapon.kind == content::WeaponKind::missile) range = std::max(range, weapon.range);
  });
  const auto in_range = [&](Square square) {
    return std::any_of(foes.begin(), foes.end(),
                       [&](Square foe) { return grid::chebyshev(square, foe) <= range; });
  };
  const int here = gaps.at(turn.me.position);
  const std::span<const std::size_t> moves = turn.kinds[K::MOVE];
  if (moves.empty()) return std::nullopt;
  std::vector<Square> squares;
  for (const std::size_t index : moves) {
    squares.push_back(t::square_or(turn.view.legal[index], turn.me));
  }
  const std::vector<std::pair<int, double>> costs = t::fewest_route_costs(turn.odds, turn.self, squares);
  std::vector<std::size_t> options;
  std::vector<Square> option_squares;
  for (std::size_t k = 0; k < moves.size(); ++k) {
    if (costs[k].first != 0 || !t::threatened_by(turn.odds, turn.self, squares[k]).empty()) {
      continue;
    }
    options.push_back(moves[k]);
    option_squares.push_back(squares[k]);
  }
  if (options.empty()) return std::nullopt;
  std::vector<std::size_t> ranged;
  std::vector<double> keys;  // -gap
  for (std::size_t k = 0; k < options.size(); ++k) {
    if (!in_range(option_squares[k])) continue;
    ranged.push_back(options[k]);
    keys.push_back(-static_cast<double>(gaps.at(option_squares[k])));
  }
  if (!ranged.empty()) {
    const std::size_t best = tie(ranged, keys);
    const int there = gaps.at(t::square_or(turn.view.legal[best], turn.me));
    if (there > here || !in_range(turn.me.position)) {
      return Choice{best, "keep away: " + std::to_string(here) + " -> " + std::to_string(there) +
                              " steps"};
    }
    return std::nullopt;
  }
  std::vector<double> nearest;  // min(chebyshev to each enemy)
  for (const Square square : option_squares) {
    int low = std::numeric_limits<int>::max();
    for (const Square foe : foes) low = std::min(low, grid::chebyshev(square, foe));
    nearest.push_back(static_cast<double>(low));
  }
  return Choice{tie(options, nearest), "close to shooting range"};
}

}  // namespace fray::agents
