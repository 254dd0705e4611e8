// rules/roller.py, rules/dice.py (success_level): see roller.hpp.
#include "roller.hpp"

#include <algorithm>

namespace fray::roller {

namespace {

// dice._round_half_up: num / den rounded half up, exactly (den > 0).
int round_half_up(int num, int den) {
  const int top = 2 * num + den;
  const int bottom = 2 * den;
  const int quotient = top / bottom;
  return (top % bottom != 0 && top < 0) ? quotient - 1 : quotient;  // floor division
}

}  // namespace

int die(state::Roller& roller, int sides) {
  const bool was_forced = roller.forced_next < roller.forced.size();
  const int forced_face = was_forced ? roller.forced[roller.forced_next] : 0;
  const std::optional<int> face = roller.die(sides);
  if (!face) {
    throw ForcedDiceError("forced face " + std::to_string(forced_face) + " does not fit a d" +
                          std::to_string(sides));
  }
  return *face;
}

Rolled roll(state::Roller& roller, const Dice& dice) {
  Rolled out;
  out.total = dice.constant;
  for (const DiceTerm& term : dice.terms) {
    for (int i = 0; i < term.count; ++i) {
      const int face = die(roller, term.sides);
      out.faces.push_back(face);
      out.total += term.sign * face;
    }
  }
  return out;
}

// H2
Level success_level(int roll, int skill, const SuccessRules& r, int extra_fumble) {
  if (roll < 1 || roll > 100) {
    throw std::invalid_argument("a d100 roll is 1..100, got " + std::to_string(roll));
  }
  const int critical = std::max(1, round_half_up(skill, r.critical_divisor));
  const int special = std::max(1, round_half_up(skill, r.special_divisor));
  const int success = std::max(std::min(skill, r.success_cap), r.auto_success_max);
  const int fumble_count = std::max(1, round_half_up(100 - skill, r.fumble_divisor)) + extra_fumble;
  const bool fumble = roll > 100 - fumble_count && roll > r.auto_success_max;
  if (roll >= r.auto_fail_min) return fumble ? Level::FUMBLE : Level::FAILURE;
  if (roll <= critical) return Level::CRITICAL;
  if (roll <= special) return Level::SPECIAL;
  if (fumble) return Level::FUMBLE;
  if (roll <= success) return Level::SUCCESS;
  return Level::FAILURE;
}

}  // namespace fray::roller
