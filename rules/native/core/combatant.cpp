// rules/combatant.py: the derived values of S17, S19-S21, H3-H6, H12 (see combatant.hpp).
// Each function does Python's arithmetic in Python's order on doubles; the build turns
// off floating-point contraction (CMakeLists.txt) so that a * b + c stays two roundings.
#include "combatant.hpp"

#include <charconv>
#include <array>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <system_error>

namespace fray::combatant {

namespace {

constexpr double kEpsilon = 1e-9;  // math.floor(x + 1e-9): float noise never floors down

// Python's math.floor(x) for the small values here.
int floor_to_int(double x) { return static_cast<int>(std::floor(x)); }

}  // namespace

double python_round(double x, int ndigits) {
  // CPython float.__round__: non-finite values and zeros come back as they are; else
  // dtoa mode 3 (the correctly rounded decimal, exact ties to even) and strtod. to_chars
  // with a precision is exact (Ryu printf, ties to even) and from_chars correctly
  // rounded, so the result is the same double.
  if (!std::isfinite(x) || x == 0.0) return x;
  if (ndigits > 323) return x;  // NDIGITS_MAX
  if (ndigits < -308) return 0.0 * x;  // NDIGITS_MIN
  if (ndigits < 0) throw std::invalid_argument("python_round: ndigits < 0 is not ported");
  // Fast path, the same double: x * 10**ndigits is within 2**-13 of the exact product
  // (|product| < 2**40), so away from a half its exact decimal rounding is certain, and
  // the integer it rounds to divided by 10**ndigits (both exact doubles) is correctly
  // rounded, as strtod of the rounded decimal is.
  if (ndigits <= 15) {
    constexpr std::array<double, 16> kPowers{1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                             1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const double scale = kPowers[static_cast<std::size_t>(ndigits)];
    const double scaled = x * scale;
    if (std::fabs(scaled) < 0x1p40) {
      const double below = std::floor(scaled);
      const double fraction = scaled - below;
      if (std::fabs(fraction - 0.5) > 1e-3) {  // the sign kept, as for -0.0 (a tiny negative)
        return std::copysign((fraction < 0.5 ? below : below + 1.0) / scale, x);
      }
    }
  }
  char buffer[400];  // |x| < 1.8e308: 309 digits, a sign, a point and at most 323 decimals
  std::string long_buffer;
  char* first = buffer;
  char* last = buffer + sizeof buffer;
  auto written = std::to_chars(first, last, x, std::chars_format::fixed, ndigits);
  if (written.ec != std::errc{}) {
    long_buffer.resize(700);
    first = long_buffer.data();
    last = first + long_buffer.size();
    written = std::to_chars(first, last, x, std::chars_format::fixed, ndigits);
    if (written.ec != std::errc{}) throw std::runtime_error("python_round: to_chars failed");
  }
  double rounded = 0.0;
  const auto read = std::from_chars(first, written.ptr, rounded);
  if (read.ec != std::errc{}) throw std::overflow_error("rounded value too large");
  return rounded;
}

// ------------------------------------------------------------ basics

const content::Content& Combatant::c() const {
  if (content == nullptr) throw std::runtime_error("combatant has no content attached");
  return *content;
}

int Combatant::characteristic(int characteristic_id) const {
  if (characteristic_id == kNone ||
      static_cast<std::size_t>(characteristic_id) >= characteristics.size() ||
      characteristics[static_cast<std::size_t>(characteristic_id)] == kAbsent) {
    throw std::out_of_range("characteristic not held");
  }
  return characteristics[static_cast<std::size_t>(characteristic_id)];
}

// ------------------------------------------------------------ H4, H6

int Combatant::dex_bonus() const {
  // H4: floor((DEX - 10) / 2)
  const content::InitiativeRules& r = c().ruleset.initiative;
  return floor_divide(characteristic(c().dexterity) - r.dex_bonus_base, r.dex_bonus_divisor);
}

// ------------------------------------------------------------ S19, S20

double Combatant::capacity_stones() const {
  // S19: SIZ x (STR + 10) / 20 stones (Python: an int product, then true division)
  const content::EncumbranceRules& e = c().ruleset.encumbrance;
  const long long product = static_cast<long long>(characteristic(c().size)) *
                            (characteristic(c().strength) + e.str_offset);
  return static_cast<double>(product) / static_cast<double>(e.divisor);
}

double Combatant::carried_stones() const {
  // Everything carried or worn, in stones, summed in the Python loop's order (ground items
  // excluded: a ground item is not in any inventory). Content.weight_of per item.
  const content::Content& tables = c();
  double total = 0.0;
  if (armour != kNone) total += tables.armour[static_cast<std::size_t>(armour)].weight;
  for (const ItemInstance& inst : inventory) {
    const content::Equipment& entry = tables.equipment_of(inst.item);
    if (entry.weapon == kNone && entry.armour == kNone && entry.item == kNone) {
      throw std::out_of_range("load_stones: " + tables.equipment_names.name(inst.item));
    }
    total += entry.weight * static_cast<double>(inst.count);  // a natural weapon adds +0.0
  }
  return total;
}

double Combatant::load_stones() const {
  // S19: "over half" is exact; drop float noise from summing decimal weights
  return python_round(carried_stones(), 9);
}

Burden Combatant::burden() const {
  // S20: the burden of the body armour worn ("none" without)
  if (armour == kNone) return Burden::none;
  return c().armour[static_cast<std::size_t>(armour)].burden;
}

bool Combatant::untrained_for_burden() const {
  // S20: anyone not trained to the burden worn is automatically Encumbered
  return static_cast<int>(burden()) > static_cast<int>(armour_training);
}

bool Combatant::encumbered() const {
  // S19/S20: load over half capacity, or armour above training
  const content::EncumbranceRules& e = c().ruleset.encumbrance;
  const double carried = carried_stones();
  const double limit = capacity_stones() * e.threshold_fraction;
  // load_stones() > limit: rounding to 9 decimals moves the sum by less than 1e-9 plus an
  // ulp, so only a sum this close to the limit needs the rounded value to compare.
  const bool near = std::fabs(carried - limit) <= 1e-6 * std::max(1.0, std::fabs(limit));
  const bool over = near ? python_round(carried, 9) > limit : carried > limit;
  return over || untrained_for_burden();
}

int Combatant::armour_points() const {
  // H6: body armour AP subtracted from damage
  return armour != kNone ? c().armour[static_cast<std::size_t>(armour)].ap : 0;
}

// ------------------------------------------------------------ S17, S21, H3

double Combatant::fatigue_factor() const {
  // S21: x1 fresh, x1/2 Fatigued, x1/10 Exhausted
  const content::FatigueRules& f = c().ruleset.fatigue;
  switch (fatigue_level) {
    case 0: return 1.0;
    case 1: return f.fatigued_factor;
    case 2: return f.exhausted_factor;
    default: throw std::out_of_range("fatigue_level outside 0..2");
  }
}

int Combatant::mov() const { return mov(encumbered()); }

int Combatant::mov(bool is_encumbered) const {
  // S17/S19/S20/S21: (race MOV - burden penalty) x encumbrance x fatigue factors, rounded
  // down (H3), never below the ruleset's minimum.
  const content::Ruleset& rs = c().ruleset;
  const int base = c().races.at(static_cast<std::size_t>(race)).mov -
                   rs.burden[static_cast<std::size_t>(burden())].mov_penalty;
  double factor = fatigue_factor();
  if (is_encumbered) factor *= rs.encumbrance.factor;
  const int floored = floor_to_int(static_cast<double>(base) * factor + kEpsilon);
  return floored > rs.movement.min_mov ? floored : rs.movement.min_mov;
}

int Combatant::move_squares() const {
  // S17: squares per MOVE action, floor(MOV / 2)
  return floor_divide(mov(), c().ruleset.movement.move_divisor);
}

bool Combatant::skill_possible(int skill_id) const {
  // S20/H3: false where worn gear makes the skill impossible (bow in gauntlets)
  if (skill_id == kNone) return true;  // impossible lists name ruleset skills only
  bool possible = true;
  for_each_worn([&](const content::Armour& worn) {
    for (int impossible : worn.impossible) {
      if (impossible == skill_id) possible = false;
    }
  });
  return possible;
}

namespace {

// Whether skill `skill_id` is physical, the category encumbrance and burden slow (H3).
bool physical(const content::Ruleset& rs, int skill_id) {
  return skill_id == kNone ||
         rs.skills.at(static_cast<std::size_t>(skill_id)).category == content::SkillCategory::physical;
}

// H3: the product of every multiplier that applies to skill `skill_id` (is_physical: its
// category is; is_encumbered: the combatant is, read only for a physical skill).
double multiplier(const Combatant& combatant, int skill_id, bool is_physical, bool is_encumbered) {
  const content::Ruleset& rs = combatant.c().ruleset;
  double factor = combatant.fatigue_factor();
  if (is_physical) {
    factor *= rs.burden[static_cast<std::size_t>(combatant.burden())].skill_factor;
    if (is_encumbered) factor *= rs.encumbrance.factor;
  }
  combatant.for_each_worn([&](const content::Armour& worn) {
    // a.skill_factors.get(name, 1.0): a factor of 1.0 leaves the product as it is
    for (const auto& [skill, skill_factor] : worn.skill_factors) {
      if (skill == skill_id) factor *= skill_factor;
    }
  });
  return factor;
}

// H3's skill value from its multiplier and a situational factor (multiplied in that
// order, as Python does, then rounded down), plus the buffs active in `current_round`.
int buffed(const Combatant& combatant, int skill_id, std::optional<int> current_round,
           double product, double factor) {
  int value = floor_to_int(static_cast<double>(combatant.base_skill(skill_id)) * product *
                               factor + kEpsilon);
  for (const Buff& buff : combatant.buffs) {
    if (!current_round || *current_round <= buff.last_round) value += buff.points;
  }
  return value;
}

}  // namespace

double Combatant::skill_multiplier(int skill_id) const {
  // encumbered() (a sum over the inventory) only where the skill is physical
  const bool is_physical = physical(c().ruleset, skill_id);
  return multiplier(*this, skill_id, is_physical, is_physical && encumbered());
}

double Combatant::skill_multiplier(int skill_id, bool is_encumbered) const {
  return multiplier(*this, skill_id, physical(c().ruleset, skill_id), is_encumbered);
}

int Combatant::base_skill(int skill_id) const {
  if (skill_id == kNone) return 0;
  const auto index = static_cast<std::size_t>(skill_id);
  if (index < base_skills.size() && base_skills[index] != kAbsent) return base_skills[index];
  return c().ruleset.skills.at(index).base;
}

int Combatant::skill(int skill_id, std::optional<int> current_round, double factor,
                     int points) const {
  // H3: effective skill: all multipliers (burden, encumbrance, fatigue, gear, and any
  // situational factor such as darkness) multiply together and round down; then
  // percentage points apply (active buffs and situational points). 0 where the skill is
  // impossible.
  if (!skill_possible(skill_id)) return 0;
  return buffed(*this, skill_id, current_round, skill_multiplier(skill_id), factor) + points;
}

int Combatant::skill(int skill_id, std::optional<int> current_round, bool is_encumbered) const {
  if (!skill_possible(skill_id)) return 0;
  return buffed(*this, skill_id, current_round, skill_multiplier(skill_id, is_encumbered), 1.0);
}

int Combatant::magic_fumble() const {
  // S20/H18: armour burden's magic-fumble percentage
  return c().ruleset.burden[static_cast<std::size_t>(burden())].magic_fumble;
}

// ------------------------------------------------------------ items, H12

int Combatant::hands_used() const {
  // Hands taken by ready items (of the kHands everyone has)
  int hands = 0;
  for (const ItemInstance& inst : inventory) {
    if (inst.state == ItemState::ready) hands += c().hands_of(inst.item);
  }
  return hands;
}

int Combatant::reach() const {
  // H12: squares threatened by the longest ready melee weapon (0 if none)
  std::optional<int> best;
  for_each_ready_weapon([&](std::size_t, const content::Weapon& weapon) {
    if (weapon.kind == content::WeaponKind::melee && (!best || weapon.reach_squares > *best)) {
      best = weapon.reach_squares;
    }
  });
  return best ? *best : 0;
}

bool Combatant::threatens() const {
  // H12: in action, standing, holding a ready melee weapon
  return threat_reach() > 0;
}

int Combatant::threat_reach() const {
  // H12: the reach of the longest ready melee weapon when in action and standing, else 0
  return in_action() && !prone ? reach() : 0;
}

}  // namespace fray::combatant
