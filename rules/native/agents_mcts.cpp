// agents/mcts.py's flat iterations in C++ (see agents_mcts.hpp).
#include "agents_mcts.hpp"

#include <algorithm>

#include "legal.hpp"

namespace fray::agents {

double hp_balance(const state::BattleState& state, int team) {
  if (state.is_over) {
    return state.winner == content::kNone ? 0.5 : (state.winner == team ? 1.0 : 0.0);
  }
  int mine = 0, theirs = 0, mine_max = 0, theirs_max = 0;
  for (const combatant::Combatant& c : state.roster.combatants) {
    const int standing = c.in_action() ? std::max(0, c.hp) : 0;
    if (c.team == team) {
      mine += standing;
      mine_max += c.max_hp;
    } else {
      theirs += standing;
      theirs_max += c.max_hp;
    }
  }
  const double own = static_cast<double>(mine) / static_cast<double>(std::max(1, mine_max));
  const double other = static_cast<double>(theirs) / static_cast<double>(std::max(1, theirs_max));
  return 0.5 + 0.5 * (own - other);
}

std::vector<double> search_round(const state::BattleState& root, battle::BattleLoop& loop,
                                 actions::NameTable& names, const harm::ApplyRules& rules,
                                 const std::vector<actions::Action>& candidates,
                                 const std::vector<std::uint32_t>& seed_words, Agent& rollout,
                                 int depth, int team) {
  std::vector<double> values;
  values.reserve(candidates.size());
  for (const actions::Action& candidate : candidates) {
    state::BattleState clone = root.copy();
    clone.dice.generator = dice::Pcg64::from_seed(seed_words);  // Roller.reseed
    loop.apply(clone, names, rules, candidate);
    for (int made = 0; made < depth && !clone.is_over && clone.decision; ++made) {
      const legal::LegalMap& map = loop.map_of(clone);
      const std::vector<actions::Action> found = legal::actions_for(clone, map, names);
      const Choice choice = rollout.act(View{clone, map, found, names, rules});
      loop.apply(clone, names, rules, found.at(choice.index));
    }
    values.push_back(hp_balance(clone, team));
  }
  return values;
}

}  // namespace fray::agents
