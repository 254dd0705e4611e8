// rules/battle.py's loop in C++ (S1, S2, S21, H5, H22, H25): apply a decision's action
// (a TURN's start_action, else the top frame's answer) and run until the next decision
// or the end: end_turn, begin_turn, new_round, check_end, finish.
//
// start_battle is Battle.__init__ from roll_initiative on: a new battle of a scenario for a
// new seed, from the state the Python muster built (rules.bridge.start.start_template).
//
// The map follows the doors: a BattleLoop keeps the scenario's map and one LegalMap (the
// Grid with the reach search over it) per door state met, and gives each step the map of
// the doors as they stand.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string_view>
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
  // Battle.__init__ after BattleStarted: turns.start_round, Battle._begin_turn, then
  // Battle._run to the first decision (or the end).
  void begin(state::BattleState& state, actions::NameTable& names, const harm::ApplyRules& rules);
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
  // the doors of the last map_of call and its map (one of maps_'s, which keeps it)
  std::vector<bool> last_doors_;
  const legal::LegalMap* last_map_ = nullptr;
};

// Battle.__init__ from roll_initiative on (S1, H4): a copy of `muster` (the combatants as
// rules.muster.build_combatant and the riding links made them: round start_round, no
// events, no decision) with the dice of Roller(seed) (`seed`: numpy SeedSequence entropy
// words, dice::Pcg64::from_seed), the initiative rolled (muster::roll_initiative),
// BattleStarted logged (`scenario`: the scenario's name), then loop.begin. A loop (and
// rules) may start any number of battles of its scenario; its map cache is not locked, so
// one thread at a time uses it.
state::BattleState start_battle(const state::BattleState& muster,
                                std::span<const std::uint32_t> seed, BattleLoop& loop,
                                actions::NameTable& names, const harm::ApplyRules& rules,
                                std::string_view scenario);

}  // namespace fray::battle
