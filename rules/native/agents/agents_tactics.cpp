// agents/tactics.py in C++ (scoring, threats, route and provoke costs, spell and
// manoeuvre values, the reasons' number formats; S5, S6, H8, H12, H13, H18, H19). See
// agents_tactics.hpp; react and the decision-level helpers: agents_tactics_react.cpp.
#include "agents_tactics.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <string>
#include <system_error>

#include "grid.hpp"
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
  return python_float(risk.expected_damage()) / std::max(1, mover.hp) + python_float(risk.drops);
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
  out.reserve(view.state.initiative_order.size());
  for (const int number : view.state.initiative_order) {
    const Combatant& other = view.at(number);
    if (other.in_action() && other.team == me.team && number != combatant) out.push_back(number);
  }
  return out;
}

// tactics.value_of, on the floats of the Fractions Python has (python_float)
double value_of(const odds::AttackOdds& attack_odds, const Combatant& target) {
  const double share =
      std::min(1.0, python_float(attack_odds.expected_damage()) / std::max(1, target.hp));
  return kDropWeight * python_float(attack_odds.drops) + share;
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
  return reaches_with(view, view.at(combatant).reach(), square, target);
}

bool reaches_with(const odds::View& view, int reach, Square square, int target) {
  return reach > 0 && threat_zones::threatens(view.map.grid, square, reach, view.at(target).position);
}

// tactics.threatened_by (H12)
std::vector<int> threatened_by(const odds::View& view, int combatant, Square square) {
  std::vector<int> out;
  const queries::QueryState query = view.query();
  queries::for_each_enemy(query, combatant, [&](int enemy) {  // enemies_of, without the list
    if (queries::threatens_now(query, enemy, square)) out.push_back(enemy);
  });
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
      best = std::max(best, python_float(found.expected_damage()));  // float(o.expected_damage)
    }
    total += best;
  }
  return total;
}

// tactics.route_costs (H13)
std::vector<std::pair<int, double>> route_costs(const odds::View& view, int combatant,
                                                const std::vector<Square>& squares, bool full) {
  const Combatant& me = view.at(combatant);
  const odds::DistinctRisks found = odds::distinct_route_risks(view, combatant, squares, full);
  std::vector<std::pair<int, double>> costs;  // per distinct risk
  costs.reserve(found.risks.size());
  for (const odds::Risk& risk : found.risks) {
    if (risk.provokers.empty()) {
      costs.emplace_back(0, 0.0);
    } else {
      costs.emplace_back(static_cast<int>(risk.provokers.size()), cost_of(risk, me));
    }
  }
  std::vector<std::pair<int, double>> out;
  out.reserve(squares.size());
  for (const std::size_t number : found.of_square) out.push_back(costs[number]);
  return out;
}

