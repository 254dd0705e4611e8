// rules/odds/hit.py in C++: one hit's damage, in double precision: dice arithmetic and the
// parry, dodge, armour, special and poison steps of rules/combat.py (H6, H7, H9, H10,
// H11, S24) as probability distributions. The Python module computes exact Fractions; the
// functions here follow it step for step (same order of sums where it matters) so that
// the two agree to about 1e-15 (tests/native/test_native_odds.py checks 1e-12).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "roller.hpp"

namespace fray::odds {

using roller::Level;

inline constexpr std::size_t kLevelCount = 5;
// A probability per success level (H2), indexed by roller::Level.
using Levels = std::array<double, kLevelCount>;

// The distribution of an integer total: probability[value - lowest]; values outside the
// vector have probability 0. (Python's Dist, a dict value -> Fraction.)
struct Distribution {
  int lowest = 0;
  std::vector<double> probability;

  int highest() const { return lowest + static_cast<int>(probability.size()) - 1; }
  double at(int value) const;
  // Adds `p` to the probability of `value`, growing the vector as needed.
  void add(int value, double p);
};

// hit.py _convolve: the distribution of the sum of two independent totals.
Distribution convolve(const Distribution& first, const Distribution& second);

// hit.py dice_distribution: the exact distribution of a dice expression's total.
Distribution dice_distribution(const roller::Dice& dice);

// hit.py _Blow: everything about an attack that decides its damage.
enum class DamageKind : std::uint8_t { slash, crush, impale };
struct Blow {
  roller::Dice dice;
  roller::Dice bonus;
  DamageKind damage_type = DamageKind::crush;
  std::optional<roller::Dice> poison_dice;
  int poison_save = 0;  // the target's save chance against the poison (S24)
  int armour = 0;       // H6 body armour AP
  int hp = 0;
  int con = 0;
  bool bleeding = false;
  int out_at = 0;  // H5: out of action at this HP or less
};

// hit.py LevelDist: the levels a defence roll may come out at, with their probabilities.
using LevelDistribution = std::vector<std::pair<Level, double>>;
// hit.py _NO_ROLL: no defence roll (blocks nothing).
LevelDistribution no_roll();

// hit.py _levels: H2 level probabilities of a d100 roll against `chance`.
Levels levels(int chance, const roller::SuccessRules& success);
// hit.py _succeeds: the roll succeeds (SUCCESS or better).
double succeeds(int chance, const roller::SuccessRules& success);
// hit.py _level_dist: the levels of a defence roll at `chance` (none: no roll), zeros left out.
LevelDistribution level_distribution(std::optional<int> chance, const roller::SuccessRules& success);

// Sums of probabilities by an int key, in increasing key order: what the Python odds'
// dicts hold, summed in the same order (so the same floats), without a node per key (a
// std::map's). Keys seen stay even when their sum is 0, as a dict's do.
class Tally {
 public:
  // `lowest` to `highest`: the keys expected (others still fit, at a cost)
  Tally(int lowest, int highest)
      : lowest_(lowest), slots_(static_cast<std::size_t>(std::max(0, highest - lowest + 1))) {}
  void add(int key, double p) {
    if (slots_.empty()) {
      lowest_ = key;
    } else if (key < lowest_) {
      slots_.insert(slots_.begin(), static_cast<std::size_t>(lowest_ - key), Slot{});
      lowest_ = key;
    }
    const auto at = static_cast<std::size_t>(key - lowest_);
    if (at >= slots_.size()) slots_.resize(at + 1);
    slots_[at].sum += p;
    slots_[at].seen = true;
  }
  template <typename Visit>
  void each(Visit&& visit) const {
    for (std::size_t at = 0; at < slots_.size(); ++at) {
      if (slots_[at].seen) visit(lowest_ + static_cast<int>(at), slots_[at].sum);
    }
  }

 private:
  struct Slot {
    double sum = 0.0;
    bool seen = false;
  };
  int lowest_ = 0;
  std::vector<Slot> slots_;  // one table (one allocation) for the sums and the keys seen
};

// hit.py Outcomes: (hp lost, bleeds, knocked down) -> probability.
struct Outcome {
  int damage = 0;
  bool bleeds = false;
  bool knocked = false;
  double probability = 0.0;
};
using Outcomes = std::vector<Outcome>;

// hit.py _hit_outcomes: the outcomes of a hit at `level` given the parry's levels and the
// parry item's AP, the dodge's levels, the parry special factor and the dodge cuts
// (success, special) (H7, H9, H10, H11, S24).
Outcomes hit_outcomes(const Blow& blow, Level level, const LevelDistribution& parry, int ap,
                      const LevelDistribution& dodge, const roller::SuccessRules& success,
                      int parry_factor, std::array<int, 2> dodge_cuts);

// The hash of the odds caches' keys (a list of ints: odds_attack.hpp odds_key, rolled's).
struct OddsKeyHash {
  std::size_t operator()(const std::vector<int>& key) const;
};

// hit.py _rolled: the damage rolled before any defence (H6, H7), never below 0. Kept per
// thread (a battle has a few weapons and bonuses, asked for at every blow's odds; up to
// 4,096 answers, then started afresh): the reference is valid until the next call.
const Distribution& rolled(const roller::Dice& dice, const roller::Dice& bonus, Level level,
                           bool impale);

// hit.py _after_damage: H7 special effects and S24 poison after `damage` was dealt
// (`through`: what got past parry and dodge).
Outcomes after_damage(const Blow& blow, Level level, int damage, int through,
                      const roller::SuccessRules& success);

}  // namespace fray::odds
