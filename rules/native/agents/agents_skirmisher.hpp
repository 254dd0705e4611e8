// agents/skirmisher.py in C++: the missile user that keeps out of reach and shoots the
// most exposed, decision for decision and reason for reason as the Python Skirmisher(seed)
// (step_back off, the Python default; Skirmisher(seed, step_back=True) has no native twin).
// tests/native/test_native_skirmisher.py checks recorded states and whole battles.
//
// Turn (the Python module docstring): with a missile weapon it can shoot (ready; a bow or
// sling nocked or with its ammunition in the pack, H16): stand up, nock or wind (the
// tactician's stand and prepare); engaged, Shift (S7) to a square no enemy threatens, else
// Disengage to the one fewest threaten; shoot the target of best value, aimed (Full
// Attack, H17) when no enemy can reach it this round; else MOVE to keep the most distance
// with a target in range, by routes that provoke nothing (H13); else end the turn. Without
// one it plays as the tactician. Reactions: tactics.react.
//
// It derives from the native Tactician so that ties in its own steps and in the
// tactician's draw from one generator in Python's order (the Python subclass's self.rng).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "agents_tactician.hpp"

namespace fray::agents {

class Skirmisher final : public Tactician {
 public:
  explicit Skirmisher(const std::vector<std::uint32_t>& seed_words) : Tactician(seed_words) {}
  std::unique_ptr<Agent> clone() const override { return std::make_unique<Skirmisher>(*this); }
  const char* name() const override { return "skirmisher"; }
  // Its own turn reads the moves before the tactician's steps: asked with every action.
  bool answers_without_moves() const override { return false; }

 protected:
  // Skirmisher.turn: stand, prepare, escape, shoot, keep_away, else END_TURN; without a
  // missile weapon it can shoot, Tactician.turn.
  Choice turn(const Turn& turn) override;

 private:
  // Skirmisher._has_missile: a ready missile weapon, unless it is a bow or sling neither
  // nocked nor with its ammunition in the inventory (H16).
  static bool has_missile(const combatant::Combatant& me);
  // Skirmisher.escape: engaged, a Shift out of reach, else a Disengage (S7).
  Step escape(const Turn& turn);
  // Skirmisher.shoot: the shot of best value, aimed when nobody can reach it (S6, H17).
  static Step shoot(const Turn& turn);
  // Skirmisher.keep_away: a MOVE keeping the most distance with a target in range.
  Step keep_away(const Turn& turn);
};

}  // namespace fray::agents
