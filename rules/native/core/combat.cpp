// rules/combat.py: see combat.hpp. Rule IDs as in the Python.
#include "combat.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>

#include "grid.hpp"

namespace fray::combat {

using actions::ActionKind;
using combatant::Combatant;
using combatant::ItemInstance;
using content::kNone;
using frames::AttackFrame;
using frames::AttackMode;
using roller::Level;

namespace {

const content::Weapon* weapon_of(const harm::Context& context, int equipment_id) {
  if (equipment_id == kNone) return nullptr;
  const int row = context.content().equipment_of(equipment_id).weapon;
  return row == kNone ? nullptr : &context.content().weapons[static_cast<std::size_t>(row)];
}

int weapon_row(const harm::Context& context, int equipment_id) {
  return equipment_id == kNone ? kNone : context.content().equipment_of(equipment_id).weapon;
}

int characteristic(const harm::Context& context, const Combatant& who, std::string_view name) {
  return who.characteristic(context.content().characteristic_names.find(name));
}

ItemInstance* item_of(Combatant& who, int uid) {
  for (ItemInstance& inst : who.inventory) {
    if (inst.uid == uid) return &inst;
  }
  return nullptr;
}

void status_changed(harm::Context& context, int actor, std::string_view status, std::string_view cause) {
  events::StatusChanged event;
  event.actor = context.id(actor);
  event.status = context.text(status);
  event.cause = context.text(cause);
  context.emit(std::move(event));
}

// A level's name; a level out of the enum (never built by the rules) is an error, not a
// read past the table.
const char* level_name(Level level) {
  const auto index = static_cast<std::size_t>(level);
  if (index >= std::size(roller::kLevelNames)) throw std::out_of_range("success level out of range");
  return roller::kLevelNames[index];
}

// H19: a successful parry or dodge has defeated a manoeuvre.
bool defended(const AttackFrame& frame) {
  for (const std::optional<int>& level : {frame.parry_level, frame.dodge_level}) {
    if (level && *level >= static_cast<int>(Level::SUCCESS)) return true;
  }
  return false;
}

int dice_maximum(const roller::Dice& dice) {
  int total = dice.constant;
  for (const roller::DiceTerm& term : dice.terms) {
    total += term.sign > 0 ? term.count * term.sides : -term.count;
  }
  return total;
}

// H9: success blocks the item's AP, special 2 x AP, critical all; the item wears by 1 AP
// when the damage exceeds the block and breaks at 0. A fumble blocks nothing (H11).
int parry_block(harm::Context& context, const AttackFrame& frame, int target, int rolled) {
  if (!frame.parry_level) return 0;
  const Level level = static_cast<Level>(*frame.parry_level);
  Combatant& who = context.at(target);
  ItemInstance* inst = frame.parry_item == kNone ? nullptr : item_of(who, frame.parry_item);
  if (inst == nullptr || !roller::succeeded(level)) return 0;
  const harm::ApplyRules& d = context.rules;
  const int ap = inst->ap.value_or(0);
  int block = rolled;
  if (level == Level::SUCCESS) block = ap;
  else if (level == Level::SPECIAL) block = ap * d.parry_special_factor;
  if (rolled > block) {
    inst->ap = ap - d.parry_wear;
    events::ItemWorn worn;
    worn.owner = context.id(target);
    worn.item = context.uid(inst->uid);
    worn.ap = *inst->ap;
    context.emit(std::move(worn));
    if (*inst->ap <= 0) {
      const int uid = inst->uid;
      who.inventory.erase(who.inventory.begin() + (inst - who.inventory.data()));
      events::ItemBroken broken;
      broken.owner = context.id(target);
      broken.item = context.uid(uid);
      context.emit(std::move(broken));
    }
  }
  return std::min(block, rolled);
}

// H10: success -10, special -20, critical negates; failure and fumble nothing.
int dodge_reduction(const harm::Context& context, const AttackFrame& frame, int damage) {
  if (!frame.dodge_level) return 0;
  int cut = 0;
  switch (static_cast<Level>(*frame.dodge_level)) {
    case Level::SUCCESS: cut = context.rules.dodge_success_reduction; break;
    case Level::SPECIAL: cut = context.rules.dodge_special_reduction; break;
    case Level::CRITICAL: cut = damage; break;
    case Level::FAILURE:
    case Level::FUMBLE: break;
  }
  return std::min(cut, damage);
}

// S24: a poisoned hit needs a CON x10 save (x5 against snakes) even if armour held.
void poison(harm::Context& context, int attacker, int target, const harm::WeaponDamage& weapon) {
  const int mult = (weapon.poison_snake || context.at(attacker).snake)
                       ? context.rules.poison_snake_con_multiplier
                       : context.rules.poison_con_multiplier;
  const int con = context.at(target).characteristic(context.content().constitution);
  if (!harm::roll_under(context, target, con * mult, "poison (CON x" + std::to_string(mult) + ")")) {
    const int amount = roller::roll(context.state.dice, weapon.poison_damage).total;
    harm::lose_hp(context, target, amount, "poison");
  }
}

// H6, H7, H9, H10, S24: damage after parry, dodge and armour.
void damage(harm::Context& context, AttackFrame& frame, int attacker, int target) {
  const harm::ApplyRules& rs = context.rules;
  const Level level = static_cast<Level>(frame.level.value_or(0));
  const int row = weapon_row(context, frame.weapon_id);
  const harm::WeaponDamage* w = row == kNone ? nullptr : &rs.weapons[static_cast<std::size_t>(row)];
  const roller::Dice& dice = w != nullptr ? w->damage : rs.unarmed_damage;
  const harm::DamageType dtype = w != nullptr ? w->type : harm::DamageType::crush;
  const std::string_view kind = (w != nullptr && w->thrown) ? "thrown"
                                : mode_missile(frame.mode) ? "missile" : "melee";
  int base = 0;
  std::vector<std::int32_t> faces;
  if (level == Level::CRITICAL) {  // H7: maximum weapon damage + rolled bonus, ignores armour
    base = dice_maximum(dice);
  } else if (level == Level::SPECIAL && dtype == harm::DamageType::impale) {  // H7: twice
    roller::Rolled first = roller::roll(context.state.dice, dice);
    roller::Rolled second = roller::roll(context.state.dice, dice);
    base = first.total + second.total;
    faces = std::move(first.faces);
    faces.insert(faces.end(), second.faces.begin(), second.faces.end());
  } else {
    roller::Rolled once = roller::roll(context.state.dice, dice);
    base = once.total;
    faces = std::move(once.faces);
  }
  int bonus = 0;
  if (std::find(rs.damage_bonus_applies_to.begin(), rs.damage_bonus_applies_to.end(), kind) !=
      rs.damage_bonus_applies_to.end()) {
    roller::Rolled extra = roller::roll(context.state.dice, damage_bonus_dice(context, attacker));
    bonus = extra.total;
    faces.insert(faces.end(), extra.faces.begin(), extra.faces.end());
  }
  const int rolled = std::max(0, base + bonus);
  const int parried = parry_block(context, frame, target, rolled);
  const int after_parry = rolled - parried;
  const int dodged = dodge_reduction(context, frame, after_parry);
  const int through = after_parry - dodged;
  const int armour = level == Level::CRITICAL ? 0 : std::min(through, context.at(target).armour_points());
  const int dealt = std::max(0, through - armour);
  std::string effect = level_name(level);
  std::transform(effect.begin(), effect.end(), effect.begin(),
                 [](char ch) { return static_cast<char>(ch - 'A' + 'a'); });
  if (dealt > 0 && level == Level::SPECIAL) {
    effect += dtype == harm::DamageType::slash ? " (bleeds)"
              : dtype == harm::DamageType::crush ? " (knockdown check)" : " (impaled)";
  }
  const std::string& attacker_id = context.state.roster.ids.name(attacker);
  harm::deal_damage(context, attacker, target, dealt, "hit by " + attacker_id,
                    harm::DamageRecord{rolled, std::move(faces), parried, dodged, armour, effect});
  if (dealt > 0 && level == Level::SPECIAL && !context.at(target).dead()) {
    if (dtype == harm::DamageType::slash && !context.at(target).bleeding) {
      context.at(target).bleeding = true;
      status_changed(context, target, "bleeding", "special slash");
    } else if (dtype == harm::DamageType::crush &&
               !harm::resist(context, target, context.at(target).characteristic(context.content().constitution),
                             dealt, "knockdown (CON vs damage)")) {
      harm::set_prone(context, target, "special crush");
    }
  }
  if (w != nullptr && w->poisoned && through > 0 && !context.at(target).dead()) {
    poison(context, attacker, target, *w);
  }
}

void manoeuvre_defeated(harm::Context& context, const AttackFrame& frame, std::string_view defence) {
  events::ManoeuvreDefeated event;
  event.attacker = context.id(frame.attacker);
  event.target = context.id(frame.target);
  event.manoeuvre = context.text(frames::kAttackModeNames[static_cast<std::size_t>(frame.mode)]);
  event.defence = context.text(defence);
  context.emit(std::move(event));
}

// H19: a parried or dodged manoeuvre is defeated; a target carried out of reach is out of
// it; else the resistance roll decides.
void manoeuvre_effect(harm::Context& context, AttackFrame& frame, int attacker, int target) {
  const ActionKind kind = mode_kind(frame.mode);
  if (defended(frame)) {
    const bool by_parry = frame.parry_level && *frame.parry_level >= static_cast<int>(Level::SUCCESS);
    manoeuvre_defeated(context, frame, by_parry ? "parry" : "dodge");
    return;
  }
  const Combatant& a = context.at(attacker);
  const Combatant& t = context.at(target);
  if (!t.in_action() || grid::chebyshev(a.position, t.position) > 1) {
    manoeuvre_defeated(context, frame, "distance");
    return;
  }
  const std::string& attacker_id = context.state.roster.ids.name(attacker);
  if (kind == ActionKind::TRIP) {
    if (harm::resist(context, attacker, characteristic(context, a, "str"),
                     characteristic(context, t, "dex"), "trip (STR vs DEX)")) {
      harm::set_prone(context, target, "tripped by " + attacker_id);
    }
    return;
  }
  const std::string value(actions::ACTION_KIND_VALUES[static_cast<std::size_t>(kind)]);
  if (!harm::resist(context, attacker, characteristic(context, a, "str"),
                    characteristic(context, t, "str"), value + " (STR vs STR)")) {
    return;
  }
  if (kind == ActionKind::GRAPPLE) {
    if (context.at(attacker).grappled_by == target) {
      context.at(attacker).grappled_by = kNone;
      status_changed(context, attacker, "free",
                     "broke " + context.state.roster.ids.name(target) + "'s hold");
    } else {
      context.at(target).grappled_by = attacker;
      status_changed(context, target, "grappled", "by " + attacker_id);
    }
    return;
  }
  int held = kNone;
  context.at(target).for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
    if (held == kNone && !weapon.natural) held = context.at(target).inventory[index].uid;
  });
  if (held != kNone) harm::drop_item(context, target, held, "disarmed by " + attacker_id);
}

}  // namespace