std::vector<std::pair<int, double>> fewest_route_costs(const odds::View& view, int combatant,
                                                       const std::vector<Square>& squares,
                                                       bool full) {
  const std::vector<char> free = odds::free_routes(view, combatant, squares, full);
  if (std::find(free.begin(), free.end(), 1) == free.end()) {
    return route_costs(view, combatant, squares, full);
  }
  std::vector<std::pair<int, double>> out;
  out.reserve(squares.size());
  for (const char unprovoked : free) out.emplace_back(unprovoked != 0 ? 0 : 1, 0.0);
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

// tactics.nearest
int nearest(const odds::View& view, Square square, const std::vector<int>& others) {
  int best = kNone;
  for (const int other : others) {
    if (best == kNone || grid::chebyshev(square, view.at(other).position) <
                             grid::chebyshev(square, view.at(best).position)) {
      best = other;
    }
  }
  return best;
}

// ------------------------------------------------------------ spells, manoeuvres

namespace {

// rules.dice.level_probabilities x 100: the d100 rolls that succeed (H2).
int succeeding_rolls(int skill, const roller::SuccessRules& success, int extra_fumble = 0) {
  int rolls = 0;
  for (int roll = 1; roll <= 100; ++roll) {
    if (roller::succeeded(roller::success_level(roll, skill, success, extra_fumble))) ++rolls;
  }
  return rolls;
}

// Dice.maximum and Dice.minimum
int dice_maximum(const roller::Dice& dice) {
  int total = dice.constant;
  for (const roller::DiceTerm& term : dice.terms) {
    total += term.sign > 0 ? term.count * term.sides : -term.count;
  }
  return total;
}
int dice_minimum(const roller::Dice& dice) {
  int total = dice.constant;
  for (const roller::DiceTerm& term : dice.terms) {
    total += term.sign > 0 ? term.count : -term.count * term.sides;
  }
  return total;
}

}  // namespace

// tactics.level_share over rules.dice.level_probabilities (H2)
double success_share(int skill, const roller::SuccessRules& success, int extra_fumble) {
  // float(Fraction(rolls, 100)): one exactly rounded division
  return static_cast<double>(succeeding_rolls(skill, success, extra_fumble)) / 100.0;
}

// tactics.spell_value (H18)
double spell_value(const odds::View& view, int caster, int spell, int target) {
  const content::Content& tables = view.content();
  const harm::SpellExtra& extra = view.rules.spells.at(static_cast<std::size_t>(spell));
  if (!extra.has_dice) return 0.0;
  const Combatant& me = view.at(caster);
  const Combatant& them = view.at(target);
  const double hit = success_share(me.skill(tables.skill_names.find("cast"), view.state.round),
                                   view.rules.success, me.magic_fumble());
  const double mean = (dice_maximum(extra.dice) + dice_minimum(extra.dice)) / 2.0;
  if (tables.spells.at(static_cast<std::size_t>(spell)).effect == content::SpellEffect::heal) {
    return hit * std::min(mean, static_cast<double>(them.max_hp - them.hp)) /
           std::max(1, them.max_hp);
  }
  const int armour = extra.ignores_armour ? 0 : them.armour_points();
  const double damage = hit * std::max(0.0, mean - armour);
  const double drop = mean - armour >= them.hp ? 1.0 : 0.0;
  return std::min(1.0, damage / std::max(1, them.hp)) + hit * drop * 0.5;
}

// tactics.manoeuvre_chance (H8, H19)
double manoeuvre_chance(const odds::View& view, int combatant, actions::ActionKind kind,
                        int target) {
  const content::Content& tables = view.content();
  const Combatant& me = view.at(combatant);
  const Combatant& them = view.at(target);
  const int skill =
      tables.skill_names.find(kind == actions::ActionKind::GRAPPLE ? "grapple" : "brawl");
  const int points = them.prone ? view.rules.prone_target_melee : 0;
  const int hit =
      succeeding_rolls(me.skill(skill, view.state.round, 1.0, points), view.rules.success);
  const int strength = tables.characteristic_names.find("str");
  const int passive = them.characteristic(
      kind == actions::ActionKind::TRIP ? tables.characteristic_names.find("dex") : strength);
  const int chance = roller::resistance_chance(me.characteristic(strength), passive,
                                               view.rules.resistance_base,
                                               view.rules.resistance_step);
  const int wins = succeeding_rolls(chance, view.rules.success);
  return static_cast<double>(hit * wins) / 10000.0;  // float(Fraction(hit * wins, 10000))
}

// ------------------------------------------------------------ reasons

namespace {

double nearest_fraction(double value) {
  // The double is exactly m / 2^shift: its continued fraction, convergent by convergent,
  // in 128-bit integers; the first convergent of denominator <= kMostDenominator within
  // 8 ulps is the Fraction, whose float is one correctly rounded division.
  constexpr std::uint64_t kMostDenominator = 10'000'000;
  constexpr std::uint64_t kMostNumerator = std::uint64_t{1} << 53;
  if (value == 0.0 || !std::isfinite(value)) return value;
  const double magnitude = std::fabs(value);
  int exponent = 0;
  const double mantissa = std::frexp(magnitude, &exponent);  // in [0.5, 1)
  const int shift = 53 - exponent;
  if (shift <= 0 || shift > 120) return value;  // an integer already, or too small to matter
  using Wide = unsigned __int128;
  Wide numerator = static_cast<Wide>(static_cast<std::uint64_t>(std::ldexp(mantissa, 53)));
  Wide denominator = Wide{1} << shift;
  const double window =
      8 * (std::nextafter(magnitude, std::numeric_limits<double>::infinity()) - magnitude);
  Wide h_before = 0, h = 1, k_before = 1, k = 0;  // h(-2), h(-1), k(-2), k(-1)
  while (denominator != 0) {
    const Wide whole = numerator / denominator;
    const Wide rest = numerator % denominator;
    const Wide h_next = whole * h + h_before;
    const Wide k_next = whole * k + k_before;
    if (k_next > kMostDenominator || h_next > kMostNumerator) break;
    const double candidate = static_cast<double>(static_cast<std::uint64_t>(h_next)) /
                             static_cast<double>(static_cast<std::uint64_t>(k_next));
    if (std::fabs(candidate - magnitude) <= window) return std::copysign(candidate, value);
    h_before = h;
    h = h_next;
    k_before = k;
    k = k_next;
    numerator = denominator;
    denominator = rest;
  }
  return value;
}

}  // namespace

double python_float(double value) {
  // the same doubles recur decision after decision (a blow's expected damage, its
  // odds): a direct-mapped table of this thread's last answers, by the value's bits
  constexpr std::size_t kSlots = 4096;
  struct Slot {
    std::uint64_t bits = 0;
    double answer = 0.0;
  };
  thread_local std::array<Slot, kSlots> known{};  // bits 0 (+0.0) answers itself
  const auto bits = std::bit_cast<std::uint64_t>(value);
  Slot& slot = known[(bits ^ (bits >> 29) ^ (bits >> 47)) % kSlots];
  if (slot.bits != bits) slot = {bits, nearest_fraction(value)};
  return slot.answer;
}

std::string fixed(double value, int digits) {
  // Python's f"{value:.{digits}f}": the exact decimal rounded half to even, as printf's
  // "%.*f" gives it; std::to_chars with a precision is the same (Ryu printf) at a
  // fraction of printf's cost. Large values fall back to printf.
  char text[64];
  const auto written = std::to_chars(text, text + sizeof text, value,
                                     std::chars_format::fixed, digits);
  if (written.ec == std::errc()) return std::string(text, written.ptr);
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string percent(double share) { return fixed(share * 100.0, 0) + "%"; }

std::string square_text(Square square) {
  char text[32];
  std::snprintf(text, sizeof text, "(%d, %d)", square.x, square.y);
  return text;
}

}  // namespace fray::agents::tactics
