// experiments/replay.py's play loop in C++: a whole battle (or the rest of one) decided by
// native agents, one per team, each decision's reason logged first as Battle.apply logs
// it (a Reasoned event), with no Python between decisions. `fray tournament`, `ladder`,
// `compare`, `sweep` and `demo` use it when every agent of a battle has a native form.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "actions.hpp"
#include "agents_base.hpp"
#include "battle.hpp"
#include "harm.hpp"
#include "state.hpp"

namespace fray::play {

// One decision made: the action and the agent's reason (empty: none given).
using Decided = std::pair<actions::Action, std::string>;

// Play `state` on until it is over or `max_decisions` were made; `agents[team]` decides
// for the combatants of Roster team number `team` (every team with a decision to make
// must have one). The decisions made, in order.
std::vector<Decided> play_battle(state::BattleState& state, battle::BattleLoop& loop,
                                 actions::NameTable& names, const harm::ApplyRules& rules,
                                 const std::vector<agents::Agent*>& agents, int max_decisions);

}  // namespace fray::play
