// agents/tactician.py in C++: focus fire by the exact odds, safe routes and a little
// support, decision for decision and reason for reason as the Python
// Tactician(seed, step_back) (the seed only breaks ties, through ScriptedAgent.tie;
// tests/native/test_native_tactician.py checks recorded states and whole battles).
//
// Turn, in order (the Python module docstring): stand up or pick up a melee weapon
// (S6, H11); support (first aid, heals, components, a torch; H18, H21, H23); nock or wind
// (H16); Fight Defensively when outnumbered and outmatched (S10); the best attack or
// damage spell (H17, S6); Coup-de-Grace when safe (H5); move into reach by the
// least-provoking route, ready a melee weapon, disengage, or close in (S7, H13); end the
// turn. Reactions: tactics.react (agents_tactics_react.cpp).
//
// The steps are split by concept: agents_tactician.cpp (act, stand to finish) and
// agents_tactician_move.cpp (move, into_reach, close_in, disengage). The skirmisher
// (agents_skirmisher.hpp) derives from it: its own steps and these draw ties from one
// generator, as the Python subclass's self.rng.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <optional>
#include <utility>
#include <vector>

#include "agents_base.hpp"
#include "agents_tactics.hpp"

namespace fray::agents {

class Tactician : public Agent {
 public:
  explicit Tactician(const std::vector<std::uint32_t>& seed_words, bool step_back = false)
      : seeded_(seed_words), step_back_(step_back) {}
  Choice act(const View& view) override;
  // Steps stand to finish read no move and draw nothing: a turn they decide is answered
  // without the moves; after them, move and what follows (agents::decide).
  bool answers_without_moves() const override { return true; }
  std::optional<Choice> act_without_moves(const View& view) override;
  Choice act_after_without_moves(const View& view) override;
  std::unique_ptr<Agent> clone() const override { return std::make_unique<Tactician>(*this); }
  const char* name() const override {
    return step_back_ ? "tactician(step_back=true)" : "tactician";
  }

  // What every step reads: the view, the legal actions by kind, the decider.
  struct Turn {
    const View& view;
    const ByKind& kinds;
    odds::View odds;
    int self;
    const combatant::Combatant& me;
  };
  using Step = std::optional<Choice>;

 protected:
  // Tactician.turn: the steps in order, then (step_back) the Shift out of reach, else
  // END_TURN. A subclass (the skirmisher) decides its own turn and may call this one.
  virtual Choice turn(const Turn& turn);
  // turn()'s steps stand to finish, in order: the first choice, or none.
  static Step before_move(const Turn& turn);
  // turn() from move on: move, (step_back) the Shift out of reach, else END_TURN.
  Choice from_move(const Turn& turn);
  // Tactician.step_out_of_reach: a Shift from a threatened square to one no enemy
  // threatens, the farthest from the nearest enemy (the first of equals).
  static Step step_out_of_reach(const Turn& turn);
  // agents_tactician.cpp
  static Step stand(const Turn& turn);
  static Step rearm(const Turn& turn);
  static Step support(const Turn& turn);
  static Step prepare(const Turn& turn);
  static Step defend(const Turn& turn);
  static Step attack(const Turn& turn);
  static Step finish(const Turn& turn);
  // agents_tactician_move.cpp
  Step move(const Turn& turn);
  Step disengage(const Turn& turn);
  // (values: tactics::hypothetical_melee on each of foes, found once for both)
  using MeleeValues = std::vector<std::optional<tactics::Scored>>;
  Step into_reach(const Turn& turn, const std::vector<int>& foes, const MeleeValues& values);
  Step close_in(const Turn& turn, const std::vector<int>& foes, const MeleeValues& values);
  static Step ready_melee(const Turn& turn);
  // ScriptedAgent.tie (tactics::tie) over float keys: the option (index into view.legal)
  // of lowest key, exact ties broken by the seeded generator (a draw only among two or more).
  std::size_t tie(std::span<const std::size_t> options, const std::vector<double>& keys);
  // The same with tuple keys of two (Python compares them element by element), as the
  // skirmisher's Disengage ranks its squares: (enemies threatening, -gap).
  std::size_t tie(std::span<const std::size_t> options,
                  const std::vector<std::pair<double, double>>& keys);
  // bool(tactics.threatened_by(battle, combatant, combatant.position)): an enemy
  // threatens the decider's square.
  static bool threatened(const Turn& turn);

  Seeded seeded_;
  bool step_back_ = false;
};

}  // namespace fray::agents
