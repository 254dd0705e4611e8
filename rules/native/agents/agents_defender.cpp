// agents/defender.py in C++ (agents_defender.hpp): ScriptedAgent.act, Defender.turn,
// ward, post and _chokepoint. Each function names its Python twin; reasons are the
// Python f-strings (squares as Python prints tuples, tactics::square_text).
#include "agents_defender.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "agents_tactics.hpp"
#include "grid.hpp"

namespace fray::agents {

namespace {

using combatant::Combatant;
using combatant::Square;
using content::kNone;
using K = actions::ActionKind;
namespace t = tactics;

constexpr double kGuardBonus = 0.25;  // an attack on an enemy next to the ward

// Python's tuple order on squares: (x, y).
bool before(Square first, Square second) {
  return std::pair{first.x, first.y} < std::pair{second.x, second.y};
}

}  // namespace

// ScriptedAgent.act: TURN decisions by turn, the rest by tactics.react
Choice Defender::act(const View& view) {
  const ByKind kinds(view.legal);
  const state::PendingDecision& decision = *view.state.decision;
  if (decision.kind != actions::DecisionKind::TURN) return t::react(view, kinds);
  return turn(view, kinds, decision.actor);
}

// Defender.turn
Choice Defender::turn(const View& view, const ByKind& kinds, int self) {
  const odds::View odds_view = view.odds();
  const Combatant& me = odds_view.at(self);
  if (!kinds[K::STAND_UP].empty()) return {kinds[K::STAND_UP].front(), "stand up"};
  const int ward = Defender::ward(odds_view, self);
  const std::span<const std::size_t> attacks = kinds[K::MELEE_ATTACK];
  if (!attacks.empty()) {
    // max by value (+0.25 on an enemy next to the ward): the first of equals, compared
    // exactly as Python compares the floats
    std::optional<t::Picked> best;
    double best_value = 0.0;
    for (const std::size_t index : attacks) {
      t::Scored scored = t::score_attack(odds_view, t::strike_of(view, view.legal[index]));
      const Combatant& foe = odds_view.at(scored.strike.target);
      const bool guards =
          ward != kNone && grid::chebyshev(foe.position, odds_view.at(ward).position) <= 1;
      const double value = scored.value + (guards ? kGuardBonus : 0.0);
      if (!best || value > best_value) {
        best = t::Picked{index, std::move(scored)};
        best_value = value;
      }
    }
    return {best->index, t::focus_reason(view, best->scored, "strike")};
  }
  if (!has_ready_melee(me)) {
    if (std::optional<Choice> ready = t::ready_melee(view, kinds, me)) return std::move(*ready);
  }
  const std::string ward_id = ward != kNone ? view.state.roster.ids.name(ward) : std::string{};
  const std::optional<Square> post = this->post(view, self, ward);
  if (post && !(*post == me.position)) {
    std::vector<std::size_t> moves;
    std::vector<Square> squares;
    for (const std::size_t index : kinds[K::MOVE]) {
      const auto& square = view.legal[index].square;
      if (!square) continue;
      moves.push_back(index);
      squares.push_back({square->x, square->y});
    }
    if (!moves.empty()) {
      const std::vector<std::pair<int, double>> costs = t::fewest_route_costs(odds_view, self, squares);
      // the tie's key: (Free Attacks provoked, distance to the post), a tuple of ints
      std::vector<std::pair<int, int>> keys;
      for (std::size_t k = 0; k < moves.size(); ++k) {
        keys.emplace_back(costs[k].first, grid::chebyshev(squares[k], *post));
      }
      const std::size_t best = t::tie(seeded_, moves, keys);
      const auto& square = *view.legal[best].square;
      const Square to{square.x, square.y};
      if (grid::chebyshev(to, *post) < grid::chebyshev(me.position, *post)) {
        const std::string where = ward != kNone ? "guard " + ward_id : "hold the chokepoint";
        return {best, where + ": to " + t::square_text(to)};
      }
    }
  }
  const std::string where =
      ward != kNone ? "guarding " + ward_id : "holding " + t::square_text(me.position);
  const std::span<const std::size_t> end = kinds[K::END_TURN];
  if (end.empty()) throw std::logic_error("defender: no END_TURN among the legal actions");
  return {end.front(), where + ", ready for Free Attacks"};
}

// Defender.ward: min by (hp / max(1, max_hp), max_hp, id): the first of equals
int Defender::ward(const odds::View& view, int self) {
  int best = kNone;
  const auto key = [&](int number) {
    const Combatant& mate = view.at(number);
    // Python's int / int: the correctly rounded quotient, as this double division
    return std::tuple<double, int, const std::string&>{
        static_cast<double>(mate.hp) / std::max(1, mate.max_hp), mate.max_hp,
        view.state.roster.ids.name(number)};
  };
  for (const int mate : t::allies_of(view, self)) {
    if (best == kNone || key(mate) < key(best)) best = mate;
  }
  return best;
}

// Defender.post
std::optional<Square> Defender::post(const View& view, int self, int ward) {
  const odds::View odds_view = view.odds();
  const Combatant& me = odds_view.at(self);
  if (ward != kNone) {
    const Square guarded = odds_view.at(ward).position;
    std::vector<Square> around;  // its own square, or one no living combatant holds
    for (const Square square : view.map.grid.neighbours(guarded)) {
      bool held = false;
      for (const Combatant& other : view.state.roster.combatants) {
        held = held || (other.position == square && !other.dead());
      }
      if (square == me.position || !held) around.push_back(square);
    }
    const std::vector<int> foes = t::enemies_of(odds_view, self);
    if (around.empty() || foes.empty()) return std::nullopt;
    const int enemy = t::nearest(odds_view, guarded, foes);
    if (enemy == kNone) throw std::logic_error("defender: no enemy nearest the ward");  // assert
    const Square there = odds_view.at(enemy).position;
    Square best = around.front();  // min by (distance to the enemy, square): the first of equals
    for (const Square square : around) {
      const int gap = grid::chebyshev(square, there);
      const int best_gap = grid::chebyshev(best, there);
      if (gap < best_gap || (gap == best_gap && before(square, best))) best = square;
    }
    return best;
  }
  const std::string& id = view.state.roster.ids.name(self);
  auto found = chokepoints_.find(id);
  if (found == chokepoints_.end()) found = chokepoints_.emplace(id, chokepoint(view, me)).first;
  return found->second;
}

// Defender._chokepoint: min by (open neighbours, distance) over the squares in reading
// order that do not block movement within max(1, move_squares): the first of equals
Square Defender::chokepoint(const View& view, const Combatant& me) {
  const grid::Grid& map = view.map.grid;
  const Square here = me.position;
  if (map.door(here) != grid::Door::none) return here;  // `here in grid.doors`, open or closed
  const int range = std::max(1, me.move_squares());
  std::optional<std::pair<int, int>> best_key;
  Square best = here;
  for (int y = 0; y < map.height(); ++y) {
    for (int x = 0; x < map.width(); ++x) {
      const Square square{x, y};
      if (map.blocks_movement(square) || grid::chebyshev(square, here) > range) continue;
      const std::pair<int, int> key{map.neighbours(square).size, grid::chebyshev(square, here)};
      if (!best_key || key < *best_key) {
        best_key = key;
        best = square;
      }
    }
  }
  return best;
}

}  // namespace fray::agents
