// agents/base.py in C++: what every native scripted agent shares. A native agent answers
// the pending decision of a native battle with the index of its choice in that decision's
// legal actions (legal::actions_for, the order Battle.legal_actions() lists them), and the
// reason it gives (agent.reason; empty when the Python agent gives none).
//
// SeededAgent's generator: numpy's default_rng(seed) (dice::Pcg64::from_seed over the
// seed's 32-bit words), and below(count) = int(rng.integers(count)), which draws nothing
// for a count of one, as SeededAgent.below does.
//
// Native agents: agents_random.cpp (agents/random_agent.py), agents_berserker.cpp
// (agents/berserker.py); the env and the in-engine battles (env_skirmish.cpp) call them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "actions.hpp"
#include "dice.hpp"
#include "legal.hpp"
#include "state.hpp"

namespace fray::agents {

// An agent's answer to one decision.
struct Choice {
  std::size_t index = 0;  // into the decision's legal actions
  std::string reason;     // agent.reason (empty: none)
};

// What an agent reads to decide: the state, the map as its doors stand, the pending
// decision's legal actions in order and the names their records use.
struct View {
  const state::BattleState& state;
  const legal::LegalMap& map;
  const std::vector<actions::Action>& legal;
  const actions::NameTable& names;
};

class Agent {
 public:
  virtual ~Agent() = default;
  // The answer to `view.state.decision` (the battle is not over; `view.legal` not empty).
  virtual Choice act(const View& view) = 0;
  // An independent copy that decides exactly as this one would from here on.
  virtual std::unique_ptr<Agent> clone() const = 0;
  // Its registered name ("random", "berserker", ...).
  virtual const char* name() const = 0;
};

// SeededAgent: numpy's default_rng(seed) and below(count).
class Seeded {
 public:
  // default_rng(seed) for a seed given as its 32-bit words, least significant first
  // (SeedSequence's entropy, as numpy splits a Python int).
  explicit Seeded(const std::vector<std::uint32_t>& seed_words)
      : rng_(dice::Pcg64::from_seed(seed_words)) {}
  // int(rng.integers(count)) for count >= 1.
  int below(int count) {
    return count == 1 ? 0 : static_cast<int>(rng_.integers(0, count));
  }
  dice::Pcg64& rng() { return rng_; }

 private:
  dice::Pcg64 rng_;
};

}  // namespace fray::agents
