// agents/mcts.py's iterations in C++: the flat search's (tree=False) work per candidate —
// the root battle cloned, its dice re-seeded (Roller.reseed: never the real battle's future
// dice), the candidate applied, the rollout policy playing both teams for `depth`
// decisions, and the leaf's value (hp_balance). The tree and its statistics stay in
// Python (agents/mcts.py): one call runs a whole round (every surviving root candidate
// under the same dice), so a search makes a few Python calls per phase, not per decision.
#pragma once

#include <cstdint>
#include <vector>

#include "actions.hpp"
#include "agents_base.hpp"
#include "battle.hpp"
#include "harm.hpp"
#include "state.hpp"

namespace fray::agents {

// hp_balance(battle, team): 1 won, 0 lost, 0.5 drawn; else 0.5 + half the difference
// between the shares of max HP standing (in action) of `team` and of its enemies.
double hp_balance(const state::BattleState& state, int team);

// MCTS._iterate (flat) for each of `candidates` in turn, each on a clone of `root` whose
// dice are re-seeded with `seed_words` (numpy's default_rng(seed) words), the rollout by
// `rollout` (used in place: its generator runs on from one rollout to the next, as the
// Python agent's does). The leaf values, one per candidate, for team `team`.
std::vector<double> search_round(const state::BattleState& root, battle::BattleLoop& loop,
                                 actions::NameTable& names, const harm::ApplyRules& rules,
                                 const std::vector<actions::Action>& candidates,
                                 const std::vector<std::uint32_t>& seed_words, Agent& rollout,
                                 int depth, int team);

}  // namespace fray::agents
