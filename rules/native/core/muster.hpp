// rules/muster.py's roll_initiative in C++ (S1, H4): each combatant's initiative for the
// battle and the turn order. Building the combatants (muster.build_combatant) stays in
// Python: rules.bridge.start.start_template converts the Python muster once per scenario.
#pragma once

#include <vector>

#include "roller.hpp"
#include "state.hpp"

namespace fray::muster {

// muster.roll_initiative: for each combatant in roster order, `die` + DEX bonus (one
// roll, then one uniform draw), times the fatigue factor (S21) and the impaired factor
// when encumbered (S19/H4), rounded down as int(total * factor // 1); sets each
// combatant's initiative and returns the Roster ids in turn order: higher initiative
// first, then higher DEX, then the lower uniform draw (a stable sort, as Python's sorted).
std::vector<int> roll_initiative(state::BattleState& state, const roller::Dice& die);

}  // namespace fray::muster
