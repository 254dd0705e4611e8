// env/skirmish.py's step in C++: one learner team against a native opponent, the learner's
// index applied, the opponent played to the learner's next decision, the reward, the
// mask and the observation written into the caller's buffers (env/native.py is the
// Python side: SkirmishEnv on the native path and the batched vector env).
//
// A SkirmishCore does not own its battle: the Python objects holding the state, its loop
// and its rules (rules._native.BattleState, BattleLoop, ApplyRules) are kept alive by the
// binding. Nothing here touches Python, so a batch of cores steps with the GIL released.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agents_base.hpp"
#include "battle.hpp"
#include "env_observation.hpp"
#include "env_spaces.hpp"
#include "harm.hpp"
#include "state.hpp"

namespace fray::env {

// What SkirmishEnv.step returns besides the observation.
struct StepOutcome {
  double reward = 0.0;
  bool terminated = false;
  bool truncated = false;
  bool illegal = false;
};

// The battle a core plays: the state, its loop and rules, and the records' name table.
struct BattleParts {
  state::BattleState* state = nullptr;
  battle::BattleLoop* loop = nullptr;
  const harm::ApplyRules* rules = nullptr;
  actions::NameTable* names = nullptr;
};

struct EnvSettings {
  int team = content::kNone;     // the learner's (Roster team number)
  double illegal_penalty = -0.1;
  double damage_reward = 0.0;
};

class SkirmishCore {
 public:
  SkirmishCore(const ObservationLayout& observation, const ActionLayout& actions,
               EnvSettings settings);

  // A new episode: `parts` (a fresh battle) and the opponent that plays every other team;
  // plays the opponent to the learner's first decision. False when the battle ended
  // before it (SkirmishEnv.reset then rolls another).
  bool start(const BattleParts& parts, std::unique_ptr<agents::Agent> opponent);

  // SkirmishEnv.step for an index in [0, n): illegal (not in the mask) leaves the battle
  // untouched and pays the penalty.
  StepOutcome step(int index);

  // The index of `agent`'s answer to the learner's pending decision, for step(): a
  // selector env's option playing the decision (agents/options.py OptionsWrapper, its
  // action encoded as ActionCodec.encode does). The agent decides, and draws from its
  // generator, as its Python twin would.
  int choice_index(agents::Agent& agent) const;

  // The observation of the learner's team at the current state (self = the decider).
  void observe(const ObservationBuffers& out) const;
  const std::vector<std::int8_t>& mask() const { return mask_; }
  // The legal action behind a masked index (nullptr when the index is not legal).
  const actions::Action* legal_at(int index) const;
  int legal_count() const;
  const state::BattleState& state() const { return *parts_.state; }
  bool started() const { return parts_.state != nullptr; }

 private:
  void play_opponent();
  void refresh();
  std::vector<double> team_health() const;

  const ObservationLayout& observation_;
  const ActionLayout& actions_;
  EnvSettings settings_;
  BattleParts parts_;
  std::unique_ptr<agents::Agent> opponent_;
  std::vector<actions::Action> legal_;      // the learner's decision's
  std::vector<std::int8_t> mask_;
  std::vector<std::int32_t> position_;       // index -> place in legal_ (-1: not legal)
  std::vector<std::int32_t> touched_;        // the indices set in mask_ and position_
  std::vector<int> teams_;                   // Roster teams, in order of first appearance
};

}  // namespace fray::env
