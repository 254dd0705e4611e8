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
// (agents/berserker.py), agents_tactician*.cpp (agents/tactician.py),
// agents_skirmisher.cpp (agents/skirmisher.py), agents_defender.cpp (agents/defender.py);
// the env and the in-engine battles (env_skirmish.cpp, play.cpp) call them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "actions.hpp"
#include "dice.hpp"
#include "harm.hpp"
#include "legal.hpp"
#include "odds_attack.hpp"
#include "state.hpp"

namespace fray::agents {

// An agent's answer to one decision.
struct Choice {
  std::size_t index = 0;  // into the decision's legal actions
  std::string reason;     // agent.reason (empty: none)
};

// What an agent reads to decide: the state, the map as its doors stand, the pending
// decision's legal actions in order, the names their records use, and the ruleset
// numbers the odds read (the tactician's rules.odds, odds_attack.hpp).
struct View {
  const state::BattleState& state;
  const legal::LegalMap& map;
  const std::vector<actions::Action>& legal;
  const actions::NameTable& names;
  const harm::ApplyRules& rules;

  // The odds' view of the same battle (state, map, rules).
  odds::View odds() const { return {state, map, rules}; }
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
  // True when act_without_moves may answer: the agent answers some TURN decisions from
  // the legal actions without the moves (legal::turn_actions(..., false)).
  virtual bool answers_without_moves() const { return false; }
  // The answer to a TURN decision from `view.legal` without the moves, when act() would
  // give that same action there without looking at the moves and without a random
  // draw; none otherwise (then act_after_without_moves is asked with every legal action).
  virtual std::optional<Choice> act_without_moves(const View&) { return std::nullopt; }
  // act(view) for the same decision after act_without_moves gave none: an agent may go
  // straight to the part of its rule that reads the moves (what came before found
  // nothing, and drew nothing, without them).
  virtual Choice act_after_without_moves(const View& view) { return act(view); }
};

// An agent's answer as the action itself.
struct Answer {
  actions::Action action;
  std::string reason;
};

// The agent's answer to the pending decision (the battle is not over): from the TURN's
// legal actions without the moves when the agent answers there (saving the reach
// search), else act() over every legal action (legal::actions_for). For the loops that
// apply the answer (play.cpp, env_skirmish.cpp); the same action either way.
Answer decide(Agent& agent, const state::BattleState& state, const legal::LegalMap& map,
              actions::NameTable& names, const harm::ApplyRules& rules);

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

// ------------------------------------------------------------ shared helpers

// The agents' `kinds` dict: the indices of `legal` by action kind, each kind's in the
// order listed.
class ByKind {
 public:
  explicit ByKind(const std::vector<actions::Action>& legal);
  std::span<const std::size_t> operator[](actions::ActionKind kind) const {
    const auto k = static_cast<std::size_t>(kind);
    return {indices_.data() + start_[k], start_[k + 1] - start_[k]};
  }

 private:
  // the indices of each kind, kind after kind (one list: a counting sort), and where
  // each kind's start
  std::vector<std::size_t> indices_;
  std::array<std::size_t, actions::ACTION_KIND_COUNT + 1> start_{};
};

// The Roster number of the combatant an action names (battle.combatants[name]); kNone
// when no combatant has that id.
int combatant_number(const View& view, actions::Name name);
// combatant.item(uid): the entry of `owner`'s inventory whose uid an action names, or
// nullptr.
const combatant::ItemInstance* item_of(const View& view, const combatant::Combatant& owner,
                                       actions::Name uid);
// The weapon row of an item, or nullptr when it is no weapon (`inst.item in weapons`).
const content::Weapon* weapon_of(const combatant::Combatant& owner,
                                 const combatant::ItemInstance& inst);
// bool(combatant.ready_melee()): a ready melee weapon in hand.
bool has_ready_melee(const combatant::Combatant& owner);
// rules.actions.default_answer: the first DECLINE listed, else the first action.
std::size_t default_answer(const std::vector<actions::Action>& legal);

// ------------------------------------------------------------ the registry

// The native agents by name ("random", "berserker", "tactician", ...), in this order
// (a name with options is its agent spec, "tactician(step_back=true)").
const std::vector<std::string_view>& known_names();
// A new agent of that name seeded as SeededAgent(seed) (the seed's 32-bit words), or
// nullptr for a name not in known_names().
std::unique_ptr<Agent> make(std::string_view name, const std::vector<std::uint32_t>& seed_words);

}  // namespace fray::agents
