// agents/tactics.py in C++ (scoring, threats, route and provoke costs; S5, S6, H12,
// H13). See agents_tactics.hpp.
#include "agents_tactics.hpp"

#include <algorithm>

#include "odds_risk.hpp"
#include "queries.hpp"
#include "threat_zones.hpp"

namespace fray::agents::tactics {

namespace {

using combatant::Combatant;
using content::kNone;

// Combatant.ready_melee: the uids of its ready melee weapons, in inventory order.
std::vector<int> ready_melee(const Combatant& who) {
  std::vector<int> out;
  who.for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
    if (weapon.kind == content::WeaponKind::melee) out.push_back(who.inventory[index].uid);
  });
  return out;
}

// The cost of a Risk on the tactics' scale: its expected damage as a share of the
// mover's HP plus P(drop).
double cost_of(const odds::Risk& risk, const Combatant& mover) {
  return risk.expected_damage() / std::max(1, mover.hp) + risk.drops;
}

}  // namespace

// tactics.enemies_of (queries.enemies: the same list)
std::vector<int> enemies_of(const odds::View& view, int combatant) {
  return queries::enemies(view.query(), combatant);
}

// tactics.allies_of
std::vector<int> allies_of(const odds::View& view, int combatant) {
  const Combatant& me = view.at(combatant);
  std::vector<int> out;
  for (const int number : view.state.initiative_order) {
    const Combatant& other = view.at(number);
    if (other.in_action() && other.team == me.team && number != combatant) out.push_back(number);
  }
  return out;
}

// tactics.value_of
double value_of(const odds::AttackOdds& attack_odds, const Combatant& target) {
  const double share = std::min(1.0, attack_odds.expected_damage() / std::max(1, target.hp));
  return kDropWeight * attack_odds.drops + share;
}

// tactics.likely_defence
odds::Defence likely_defence(const Combatant& target) {
  return target.in_action() ? odds::Defence::both : odds::Defence::none;
}

// tactics.score_attack
Scored score_attack(const odds::View& view, const Strike& strike, int attacker) {
  const Combatant& target = view.at(strike.target);
  odds::AttackOdds found = odds::attack_odds(view, strike.kind, strike.target, strike.item,
                                             likely_defence(target), std::nullopt, attacker);
  const double value = value_of(found, target);
  return {strike, std::move(found), value};
}

// tactics.best_attack
std::optional<Scored> best_attack(const odds::View& view, const std::vector<Strike>& strikes,
                                  int attacker) {
  std::optional<Scored> best;
  for (const Strike& strike : strikes) {
    Scored scored = score_attack(view, strike, attacker);
    if (!best || scored.value > best->value + 1e-12) best = std::move(scored);
  }
  return best;
}

// tactics.hypothetical_melee
std::optional<Scored> hypothetical_melee(const odds::View& view, int combatant, int target) {
  std::vector<Strike> options;
  for (const int uid : ready_melee(view.at(combatant))) {
    options.push_back({actions::ActionKind::MELEE_ATTACK, target, uid});
  }
  return best_attack(view, options, combatant);
}

// tactics.reaches (H12)
bool reaches(const odds::View& view, int combatant, Square square, int target) {
  const int reach = view.at(combatant).reach();
  return reach > 0 && threat_zones::threatens(view.map.grid, square, reach, view.at(target).position);
}

// tactics.threatened_by (H12)
std::vector<int> threatened_by(const odds::View& view, int combatant, Square square) {
  std::vector<int> out;
  for (const int enemy : enemies_of(view, combatant)) {
    const Combatant& e = view.at(enemy);
    if (e.threatens() && threat_zones::threatens(view.map.grid, e.position, e.reach(), square)) {
      out.push_back(enemy);
    }
  }
  return out;
}

// tactics.incoming
double incoming(const odds::View& view, int combatant, std::optional<Square> square) {
  const Combatant& me = view.at(combatant);
  double total = 0.0;
  for (const int enemy : threatened_by(view, combatant, square.value_or(me.position))) {
    double best = 0.0;
    for (const int uid : ready_melee(view.at(enemy))) {
      const odds::AttackOdds found = odds::attack_odds(
          view, actions::ActionKind::MELEE_ATTACK, combatant, uid, likely_defence(me),
          std::nullopt, enemy);
      best = std::max(best, found.expected_damage());
    }
    total += best;
  }
  return total;
}

// tactics.route_costs (H13)
std::vector<std::pair<int, double>> route_costs(const odds::View& view, int combatant,
                                                const std::vector<Square>& squares, bool full) {
  const Combatant& me = view.at(combatant);
  std::vector<std::pair<int, double>> out;
  for (const odds::Risk& risk : odds::route_risks(view, combatant, squares, full)) {
    if (risk.provokers.empty()) {
      out.emplace_back(0, 0.0);
    } else {
      out.emplace_back(static_cast<int>(risk.provokers.size()), cost_of(risk, me));
    }
  }
  return out;
}

// tactics.provoke_cost (S6)
double provoke_cost(const odds::View& view, int combatant) {
  return cost_of(odds::action_risk(view, combatant), view.at(combatant));
}

// tactics.my_turn_done
bool my_turn_done(const odds::View& view, int combatant) {
  const int owner = view.state.current_actor();
  if (owner == kNone || owner == combatant) return false;
  const std::vector<int>& order = view.state.initiative_order;
  const auto mine = std::find(order.begin(), order.end(), combatant);
  const auto theirs = std::find(order.begin(), order.end(), owner);
  return mine < theirs;
}

}  // namespace fray::agents::tactics
