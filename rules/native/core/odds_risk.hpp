// rules/odds/risk.py in C++: what the Free Attacks drawn by a move or a provoking action
// do to the mover (S5, S6, H13), in double precision: each provoked enemy's best Free
// Attack in turn, stopping once the mover is dropped or knocked prone (a move ends there).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "combatant.hpp"
#include "odds_attack.hpp"

namespace fray::odds {

// risk.py Risk: what the Free Attacks drawn by a move or an action do to the mover.
struct Risk {
  std::vector<int> provokers;  // Roster numbers, in the order they attack
  Distribution damage;         // HP lost in all, 0 included
  double wounds = 0.0;         // at least 1 HP lost
  double drops = 0.0;          // out of action or dead
  double stops = 0.0;          // dropped or knocked prone (a move ends there, H13)

  double expected_damage() const;  // Risk.expected_damage
};

// risk.py's outcomes of one Free Attack: (hp lost, knocked prone) -> probability.
struct FreeOutcome {
  int damage = 0;
  bool prone = false;
  double probability = 0.0;
};
using FreeOutcomes = std::vector<FreeOutcome>;

// risk.py free_attack_risk (S5/H13): Free Attacks by `enemies` (in order, each with its
// ready melee weapon that does most damage) on `mover`, which makes `defence` against the
// first only.
Risk free_attack_risk(const View& view, int mover, const std::vector<int>& enemies,
                      Defence defence = Defence::none);

// risk.py _combined_risk: the attacks' outcomes combined in order, stopping once the mover
// is dropped or knocked prone.
Risk combined_risk(const std::vector<int>& provokers, const std::vector<FreeOutcomes>& attacks,
                   int hp, int out_at);

// risk.py _best_free_attack: the outcomes of `enemy`'s Free Attack on `mover` with the
// ready melee weapon reaching it that does most damage on average; none without one.
std::optional<FreeOutcomes> best_free_attack(const View& view, int enemy, int mover, Defence defence);

// risk.py _free_attack_outcomes: (mean HP lost, outcomes) of one Free Attack.
std::pair<double, FreeOutcomes> free_attack_outcomes(const Rules& rules, const Blow& blow,
                                                     int chance, const Defences& defences);

// risk.py route_risks: for each of `squares`, the Free Attacks a MOVE (`full`: FULL_MOVE)
// of `combatant` there provokes along the engine's route (H13). std::invalid_argument for
// a square it cannot move to.
std::vector<Risk> route_risks(const View& view, int combatant,
                              const std::vector<combatant::Square>& squares, bool full = false,
                              Defence defence = Defence::none);
// route_risks with each distinct risk once: risks[of_square[i]] is squares[i]'s.
struct DistinctRisks {
  std::vector<Risk> risks;
  std::vector<std::size_t> of_square;
};
DistinctRisks distinct_route_risks(const View& view, int combatant,
                                   const std::vector<combatant::Square>& squares, bool full = false,
                                   Defence defence = Defence::none);
// Per square of `squares`, whether its route_risks route provokes nobody (H13): some
// route within the move's budget leaves no threatened square. The chosen route provokes
// fewest, so this is route_risks' "no Free Attack" without the threat-labelled search
// or the routes (ReachGraph::free_destinations). Squares it cannot move to read false.
std::vector<char> free_routes(const View& view, int combatant,
                              const std::vector<combatant::Square>& squares, bool full = false);
// risk.py route_risk
Risk route_risk(const View& view, int combatant, combatant::Square square, bool full = false,
                Defence defence = Defence::none);

// risk.py action_risk (S6): the Free Attacks a provoking action where it stands draws.
Risk action_risk(const View& view, int combatant, Defence defence = Defence::none);

}  // namespace fray::odds
