// agents/tactics.py in C++ (the part the tactician scores with): attack values from the
// native odds (odds_attack.hpp, odds_risk.hpp), the threats around a square, and the cost
// of the Free Attacks a route or a provoking action draws. Values are "fractions of a
// target taken out", as in Python: an attack's value is the chance it drops the target
// plus its expected damage as a share of the target's hit points.
//
// The odds need the ruleset numbers (harm::ApplyRules), which agents::View does not
// carry: these helpers read an odds::View (state, map, rules). Attacks are Strikes (kind,
// target, item uid as Roster numbers), not action records, so nothing here interns names.
// Not yet ported: react() and the manoeuvre and spell values (tests cover what is here:
// tests/native/test_native_odds.py, test_tactics_agree).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "actions.hpp"
#include "combatant.hpp"
#include "odds_attack.hpp"

namespace fray::agents::tactics {

using combatant::Square;

inline constexpr double kDropWeight = 1.0;  // DROP_WEIGHT: one target taken out

// An attack action as the odds take it: its kind, target and item (Roster numbers;
// item kNone for an unarmed attack).
struct Strike {
  actions::ActionKind kind = actions::ActionKind::MELEE_ATTACK;
  int target = content::kNone;
  int item = content::kNone;
};

// tactics.Scored: one attack with its odds and value.
struct Scored {
  Strike strike;
  odds::AttackOdds odds;
  double value = 0.0;
};

// tactics.enemies_of: in-action combatants of other teams, in initiative order.
std::vector<int> enemies_of(const odds::View& view, int combatant);
// tactics.allies_of: in-action team mates other than `combatant`, in initiative order.
std::vector<int> allies_of(const odds::View& view, int combatant);
// tactics.value_of: P(drop) + expected damage as a share of the target's HP.
double value_of(const odds::AttackOdds& attack_odds, const combatant::Combatant& target);
// tactics.likely_defence: "both" for a target in action (the odds leave out what it
// cannot do now), else "none".
odds::Defence likely_defence(const combatant::Combatant& target);
// tactics.score_attack: the odds and value of `strike` against its target's likely
// defence (`attacker` kNone: the decider).
Scored score_attack(const odds::View& view, const Strike& strike, int attacker = content::kNone);
// tactics.best_attack: the strike of highest value (ties, within 1e-12: the first listed).
std::optional<Scored> best_attack(const odds::View& view, const std::vector<Strike>& strikes,
                                  int attacker = content::kNone);
// tactics.hypothetical_melee: the best ready-melee attack `combatant` could make on
// `target` if it were in reach.
std::optional<Scored> hypothetical_melee(const odds::View& view, int combatant, int target);
// tactics.reaches: whether `combatant` standing on `square` reaches `target` (H12).
bool reaches(const odds::View& view, int combatant, Square square, int target);
// tactics.threatened_by: enemies that threaten `square` now (H12), in initiative order.
std::vector<int> threatened_by(const odds::View& view, int combatant, Square square);
// tactics.incoming: expected damage to `combatant` if every enemy threatening `square`
// (its own by default) hits it once with its best melee weapon.
double incoming(const odds::View& view, int combatant, std::optional<Square> square = std::nullopt);
// tactics.route_costs: per square, (Free Attacks provoked, their cost as a share of the
// mover's HP plus P(drop)) for a move there along the engine's route (H13).
std::vector<std::pair<int, double>> route_costs(const odds::View& view, int combatant,
                                                const std::vector<Square>& squares,
                                                bool full = false);
// tactics.provoke_cost: what the Free Attacks a provoking action here (S6) cost.
double provoke_cost(const odds::View& view, int combatant);
// tactics.my_turn_done: whether `combatant` already had its turn this round.
bool my_turn_done(const odds::View& view, int combatant);

}  // namespace fray::agents::tactics
