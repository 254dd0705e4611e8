// agents/berserker.py in C++: the melee rusher, decision for decision as the Python
// Berserker with the same seed (the seed only breaks ties; tests/native/
// test_native_agents.py checks every decision of whole battles).
//
// Turn: stand up if prone; attack the most wounded enemy in reach (the first listed of
// equals); with no ready melee weapon, ready one (dropping a ready missile weapon first
// when one is in the pack); else move toward the nearest enemy (distance_map: king steps
// over the map's passable squares, closed doors counted as floor, no wall corner cut);
// else end the turn. Reactions: every Free Attack (on the provoker first), the first
// parry, a dodge to a random square else in place; any other kind: default_answer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "agents_base.hpp"
#include "grid.hpp"

namespace fray::agents {

// berserker.FAR: the distance of a square no source reaches.
inline constexpr int kFar = 1'000'000;

// berserker.distance_map: per square index y * width + x, the king-step distance to the
// nearest of `sources` over the squares on the map that are no wall (closed doors count
// as floor), never cutting a wall corner; kFar where unreachable. Kept per thread by the
// walls and the sources (Python caches it per map and sources), so it is computed once.
using Distances = std::shared_ptr<const std::vector<int>>;
Distances distance_map(const grid::Grid& grid, const std::vector<combatant::Square>& sources);

class Berserker final : public Agent {
 public:
  explicit Berserker(const std::vector<std::uint32_t>& seed_words) : seeded_(seed_words) {}
  Choice act(const View& view) override;
  std::unique_ptr<Agent> clone() const override { return std::make_unique<Berserker>(*this); }
  const char* name() const override { return "berserker"; }
  // Standing up, attacking and readying a melee weapon (or dropping a missile one for it)
  // read no move and draw nothing: those turns are answered without the moves.
  bool answers_without_moves() const override { return true; }
  std::optional<Choice> act_without_moves(const View& view) override;
  Choice act_after_without_moves(const View& view) override;

 private:
  std::size_t turn(const View& view, const ByKind& kinds, int actor);
  // turn() up to the approach: the stand-up, attack, ready or drop it takes, else kNoChoice.
  static std::size_t before_approach(const View& view, const ByKind& kinds,
                                     const combatant::Combatant& self);
  // turn() from the approach: its move or door, else END_TURN.
  std::size_t from_approach(const View& view, const ByKind& kinds,
                            const combatant::Combatant& self);
  // The move or door toward the nearest enemy, or none (kNoChoice).
  std::size_t approach(const View& view, const ByKind& kinds, const combatant::Combatant& self);
  // self._best: a random one of the lowest-scoring options.
  std::size_t best(std::span<const std::size_t> options, const std::vector<int>& scores);
  // The distance map to the enemies in action (distance_map).
  static Distances distances(const View& view, const combatant::Combatant& self);

  Seeded seeded_;
};

}  // namespace fray::agents
