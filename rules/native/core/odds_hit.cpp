// rules/odds/hit.py in C++ (H6, H7, H9, H10, H11, S24). See odds_hit.hpp.
#include "odds_hit.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <unordered_map>

namespace fray::odds {

double Distribution::at(int value) const {
  const int index = value - lowest;
  if (index < 0 || index >= static_cast<int>(probability.size())) return 0.0;
  return probability[static_cast<std::size_t>(index)];
}

void Distribution::add(int value, double p) {
  if (probability.empty()) {
    lowest = value;
    probability.assign(1, 0.0);
  } else if (value < lowest) {
    probability.insert(probability.begin(), static_cast<std::size_t>(lowest - value), 0.0);
    lowest = value;
  } else if (value > highest()) {
    probability.resize(static_cast<std::size_t>(value - lowest + 1), 0.0);
  }
  probability[static_cast<std::size_t>(value - lowest)] += p;
}

// hit.py _convolve
Distribution convolve(const Distribution& first, const Distribution& second) {
  Distribution out;
  if (first.probability.empty() || second.probability.empty()) return out;
  out.lowest = first.lowest + second.lowest;
  out.probability.assign(first.probability.size() + second.probability.size() - 1, 0.0);
  for (std::size_t i = 0; i < first.probability.size(); ++i) {
    const double p = first.probability[i];
    if (p == 0.0) continue;
    for (std::size_t j = 0; j < second.probability.size(); ++j) {
      out.probability[i + j] += p * second.probability[j];
    }
  }
  return out;
}

// hit.py dice_distribution (_dice_items): the constant, then each die of each term.
Distribution dice_distribution(const roller::Dice& dice) {
  Distribution dist;
  dist.add(dice.constant, 1.0);
  for (const roller::DiceTerm& term : dice.terms) {
    Distribution face;
    if ((term.sign == 1 || term.sign == -1) && term.sides > 0) {
      // each face once: what adding sign * f for f = 1 .. sides, 1 / sides each, gives
      face.lowest = term.sign < 0 ? -term.sides : 1;
      face.probability.assign(static_cast<std::size_t>(term.sides), 1.0 / term.sides);
    } else {
      for (int f = 1; f <= term.sides; ++f) face.add(term.sign * f, 1.0 / term.sides);
    }
    for (int die = 0; die < term.count; ++die) dist = convolve(dist, face);
  }
  return dist;
}

LevelDistribution no_roll() { return {{Level::FAILURE, 1.0}}; }

namespace {

// hit.py _levels (rules.dice.level_probabilities): count the d100 faces of each level (H2).
Levels counted_levels(int chance, const roller::SuccessRules& success) {
  std::array<int, kLevelCount> counts{};
  const roller::Thresholds limits = roller::thresholds(chance, success);
  for (int roll = 1; roll <= 100; ++roll) {
    counts[static_cast<std::size_t>(roller::level_at(roll, limits))] += 1;
  }
  Levels out{};
  for (std::size_t i = 0; i < kLevelCount; ++i) out[i] = counts[i] / 100.0;
  return out;
}

}  // namespace

// hit.py _levels, kept per thread for the chances skills usually reach under the rules
// last asked (every blow's odds ask for its attack and defence rolls' levels)
Levels levels(int chance, const roller::SuccessRules& success) {
  constexpr int kLowest = -128;
  constexpr int kCount = 512;  // chances kLowest .. kLowest + kCount - 1
  struct Kept {
    roller::SuccessRules rules;
    std::array<Levels, kCount> levels{};
    std::array<bool, kCount> known{};
  };
  thread_local Kept kept;
  const int index = chance - kLowest;
  if (index < 0 || index >= kCount) return counted_levels(chance, success);
  if (!(kept.rules == success)) {
    kept.rules = success;
    kept.known.fill(false);
  }
  const auto at = static_cast<std::size_t>(index);
  if (!kept.known[at]) {
    kept.levels[at] = counted_levels(chance, success);
    kept.known[at] = true;
  }
  return kept.levels[at];
}

// hit.py _succeeds
double succeeds(int chance, const roller::SuccessRules& success) {
  const Levels found = levels(chance, success);
  double total = 0.0;
  for (std::size_t i = 0; i < kLevelCount; ++i) {
    if (roller::succeeded(static_cast<Level>(i))) total += found[i];
  }
  return total;
}

// hit.py _level_dist
LevelDistribution level_distribution(std::optional<int> chance, const roller::SuccessRules& success) {
  if (!chance) return no_roll();
  const Levels found = levels(*chance, success);
  LevelDistribution out;
  for (std::size_t i = 0; i < kLevelCount; ++i) {
    if (found[i] != 0.0) out.emplace_back(static_cast<Level>(i), found[i]);
  }
  return out;
}

std::size_t OddsKeyHash::operator()(const std::vector<int>& key) const {
  std::size_t hash = key.size();
  for (const int value : key) hash = hash * 1000003u ^ static_cast<std::size_t>(value);
  return hash;
}

namespace {

// hit.py _rolled (H6, H7), computed
Distribution rolled_afresh(const roller::Dice& dice, const roller::Dice& bonus, Level level,
                           bool impale) {
  const Distribution weapon = dice_distribution(dice);
  Distribution base;
  if (level == Level::CRITICAL) {  // H7: maximum weapon damage + rolled bonus, ignores armour
    base.add(weapon.highest(), 1.0);
  } else if (level == Level::SPECIAL && impale) {  // H7: impale rolls the weapon dice twice
    base = convolve(weapon, weapon);
  } else {
    base = weapon;
  }
  const Distribution total = convolve(base, dice_distribution(bonus));
  Distribution out;
  for (std::size_t i = 0; i < total.probability.size(); ++i) {
    if (total.probability[i] == 0.0) continue;
    out.add(std::max(0, total.lowest + static_cast<int>(i)), total.probability[i]);
  }
  return out;
}

void append_dice(std::vector<int>& key, const roller::Dice& dice) {
  key.push_back(dice.constant);
  key.push_back(static_cast<int>(dice.terms.size()));
  for (const roller::DiceTerm& term : dice.terms) key.insert(key.end(), {term.sign, term.count, term.sides});
}

}  // namespace

// hit.py _rolled (H6, H7), kept per thread by its arguments
const Distribution& rolled(const roller::Dice& dice, const roller::Dice& bonus, Level level,
                           bool impale) {
  constexpr std::size_t kKept = 4096;
  thread_local std::unordered_map<std::vector<int>, Distribution, OddsKeyHash> known;
  thread_local std::vector<int> key;  // reused: a lookup allocates nothing
  key.assign({static_cast<int>(level), impale ? 1 : 0});
  append_dice(key, dice);
  append_dice(key, bonus);
  const auto found = known.find(key);
  if (found != known.end()) return found->second;
  if (known.size() >= kKept) known.clear();
  return known.emplace(key, rolled_afresh(dice, bonus, level, impale)).first->second;
}

namespace {

// hit.py _after_damage (H7, S24), each outcome of nonzero probability handed to
// visit(outcome) in the order of the list after_damage returns (no list built).
template <typename Visit>
void each_after_damage(const Blow& blow, Level level, int damage, int through,
                       const roller::SuccessRules& success, Visit&& visit) {
  const int hp = blow.hp - damage;
  const bool dead = hp <= blow.out_at && hp < -blow.con;  // H5
  const bool special = damage > 0 && level == Level::SPECIAL && !dead;
  const bool bleeds = special && blow.damage_type == DamageKind::slash && !blow.bleeding;
  double knocked = 0.0;
  if (special && blow.damage_type == DamageKind::crush && hp > blow.out_at) {
    // H8: CON vs damage; rules/odds/hit.py takes resistance_chance's defaults (50, 5)
    knocked = 1.0 - succeeds(roller::resistance_chance(blow.con, damage, 50, 5), success);
  }
  const std::array<Outcome, 2> outcomes{{{damage, bleeds, true, knocked},
                                         {damage, bleeds, false, 1.0 - knocked}}};
  const auto keep = [&visit](const Outcome& outcome) {
    if (outcome.probability != 0.0) visit(outcome);
  };
  if (blow.poison_dice && through > 0 && !dead) {  // S24
    const double fails = 1.0 - succeeds(blow.poison_save, success);
    const Distribution extra = dice_distribution(*blow.poison_dice);
    for (const Outcome& outcome : outcomes) {
      keep({outcome.damage, outcome.bleeds, outcome.knocked, outcome.probability * (1.0 - fails)});
      for (std::size_t i = 0; i < extra.probability.size(); ++i) {
        if (extra.probability[i] == 0.0) continue;
        const int more = std::max(0, extra.lowest + static_cast<int>(i));
        keep({outcome.damage + more, outcome.bleeds, outcome.knocked,
              outcome.probability * fails * extra.probability[i]});
      }
    }
    return;
  }
  for (const Outcome& outcome : outcomes) keep(outcome);
}

}  // namespace

// hit.py _after_damage (H7, S24)
Outcomes after_damage(const Blow& blow, Level level, int damage, int through,
                      const roller::SuccessRules& success) {
  Outcomes outcomes;
  each_after_damage(blow, level, damage, through, success,
                    [&outcomes](const Outcome& outcome) { outcomes.push_back(outcome); });
  return outcomes;
}

// hit.py _hit_outcomes (H9: parry blocks AP, 2 x AP on a special, all on a critical;
// H10: the dodge after any parry but a critical; H6 armour; H11 a fumble blocks nothing)
Outcomes hit_outcomes(const Blow& blow, Level level, const LevelDistribution& parry, int ap,
                      const LevelDistribution& dodge, const roller::SuccessRules& success,
                      int parry_factor, std::array<int, 2> dodge_cuts) {
  const Distribution& roll = rolled(blow.dice, blow.bonus, level,
                                   blow.damage_type == DamageKind::impale);
  const int most = std::max(0, roll.highest());
  Tally parried(0, 2 * most + 1);  // (after parry, may still dodge) as 2 x after + may dodge
  for (std::size_t i = 0; i < roll.probability.size(); ++i) {
    const double p_roll = roll.probability[i];
    if (p_roll == 0.0) continue;
    const int value = roll.lowest + static_cast<int>(i);
    for (const auto& [p_level, p_parry] : parry) {
      const int block = p_level == Level::SUCCESS   ? ap
                        : p_level == Level::SPECIAL  ? ap * parry_factor
                        : p_level == Level::CRITICAL ? value
                                                     : 0;
      parried.add(2 * (value - std::min(block, value)) + (p_level != Level::CRITICAL ? 1 : 0),
                  p_roll * p_parry);
    }
  }
  static const LevelDistribution nothing = no_roll();
  // (damage, through armour) by through alone: the damage is a nondecreasing function of
  // it (through less the armour, at least 0; a critical ignores armour), so the order of
  // the pairs is the order of `through`
  const auto damage_of = [&](int through) {
    const int armour = level == Level::CRITICAL ? 0 : std::min(through, blow.armour);
    return std::max(0, through - armour);
  };
  Tally dealt(0, most);
  parried.each([&](int key, double p_parried) {
    const int after_parry = key >> 1;  // floor: 2 x after + flag
    const bool may_dodge = (key & 1) != 0;
    for (const auto& [d_level, p_dodge] : (may_dodge ? dodge : nothing)) {
      const int cut = d_level == Level::SUCCESS   ? dodge_cuts[0]
                      : d_level == Level::SPECIAL  ? dodge_cuts[1]
                      : d_level == Level::CRITICAL ? after_parry
                                                   : 0;
      dealt.add(after_parry - std::min(cut, after_parry), p_parried * p_dodge);
    }
  });
  Tally out(0, 4 * most + 3);  // (damage, bleeds, knocked) as 4 x damage + 2 x bleeds + knocked
  dealt.each([&](int through, double p_dealt) {
    each_after_damage(blow, level, damage_of(through), through, success, [&](const Outcome& after) {
      out.add(4 * after.damage + (after.bleeds ? 2 : 0) + (after.knocked ? 1 : 0),
              p_dealt * after.probability);
    });
  });
  Outcomes result;
  result.reserve(8);
  out.each([&](int key, double p) {
    result.push_back({key >> 2, (key & 2) != 0, (key & 1) != 0, p});
  });
  return result;
}

}  // namespace fray::odds
