// rules/odds/risk.py in C++ (S5, S6, H5, H13). See odds_risk.hpp.
#include "odds_risk.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "combat.hpp"
#include "turns.hpp"

namespace fray::odds {

namespace {

// As odds_attack.cpp's: a weapon replaces the first best only when better by more than
// this relative margin, so exact ties keep the first, as Python's Fractions do.
constexpr double kTie = 1e-12;

}  // namespace

double Risk::expected_damage() const {
  double total = 0.0;
  for (std::size_t i = 0; i < damage.probability.size(); ++i) {
    total += (damage.lowest + static_cast<int>(i)) * damage.probability[i];
  }
  return total;
}

// risk.py free_attack_risk
Risk free_attack_risk(const View& view, int mover, const std::vector<int>& enemies, Defence defence) {
  std::vector<FreeOutcomes> attacks;
  for (std::size_t index = 0; index < enemies.size(); ++index) {
    std::optional<FreeOutcomes> odds =
        best_free_attack(view, enemies[index], mover, index == 0 ? defence : Defence::none);
    if (odds) attacks.push_back(std::move(*odds));
  }
  return combined_risk(enemies, attacks, view.at(mover).hp, view.rules.out_of_action_at);
}

// risk.py _combined_risk (H5, H13)
Risk combined_risk(const std::vector<int>& provokers, const std::vector<FreeOutcomes>& attacks,
                   int hp, int out_at) {
  Tally states(0, 1);  // (lost, stopped) as 2 x lost + stopped
  states.add(0, 1.0);
  for (const FreeOutcomes& odds : attacks) {
    Tally next(0, 63);
    states.each([&](int state, double p) {
      const int lost = state >> 1;
      if ((state & 1) != 0) {  // stopped
        next.add(state, p);
        return;
      }
      for (const FreeOutcome& outcome : odds) {
        const int total = lost + outcome.damage;
        const bool stop = outcome.prone || hp - total <= out_at;
        next.add(2 * total + (stop ? 1 : 0), p * outcome.probability);
      }
    });
    states = std::move(next);
  }
  Risk risk;
  risk.provokers = provokers;
  states.each([&](int state, double p) {
    risk.damage.add(state >> 1, p);
    if ((state & 1) != 0) risk.stops += p;
  });
  for (std::size_t i = 0; i < risk.damage.probability.size(); ++i) {
    const int lost = risk.damage.lowest + static_cast<int>(i);
    if (lost > 0) risk.wounds += risk.damage.probability[i];
    if (hp - lost <= out_at) risk.drops += risk.damage.probability[i];
  }
  return risk;
}

// risk.py _best_free_attack (S5, H12)
std::optional<FreeOutcomes> best_free_attack(const View& view, int enemy, int mover, Defence defence) {
  const Rules rules = rules_of(view);
  const Defences defences = defences_of(view, mover, false, defence, std::nullopt);
  const queries::QueryState query = view.query();
  const content::Content& tables = view.content();
  const Combatant& attacker = view.at(enemy);
  const combatant::Square target = view.at(mover).position;
  std::optional<std::pair<double, FreeOutcomes>> best;
  attacker.for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
    if (weapon.kind != content::WeaponKind::melee) return;  // Combatant.ready_melee
    if (!queries::weapon_reaches(query, enemy, weapon.reach, target)) return;
    const int chance = combat::attack_chance(query, view.rules, enemy, mover, weapon.skill, false, 0);
    const int row = tables.equipment_of(attacker.inventory[index].item).weapon;
    const Blow blow = blow_of(view, enemy, mover, row, frames::AttackMode::free);
    std::pair<double, FreeOutcomes> found = free_attack_outcomes(rules, blow, chance, defences);
    if (!best || found.first > best->first + kTie * std::max(1.0, std::fabs(best->first))) {
      best = std::move(found);
    }
  });
  if (!best) return std::nullopt;
  return std::move(best->second);
}

namespace {

// free_attack_outcomes' answers, per thread (risk.py's lru_cache; odds_attack.hpp odds_key)
thread_local std::unordered_map<std::vector<int>, std::pair<double, FreeOutcomes>, OddsKeyHash>
    known_free_attacks;
constexpr std::size_t kKeptFreeAttacks = 65536;

std::pair<double, FreeOutcomes> computed_free_attack(const Rules& rules, const Blow& blow,
                                                     int chance, const Defences& defences);

}  // namespace

// risk.py _free_attack_outcomes (cached, as Python caches it)
std::pair<double, FreeOutcomes> free_attack_outcomes(const Rules& rules, const Blow& blow,
                                                     int chance, const Defences& defences) {
  std::vector<int> key = odds_key(rules, blow, chance, defences);
  const auto found = known_free_attacks.find(key);
  if (found != known_free_attacks.end()) return found->second;
  std::pair<double, FreeOutcomes> made = computed_free_attack(rules, blow, chance, defences);
  if (known_free_attacks.size() >= kKeptFreeAttacks) known_free_attacks.clear();
  known_free_attacks.emplace(std::move(key), made);
  return made;
}