// rules.actions.ATTACK_MODES' columns (rules_tables.hpp).
bool mode_missile(AttackMode mode) {
  return frames::kAttackModeMissile[static_cast<std::size_t>(mode)];
}

bool mode_manoeuvre(AttackMode mode) {
  return frames::kAttackModeManoeuvre[static_cast<std::size_t>(mode)];
}

ActionKind mode_kind(AttackMode mode) {
  return frames::kAttackModeKinds[static_cast<std::size_t>(mode)];
}

// H6
roller::Dice damage_bonus_dice(const harm::Context& context, int combatant) {
  return damage_bonus_dice(context.state.roster, context.rules, combatant);
}

roller::Dice damage_bonus_dice(const combatant::Roster& roster, const harm::ApplyRules& db,
                               int combatant) {
  const Combatant& who = roster.combatants.at(static_cast<std::size_t>(combatant));
  const int total = who.characteristic(roster.content->strength) +
                    who.characteristic(roster.content->size);
  for (const harm::DamageBonusStep& row : db.damage_bonus_table) {
    if (total <= row.max) return row.dice;
  }
  const harm::DamageBonusStep& last = db.damage_bonus_table.back();
  const int extra_steps = -combatant::floor_divide(-(total - last.max), db.damage_bonus_step);
  const roller::DiceTerm first = last.dice.terms.front();
  const roller::DiceTerm e = db.damage_bonus_extra.terms.front();
  roller::Dice out;
  if (first.sides == e.sides) {
    out.terms.push_back({first.sign, first.count + extra_steps * e.count, first.sides});
    out.constant = last.dice.constant;
    return out;
  }
  out.terms = last.dice.terms;
  out.terms.push_back({e.sign, extra_steps * e.count, e.sides});
  return out;  // Python's Dice(terms) keeps constant 0 here
}

