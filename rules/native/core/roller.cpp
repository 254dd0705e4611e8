// rules/roller.py, rules/dice.py (success_level): see roller.hpp.
#include "roller.hpp"

#include <algorithm>

namespace fray::roller {

namespace {

// dice._round_half_up: num / den rounded half up, exactly (den > 0).
int round_half_up(int num, int den) {  // in 64 bits: 2 * num cannot overflow
  const long long top = 2LL * num + den;
  const long long bottom = 2LL * den;
  const long long quotient = top / bottom;
  return static_cast<int>((top % bottom != 0 && top < 0) ? quotient - 1 : quotient);
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
Thresholds thresholds(int skill, const SuccessRules& r, int extra_fumble) {
  Thresholds out;
  out.critical = std::max(1, round_half_up(skill, r.critical_divisor));
  out.special = std::max(1, round_half_up(skill, r.special_divisor));
  out.success = std::max(std::min(skill, r.success_cap), r.auto_success_max);
  out.fumble_above = 100 - (std::max(1, round_half_up(100 - skill, r.fumble_divisor)) + extra_fumble);
  out.auto_success_max = r.auto_success_max;
  out.auto_fail_min = r.auto_fail_min;
  return out;
}

// H2
Level success_level(int roll, int skill, const SuccessRules& r, int extra_fumble) {
  if (roll < 1 || roll > 100) {
    throw std::invalid_argument("a d100 roll is 1..100, got " + std::to_string(roll));
  }
  return level_at(roll, thresholds(skill, r, extra_fumble));
}

}  // namespace fray::roller
