// agents/defender.py in C++: holds a post (beside its weakest team mate, or a chokepoint)
// and strikes whatever comes into reach, decision for decision and reason for reason as
// the Python Defender(seed) (the seed only breaks ties, through ScriptedAgent.tie;
// tests/native/test_native_defender.py checks recorded states and whole battles).
//
// Turn, in order (the Python module docstring): stand up if prone; the melee attack of
// best value by the exact odds (+0.25 on an enemy next to the ward); with no ready melee
// weapon, ready one; walk back to the post by the least-provoking route (H13) when that
// brings it nearer; else END_TURN, ready for Free Attacks. Reactions: tactics.react
// (agents_tactics_react.cpp).
//
// The post: with a team mate in action, the free square beside the weakest one (ward)
// nearest the enemy nearest the ward; alone, the chokepoint, chosen once per combatant
// and remembered (Python's self.memory: member state here, copied by clone()).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents_base.hpp"

namespace fray::agents {

class Defender final : public Agent {
 public:
  explicit Defender(const std::vector<std::uint32_t>& seed_words) : seeded_(seed_words) {}
  Choice act(const View& view) override;
  std::unique_ptr<Agent> clone() const override { return std::make_unique<Defender>(*this); }
  const char* name() const override { return "defender"; }

 private:
  // Defender.turn
  Choice turn(const View& view, const ByKind& kinds, int self);
  // Defender.ward: the weakest team mate in action (lowest HP share, then max HP, then
  // id), kNone when it has none.
  static int ward(const odds::View& view, int self);
  // Defender.post: where to stand (beside the ward toward the enemy, or the chokepoint),
  // none when it has a ward but no free square beside it or no enemy.
  std::optional<combatant::Square> post(const View& view, int self, int ward);
  // Defender._chokepoint: the square it stands on if it is a door, else the narrowest
  // square (fewest open neighbours, then nearest) within one MOVE, else where it stands.
  static combatant::Square chokepoint(const View& view, const combatant::Combatant& me);

  Seeded seeded_;
  // self.memory["chokepoint:{id}"]: the chokepoint by combatant id, chosen once
  std::map<std::string, combatant::Square> chokepoints_;
};

}  // namespace fray::agents