// H3/H15/H23
int attack_chance(harm::Context& context, int attacker, int target, int skill, bool missile, int points) {
  return attack_chance(context.query(), context.rules, attacker, target, skill, missile, points);
}

int attack_chance(const queries::QueryState& query, const harm::ApplyRules& modifiers, int attacker,
                  int target, int skill, bool missile, int points) {
  const Combatant& t = query.combatant(target);
  const Combatant& a = query.combatant(attacker);
  const double factor = queries::is_lit(query, t.position) ? 1.0 : modifiers.dark_factor;
  if (missile) {
    points += t.prone ? modifiers.prone_target_missile : 0;
  } else {
    points += t.prone ? modifiers.prone_target_melee : 0;
    points += a.prone ? modifiers.prone_attacker_melee : 0;
  }
  return a.skill(skill, query.round, factor, points);
}

// S4, H11
bool roll_attack(harm::Context& context, AttackFrame& frame) {
  if (!context.at(frame.attacker).in_action() || !context.at(frame.target).in_action()) return false;
  const content::Weapon* weapon = weapon_of(context, frame.weapon_id);
  const int skill = frame.skill != kNone ? frame.skill
                    : weapon != nullptr  ? weapon->skill
                                         : context.content().unarmed_skill;
  const int chance = attack_chance(context, frame.attacker, frame.target, skill, frame.missile, frame.points);
  const int roll = roller::d100(context.state.dice);
  const Level level = roller::success_level(roll, chance, context.rules.success);
  events::AttackRolled event;
  event.attacker = context.id(frame.attacker);
  event.target = context.id(frame.target);
  event.weapon = context.text(frame.skill != kNone ? context.content().skill_names.name(frame.skill)
                              : frame.weapon_id != kNone
                                  ? context.content().equipment_names.name(frame.weapon_id)
                                  : std::string("unarmed"));
  event.mode = context.text(frames::kAttackModeNames[static_cast<std::size_t>(frame.mode)]);
  event.chance = chance;
  event.roll = roll;
  event.level = context.text(level_name(level));
  context.emit(std::move(event));
  if (level == Level::FUMBLE && weapon != nullptr && !weapon->natural && frame.weapon != kNone) {
    auto thrown = std::find_if(context.state.ground.begin(), context.state.ground.end(),
                               [&](const ItemInstance& item) { return item.uid == frame.weapon; });
    if (thrown != context.state.ground.end()) {  // H11: a fumbled throw falls at the thrower
      const combatant::Square at = context.at(frame.attacker).position;
      thrown->square = at;
      events::ItemMoved moved;
      moved.actor = context.id(frame.attacker);
      moved.item = context.uid(thrown->uid);
      moved.state_from = context.text("ground");
      moved.state_to = context.text("ground");
      moved.square = actions::Square{at.x, at.y};
      context.emit(std::move(moved));
    } else {
      harm::drop_item(context, frame.attacker, frame.weapon, "fumble");  // H11
    }
  }
  if (!roller::succeeded(level)) return false;
  frame.level = static_cast<int>(level);
  return true;
}