namespace {

std::pair<double, FreeOutcomes> computed_free_attack(const Rules& rules, const Blow& blow,
                                                     int chance, const Defences& defences) {
  const Levels found = levels(chance, rules.success);
  Tally out(0, 63);  // (hp lost, knocked prone) as 2 x hp lost + knocked
  for (std::size_t i = 0; i < kLevelCount; ++i) {
    const double p_level = found[i];
    if (p_level == 0.0) continue;  // Python adds nothing but zeros for it
    const auto level = static_cast<Level>(i);
    if (!roller::succeeded(level)) {
      out.add(0, p_level);
      continue;
    }
    const Outcomes hits = defence_and_outcomes(rules, defences, blow, level).second;
    if (hits.empty()) out.add(0, p_level);
    for (const Outcome& outcome : hits) {
      out.add(2 * outcome.damage + (outcome.knocked ? 1 : 0), p_level * outcome.probability);
    }
  }
  double mean = 0.0;
  FreeOutcomes outcomes;
  out.each([&](int key, double p) {
    const int damage = key >> 1;
    mean += damage * p;
    outcomes.push_back({damage, (key & 1) != 0, p});
  });
  return {mean, std::move(outcomes)};
}

}  // namespace

// risk.py route_risks (H13): the routes searched once, with the threat zones; routes
// provoking the same enemies carry the same risk, computed once per call
DistinctRisks distinct_route_risks(const View& view, int combatant,
                                   const std::vector<combatant::Square>& squares, bool full,
                                   Defence defence) {
  const grid::Grid& grid = view.map.grid;
  std::vector<int> ranked;
  const reach::Query search = turns::route_query(view.query(), grid, combatant, full, true, &ranked);
  const std::shared_ptr<const reach::Reach> reach = view.map.graph.reachable_cached(search);
  DistinctRisks out;
  out.of_square.reserve(squares.size());
  std::vector<int> provokers;
  std::vector<int> numbers;
  for (const combatant::Square square : squares) {
    const std::optional<std::size_t> found = reach->number_of(square.x, square.y);
    if (!found) {
      throw std::invalid_argument("route_risk: " + view.state.roster.ids.name(combatant) +
                                  " cannot move to (" + std::to_string(square.x) + ", " +
                                  std::to_string(square.y) + ")");
    }
    provokers.clear();
    reach->provokers(*found, numbers);
    for (const int number : numbers) {
      provokers.push_back(ranked.at(static_cast<std::size_t>(number)));
    }
    const auto same = std::find_if(out.risks.begin(), out.risks.end(),
                                   [&](const Risk& risk) { return risk.provokers == provokers; });
    out.of_square.push_back(static_cast<std::size_t>(same - out.risks.begin()));
    if (same == out.risks.end()) out.risks.push_back(free_attack_risk(view, combatant, provokers, defence));
  }
  return out;
}

std::vector<char> free_routes(const View& view, int combatant,
                              const std::vector<combatant::Square>& squares, bool full) {
  const grid::Grid& grid = view.map.grid;
  const reach::Query search = turns::route_query(view.query(), grid, combatant, full, true);
  std::vector<char> free_at(static_cast<std::size_t>(grid.width() * grid.height()), 0);
  for (const reach::Destination& found : view.map.graph.free_destinations(search)) {
    free_at[static_cast<std::size_t>(grid.index({found.x, found.y}))] = 1;
  }
  std::vector<char> out;
  out.reserve(squares.size());
  for (const combatant::Square square : squares) {
    out.push_back(grid.in_bounds(square) ? free_at[static_cast<std::size_t>(grid.index(square))] : 0);
  }
  return out;
}

std::vector<Risk> route_risks(const View& view, int combatant,
                              const std::vector<combatant::Square>& squares, bool full,
                              Defence defence) {
  const DistinctRisks found = distinct_route_risks(view, combatant, squares, full, defence);
  std::vector<Risk> out;
  out.reserve(squares.size());
  for (const std::size_t number : found.of_square) out.push_back(found.risks[number]);
  return out;
}

// risk.py route_risk
Risk route_risk(const View& view, int combatant, combatant::Square square, bool full, Defence defence) {
  return route_risks(view, combatant, {square}, full, defence).front();
}

// risk.py action_risk (S6)
Risk action_risk(const View& view, int combatant, Defence defence) {
  return free_attack_risk(view, combatant, queries::provokers_at(view.query(), combatant), defence);
}

}  // namespace fray::odds
