// experiments/replay.py's play loop in C++ (see play.hpp).
#include "play.hpp"

#include <stdexcept>

#include "legal.hpp"

namespace fray::play {

std::vector<Decided> play_battle(state::BattleState& state, battle::BattleLoop& loop,
                                 actions::NameTable& names, const harm::ApplyRules& rules,
                                 const std::vector<agents::Agent*>& agents, int max_decisions) {
  std::vector<Decided> made;
  while (!state.is_over && state.decision && static_cast<int>(made.size()) < max_decisions) {
    const int actor = state.decision->actor;
    const auto team = static_cast<std::size_t>(state.roster.combatants[static_cast<std::size_t>(actor)].team);
    agents::Agent* agent = team < agents.size() ? agents[team] : nullptr;
    if (agent == nullptr) throw std::invalid_argument("play_battle: a team without an agent");
    agents::Answer answer = agents::decide(*agent, state, loop.map_of(state), names, rules);
    const actions::Action& action = answer.action;
    if (!answer.reason.empty()) {
      // Battle.apply(action, reason): the Reasoned event first
      events::Reasoned reasoned;
      reasoned.round = state.round;
      reasoned.actor = names.intern(state.roster.ids.name(actor));
      reasoned.reason = answer.reason;
      state.events.push_back(events::Event{std::move(reasoned)});
    }
    loop.apply(state, names, rules, action);
    made.emplace_back(action, std::move(answer.reason));
  }
  return made;
}

}  // namespace fray::play
