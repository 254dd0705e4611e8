// agents/tactics.py in C++ (the part the tactician scores with): attack values from the
// native odds (odds_attack.hpp, odds_risk.hpp), the threats around a square, and the cost
// of the Free Attacks a route or a provoking action draws. Values are "fractions of a
// target taken out", as in Python: an attack's value is the chance it drops the target
// plus its expected damage as a share of the target's hit points.
//
// The scoring helpers read an odds::View (state, map, rules; agents::View::odds() makes
// one). Attacks are Strikes (kind, target, item uid as Roster numbers), not action
// records, so nothing here interns names. The decision-level half (react, focus_reason,
// the best of listed attacks) reads an agents::View (agents_tactics_react.cpp); the
// spell and manoeuvre values are here too. Tests: tests/native/test_native_odds.py,
// test_native_tactics.py, test_native_tactician.py.
//
// Ties: values are the floats Python computes (python_float: the odds' doubles mapped to
// float(Fraction)), compared as Python compares them (exactly, or within Python's own
// 1e-12 in best_attack and react's parry).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actions.hpp"
#include "agents_base.hpp"
#include "combatant.hpp"
#include "odds_attack.hpp"

namespace fray::agents::tactics {

using combatant::Square;

inline constexpr double kDropWeight = 1.0;  // DROP_WEIGHT: one target taken out
inline constexpr double kPronePrice = 0.35;  // PRONE_PRICE: lying prone, of one's own HP
inline constexpr double kShiftPrice = 0.12;  // SHIFT_PRICE: a Shift before one's own turn
inline constexpr double kShiftPriceLate = 0.02;  // SHIFT_PRICE_LATE: after it
inline constexpr double kTie = 1e-12;  // best_attack's and react's margin (Python's)

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
// The same with the combatant's reach (Combatant::reach) already found: for a loop over
// many squares and targets of one combatant.
bool reaches_with(const odds::View& view, int reach, Square square, int target);
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
// route_costs for a caller that keeps only the squares whose routes provoke fewest (the
// tactician's close_in and into_reach, the defender's and the skirmisher's moves): when
// some square has a route provoking nobody, those squares read (0, 0.0), as route_costs
// gives them, and the others (1, 0.0): provoking more than the fewest, their own figures
// not computed (odds::free_routes: a sweep instead of the threat-labelled search and the
// Free Attacks' odds). Otherwise route_costs itself. So every square that provokes
// fewest has route_costs' figures, and every other square provokes more than they do.
std::vector<std::pair<int, double>> fewest_route_costs(const odds::View& view, int combatant,
                                                       const std::vector<Square>& squares,
                                                       bool full = false);
// tactics.provoke_cost: what the Free Attacks a provoking action here (S6) cost.
double provoke_cost(const odds::View& view, int combatant);
// tactics.my_turn_done: whether `combatant` already had its turn this round.
bool my_turn_done(const odds::View& view, int combatant);
// tactics.nearest: the one of `others` closest to `square` (king steps; ties: the first
// listed), kNone when `others` is empty.
int nearest(const odds::View& view, Square square, const std::vector<int>& others);

// ------------------------------------------------------------ spells, manoeuvres
// rules.dice.level_probabilities' P(success or better) for `skill` (H2; extra_fumble:
// S20/H18), as float(Fraction(rolls, 100)).
double success_share(int skill, const roller::SuccessRules& success, int extra_fumble = 0);
// tactics.spell_value: P(cast) x mean effect of the damage or heal spell `spell` (content
// spell id) cast by `caster` on `target` (H18).
double spell_value(const odds::View& view, int caster, int spell, int target);
// tactics.manoeuvre_chance: P(a TRIP or GRAPPLE by `combatant` on `target` works) if
// undefended: hit roll x resistance roll (H8, H19).
double manoeuvre_chance(const odds::View& view, int combatant, actions::ActionKind kind,
                        int target);

// ------------------------------------------------------------ reasons
// float(Fraction) as Python has it, from a double the native odds computed in another
// order (an ulp or two off): the Fractions of the odds have small denominators (561/200,
// 11/24), so the first convergent of `value`'s continued fraction with a denominator up to
// 10^7 that lies within 8 ulps of it is taken for the Fraction, and its correctly rounded
// quotient returned; `value` itself when there is none. Values built from these in
// Python's order of float operations are then Python's floats, bit for bit, so the
// reasons format alike and Python's exact float comparisons can be kept.
double python_float(double value);
// Python's f"{value:.{digits}f}" (glibc's printf rounds the double exactly, as Python does).
std::string fixed(double value, int digits);
// Python's f"{share:.0%}": share * 100 (in double, as Python) in fixed format, then "%".
std::string percent(double share);
// str(square): "(x, y)".
std::string square_text(Square square);

// ------------------------------------------------------------ decisions (agents::View)
// `action.square or combatant.position`: where an action ends (its square, else `me`'s).
inline Square square_or(const actions::Action& action, const combatant::Combatant& me) {
  return action.square ? Square{action.square->x, action.square->y} : me.position;
}
// The Strike of an attack action (its target and item uid as Roster numbers).
Strike strike_of(const View& view, const actions::Action& action);
// tactics.best_attack over listed actions (indices into view.legal): the index of the
// best and its score, or none.
struct Picked {
  std::size_t index = 0;
  Scored scored;
};
std::optional<Picked> best_listed(const View& view, std::span<const std::size_t> listed);
// tactics.focus_reason: "{prefix}: {id} at {hp} HP, {E:.2f} expected damage, {P:.0%} to drop".
std::string focus_reason(const View& view, const Scored& scored, std::string_view prefix = "focus");
// Tactician._ready_melee (the defender's too): ready the first melee weapon offered
// (READY_WEAPON, H11), "ready {item}"; none when no melee weapon is offered.
std::optional<Choice> ready_melee(const View& view, const ByKind& kinds,
                                  const combatant::Combatant& me);
// tactics.react: the shared answer to a FREE_ATTACK, PARRY or DODGE decision (S5, S8,
// S9, H9, H10, H19); any other kind: default_answer.
Choice react(const View& view, const ByKind& kinds);

// ------------------------------------------------------------ agent base
// ScriptedAgent.tie: the option (index into view.legal) of lowest key, exact ties (as
// Python compares the keys: floats exactly, tuples element by element; Key's < and ==)
// broken by `seeded` (a draw only among two or more). min: the first of equals.
template <typename Key>
std::size_t tie(Seeded& seeded, std::span<const std::size_t> options,
                const std::vector<Key>& keys) {
  Key low = keys.front();
  for (const Key& key : keys) {
    if (key < low) low = key;
  }
  std::vector<std::size_t> lowest;
  for (std::size_t k = 0; k < options.size(); ++k) {
    if (keys[k] == low) lowest.push_back(options[k]);
  }
  return lowest[static_cast<std::size_t>(seeded.below(static_cast<int>(lowest.size())))];
}

}  // namespace fray::agents::tactics
