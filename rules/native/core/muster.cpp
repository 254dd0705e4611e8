// rules/muster.py's roll_initiative: see muster.hpp.
#include "muster.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace fray::muster {

namespace {

// One combatant's sort key in roll_initiative: (-initiative, -dex, uniform draw).
struct InitiativeKey {
  int number = 0;  // Roster::ids
  int initiative = 0;
  int dexterity = 0;
  double draw = 0.0;
};

}  // namespace

std::vector<int> roll_initiative(state::BattleState& state, const roller::Dice& die) {
  std::vector<InitiativeKey> keys;
  keys.reserve(state.roster.combatants.size());
  for (combatant::Combatant& who : state.roster.combatants) {
    const content::Content& tables = who.c();
    const int total = roller::roll(state.dice, die).total + who.dex_bonus();  // S1/H4
    double factor = who.fatigue_factor();                                       // S21
    if (who.encumbered()) factor *= tables.ruleset.initiative.impaired_factor;  // S19/H4
    // int(total * factor // 1): Python's float floor division by 1 is the floor
    who.initiative = static_cast<int>(std::floor(static_cast<double>(total) * factor));
    keys.push_back({who.id, who.initiative, who.characteristic(tables.dexterity),
                    state.dice.generator.random()});
  }
  std::stable_sort(keys.begin(), keys.end(), [](const InitiativeKey& a, const InitiativeKey& b) {
    if (a.initiative != b.initiative) return a.initiative > b.initiative;
    if (a.dexterity != b.dexterity) return a.dexterity > b.dexterity;
    return a.draw < b.draw;
  });
  std::vector<int> order;
  order.reserve(keys.size());
  for (const InitiativeKey& key : keys) order.push_back(key.number);
  return order;
}

}  // namespace fray::muster
