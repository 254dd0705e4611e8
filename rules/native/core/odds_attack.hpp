// rules/odds/attack.py in C++: the attack the engine would roll (chance, weapon, mode),
// the defences the target may make now, and the queries attack_odds, pending_attack and
// pending_hit_odds, in double precision (odds_hit.hpp). Everything is read from a native
// battle state through a View (no step under way: nothing here changes the state).
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "actions.hpp"
#include "events.hpp"
#include "frames.hpp"
#include "harm.hpp"
#include "legal.hpp"
#include "odds_hit.hpp"
#include "queries.hpp"
#include "state.hpp"

namespace fray::odds {

using combatant::Combatant;

// What the odds read: the state, the map as its doors stand, the ruleset numbers.
struct View {
  const state::BattleState& state;
  const legal::LegalMap& map;
  const harm::ApplyRules& rules;

  queries::QueryState query() const {
    return {state.roster, map.grid, state.ground, state.initiative_order, state.round};
  }
  const Combatant& at(int number) const {
    return state.roster.combatants.at(static_cast<std::size_t>(number));
  }
  const content::Content& content() const { return *state.roster.content; }
};

// attack.py DEFENCES: the defence choice of the target.
enum class Defence : std::uint8_t { none, parry, dodge, both };
inline constexpr std::array<std::string_view, 4> kDefenceNames = {"none", "parry", "dodge", "both"};

// attack.py AttackOdds: the outcome of one attack for one defence choice.
struct AttackOdds {
  int chance = 0;       // the attack skill after every modifier
  Levels levels{};      // of the attack roll
  Distribution damage;  // HP the target loses (weapon and poison), 0 included
  double drops = 0.0;   // the target ends out of action or dead
  double kills = 0.0;   // the target ends dead
  double bleeds = 0.0;  // H7: a special slash starts bleeding
  double knocked_down = 0.0;  // H7: a special crush knocks the target prone
  std::optional<int> parry_chance;  // the parry skill used
  std::optional<int> dodge_chance;  // the dodge skill used

  double expected_damage() const;  // AttackOdds.expected_damage
  double hit() const;              // AttackOdds.hit
  double wounds() const;           // AttackOdds.wounds
};

// attack.py _Attack: the attacker, target, weapon (content weapon row, kNone unarmed),
// mode and chance the engine would use.
struct Attack {
  int attacker = content::kNone;
  int target = content::kNone;
  int weapon = content::kNone;
  frames::AttackMode mode = frames::AttackMode::melee;
  int chance = 0;
};

// rules.actions.DAMAGING_ATTACKS (attack.py ATTACK_KINDS).
bool damaging_attack(actions::ActionKind kind);
// rules.actions.attack_mode: the mode `kind` rolls with a weapon of `missile` kind.
frames::AttackMode attack_mode(actions::ActionKind kind, bool missile);

// attack.py _attack_of: the attack `kind` of `attacker` (kNone: the decider) on `target`
// with the item `item` (Roster::uids; kNone for UNARMED_ATTACK). std::invalid_argument
// for a kind that is no damaging attack or an item that is no weapon held.
Attack attack_of(const View& view, actions::ActionKind kind, int target, int item, int attacker);

// attack.py parry_options: (item uid, parry chance, AP) of each parry `defender` may make
// now (S8/S10/H9).
struct ParryOption {
  int uid = content::kNone;
  int chance = 0;
  int ap = 0;
};
std::vector<ParryOption> parry_options(const View& view, int defender, bool missile);

// attack.py dodge_chance (S9/H10/S10/H22): the dodge skill if `defender` may dodge now.
std::optional<int> dodge_chance(const View& view, int defender);

// attack.py _blow
Blow blow_of(const View& view, int attacker, int target, int weapon, frames::AttackMode mode);

// attack.py _Defence: the defence rolls an attack meets.
struct DefenceRolls {
  LevelDistribution parry = no_roll();
  int ap = 0;
  LevelDistribution dodge = no_roll();
  std::optional<int> parry_chance;
  std::optional<int> dodge_chance;
};

// attack.py _Rules: the ruleset numbers the odds use.
struct Rules {
  roller::SuccessRules success;
  int parry_factor = 2;
  std::array<int, 2> dodge_cuts{10, 20};
};
Rules rules_of(const View& view);  // attack.py _rules_of

// attack.py _Defences: the dodge chance and the (parry chance, AP) of each parry item.
struct Defences {
  std::optional<int> dodge;
  std::vector<std::pair<int, int>> parries;
};
// attack.py _defences; `parry_item` (Roster::uids; nullopt: any) limits the parry to it
// (kNone: an item nobody holds, so no parry).
Defences defences_of(const View& view, int target, bool missile, Defence defence,
                     std::optional<int> parry_item);

// attack.py _defence: the parry item that lets least damage through (the first such),
// with the outcomes of the hit against it (outcomes_of(rules, blow, level, chosen)),
// computed once.
std::pair<DefenceRolls, Outcomes> defence_and_outcomes(const Rules& rules, const Defences& defences,
                                                       const Blow& blow, Level level);
// attack.py _outcomes
Outcomes outcomes_of(const Rules& rules, const Blow& blow, Level level, const DefenceRolls& defence);
// attack.py _mean
double mean_of(const Outcomes& outcomes);

// attack.py attack_odds: the odds of the attack `kind` on `target` with `item` (as
// attack_of) for the target's `defence`; `parry_item` (nullopt: the best) picks the parry.
AttackOdds attack_odds(const View& view, actions::ActionKind kind, int target, int item,
                       Defence defence, std::optional<int> parry_item = std::nullopt,
                       int attacker = content::kNone);

// attack.py _odds_for: `known_level`, the attack roll already made; `known_parry`, so is
// the parry (its level and the item's AP).
AttackOdds odds_for(const View& view, const Attack& attack, Defence defence,
                    std::optional<int> parry_item,
                    std::optional<Level> known_level = std::nullopt,
                    std::optional<std::pair<Level, int>> known_parry = std::nullopt);

// The numbers the pure odds read (pure_odds, risk's free_attack_outcomes), one int
// each: the key of their caches, as attack.py's and risk.py's lru_cache key their
// arguments (the caches are per thread, kept to 65,536 answers).
std::vector<int> odds_key(const Rules& rules, const Blow& blow, int chance,
                          const Defences& defences, std::optional<Level> known_level = std::nullopt,
                          std::optional<std::pair<Level, int>> known_parry = std::nullopt);
// (hashed by OddsKeyHash, odds_hit.hpp)

// attack.py _pure_odds
AttackOdds pure_odds(const Rules& rules, const Blow& blow, int chance, const Defences& defences,
                     std::optional<Level> known_level,
                     std::optional<std::pair<Level, int>> known_parry);

// attack.py _pending: the attack roll (and any parry roll) of the hit the decider reacts to.
struct Pending {
  const events::AttackRolled* hit = nullptr;
  const events::ParryRolled* parried = nullptr;
};
Pending pending(const View& view);

// attack.py pending_attack: at a PARRY or DODGE decision the hit reacted to, else null.
const events::AttackRolled* pending_attack(const View& view);

// attack.py pending_hit_odds: at a PARRY or DODGE decision, the odds of the hit already
// rolled for the defence still to choose. std::invalid_argument elsewhere or for a manoeuvre.
AttackOdds pending_hit_odds(const View& view, Defence defence,
                            std::optional<int> parry_item = std::nullopt);

}  // namespace fray::odds
