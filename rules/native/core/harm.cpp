// rules/harm.py: see harm.hpp. Rule IDs as in the Python.
#include "harm.hpp"

#include <algorithm>
#include <array>

namespace fray::harm {

using combatant::ItemState;
using combatant::Status;
using content::kNone;

std::string item_label(std::string_view uid, std::optional<std::string_view> holder) {
  std::string number;
  const std::size_t last_dot = uid.rfind('.');
  if (last_dot != std::string_view::npos) {
    const std::string_view last = uid.substr(last_dot + 1);
    const bool digits = !last.empty() && std::all_of(last.begin(), last.end(), [](char ch) {
      return ch >= '0' && ch <= '9';
    });
    if (digits) {
      number = " #" + std::string(last);
      uid = uid.substr(0, last_dot);
    }
  }
  const std::size_t dot = uid.rfind('.');
  const std::string_view owner = dot == std::string_view::npos ? std::string_view{} : uid.substr(0, dot);
  const std::string_view kind = dot == std::string_view::npos ? uid : uid.substr(dot + 1);
  std::string name(kind);
  std::replace(name.begin(), name.end(), '_', ' ');
  name += number;
  if (dot != std::string_view::npos && (!holder || owner != *holder)) {
    return std::string(owner) + "'s " + name;
  }
  return name;
}

// ------------------------------------------------------------------ rolls
roller::Level roll_skill(Context& context, int combatant, std::string_view skill,
                         std::string_view purpose, double factor, int points, int extra_fumble) {
  const Combatant& who = context.at(combatant);
  const int chance = who.skill(context.skill_id(skill), context.state.round, factor, points);
  const int roll = roller::d100(context.state.dice);
  const roller::Level level = roller::success_level(roll, chance, context.rules.success, extra_fumble);
  events::SkillRolled event;
  event.actor = context.id(combatant);
  event.skill = context.text(skill);
  event.purpose = context.text(purpose);
  event.chance = chance;
  event.roll = roll;
  event.level = context.text(roller::kLevelNames[static_cast<int>(level)]);
  context.emit(std::move(event));
  return level;
}

bool roll_under(Context& context, int actor, int chance, std::string_view purpose) {
  const int roll = roller::d100(context.state.dice);
  const bool ok = roller::succeeded(roller::success_level(roll, chance, context.rules.success));
  events::Resisted event;
  event.actor = context.id(actor);
  event.purpose = context.text(purpose);
  event.chance = chance;
  event.roll = roll;
  event.success = ok;
  context.emit(std::move(event));
  return ok;
}

// H8
bool resist(Context& context, int actor, int active, int passive, std::string_view purpose) {
  return roll_under(context, actor,
                    roller::resistance_chance(active, passive, context.rules.resistance_base,
                                              context.rules.resistance_step),
                    purpose);
}

namespace {

void status_changed(Context& context, int actor, std::string_view status, std::string_view cause) {
  events::StatusChanged event;
  event.actor = context.id(actor);
  event.status = context.text(status);
  event.cause = context.text(cause);
  context.emit(std::move(event));
}

// H5/H22: an out-of-action combatant lets go of everything it was doing.
void leave_action(Context& context, int combatant) {
  release_grapples_by(context, combatant);
  Combatant& who = context.at(combatant);
  who.grappled_by = kNone;
  who.casting.reset();
  who.concentration = combatant::Concentration::none;
}

}  // namespace

// ------------------------------------------------------------------ status and harm
// H22: a rider, or the mount under one, throws the rider off first.
void set_prone(Context& context, int combatant, std::string_view cause) {
  if (context.at(combatant).prone) return;
  const Combatant& who = context.at(combatant);
  const int rider_id = who.riding != kNone ? who.id : who.ridden_by;
  if (rider_id != kNone) {
    if (!unseat(context, rider_id)) return;
    if (rider_id != combatant) set_prone(context, rider_id, "thrown from the mount");
  }
  context.at(combatant).prone = true;
  status_changed(context, combatant, "prone", cause);
}

// H22
bool unseat(Context& context, int rider) {
  const int mount = context.at(rider).riding;
  const std::vector<grid::Square> spots = queries::free_adjacent(context.query(), rider);
  Combatant& who = context.at(rider);
  const grid::Square start = who.position;
  if (!spots.empty()) {
    who.position = spots.front();
  } else if (who.in_action() && context.at(mount).in_action()) {
    return false;
  }
  who.riding = kNone;
  context.at(mount).ridden_by = kNone;
  status_changed(context, rider, "off " + context.state.roster.ids.name(mount), "unseated");
  const grid::Square landing = context.at(rider).position;
  if (landing != start) {  // the landing, an event of its own (true logs)
    events::Moved event;
    event.actor = context.id(rider);
    event.path = {{start.x, start.y}, {landing.x, landing.y}};
    event.cost = 0;
    event.complete = true;
    context.emit(std::move(event));
  }
  return true;
}

// H5
void lose_hp(Context& context, int combatant, int amount, std::string_view cause, bool log) {
  Combatant& who = context.at(combatant);
  if (amount <= 0 || who.dead()) return;
  who.hp -= amount;
  if (log) {
    events::HitPointsChanged event;
    event.actor = context.id(combatant);
    event.amount = -amount;
    event.hp = who.hp;
    event.cause = context.text(cause);
    context.emit(std::move(event));
  }
  settle_status(context, combatant, cause);
}

// H5/H22
void settle_status(Context& context, int combatant, std::string_view cause) {
  const int out_at = context.rules.out_of_action_at;
  if (context.at(combatant).status == Status::active && context.at(combatant).hp <= out_at) {
    context.at(combatant).status = Status::out;
    status_changed(context, combatant, "out of action", cause);
    set_prone(context, combatant, "out of action");
    leave_action(context, combatant);
    const Combatant& who = context.at(combatant);
    const int rider_id = who.riding != kNone ? who.id : who.ridden_by;
    if (rider_id != kNone) unseat(context, rider_id);  // H22: the pair separates
  }
  const Combatant& who = context.at(combatant);
  if (who.status == Status::out && who.hp < -who.characteristic(context.content().constitution)) {
    kill(context, combatant, cause);
  }
}

void deal_damage(Context& context, int attacker, int target, int damage, std::string_view cause,
                 const DamageRecord& record) {
  Combatant& who = context.at(target);
  who.hp -= damage;
  events::DamageDealt event;
  event.attacker = context.id(attacker);
  event.target = context.id(target);
  event.rolled = record.rolled;
  event.dice = record.dice;
  event.parried = record.parried;
  event.dodged = record.dodged;
  event.armour = record.armour;
  event.damage = damage;
  event.hp = who.hp;
  event.effect = context.text(record.effect);
  context.emit(std::move(event));
  settle_status(context, target, cause);
}

// H5: out of action first, no more bleeding.
void kill(Context& context, int combatant, std::string_view cause) {
  if (context.at(combatant).status == Status::active) {
    context.at(combatant).status = Status::out;
    leave_action(context, combatant);
  }
  Combatant& who = context.at(combatant);
  who.status = Status::dead;
  who.bleeding = false;
  status_changed(context, combatant, "dead", cause);
}

void heal(Context& context, int combatant, int amount, std::string_view cause) {
  Combatant& who = context.at(combatant);
  if (who.dead() || amount <= 0) return;
  const int gained = std::min(amount, who.max_hp - who.hp);
  who.hp += gained;
  events::HitPointsChanged event;
  event.actor = context.id(combatant);
  event.amount = gained;
  event.hp = who.hp;
  event.cause = context.text(cause);
  context.emit(std::move(event));
  if (who.status == Status::out && who.hp > context.rules.out_of_action_at) {
    const std::array<int, 3> pair{who.id, who.riding, who.ridden_by};
    if (queries::occupied(context.query(), pair).contains(who.position)) {
      const std::vector<grid::Square> spots = queries::free_adjacent(context.query(), combatant);
      if (spots.empty()) return;  // nowhere to get up to: stays out of action for now
      context.at(combatant).position = spots.front();
    }
    context.at(combatant).status = Status::active;
    status_changed(context, combatant, "back in action", cause);
  }
}

// H19
void release_grapples_by(Context& context, int combatant) {
  for (Combatant& other : context.state.roster.combatants) {
    if (other.grappled_by == combatant) {
      other.grappled_by = kNone;
      status_changed(context, other.id, "released",
                     context.state.roster.ids.name(combatant) + " let go");
    }
  }
}

// H11/H21
void drop_item(Context& context, int combatant, int uid, std::string_view cause) {
  Combatant& who = context.at(combatant);
  auto found = std::find_if(who.inventory.begin(), who.inventory.end(),
                            [&](const combatant::ItemInstance& inst) { return inst.uid == uid; });
  if (found == who.inventory.end()) return;
  combatant::ItemInstance inst = *found;
  who.inventory.erase(found);
  const ItemState old = inst.state;
  inst.state = ItemState::ground;
  inst.square = who.position;
  inst.nocked = false;
  context.state.ground.push_back(inst);
  events::ItemMoved event;
  event.actor = context.id(combatant);
  event.item = context.uid(uid);
  event.state_from = context.text(combatant::kItemStateNames[static_cast<std::size_t>(old)]);
  event.state_to = context.text("ground");
  event.square = actions::Square{who.position.x, who.position.y};
  context.emit(std::move(event));
  if (!cause.empty()) {
    const std::string& holder = context.state.roster.ids.name(combatant);
    status_changed(context, combatant,
                   "without " + item_label(context.state.roster.uids.name(uid), holder), cause);
  }
}

// S21
void fatigue_check(Context& context, int combatant) {
  const int con = context.at(combatant).characteristic(context.content().constitution);
  const bool ok = roll_under(context, combatant, con * context.rules.fatigue_con_multiplier,
                             "fatigue (CON x5)");
  Combatant& who = context.at(combatant);
  if (!ok && who.fatigue_level < 2) {
    who.fatigue_level += 1;
    status_changed(context, combatant,
                   combatant::kFatigueNames[static_cast<std::size_t>(who.fatigue_level)], "exertion");
  }
}

// S21
void recover(Context& context, int combatant, int rounds) {
  Combatant& who = context.at(combatant);
  std::optional<int> need;
  if (who.fatigue_level == 1) need = context.rules.rest_rounds_fatigued;
  if (who.fatigue_level == 2) need = context.rules.rest_rounds_exhausted;
  if (need && rounds >= *need) {
    who.fatigue_level = 0;
    status_changed(context, combatant, "fresh", "rested " + std::to_string(rounds) + " rounds");
  }
}

// S23
void fall(Context& context, int combatant, int depth_ft) {
  const ApplyRules& rules = context.rules;
  const int n = combatant::floor_divide(depth_ft, rules.feet_per_die);
  int rolled = 0;
  for (int i = 0; i < n; ++i) rolled += roller::roll(context.state.dice, rules.falling_die).total;
  int reduced = 0;
  if (context.at(combatant).in_action()) {
    if (roller::succeeded(roll_skill(context, combatant, "dodge", "falling"))) {
      reduced += roller::roll(context.state.dice, rules.falling_skill_reduction).total;
    }
    const Combatant& who = context.at(combatant);
    std::string_view best;
    int best_value = 0;
    bool first = true;
    for (const std::string& skill : rules.falling_reduction_skills) {
      const int value = who.skill(context.skill_id(skill), context.state.round);
      if (first || value > best_value) {
        best = skill;
        best_value = value;
        first = false;
      }
    }
    if (roller::succeeded(roll_skill(context, combatant, best, "falling"))) {
      reduced += roller::roll(context.state.dice, rules.falling_skill_reduction).total;
    }
  }
  const int damage = std::max(0, rolled - reduced);
  events::Fell event;
  event.actor = context.id(combatant);
  event.depth_ft = depth_ft;
  event.rolled = rolled;
  event.reduced = reduced;
  event.damage = damage;
  context.emit(std::move(event));
  set_prone(context, combatant, "fell");
  lose_hp(context, combatant, damage, "falling");
}

// S11 (H17, H18)
void break_concentration(Context& context, int combatant) {
  Combatant& who = context.at(combatant);
  if (who.concentration != combatant::Concentration::none && !who.concentration_broken) {
    who.concentration_broken = true;
    events::Concentration event;
    event.actor = context.id(combatant);
    event.what = context.text(who.concentration == combatant::Concentration::aim ? "aim negated"
                                                                                 : "casting aborted");
    context.emit(std::move(event));
  }
  if (who.casting) {
    who.casting.reset();
    events::Concentration event;
    event.actor = context.id(combatant);
    event.what = context.text("multi-round casting aborted");
    context.emit(std::move(event));
  }
}

}  // namespace fray::harm
