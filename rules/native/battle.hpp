// rules/battle.py's loop in C++ (S1, S2, S21, H5, H22, H25): apply a decision's action
// (a TURN's start_action, else the top frame's answer) and run until the next decision
// or the end: end_turn, begin_turn, new_round, check_end, finish.
//
// The map follows the doors: a BattleLoop keeps the scenario's map and one LegalMap (the
// Grid with the reach search over it) per door state met, and gives each step the map of
// the doors as they stand.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "actions.hpp"
#include "harm.hpp"
#include "legal.hpp"

namespace fray::battle {

class BattleLoop {
 public:
  // `map`: the map with its doors as the state's stand now; `max_rounds`: the scenario's.
  BattleLoop(const grid::Grid& map, reach::Costs costs, int max_rounds);

  // Battle.apply without the legality check: the pending decision's `action`, then run.
  void apply(state::BattleState& state, actions::NameTable& names, const harm::ApplyRules& rules,
             const actions::Action& action);
  // Battle._run: advance until a decision is needed or the battle ends.
  void run(state::BattleState& state, actions::NameTable& names, const harm::ApplyRules& rules);
  // The LegalMap of the doors as `state`'s stand.
  const legal::LegalMap& map_of(const state::BattleState& state);

  int max_rounds() const { return max_rounds_; }

  // Check the bodies after every event of a step (invariants::check_bodies).
  bool watch = false;

 private:
  grid::Grid base_;
  reach::Costs costs_;
  int max_rounds_;
  std::map<std::vector<bool>, std::shared_ptr<const legal::LegalMap>> maps_;  // shared by copies
};

}  // namespace fray::battle
