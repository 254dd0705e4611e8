// agents/mcts.py's iterations in C++: the flat search's (tree=False) work per candidate —
// the root battle cloned, its dice re-seeded (Roller.reseed: never the real battle's future
// dice), the candidate applied, the rollout policy playing both teams for `depth`
// decisions, and the leaf's value (hp_balance). The root's statistics stay in Python
// (agents/mcts.py): one call runs a whole round (every surviving root candidate under the
// same dice), so a search makes a few Python calls per phase, not per decision. With
// plan=N (PlanSearch below) the tree under the root candidates lives here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
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

namespace fray::agents {

// agents/mcts.py's action grouping: the turn kinds searched as they are (SEARCHED_TURN_KINDS)
// and the move kinds cut to a few destinations (MOVE_KINDS, in order). Both are Python's
// tables, handed over by the binding (one home for each).
struct Grouping {
  std::array<bool, actions::ACTION_KIND_COUNT> searched{};
  std::vector<actions::ActionKind> moves;
};

// mcts.candidates: the actions searched at the pending decision, in Python's order.
std::vector<actions::Action> grouped_candidates(const View& view, const Grouping& grouping);

// MCTS(plan=N)'s iterations (agents/mcts.py MCTS._plan_iterate): a tree over the searching
// team's own next decisions. After the root candidate, the continuation is `depth`
// decisions long, as in the flat search; the other team's decisions in it are the rollout
// policy's, and the searching team's first `plan` decisions are chosen by UCT (availability
// counts, open loop) among the prior's choice and the grouped candidates, the prior's
// choice tried first; an iteration that adds a node plays on with the rollout policy. The
// statistics below the root live here, one PlanSearch per decision; the root's stay in
// Python, which reads the values a round returns.
class PlanSearch {
 public:
  PlanSearch(Grouping grouping, int plan, int depth, int team, double exploration);

  // One iteration per candidate (each on a clone of `root`, its dice re-seeded with
  // `seed_words`): the leaf values for the team. `prior` may be null (no prior).
  std::vector<double> round(const state::BattleState& root, battle::BattleLoop& loop,
                            actions::NameTable& names, const harm::ApplyRules& rules,
                            const std::vector<actions::Action>& candidates,
                            const std::vector<std::uint32_t>& seed_words, Agent& rollout,
                            Agent* prior);

  // The nodes below the root (tests and the search's reason).
  std::size_t node_count() const { return nodes_.size(); }

 private:
  struct Node {
    int visits = 0;
    double value = 0.0;
    int available = 0;
    std::vector<std::pair<actions::Action, std::size_t>> children;
  };

  double iterate(const state::BattleState& root, battle::BattleLoop& loop,
                 actions::NameTable& names, const harm::ApplyRules& rules,
                 const actions::Action& candidate, const std::vector<std::uint32_t>& seed_words,
                 Agent& rollout, Agent* prior);
  std::size_t root_child(const actions::Action& candidate);
  std::size_t child_of(std::size_t node, const actions::Action& action) const;  // npos: none
  double upper_bound(const Node& child) const;

  Grouping grouping_;
  int plan_;
  int depth_;
  int team_;
  double exploration_;
  std::vector<Node> nodes_;
  std::vector<std::pair<actions::Action, std::size_t>> roots_;
};

}  // namespace fray::agents