// S8/S10
void roll_parry(harm::Context& context, AttackFrame& frame, int item) {
  Combatant& target = context.at(frame.target);
  ItemInstance* inst = item == kNone ? nullptr : item_of(target, item);
  if (inst == nullptr) return;  // unreachable: legal_actions only lists held items
  if (target.parries_used < context.rules.parries_per_round) {
    target.parries_used += 1;
  } else {
    target.extra_parries -= 1;
  }
  const content::Content& content = context.content();
  const content::Equipment& equipment = content.equipment_of(inst->item);
  int skill = kNone;
  if (equipment.weapon != kNone) {
    skill = content.weapons[static_cast<std::size_t>(equipment.weapon)].skill;
  } else {
    skill = content.armour.at(static_cast<std::size_t>(equipment.armour)).skill;
    if (skill == kNone) skill = context.content().shield_skill;
  }
  const int chance = target.skill(skill, context.state.round);
  const int roll = roller::d100(context.state.dice);
  const Level level = roller::success_level(roll, chance, context.rules.success);
  events::ParryRolled event;
  event.defender = context.id(frame.target);
  event.item = context.uid(inst->uid);
  event.chance = chance;
  event.roll = roll;
  event.level = context.text(level_name(level));
  context.emit(std::move(event));
  frame.parry_level = static_cast<int>(level);
  frame.parry_item = inst->uid;
  harm::break_concentration(context, frame.target);
}

