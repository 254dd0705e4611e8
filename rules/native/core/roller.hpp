// rules/roller.py's rolls on the native Pcg64 (S4, H2): one die (a forced face first,
// else a random one), a percentile roll, and a dice expression (rules.dice.Dice) rolled
// face by face in Python's order. H2's success levels (rules.dice.success_level) and
// H8's resistance chance are here too, with the ruleset numbers they read.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "state.hpp"

namespace fray::roller {

// rules.errors.ForcedDiceError: a forced face that does not fit its die.
struct ForcedDiceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// rules.dice.Dice: (sign, count, sides) terms and a constant.
struct DiceTerm {
  int sign = 1;
  int count = 0;
  int sides = 0;
};
struct Dice {
  std::vector<DiceTerm> terms;
  int constant = 0;
};

// Roller.die: the next forced face, else a random one (ForcedDiceError when it does not fit).
int die(state::Roller& roller, int sides);
inline int d100(state::Roller& roller) { return die(roller, 100); }
// Roller.roll: the total and the faces in order.
struct Rolled {
  int total = 0;
  std::vector<std::int32_t> faces;
};
Rolled roll(state::Roller& roller, const Dice& dice);

// schema.SuccessRules (H2).
struct SuccessRules {
  int critical_divisor = 20;
  int special_divisor = 5;
  int success_cap = 95;
  int auto_success_max = 5;
  int auto_fail_min = 96;
  int fumble_divisor = 20;
  friend bool operator==(const SuccessRules&, const SuccessRules&) = default;
};

// rules.dice.SuccessLevel, worst to best.
enum class Level : std::uint8_t { FUMBLE, FAILURE, SUCCESS, SPECIAL, CRITICAL };
inline constexpr const char* kLevelNames[] = {"FUMBLE", "FAILURE", "SUCCESS", "SPECIAL",
                                              "CRITICAL"};
inline bool succeeded(Level level) { return level >= Level::SUCCESS; }

// H2's thresholds for one skill: the highest roll of each level (a fumble is a roll over
// `fumble_above`), computed once for the faces of a roll or of a whole distribution.
struct Thresholds {
  int critical = 0;
  int special = 0;
  int success = 0;
  int fumble_above = 0;
  int auto_success_max = 0;
  int auto_fail_min = 0;
};
Thresholds thresholds(int skill, const SuccessRules& rules, int extra_fumble = 0);

// H2: the level of d100 face `roll` (1..100, unchecked) under `limits`.
inline Level level_at(int roll, const Thresholds& limits) {
  const bool fumble = roll > limits.fumble_above && roll > limits.auto_success_max;
  if (roll >= limits.auto_fail_min) return fumble ? Level::FUMBLE : Level::FAILURE;
  if (roll <= limits.critical) return Level::CRITICAL;
  if (roll <= limits.special) return Level::SPECIAL;
  if (fumble) return Level::FUMBLE;
  if (roll <= limits.success) return Level::SUCCESS;
  return Level::FAILURE;
}

// H2: the success level of a d100 `roll` against `skill` (extra_fumble widens the fumble
// range, S20/H18).
Level success_level(int roll, int skill, const SuccessRules& rules, int extra_fumble = 0);

// H8: base + step x (active - passive).
// In 64 bits, clamped to int: with characteristics within rules/limits.py's MAX_STAT
// (checked at the binding) it is Python's exact value.
inline int resistance_chance(int active, int passive, int base, int step) {
  const long long chance = base + static_cast<long long>(step) * (static_cast<long long>(active) - passive);
  return static_cast<int>(std::clamp<long long>(chance, INT32_MIN, INT32_MAX));
}

}  // namespace fray::roller
