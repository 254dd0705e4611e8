// env/skirmish.py's step in C++ (see env_skirmish.hpp); the reward helpers are
// env/core.py's (outcome_reward, team_health, shaping, ended_by_round_limit).
#include "env_skirmish.hpp"

#include <algorithm>
#include <stdexcept>

#include "legal.hpp"

namespace fray::env {

SkirmishCore::SkirmishCore(const ObservationLayout& observation, const ActionLayout& actions,
                           EnvSettings settings)
    : observation_(observation), actions_(actions), settings_(settings),
      mask_(static_cast<std::size_t>(actions.n), 0),
      position_(static_cast<std::size_t>(actions.n), -1) {}

bool SkirmishCore::start(const BattleParts& parts, std::unique_ptr<agents::Agent> opponent) {
  if (parts.names != actions_.names) {
    throw std::invalid_argument("the battle's names are not the action layout's (build the "
                                "layout from a state of the same records)");
  }
  parts_ = parts;
  opponent_ = std::move(opponent);
  teams_.clear();
  for (const combatant::Combatant& c : parts_.state->roster.combatants) {
    if (std::find(teams_.begin(), teams_.end(), c.team) == teams_.end()) teams_.push_back(c.team);
  }
  play_opponent();
  refresh();
  return !parts_.state->is_over;
}

void SkirmishCore::play_opponent() {
  // SkirmishEnv._play_opponent: every decision of another team, by the opponent
  state::BattleState& state = *parts_.state;
  while (!state.is_over && state.decision) {
    const combatant::Combatant& actor =
        state.roster.combatants[static_cast<std::size_t>(state.decision->actor)];
    if (actor.team == settings_.team) return;
    const agents::Answer answer =
        agents::decide(*opponent_, state, parts_.loop->map_of(state), *parts_.names, *parts_.rules);
    parts_.loop->apply(state, *parts_.names, *parts_.rules, answer.action);
  }
}

void SkirmishCore::refresh() {
  // SkirmishEnv._refresh_mask
  state::BattleState& state = *parts_.state;
  legal::recycle(std::move(legal_));
  legal_.clear();  // (moved from: valid, and now surely empty)
  if (!state.is_over && state.decision) {
    legal_ = legal::actions_for(state, parts_.loop->map_of(state), *parts_.names);
  }
  write_mask(actions_, state, *parts_.names, legal_, mask_.data(), position_, touched_);
}

const actions::Action* SkirmishCore::legal_at(int index) const {
  if (index < 0 || index >= actions_.n) return nullptr;
  const std::int32_t place = position_[static_cast<std::size_t>(index)];
  return place < 0 || legal_.empty() ? nullptr : &legal_[static_cast<std::size_t>(place)];
}

int SkirmishCore::choice_index(agents::Agent& agent) const {
  // OptionsWrapper._play: the option's action, then its index in the codec
  const state::BattleState& state = *parts_.state;
  if (state.is_over || legal_.empty()) throw std::logic_error("the episode is over; call reset()");
  const agents::Choice choice =
      agent.act(agents::View{state, parts_.loop->map_of(state), legal_, *parts_.names, *parts_.rules});
  for (const std::int32_t index : touched_) {
    if (position_[static_cast<std::size_t>(index)] == static_cast<std::int32_t>(choice.index)) {
      return index;
    }
  }
  throw std::logic_error("the option's action has no index in the env's codec");
}

int SkirmishCore::legal_count() const {
  return parts_.state->is_over ? 0 : static_cast<int>(legal_.size());
}

std::vector<double> SkirmishCore::team_health() const {
  // env.core.team_health: each team's HP (clipped to [0, max]) over its max HP
  std::vector<double> hp(teams_.size(), 0.0), most(teams_.size(), 0.0);
  for (const combatant::Combatant& c : parts_.state->roster.combatants) {
    const auto t = static_cast<std::size_t>(std::find(teams_.begin(), teams_.end(), c.team) - teams_.begin());
    hp[t] += std::min(std::max(c.hp, 0), c.max_hp);
    most[t] += c.max_hp;
  }
  for (std::size_t t = 0; t < hp.size(); ++t) hp[t] /= std::max(1.0, most[t]);
  return hp;
}

StepOutcome SkirmishCore::step(int index) {
  StepOutcome outcome;
  state::BattleState& state = *parts_.state;
  if (state.is_over) throw std::logic_error("the episode is over; call reset()");
  const actions::Action* action = legal_at(index);
  if (action == nullptr) {
    outcome.illegal = true;
    outcome.reward = settings_.illegal_penalty;
    return outcome;
  }
  std::vector<double> before;
  if (settings_.damage_reward != 0.0) before = team_health();
  const actions::Action chosen = *action;
  parts_.loop->apply(state, *parts_.names, *parts_.rules, chosen);
  play_opponent();
  refresh();
  // env.core.outcome_reward
  if (state.is_over && state.winner != content::kNone) {
    outcome.reward = state.winner == settings_.team ? 1.0 : -1.0;
  }
  if (!before.empty()) {
    // env.core.shaping: enemy health lost minus own health lost, teams in dict order
    const std::vector<double> after = team_health();
    double own = 0.0, enemy = 0.0;
    int others = 0;
    for (std::size_t t = 0; t < teams_.size(); ++t) {
      if (teams_[t] == settings_.team) {
        own = before[t] - after[t];
      } else {
        enemy += before[t] - after[t];
        ++others;
      }
    }
    enemy /= std::max(1, others);
    outcome.reward += settings_.damage_reward * (enemy - own);
  }
  if (state.is_over) {
    // env.core.ended_by_round_limit (H25): over with several teams still standing
    std::vector<int> standing;
    for (const combatant::Combatant& c : state.roster.combatants) {
      if (c.in_action() && std::find(standing.begin(), standing.end(), c.team) == standing.end()) {
        standing.push_back(c.team);
      }
    }
    outcome.truncated = standing.size() > 1;
    outcome.terminated = !outcome.truncated;
  }
  return outcome;
}

void SkirmishCore::observe(const ObservationBuffers& out) const {
  const state::BattleState& state = *parts_.state;
  const int self = state.decision ? state.decision->actor : content::kNone;
  write_observation(observation_, state, parts_.loop->map_of(state).grid, settings_.team, self,
                    true, legal_, out);
}

}  // namespace fray::env
