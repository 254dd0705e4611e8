// rules/harm.py in C++: rolls, status and harm (S4, S11, S21, S23, H2, H5, H8, H22).
//
// Every change of hit points or status goes through lose_hp, deal_damage and heal, so
// out-of-action and death (H5) are decided in one place; every d100 roll outside an
// attack goes through roll_skill or roll_under. Events are events.hpp records emitted in
// Python's order with Python's fields. The Context is what every rules function of the
// native step takes: the state, the map as its doors stand, the records' name table and
// the ruleset numbers the step reads beyond content.hpp's (ApplyRules).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "combatant.hpp"
#include "events.hpp"
#include "grid.hpp"
#include "invariants.hpp"
#include "queries.hpp"
#include "reach.hpp"
#include "roller.hpp"
#include "state.hpp"

namespace fray::harm {

using combatant::Combatant;

// schema.Weapon's damage columns (H6, H7, S24), by content weapon row.
enum class DamageType : std::uint8_t { slash, crush, impale };
struct WeaponDamage {
  roller::Dice damage;
  DamageType type = DamageType::crush;
  bool thrown = false;
  bool poisoned = false;  // schema.Poison: its damage and whether snake-like
  roller::Dice poison_damage;
  bool poison_snake = false;
};

// schema.Spell's columns content.hpp lacks (H18), by content spell id.
struct SpellExtra {
  int rounds = 1;
  bool has_dice = false;
  roller::Dice dice;
  int modifier = 0;
  int duration = 0;
  bool provokes = true;
  bool ignores_armour = false;
};

struct DamageBonusStep {  // H6
  int max = 0;
  roller::Dice dice;
};

// The ruleset numbers the step reads beyond content.hpp's (schema.Ruleset's initiative
// die, success, resistance, hit_points, fatigue, falling, defence, modifiers, poison,
// damage bonus, misc; the weapons' damage), compiled once from Python's content.
struct ApplyRules {
  roller::Dice initiative_die{{{1, 1, 12}}, 0};  // S1: schema.InitiativeRules.die (muster.hpp)
  roller::SuccessRules success;
  int resistance_base = 50;  // H8
  int resistance_step = 5;
  int out_of_action_at = 0;  // H5
  int fatigue_con_multiplier = 5;  // S21
  int fatigue_rounds_per_check = 50;
  int rest_rounds_fatigued = 300;
  int rest_rounds_exhausted = 2400;
  roller::Dice falling_die;  // S23
  int feet_per_die = 10;
  roller::Dice falling_skill_reduction;
  std::vector<std::string> falling_reduction_skills;
  // schema.DefenceRules (S8, S10, H9, H10)
  int parry_special_factor = 2;
  int parry_wear = 1;
  int dodge_success_reduction = 10;
  int dodge_special_reduction = 20;
  int parries_per_round = 1;
  int fight_defensively_extra_parries = 1;
  // schema.CombatModifiers (H15, H17, H23)
  int prone_target_melee = 20;
  int prone_attacker_melee = -20;
  int prone_target_missile = -20;
  int full_attack = 20;
  double dark_factor = 0.5;
  // schema.PoisonRules (S24)
  int poison_con_multiplier = 10;
  int poison_snake_con_multiplier = 5;
  // schema.DamageBonusRules (H6)
  std::vector<DamageBonusStep> damage_bonus_table;
  int damage_bonus_step = 16;
  roller::Dice damage_bonus_extra;
  // schema.MiscRules
  roller::Dice unarmed_damage;
  std::vector<std::string> damage_bonus_applies_to;  // "melee", "thrown", "missile"
  int bleed_per_round = 1;
  roller::Dice first_aid_heal;
  int failed_cast_cost = 1;
  std::vector<WeaponDamage> weapons;  // by content weapon row
  std::vector<SpellExtra> spells;     // by content spell id
  std::vector<std::optional<roller::Dice>> item_heal;  // potions' heal dice, by item row
};

// What the rules functions of a step read and change.
struct Context {
  state::BattleState& state;
  const grid::Grid& grid;  // the map as its doors stand
  actions::NameTable& names;
  const ApplyRules& rules;
  const reach::ReachGraph* graph = nullptr;  // the reach search over `grid` (moves)
  bool watch = false;                        // check the bodies after every event

