// The rules' cheap run-time invariants (rules/invariants.py: the bodies and true logs, after
// every event; the bounds of experiments/fuzzing/invariants.py's check_state), checked inside
// the engine by the native random-play loop and by a battle loop asked to watch every event
// (BattleLoop::watch).
#pragma once

#include <stdexcept>
#include <string>

#include "state.hpp"

namespace fray::invariants {

// invariants.InvariantViolation: `name` is the invariant, what() says how.
class Broken : public std::runtime_error {
 public:
  Broken(std::string name, const std::string& message)
      : std::runtime_error(message), name_(std::move(name)) {}
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// invariants.check_bodies (H13, H22): no two bodies in action share a square, except a
// rider and its own mount; the bodies of a move under way may stand where they pass, and
// `finished` (Roster::ids, or kNone) names the actor of a move that has just ended.
void check_bodies(const state::BattleState& state, int finished);

// invariants.check_moved (true logs): a Moved event's actor (Roster::ids) stands on the
// event's last square `last` after it.
void check_moved(const state::BattleState& state, int actor, const combatant::Square& last);

// The bounds of invariants.check_state that need no map or content: hp at most max_hp
// and above `out_of_action_at` in action (H5), an out-of-action body down (prone or dead),
// power points not below 0, a rider and its mount on one square and bound to each other
// (H22), and the round limit (H25).
void check_bounds(const state::BattleState& state, int out_of_action_at, int max_rounds);

}  // namespace fray::invariants