// S9/H10/S10
void roll_dodge(harm::Context& context, AttackFrame& frame, std::optional<combatant::Square> square) {
  Combatant& target = context.at(frame.target);
  const bool waived = target.dodge_waived;  // S10: Fight Defensively's dodge pays nothing
  target.dodge_waived = false;
  std::string_view disadvantage = "none";
  if (!waived) {
    disadvantage = square ? "shift" : (target.riding != kNone ? "saddle" : "prone");
  }
  const int chance = target.skill(context.content().dodge_skill, context.state.round);
  const int roll = roller::d100(context.state.dice);
  const Level level = roller::success_level(roll, chance, context.rules.success);
  events::DodgeRolled event;
  event.defender = context.id(frame.target);
  event.chance = chance;
  event.roll = roll;
  event.level = context.text(level_name(level));
  if (square) event.square = actions::Square{square->x, square->y};
  event.disadvantage = context.text(disadvantage);
  context.emit(std::move(event));
  frame.dodge_level = static_cast<int>(level);
  if (disadvantage == "shift") {  // H10: the dodge spends the Shift...
    target.position = *square;
    target.shifted_this_round = true;
    harm::release_grapples_by(context, frame.target);
  } else if (disadvantage != "none") {  // ...or the dodger falls (from the saddle, H22)
    harm::set_prone(context, frame.target, "dodged");
  }
  harm::break_concentration(context, frame.target);
}

bool settled(const AttackFrame& frame) {
  return frame.parry_level == static_cast<int>(Level::CRITICAL) ||
         (mode_manoeuvre(frame.mode) && defended(frame));
}

void resolve(harm::Context& context, AttackFrame& frame) {
  if (mode_manoeuvre(frame.mode)) {
    manoeuvre_effect(context, frame, frame.attacker, frame.target);
  } else {
    damage(context, frame, frame.attacker, frame.target);
  }
}

}  // namespace fray::combat