  Combatant& at(int number) { return state.roster.combatants.at(static_cast<std::size_t>(number)); }
  queries::QueryState query() const {
    return {state.roster, grid, state.ground, state.initiative_order, state.round};
  }
  const content::Content& content() const { return *state.roster.content; }
  actions::Name text(std::string_view value) { return names.intern(value); }
  actions::Name id(int number) { return names.intern(state.roster.ids.name(number)); }
  actions::Name uid(int number) { return names.intern(state.roster.uids.name(number)); }
  // A skill name's ruleset id (kNone for a name the ruleset lacks, as Python treats it).
  int skill_id(std::string_view skill) const { return content().skill_names.find(skill); }
  // BattleState.emit: the event, stamped with this round, appended to the log.
  // With `watch`, after every event invariants::check_bodies (a Moved event emitted while
  // its move frame is on top ends that move) and, for a Moved event, check_moved (its actor
  // stands on its last square), as the fuzzer's event hook does on the Python engine.
  template <typename Event>
  void emit(Event event) {
    event.round = state.round;
    int finished = content::kNone;
    int actor = content::kNone;
    combatant::Square last{};
    if constexpr (std::is_same_v<Event, events::Moved>) {
      if (watch) {
        const auto* move = state.stack.empty() ? nullptr
                                               : std::get_if<frames::MoveFrame>(&state.stack.back());
        if (move != nullptr) finished = move->actor;
        actor = state.roster.ids.find(names.text(event.actor));
        last = combatant::Square{event.path.back().x, event.path.back().y};
      }
    }
    state.events.push_back(events::Event(std::move(event)));
    if (watch) {
      invariants::check_bodies(state, finished);
      if (actor != content::kNone) invariants::check_moved(state, actor, last);
    }
  }
};

// rules.events.item_label: how the log names an item uid held by `holder` (or none).
std::string item_label(std::string_view uid, std::optional<std::string_view> holder);

// ------------------------------------------------------------ rolls
// S4/H2/H3: a d100 skill roll, logged as SkillRolled (`skill` a ruleset skill name).
roller::Level roll_skill(Context& context, int combatant, std::string_view skill,
                         std::string_view purpose, double factor = 1.0, int points = 0,
                         int extra_fumble = 0);
// H2: a d100 roll under `chance`, logged as Resisted.
bool roll_under(Context& context, int actor, int chance, std::string_view purpose);
// H8: active vs passive resistance roll.
bool resist(Context& context, int actor, int active, int passive, std::string_view purpose);

// ------------------------------------------------------------ status and harm
void set_prone(Context& context, int combatant, std::string_view cause);  // H22
bool unseat(Context& context, int rider);                                  // H22
void lose_hp(Context& context, int combatant, int amount, std::string_view cause, bool log = true);
void settle_status(Context& context, int combatant, std::string_view cause);  // H5/H22
// How a DamageDealt's damage was made up (its fields besides attacker, target, damage, hp).
struct DamageRecord {
  int rolled = 0;
  std::vector<std::int32_t> dice;
  int parried = 0;
  int dodged = 0;
  int armour = 0;
  std::string effect;
};
void deal_damage(Context& context, int attacker, int target, int damage, std::string_view cause,
                 const DamageRecord& record);
void kill(Context& context, int combatant, std::string_view cause);  // H5
void heal(Context& context, int combatant, int amount, std::string_view cause);
void release_grapples_by(Context& context, int combatant);  // H19
// H11/H21: the inventory item `uid` (Roster::uids) falls to the combatant's square.
void drop_item(Context& context, int combatant, int uid, std::string_view cause);
void fatigue_check(Context& context, int combatant);  // S21
void recover(Context& context, int combatant, int rounds);  // S21
void fall(Context& context, int combatant, int depth_ft);  // S23
void break_concentration(Context& context, int combatant);  // S11

}  // namespace fray::harm
