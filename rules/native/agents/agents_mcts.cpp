// agents/mcts.py's flat iterations in C++ (see agents_mcts.hpp).
#include "agents_mcts.hpp"

#include <algorithm>
#include <cmath>

#include "agents_tactics.hpp"
#include "grid.hpp"
#include "legal.hpp"
#include "threat_zones.hpp"

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
      loop.apply(clone, names, rules, decide(rollout, clone, loop.map_of(clone), names, rules).action);
    }
    values.push_back(hp_balance(clone, team));
  }
  return values;
}

}  // namespace fray::agents

namespace fray::agents {

namespace {

constexpr std::size_t kNoNode = static_cast<std::size_t>(-1);

combatant::Square square_of(const actions::Square& square) { return {square.x, square.y}; }

// mcts._destinations: into reach of each enemy (the nearest such square), and the squares
// nearest to and farthest from the enemies; `moves` in legal order, none repeated.
std::vector<actions::Action> destinations(const View& view, int actor,
                                          const std::vector<actions::Action>& moves,
                                          const std::vector<int>& foes) {
  if (moves.empty() || foes.empty()) {
    return moves.empty() ? moves : std::vector<actions::Action>{moves.front()};
  }
  const combatant::Roster& roster = view.state.roster;
  const combatant::Combatant& me = roster.combatants[static_cast<std::size_t>(actor)];
  const auto where = [&](const actions::Action& action) {
    return action.square ? square_of(*action.square) : me.position;
  };
  const auto gap = [&](const actions::Action& action) {
    int best = -1;
    for (const int foe : foes) {
      const int d = grid::chebyshev(where(action), roster.combatants[static_cast<std::size_t>(foe)].position);
      if (best < 0 || d < best) best = d;
    }
    return best;
  };
  std::vector<const actions::Action*> picked;
  const int reach = me.reach();
  if (reach > 0) {
    const grid::Grid& grid = view.map.grid;
    for (const int foe : foes) {
      const combatant::Square origin = roster.combatants[static_cast<std::size_t>(foe)].position;
      const actions::Action* nearest = nullptr;  // min(near, key=steps from me): the first
      int nearest_steps = 0;
      for (const actions::Action& move : moves) {
        if (!move.square || !threat_zones::threatens(grid, origin, reach, square_of(*move.square))) continue;
        const int steps = grid::chebyshev(where(move), me.position);
        if (nearest == nullptr || steps < nearest_steps) {
          nearest = &move;
          nearest_steps = steps;
        }
      }
      if (nearest != nullptr) picked.push_back(nearest);
    }
  }
  const actions::Action* closest = &moves.front();  // min(moves, key=gap): the first
  const actions::Action* farthest = &moves.front();  // max(moves, key=gap): the first
  int closest_gap = gap(moves.front()), farthest_gap = closest_gap;
  for (const actions::Action& move : moves) {
    const int g = gap(move);
    if (g < closest_gap) {
      closest = &move;
      closest_gap = g;
    }
    if (g > farthest_gap) {
      farthest = &move;
      farthest_gap = g;
    }
  }
  picked.push_back(closest);
  picked.push_back(farthest);
  std::vector<actions::Action> unique;
  for (const actions::Action* action : picked) {
    if (std::find(unique.begin(), unique.end(), *action) == unique.end()) unique.push_back(*action);
  }
  return unique;
}

}  // namespace

std::vector<actions::Action> grouped_candidates(const View& view, const Grouping& grouping) {
  const state::PendingDecision& decision = *view.state.decision;
  const combatant::Roster& roster = view.state.roster;
  if (decision.kind != actions::DecisionKind::TURN) {
    if (decision.kind != actions::DecisionKind::DODGE) return view.legal;
    std::vector<actions::Action> squares, rest;
    for (const actions::Action& action : view.legal) {
      (action.kind == actions::ActionKind::DODGE && action.square ? squares : rest).push_back(action);
    }
    if (squares.size() <= 2 || decision.source == content::kNone) {
      squares.insert(squares.end(), rest.begin(), rest.end());
      return squares;
    }
    const combatant::Square source = roster.combatants[static_cast<std::size_t>(decision.source)].position;
    const actions::Action* far = &squares.front();  // max by steps from the source: the first
    int far_steps = grid::chebyshev(square_of(*far->square), source);
    for (const actions::Action& action : squares) {
      const int steps = grid::chebyshev(square_of(*action.square), source);
      if (steps > far_steps) {
        far = &action;
        far_steps = steps;
      }
    }
    std::vector<actions::Action> out{squares.front()};
    if (!(*far == squares.front())) out.push_back(*far);
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
  std::vector<actions::Action> out;
  for (const actions::Action& action : view.legal) {
    if (grouping.searched[static_cast<std::size_t>(action.kind)]) out.push_back(action);
  }
  const std::vector<int> foes = tactics::enemies_of(view.odds(), decision.actor);
  for (const actions::ActionKind kind : grouping.moves) {
    std::vector<actions::Action> moves;
    for (const actions::Action& action : view.legal) {
      if (action.kind == kind) moves.push_back(action);
    }
    const std::vector<actions::Action> picked = destinations(view, decision.actor, moves, foes);
    out.insert(out.end(), picked.begin(), picked.end());
  }
  return out.empty() ? view.legal : out;
}

PlanSearch::PlanSearch(Grouping grouping, int plan, int depth, int team, double exploration)
    : grouping_(std::move(grouping)), plan_(plan), depth_(depth), team_(team),
      exploration_(exploration) {}

std::size_t PlanSearch::root_child(const actions::Action& candidate) {
  for (const auto& [action, node] : roots_) {
    if (action == candidate) return node;
  }
  nodes_.emplace_back();
  roots_.emplace_back(candidate, nodes_.size() - 1);
  return nodes_.size() - 1;
}

std::size_t PlanSearch::child_of(std::size_t node, const actions::Action& action) const {
  for (const auto& [each, child] : nodes_[node].children) {
    if (each == action) return child;
  }
  return kNoNode;
}

double PlanSearch::upper_bound(const Node& child) const {
  // MCTS._ucb for a maximising node
  const double mean = child.value / child.visits;
  return mean + exploration_ * std::sqrt(std::log(static_cast<double>(std::max(1, child.available))) /
                                         child.visits);
}

double PlanSearch::iterate(const state::BattleState& root, battle::BattleLoop& loop,
                           actions::NameTable& names, const harm::ApplyRules& rules,
                           const actions::Action& candidate,
                           const std::vector<std::uint32_t>& seed_words, Agent& rollout,
                           Agent* prior) {
  state::BattleState clone = root.copy();
  clone.dice.generator = dice::Pcg64::from_seed(seed_words);  // Roller.reseed
  loop.apply(clone, names, rules, candidate);
  std::size_t node = root_child(candidate);
  std::vector<std::size_t> path;
  int levels = 0;
  for (int made = 0; made < depth_ && !clone.is_over && clone.decision; ++made) {
    const legal::LegalMap& map = loop.map_of(clone);
    const int actor = clone.decision->actor;
    if (levels >= plan_ || clone.roster.combatants[static_cast<std::size_t>(actor)].team != team_) {
      loop.apply(clone, names, rules, decide(rollout, clone, map, names, rules).action);
      continue;
    }
    const std::vector<actions::Action> found = legal::actions_for(clone, map, names);
    const View view{clone, map, found, names, rules};
    std::vector<actions::Action> options = grouped_candidates(view, grouping_);
    if (prior != nullptr) {  // the prior's choice first (MCTS.act's order at the root)
      const actions::Action chosen = found.at(prior->act(view).index);
      std::erase(options, chosen);
      options.insert(options.begin(), chosen);
    }
    // MCTS._descend: availability counts, then the first untried option as a new node
    // (the rollout policy plays on), else the best upper bound
    std::vector<std::size_t> children(options.size(), kNoNode);
    const actions::Action* pick = nullptr;
    std::size_t next = kNoNode;
    for (std::size_t i = 0; i < options.size(); ++i) {
      children[i] = child_of(node, options[i]);
      if (children[i] != kNoNode) {
        ++nodes_[children[i]].available;
      } else if (pick == nullptr) {
        pick = &options[i];
      }
    }
    if (pick != nullptr) {
      nodes_.emplace_back();
      nodes_.back().available = 1;
      next = nodes_.size() - 1;
      nodes_[node].children.emplace_back(*pick, next);
      levels = plan_;
    } else {
      double best = 0.0;
      for (std::size_t i = 0; i < options.size(); ++i) {
        const double bound = upper_bound(nodes_[children[i]]);
        if (pick == nullptr || bound > best) {
          pick = &options[i];
          next = children[i];
          best = bound;
        }
      }
      ++levels;
    }
    const actions::Action chosen = *pick;
    path.push_back(next);
    node = next;
    loop.apply(clone, names, rules, chosen);
  }
  const double value = hp_balance(clone, team_);
  for (const std::size_t each : path) {
    ++nodes_[each].visits;
    nodes_[each].value += value;
  }
  return value;
}

std::vector<double> PlanSearch::round(const state::BattleState& root, battle::BattleLoop& loop,
                                      actions::NameTable& names, const harm::ApplyRules& rules,
                                      const std::vector<actions::Action>& candidates,
                                      const std::vector<std::uint32_t>& seed_words,
                                      Agent& rollout, Agent* prior) {
  std::vector<double> values;
  values.reserve(candidates.size());
  for (const actions::Action& candidate : candidates) {
    values.push_back(iterate(root, loop, names, rules, candidate, seed_words, rollout, prior));
  }
  return values;
}

}  // namespace fray::agents
