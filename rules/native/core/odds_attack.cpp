// rules/odds/attack.py in C++ (S8-S10, H3, H5-H11, H15-H17, H19, H22, H23, S24). See
// odds_attack.hpp.
#include "odds_attack.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "combat.hpp"
#include "reactions.hpp"

namespace fray::odds {

namespace {

using actions::ActionKind;
using combatant::ItemInstance;
using content::kNone;
using frames::AttackMode;

inline constexpr std::array<Level, 3> kHitLevels = {Level::SUCCESS, Level::SPECIAL,
                                                     Level::CRITICAL};

// Two means Python's Fractions would call equal may differ in their last bits here: a
// parry item or a Free Attack weapon replaces the first one found only when it is better
// by more than this (relative) margin, so exact ties keep the first, as Python does.
constexpr double kTie = 1e-12;

bool better(double candidate, double best) {
  return candidate < best - kTie * std::max(1.0, std::fabs(best));
}

const ItemInstance* item_of(const Combatant& who, int uid) {  // Combatant.item
  for (const ItemInstance& inst : who.inventory) {
    if (inst.uid == uid) return &inst;
  }
  return nullptr;
}

bool uses_dodge(Defence defence) { return defence == Defence::dodge || defence == Defence::both; }
bool uses_parry(Defence defence) { return defence == Defence::parry || defence == Defence::both; }

}  // namespace

double AttackOdds::expected_damage() const {
  double total = 0.0;
  for (std::size_t i = 0; i < damage.probability.size(); ++i) {
    total += (damage.lowest + static_cast<int>(i)) * damage.probability[i];
  }
  return total;
}

double AttackOdds::hit() const {
  double total = 0.0;
  for (std::size_t i = 0; i < kLevelCount; ++i) {
    if (roller::succeeded(static_cast<Level>(i))) total += levels[i];
  }
  return total;
}

double AttackOdds::wounds() const {
  double total = 0.0;
  for (std::size_t i = 0; i < damage.probability.size(); ++i) {
    if (damage.lowest + static_cast<int>(i) > 0) total += damage.probability[i];
  }
  return total;
}

// rules.actions.DAMAGING_ATTACKS: the kinds rolling a mode that is no manoeuvre (H19).
bool damaging_attack(ActionKind kind) {
  for (std::size_t m = 0; m < frames::kAttackModeNames.size(); ++m) {
    const auto mode = static_cast<AttackMode>(m);
    if (combat::mode_kind(mode) == kind && !combat::mode_manoeuvre(mode)) return true;
  }
  return false;
}

// rules.actions.attack_mode: the kind's mode for the weapon kind, else its first mode.
AttackMode attack_mode(ActionKind kind, bool missile) {
  std::optional<AttackMode> first;
  for (std::size_t m = 0; m < frames::kAttackModeNames.size(); ++m) {
    const auto mode = static_cast<AttackMode>(m);
    if (combat::mode_kind(mode) != kind) continue;
    if (combat::mode_missile(mode) == missile) return mode;
    if (!first) first = mode;
  }
  if (!first) throw std::invalid_argument("attack_mode: the action kind rolls no attack");
  return *first;
}

// attack.py _attack_of (H3, H15-H17, H23)
Attack attack_of(const View& view, ActionKind kind, int target, int item, int attacker) {
  if (!damaging_attack(kind)) {
    throw std::invalid_argument(
        "attack_odds: expected one of FREE_ATTACK, FULL_ATTACK, MELEE_ATTACK, MISSILE_ATTACK, "
        "UNARMED_ATTACK, got " + std::string(actions::ACTION_KIND_NAMES[static_cast<std::size_t>(kind)]));
  }
  if (attacker == kNone) {
    if (!view.state.decision) {
      throw std::invalid_argument("attack_odds: the battle is over and no attacker was named");
    }
    attacker = view.state.decision->actor;
  }
  const queries::QueryState query = view.query();
  const content::Content& tables = view.content();
  if (kind == ActionKind::UNARMED_ATTACK) {
    const int brawl = tables.unarmed_skill;
    return {attacker, target, kNone, attack_mode(kind, false),
            combat::attack_chance(query, view.rules, attacker, target, brawl, false, 0)};
  }
  const Combatant& c = view.at(attacker);
  const ItemInstance* inst = item == kNone ? nullptr : item_of(c, item);
  const int row = inst == nullptr ? kNone : tables.equipment_of(inst->item).weapon;
  if (row == kNone) {
    throw std::invalid_argument("attack_odds: " + view.state.roster.ids.name(attacker) +
                                " holds no such weapon");
  }
  const content::Weapon& w = tables.weapons[static_cast<std::size_t>(row)];
  const bool missile = w.kind == content::WeaponKind::missile;
  int points = 0;
  if (kind == ActionKind::FULL_ATTACK) points += view.rules.full_attack;  // H17
  if (missile) points += queries::in_range(query, attacker, target, w.range).value_or(0);  // H16
  return {attacker, target, row, attack_mode(kind, missile),
          combat::attack_chance(query, view.rules, attacker, target, w.skill, missile, points)};
}

// attack.py parry_options (S8/S10/H9; reactions.can_parry, reactions.parry_items)
std::vector<ParryOption> parry_options(const View& view, int defender_number, bool missile) {
  const Combatant& defender = view.at(defender_number);
  const queries::QueryState query = view.query();
  std::vector<ParryOption> out;
  if (!defender.in_action() ||
      !(defender.parries_used < view.rules.parries_per_round || defender.extra_parries > 0)) {
    return out;
  }
  const content::Content& tables = view.content();
  for (const std::size_t index : reactions::parry_items(query, defender_number, missile)) {
    const ItemInstance& inst = defender.inventory[index];
    const content::Equipment& equipment = tables.equipment_of(inst.item);
    int skill = equipment.armour != kNone
                    ? tables.armour[static_cast<std::size_t>(equipment.armour)].skill
                    : tables.weapons[static_cast<std::size_t>(equipment.weapon)].skill;
    if (skill == kNone) skill = tables.shield_skill;
    out.push_back({inst.uid, defender.skill(skill, view.state.round), inst.ap.value_or(0)});
  }
  return out;
}

// attack.py dodge_chance (S9/H10/S10/H15/H22)
std::optional<int> dodge_chance(const View& view, int defender_number) {
  const Combatant& defender = view.at(defender_number);
  if (!defender.in_action()) return std::nullopt;
  const bool waived = defender.dodge_waived;
  if (!waived && defender.prone) return std::nullopt;
  if (!waived && (defender.riding != kNone || defender.ridden_by != kNone)) {
    const int rider = defender.riding != kNone ? defender_number : defender.ridden_by;
    if (queries::free_adjacent(view.query(), rider).empty()) return std::nullopt;
  }
  return defender.skill(view.content().dodge_skill, view.state.round);
}

// attack.py _blow (H6, S24)
Blow blow_of(const View& view, int attacker, int target, int weapon, AttackMode mode) {
  const harm::ApplyRules& rs = view.rules;
  const harm::WeaponDamage* w =
      weapon == kNone ? nullptr : &rs.weapons.at(static_cast<std::size_t>(weapon));
  const std::string_view kind = (w != nullptr && w->thrown) ? "thrown"
                                : combat::mode_missile(mode) ? "missile" : "melee";
  const Combatant& a = view.at(attacker);
  const Combatant& t = view.at(target);
  Blow blow;
  if (std::find(rs.damage_bonus_applies_to.begin(), rs.damage_bonus_applies_to.end(), kind) !=
      rs.damage_bonus_applies_to.end()) {
    blow.bonus = combat::damage_bonus_dice(view.state.roster, rs, attacker);
  }
  const int con = t.characteristic(view.content().constitution);
  if (w != nullptr && w->poisoned) {
    const int mult = (w->poison_snake || a.snake) ? rs.poison_snake_con_multiplier
                                                  : rs.poison_con_multiplier;
    blow.poison_dice = w->poison_damage;
    blow.poison_save = con * mult;
  }
  blow.dice = w != nullptr ? w->damage : rs.unarmed_damage;
  blow.damage_type = w == nullptr                           ? DamageKind::crush
                     : w->type == harm::DamageType::slash  ? DamageKind::slash
                     : w->type == harm::DamageType::impale ? DamageKind::impale
                                                           : DamageKind::crush;
  blow.armour = t.armour_points();
  blow.hp = t.hp;
  blow.con = con;
  blow.bleeding = t.bleeding;
  blow.out_at = rs.out_of_action_at;
  return blow;
}

// attack.py _rules_of
Rules rules_of(const View& view) {
  return {view.rules.success, view.rules.parry_special_factor,
          {view.rules.dodge_success_reduction, view.rules.dodge_special_reduction}};
}

// attack.py _defences
Defences defences_of(const View& view, int target, bool missile, Defence defence,
                     std::optional<int> parry_item) {
  Defences out;
  if (uses_dodge(defence)) out.dodge = dodge_chance(view, target);
  if (!uses_parry(defence)) return out;
  for (const ParryOption& option : parry_options(view, target, missile)) {
    if (!parry_item || *parry_item == option.uid) out.parries.emplace_back(option.chance, option.ap);
  }
  return out;
}

// attack.py _defence
std::pair<DefenceRolls, Outcomes> defence_and_outcomes(const Rules& rules, const Defences& defences,
                                                       const Blow& blow, Level level) {
  DefenceRolls base;
  base.dodge = level_distribution(defences.dodge, rules.success);
  base.dodge_chance = defences.dodge;
  std::optional<std::pair<DefenceRolls, Outcomes>> best;
  std::optional<double> best_mean;
  for (const auto& [chance, ap] : defences.parries) {
    DefenceRolls candidate{level_distribution(chance, rules.success), ap, base.dodge, chance,
                           defences.dodge};
    Outcomes outcomes = outcomes_of(rules, blow, level, candidate);
    const double mean = mean_of(outcomes);
    if (!best_mean || better(mean, *best_mean)) {
      best.emplace(std::move(candidate), std::move(outcomes));
      best_mean = mean;
    }
  }
  if (best) return std::move(*best);
  Outcomes outcomes = outcomes_of(rules, blow, level, base);
  return {std::move(base), std::move(outcomes)};
}

// attack.py _outcomes
Outcomes outcomes_of(const Rules& rules, const Blow& blow, Level level, const DefenceRolls& defence) {
  return hit_outcomes(blow, level, defence.parry, defence.ap, defence.dodge, rules.success,
                      rules.parry_factor, rules.dodge_cuts);
}

// attack.py _mean
double mean_of(const Outcomes& outcomes) {
  double total = 0.0;
  for (const Outcome& outcome : outcomes) total += outcome.damage * outcome.probability;
  return total;
}

namespace {

// attack.py _summarise (H5: out of action at out_at or less, dead below -CON as well)
AttackOdds summarise(const Blow& blow, int chance, const Levels& levels,
                     const std::array<std::optional<Outcomes>, kLevelCount>& per_level,
                     const DefenceRolls& defence) {
  AttackOdds odds;
  odds.chance = chance;
  odds.levels = levels;
  const Outcomes missed{{0, false, false, 1.0}};
  for (std::size_t i = 0; i < kLevelCount; ++i) {
    const double p_level = levels[i];
    if (p_level == 0.0) continue;
    for (const Outcome& outcome : per_level[i] ? *per_level[i] : missed) {
      const double p = p_level * outcome.probability;
      odds.damage.add(outcome.damage, p);
      if (outcome.bleeds) odds.bleeds += p;
      if (outcome.knocked) odds.knocked_down += p;
    }
  }
  for (std::size_t i = 0; i < odds.damage.probability.size(); ++i) {
    const int left = blow.hp - (odds.damage.lowest + static_cast<int>(i));
    if (left <= blow.out_at) {
      odds.drops += odds.damage.probability[i];
      if (left < -blow.con) odds.kills += odds.damage.probability[i];
    }
  }
  odds.parry_chance = defence.parry_chance;
  odds.dodge_chance = defence.dodge_chance;
  return odds;
}

}  // namespace

// attack.py attack_odds
AttackOdds attack_odds(const View& view, ActionKind kind, int target, int item, Defence defence,
                       std::optional<int> parry_item, int attacker) {
  return odds_for(view, attack_of(view, kind, target, item, attacker), defence, parry_item);
}

// attack.py _odds_for
AttackOdds odds_for(const View& view, const Attack& attack, Defence defence,
                    std::optional<int> parry_item, std::optional<Level> known_level,
                    std::optional<std::pair<Level, int>> known_parry) {
  const bool missile = combat::mode_missile(attack.mode);
  const Blow blow = blow_of(view, attack.attacker, attack.target, attack.weapon, attack.mode);
  const Defences defences = defences_of(view, attack.target, missile, defence, parry_item);
  return pure_odds(rules_of(view), blow, attack.chance, defences, known_level, known_parry);
}

// attack.py's and risk.py's lru_cache keys: the numbers the pure odds read, one int each
std::vector<int> odds_key(const Rules& rules, const Blow& blow, int chance,
                          const Defences& defences, std::optional<Level> known_level,
                          std::optional<std::pair<Level, int>> known_parry) {
  const roller::SuccessRules& s = rules.success;
  std::vector<int> key;
  key.reserve(64);  // one allocation for the usual blow and defences
  key.insert(key.end(), {s.critical_divisor, s.special_divisor, s.success_cap, s.auto_success_max,
                         s.auto_fail_min, s.fumble_divisor, rules.parry_factor,
                         rules.dodge_cuts[0], rules.dodge_cuts[1], chance});
  const auto dice = [&key](const roller::Dice& d) {
    key.push_back(static_cast<int>(d.terms.size()));
    for (const roller::DiceTerm& term : d.terms) key.insert(key.end(), {term.sign, term.count, term.sides});
    key.push_back(d.constant);
  };
  dice(blow.dice);
  dice(blow.bonus);
  key.push_back(static_cast<int>(blow.damage_type));
  key.push_back(blow.poison_dice ? 1 : 0);
  if (blow.poison_dice) dice(*blow.poison_dice);
  key.insert(key.end(), {blow.poison_save, blow.armour, blow.hp, blow.con,
                         blow.bleeding ? 1 : 0, blow.out_at});
  key.insert(key.end(), {defences.dodge ? 1 : 0, defences.dodge.value_or(0),
                         static_cast<int>(defences.parries.size())});
  for (const auto& [parry, ap] : defences.parries) key.insert(key.end(), {parry, ap});
  key.insert(key.end(), {known_level ? 1 + static_cast<int>(*known_level) : 0,
                         known_parry ? 1 + static_cast<int>(known_parry->first) : 0,
                         known_parry ? known_parry->second : 0});
  return key;
}

namespace {

// The odds computed, per thread (a batch of envs steps without the GIL beside others),
// up to kKept answers, then started afresh: attack.py's lru_cache on _pure_odds.
constexpr std::size_t kKept = 65536;
thread_local std::unordered_map<std::vector<int>, AttackOdds, OddsKeyHash> known_odds;

AttackOdds computed_odds(const Rules& rules, const Blow& blow, int chance,
                         const Defences& defences, std::optional<Level> known_level,
                         std::optional<std::pair<Level, int>> known_parry);

}  // namespace

// attack.py _pure_odds (cached, as Python caches it: the tactician and the searches ask
// the same questions many times)
AttackOdds pure_odds(const Rules& rules, const Blow& blow, int chance, const Defences& defences,
                     std::optional<Level> known_level,
                     std::optional<std::pair<Level, int>> known_parry) {
  std::vector<int> key = odds_key(rules, blow, chance, defences, known_level, known_parry);
  const auto found = known_odds.find(key);
  if (found != known_odds.end()) return found->second;
  AttackOdds odds = computed_odds(rules, blow, chance, defences, known_level, known_parry);
  if (known_odds.size() >= kKept) known_odds.clear();
  known_odds.emplace(std::move(key), odds);
  return odds;
}

namespace {

AttackOdds computed_odds(const Rules& rules, const Blow& blow, int chance,
                         const Defences& defences, std::optional<Level> known_level,
                         std::optional<std::pair<Level, int>> known_parry) {
  Levels found{};
  if (!known_level) {
    found = levels(chance, rules.success);
  } else {
    found[static_cast<std::size_t>(*known_level)] = 1.0;
  }
  std::array<std::optional<Outcomes>, kLevelCount> per_level;
  DefenceRolls chosen;
  for (const Level level : kHitLevels) {
    if (found[static_cast<std::size_t>(level)] == 0.0) continue;
    auto [defence, outcomes] = defence_and_outcomes(rules, defences, blow, level);
    chosen = std::move(defence);
    if (known_parry) {
      chosen = DefenceRolls{{{known_parry->first, 1.0}}, known_parry->second, chosen.dodge,
                            std::nullopt, chosen.dodge_chance};
      outcomes = outcomes_of(rules, blow, level, chosen);
    }
    per_level[static_cast<std::size_t>(level)] = std::move(outcomes);
  }
  return summarise(blow, chance, found, per_level, chosen);
}

}  // namespace

// attack.py _pending
Pending pending(const View& view) {
  Pending out;
  if (!view.state.decision || view.state.names == nullptr) return out;
  const std::optional<actions::Name> actor =
      view.state.names->find(view.state.roster.ids.name(view.state.decision->actor));
  if (!actor) return out;
  for (std::size_t i = view.state.events.size(); i-- > 0;) {
    const events::Event& event = view.state.events[i];
    if (const auto* parry = std::get_if<events::ParryRolled>(&event)) {
      if (parry->defender == *actor && out.parried == nullptr) out.parried = parry;
    } else if (const auto* hit = std::get_if<events::AttackRolled>(&event)) {
      if (hit->target == *actor) {
        out.hit = hit;
        return out;
      }
    }
  }
  return out;
}

namespace {

bool defence_decision(const View& view) {  // rules.actions.DEFENCE_DECISIONS
  return view.state.decision && (view.state.decision->kind == actions::DecisionKind::PARRY ||
                                 view.state.decision->kind == actions::DecisionKind::DODGE);
}

Level level_named(std::string_view name) {
  for (std::size_t i = 0; i < kLevelCount; ++i) {
    if (name == roller::kLevelNames[i]) return static_cast<Level>(i);
  }
  throw std::invalid_argument("pending_hit_odds: unknown success level " + std::string(name));
}

}  // namespace

// attack.py pending_attack
const events::AttackRolled* pending_attack(const View& view) {
  if (!defence_decision(view)) return nullptr;
  return pending(view).hit;
}

// attack.py pending_hit_odds
AttackOdds pending_hit_odds(const View& view, Defence defence, std::optional<int> parry_item) {
  if (!defence_decision(view)) {
    throw std::invalid_argument("pending_hit_odds: expected a PARRY or DODGE decision");
  }
  const Pending found = pending(view);
  if (found.hit == nullptr) {
    throw std::invalid_argument("pending_hit_odds: no attack roll against the decider found");
  }
  const actions::NameTable& names = *view.state.names;
  const std::string& mode_name = names.text(found.hit->mode);
  const std::optional<int> mode = content::index_in(frames::kAttackModeNames, mode_name);
  if (!mode) throw std::invalid_argument("pending_hit_odds: unknown mode " + mode_name);
  if (combat::mode_manoeuvre(static_cast<AttackMode>(*mode))) {
    throw std::invalid_argument("pending_hit_odds: a " + mode_name +
                                " does no damage (H19); see pending_attack");
  }
  const combatant::Roster& roster = view.state.roster;
  Attack spec{roster.ids.find(names.text(found.hit->attacker)),
              roster.ids.find(names.text(found.hit->target)),
              view.content().weapon_names.find(names.text(found.hit->weapon)),
              static_cast<AttackMode>(*mode), found.hit->chance};
  const Level level = level_named(names.text(found.hit->level));
  if (view.state.decision->kind == actions::DecisionKind::PARRY) {
    return odds_for(view, spec, defence, parry_item, level);
  }
  const Defence dodge_only = uses_dodge(defence) ? Defence::dodge : Defence::none;
  std::optional<std::pair<Level, int>> known;
  if (found.parried != nullptr) {
    const ItemInstance* inst = item_of(view.at(view.state.decision->actor),
                                       roster.uids.find(names.text(found.parried->item)));
    known = std::pair{level_named(names.text(found.parried->level)),
                      inst == nullptr ? 0 : inst->ap.value_or(0)};
  }
  return odds_for(view, spec, dodge_only, std::nullopt, level, known);
}

}  // namespace fray::odds
