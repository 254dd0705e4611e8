// rules/budget.py: the turn budget (S2, S3, H18, H25). See budget.hpp.
#include "budget.hpp"

#include <algorithm>
#include <cstddef>

namespace fray::budget {

// S2/S3
bool can_spend(const combatant::Combatant& combatant, Category category) {
  const auto& used = combatant.actions_used;
  switch (category) {
    case Category::move:  // used is [], ["move"] or ["attack"]
      return used.empty() ||
             (used.size() == 1 && (used[0] == Category::move || used[0] == Category::attack));
    case Category::attack:  // used is [] or ["move"]
      return used.empty() || (used.size() == 1 && used[0] == Category::move);
    case Category::full:
      return used.empty();
    case Category::free:
      return true;
  }
  return true;
}

// H25
bool free_left(const combatant::Combatant& combatant, ActionKind kind, int per_turn) {
  return std::count(combatant.free_used.begin(), combatant.free_used.end(), kind) < per_turn;
}

// H18
Category spell_category(const content::Content& tables, int spell) {
  switch (tables.spells.at(static_cast<std::size_t>(spell)).casting) {
    case content::SpellCasting::free: return Category::free;
    case content::SpellCasting::attack: return Category::attack;
    case content::SpellCasting::full:
    case content::SpellCasting::rounds: return Category::full;
  }
  return Category::full;
}

}  // namespace fray::budget
