// rules/effects.py: see effects.hpp. Rule IDs as in the Python.
#include "effects.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "combat.hpp"
#include "frames.hpp"

namespace fray::effects {

using actions::ActionKind;
using combatant::Combatant;
using combatant::ItemInstance;
using combatant::ItemState;
using content::kNone;
using frames::AttackMode;
using roller::Level;

namespace {

const std::string& id_text(const harm::Context& context, int number) {
  return context.state.roster.ids.name(number);
}

int target_of(const harm::Context& context, const actions::Action& action) {
  return action.target ? context.state.roster.ids.find(context.names.text(*action.target)) : kNone;
}

int uid_of(const harm::Context& context, const actions::Action& action) {
  return action.item ? context.state.roster.uids.find(context.names.text(*action.item)) : kNone;
}

ItemInstance* item_of(Combatant& who, int uid) {
  if (uid == kNone) return nullptr;
  for (ItemInstance& inst : who.inventory) {
    if (inst.uid == uid) return &inst;
  }
  return nullptr;
}

void erase_item(Combatant& who, int uid) {
  who.inventory.erase(std::find_if(who.inventory.begin(), who.inventory.end(),
                                   [&](const ItemInstance& inst) { return inst.uid == uid; }));
}

void status_changed(harm::Context& context, int actor, std::string_view status, std::string_view cause) {
  events::StatusChanged event;
  event.actor = context.id(actor);
  event.status = context.text(status);
  event.cause = context.text(cause);
  context.emit(std::move(event));
}

void item_moved(harm::Context& context, int actor, int uid, std::string_view from, std::string_view to,
                std::optional<combatant::Square> square) {
  events::ItemMoved event;
  event.actor = context.id(actor);
  event.item = context.uid(uid);
  event.state_from = context.text(from);
  event.state_to = context.text(to);
  if (square) event.square = actions::Square{square->x, square->y};
  context.emit(std::move(event));
}

std::string_view state_name(ItemState state) {
  return combatant::kItemStateNames[static_cast<std::size_t>(state)];
}

std::string square_text(combatant::Square square) {
  std::string out = "(";
  out.append(std::to_string(square.x)).append(", ").append(std::to_string(square.y)).append(")");
  return out;
}

const content::Weapon* weapon_of(const harm::Context& context, int equipment_id) {
  const int row = context.content().equipment_of(equipment_id).weapon;
  return row == kNone ? nullptr : &context.content().weapons[static_cast<std::size_t>(row)];
}

int dice_maximum(const roller::Dice& dice) {
  int total = dice.constant;
  for (const roller::DiceTerm& term : dice.terms) total += term.sign > 0 ? term.count * term.sides : -term.count;
  return total;
}

// ------------------------------------------------------------------ attacks
void push(harm::Context& context, int actor, int target, int uid, AttackMode mode, int points = 0,
          int weapon_id = kNone, int skill = kNone) {
  frames::push_attack(context.state.stack, context.at(actor), target, uid, mode, points, weapon_id, skill);
}

// An item uid not yet used in the battle, for one item split off a stack.
int fresh_uid(harm::Context& context, int base) {
  std::unordered_set<int> used;
  for (const ItemInstance& inst : context.state.ground) used.insert(inst.uid);
  for (const Combatant& who : context.state.roster.combatants) {
    for (const ItemInstance& inst : who.inventory) used.insert(inst.uid);
  }
  content::Names& uids = context.state.roster.uids;
  const std::string prefix = uids.name(base) + ".";
  for (int n = 2;; ++n) {
    const int found = uids.find(prefix + std::to_string(n));
    if (found == kNone || !used.contains(found)) return uids.intern(prefix + std::to_string(n));
  }
}

// H16: range, line of sight; thrown weapons land in the target's square.
void shoot(harm::Context& context, int actor, const actions::Action& action, int points, AttackMode mode) {
  const int t = target_of(context, action);
  ItemInstance* inst = item_of(context.at(actor), uid_of(context, action));
  if (inst == nullptr || !context.at(t).in_action()) return lost(context, actor, "no weapon or no target");
  const content::Weapon& w = *weapon_of(context, inst->item);
  const harm::WeaponDamage& extra = context.rules.weapons[static_cast<std::size_t>(
      context.content().equipment_of(inst->item).weapon)];
  const std::optional<int> penalty = queries::in_range(context.query(), actor, t, w.range);
  if (!penalty) return lost(context, actor, "target out of range or sight");
  inst->nocked = false;
  inst->loaded = false;
  const int item = inst->item;
  if (!extra.thrown) {
    push(context, actor, t, inst->uid, mode, points + *penalty, item);
    return;
  }
  ItemInstance thrown = *inst;
  if (inst->count > 1) {  // H16/H21: one weapon of a stack is thrown, the rest stay in hand
    inst->count -= 1;
    thrown.uid = fresh_uid(context, inst->uid);
    thrown.count = 1;
  } else {
    erase_item(context.at(actor), inst->uid);
  }
  push(context, actor, t, thrown.uid, mode, points + *penalty, item);
  thrown.state = ItemState::ground;
  thrown.square = context.at(t).position;
  context.state.ground.push_back(thrown);
  item_moved(context, actor, thrown.uid, "ready", "ground", context.at(t).position);
}

void full_attack(harm::Context& context, int actor, const actions::Action& action) {  // H17
  const int bonus = context.rules.full_attack;
  ItemInstance* inst = item_of(context.at(actor), uid_of(context, action));
  if (inst == nullptr) return lost(context, actor, "weapon gone");
  const content::Weapon& w = *weapon_of(context, inst->item);
  if (w.kind == content::WeaponKind::missile) {
    shoot(context, actor, action, context.at(actor).concentration_broken ? 0 : bonus, AttackMode::full_missile);
    return;
  }
  const int t = target_of(context, action);
  if (!queries::weapon_reaches(context.query(), actor, w.reach, context.at(t).position)) {
    return lost(context, actor, "target out of reach");
  }
  push(context, actor, t, uid_of(context, action), AttackMode::full_melee, bonus);
}

void manoeuvre(harm::Context& context, int actor, const actions::Action& action) {  // H19
  const int target = target_of(context, action);
  const Combatant& who = context.at(actor);
  int held_uid = kNone, held_item = kNone, weapon_skill = kNone;
  who.for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
    if (held_uid == kNone && weapon.kind == content::WeaponKind::melee && !weapon.natural) {
      held_uid = who.inventory[index].uid;
      held_item = who.inventory[index].item;
      weapon_skill = weapon.skill;
    }
  });
  int skill = context.content().unarmed_skill;
  if (action.kind == ActionKind::GRAPPLE) skill = context.skill_id("grapple");
  else if (action.kind == ActionKind::DISARM && held_uid != kNone) skill = weapon_skill;
  const bool disarm = action.kind == ActionKind::DISARM;
  const AttackMode mode = action.kind == ActionKind::GRAPPLE ? AttackMode::grapple
                          : action.kind == ActionKind::TRIP  ? AttackMode::trip
                                                             : AttackMode::disarm;
  push(context, actor, target, disarm ? held_uid : kNone, mode, 0, disarm ? held_item : kNone, skill);
}

// ------------------------------------------------------------------ care and magic
void cast(harm::Context& context, int actor, const actions::Action& action) {  // H18
  const std::string& spell_name = context.names.text(*action.item);
  const int spell = context.content().spell_names.find(spell_name);
  const content::Spell& sp = context.content().spells[static_cast<std::size_t>(spell)];
  const harm::SpellExtra& extra = context.rules.spells[static_cast<std::size_t>(spell)];
  const std::string label = harm::item_label(spell_name, std::nullopt);
  const int t = target_of(context, action);
  Combatant& who = context.at(actor);
  if (who.concentration_broken) {
    who.casting.reset();
    return lost(context, actor, label + " aborted (S11)");
  }
  if (sp.casting == content::SpellCasting::rounds) {
    if (!who.casting) who.casting = combatant::Casting{spell, t, 0, context.state.round};
    who.casting->done += 1;
    who.casting->round = context.state.round;
    if (who.casting->done < extra.rounds) {
      events::Concentration event;
      event.actor = context.id(actor);
      std::string what = "casting " + label;
      what.append(" (").append(std::to_string(who.casting->done)).append("/");
      what.append(std::to_string(extra.rounds)).append(")");
      event.what = context.text(what);
      context.emit(std::move(event));
      return;
    }
    who.casting.reset();
  }
  const Combatant& target = context.at(t);
  if (target.dead() || (sp.effect != content::SpellEffect::heal && !target.in_action()) ||
      !queries::spell_target_ok(context.query(), actor, t, sp.range)) {
    return lost(context, actor, label + " has no valid target");
  }
  if (who.power_points < sp.cost) return lost(context, actor, "not enough power points for " + label);
  if (sp.components) who.components_ready = false;
  const int chance = who.skill(context.skill_id("cast"), context.state.round);
  const int roll = roller::d100(context.state.dice);
  const Level level = roller::success_level(roll, chance, context.rules.success, who.magic_fumble());
  const int cost = roller::succeeded(level) ? sp.cost : std::min(sp.cost, context.rules.failed_cast_cost);
  who.power_points -= cost;
  events::SpellCast event;
  event.caster = context.id(actor);
  event.spell = context.text(spell_name);
  event.target = context.id(t);
  event.chance = chance;
  event.roll = roll;
  event.level = context.text(roller::kLevelNames[static_cast<int>(level)]);
  event.cost = cost;
  context.emit(std::move(event));
  if (roller::succeeded(level)) spell_effect(context, actor, t, spell, level);
}

void use_item(harm::Context& context, int actor, const actions::Action& action) {  // S15
  ItemInstance* inst = item_of(context.at(actor), uid_of(context, action));
  if (inst == nullptr) return lost(context, actor, "item gone");
  const int item_row = context.content().equipment_of(inst->item).item;
  const content::Item& it = context.content().items[static_cast<std::size_t>(item_row)];
  const std::string item_name = context.content().equipment_names.name(inst->item);
  inst->count -= 1;
  if (inst->count <= 0) erase_item(context.at(actor), inst->uid);
  const std::optional<roller::Dice>& heal = context.rules.item_heal[static_cast<std::size_t>(item_row)];
  if (it.kind == content::ItemKind::potion && heal) {
    harm::heal(context, actor, roller::roll(context.state.dice, *heal).total,
               harm::item_label(item_name, std::nullopt));
  } else if (it.kind == content::ItemKind::scroll && it.spell != kNone) {
    const int t = target_of(context, action);
    events::SpellCast event;
    event.caster = context.id(actor);
    event.spell = context.text(context.content().spell_names.name(it.spell));
    event.target = context.id(t);
    event.level = context.text("SCROLL");
    context.emit(std::move(event));
    if (!context.at(t).dead()) spell_effect(context, actor, t, it.spell, Level::SUCCESS);
  }
}

// ------------------------------------------------------------------ equipment (H21)
void move_item(harm::Context& context, int actor, int uid, ItemState to) {
  ItemInstance* inst = item_of(context.at(actor), uid);
  if (inst == nullptr) return;
  const ItemState old = inst->state;
  inst->state = to;
  item_moved(context, actor, uid, state_name(old), state_name(to), std::nullopt);
}

void pick_up(harm::Context& context, int actor, const actions::Action& action) {
  const int uid = uid_of(context, action);
  Combatant& who = context.at(actor);
  auto found = std::find_if(context.state.ground.begin(), context.state.ground.end(),
                            [&](const ItemInstance& item) {
                              return item.uid == uid && item.square && *item.square == who.position;
                            });
  if (uid == kNone || found == context.state.ground.end()) {
    return lost(context, actor, "the item is no longer at hand");
  }
  ItemInstance inst = *found;
  context.state.ground.erase(found);
  const content::Content& cw = context.content();
  const content::Equipment& eq = cw.equipment_of(inst.item);
  const int hands = eq.weapon != kNone ? cw.weapons[static_cast<std::size_t>(eq.weapon)].hands
                    : eq.armour != kNone ? cw.armour[static_cast<std::size_t>(eq.armour)].hands
                                         : cw.items[static_cast<std::size_t>(eq.item)].hands;
  const bool holdable = eq.weapon != kNone || eq.armour != kNone || inst.lit;
  const ItemState to = holdable && hands <= combatant::kHands - who.hands_used() ? ItemState::ready
                                                                                 : ItemState::carried;
  if (!holdable) inst.lit = false;
  inst.state = to;
  inst.square.reset();
  who.inventory.push_back(inst);
  item_moved(context, actor, inst.uid, "ground", state_name(to), who.position);
}

void load(harm::Context& context, int actor, const actions::Action& action) {  // H16
  const int uid = uid_of(context, action);
  ItemInstance* inst = item_of(context.at(actor), uid);
  if (inst == nullptr) return;
  const content::Weapon& w = *weapon_of(context, inst->item);
  const std::optional<std::size_t> ammo = queries::ammo_of(context.at(actor), w.ammo);
  if (!ammo) return lost(context, actor, "no ammunition");
  Combatant& who = context.at(actor);
  ItemInstance& stack = who.inventory[*ammo];
  stack.count -= 1;
  if (stack.count <= 0) who.inventory.erase(who.inventory.begin() + static_cast<std::ptrdiff_t>(*ammo));
  inst = item_of(who, uid);
  if (action.kind == ActionKind::NOCK_ARROW) inst->nocked = true;
  else inst->loaded = true;
  item_moved(context, actor, uid, "ready", inst->nocked ? "nocked" : "loaded", std::nullopt);
}

}  // namespace

void lost(harm::Context& context, int actor, std::string_view why) {
  events::Concentration event;
  event.actor = context.id(actor);
  event.what = context.text("action lost: " + std::string(why));
  context.emit(std::move(event));
}

// H18
void spell_effect(harm::Context& context, int caster, int target, int spell, Level level) {
  const content::Spell& sp = context.content().spells[static_cast<std::size_t>(spell)];
  const harm::SpellExtra& extra = context.rules.spells[static_cast<std::size_t>(spell)];
  const std::string label = harm::item_label(context.content().spell_names.name(spell), std::nullopt);
  if (sp.effect == content::SpellEffect::buff) {
    const int last = context.state.round + extra.duration - 1;
    context.at(target).buffs.push_back({extra.modifier, last});
    std::string cause = extra.modifier >= 0 ? "+" : "";
    cause.append(std::to_string(extra.modifier)).append(" to skills until round ");
    cause.append(std::to_string(last));
    status_changed(context, target, "under " + label, cause);
    return;
  }
  if (!extra.has_dice) return;
  int amount = 0;
  std::vector<std::int32_t> faces;
  if (level == Level::CRITICAL) {
    amount = dice_maximum(extra.dice);
  } else {
    roller::Rolled rolled = roller::roll(context.state.dice, extra.dice);
    amount = rolled.total;
    faces = std::move(rolled.faces);
  }
  if (sp.effect == content::SpellEffect::heal) {
    harm::heal(context, target, amount, label);
    return;
  }
  const int armour = (extra.ignores_armour || level == Level::CRITICAL)
                         ? 0 : std::min(amount, context.at(target).armour_points());
  const int damage = std::max(0, amount - armour);
  harm::deal_damage(context, caster, target, damage, label + " from " + id_text(context, caster),
                    harm::DamageRecord{amount, std::move(faces), 0, 0, armour, "spell " + label});
}

void apply_effect(harm::Context& context, int actor, const actions::Action& action) {
  Combatant& who = context.at(actor);
  switch (action.kind) {
    case ActionKind::MELEE_ATTACK:  // S15
      return push(context, actor, target_of(context, action), uid_of(context, action), AttackMode::melee);
    case ActionKind::MISSILE_ATTACK: return shoot(context, actor, action, 0, AttackMode::missile);
    case ActionKind::FULL_ATTACK: return full_attack(context, actor, action);
    case ActionKind::UNARMED_ATTACK: {  // S15/H19
      const int t = target_of(context, action);
      if (!context.at(t).in_action()) return lost(context, actor, "target out of action");
      return push(context, actor, t, kNone, AttackMode::unarmed);
    }
    case ActionKind::GRAPPLE:
    case ActionKind::TRIP:
    case ActionKind::DISARM: return manoeuvre(context, actor, action);
    case ActionKind::FIGHT_DEFENSIVELY:  // S10
      who.extra_parries = context.rules.fight_defensively_extra_parries;
      who.dodge_waived = true;
      return status_changed(context, actor, "fighting defensively", "S10");
    case ActionKind::COUP_DE_GRACE: {  // H5
      const int t = target_of(context, action);
      if (context.at(t).status != combatant::Status::out) return lost(context, actor, "target not helpless");
      return harm::kill(context, t, "coup-de-grace by " + id_text(context, actor));
    }
    case ActionKind::FIRST_AID: {  // H20
      const int t = target_of(context, action);
      if (roller::succeeded(harm::roll_skill(context, actor, "first_aid", "on " + id_text(context, t)))) {
        if (context.at(t).bleeding) {
          context.at(t).bleeding = false;
          status_changed(context, t, "no longer bleeding", "first aid");
        }
        harm::heal(context, t, roller::roll(context.state.dice, context.rules.first_aid_heal).total, "first aid");
      }
      return;
    }
    case ActionKind::CAST_SPELL: return cast(context, actor, action);
    case ActionKind::USE_ITEM: return use_item(context, actor, action);
    case ActionKind::READY_WEAPON: {  // S12
      ItemInstance* inst = item_of(who, uid_of(context, action));
      if (inst == nullptr) return;
      const int uid = inst->uid;
      if (inst->state == ItemState::hidden &&
          !roller::succeeded(harm::roll_skill(context, actor, "sleight", "draw"))) {
        return lost(context, actor, "fumbled drawing " + context.state.roster.uids.name(uid));
      }
      return move_item(context, actor, uid, ItemState::ready);
    }
    case ActionKind::SHEATHE_WEAPON: {  // S12/H21
      ItemInstance* inst = item_of(who, uid_of(context, action));
      if (inst == nullptr) return;
      const bool weapon = context.content().equipment_of(inst->item).weapon != kNone;
      return move_item(context, actor, inst->uid, weapon ? ItemState::sheathed : ItemState::carried);
    }
    case ActionKind::DROP_ITEM: {  // S16/H21
      const int uid = uid_of(context, action);
      if (uid != kNone) harm::drop_item(context, actor, uid, "");
      return;
    }
    case ActionKind::PICK_UP: return pick_up(context, actor, action);
    case ActionKind::LIGHT_TORCH: {  // H23
      ItemInstance* inst = item_of(who, uid_of(context, action));
      if (inst == nullptr) return;
      inst->lit = true;
      return move_item(context, actor, inst->uid, ItemState::ready);
    }
    case ActionKind::LOAD_CROSSBOW:
    case ActionKind::NOCK_ARROW: return load(context, actor, action);
    case ActionKind::SHIFT: {  // S7
      if (!action.square) return;
      const combatant::Square old = who.position;
      who.position = {action.square->x, action.square->y};
      who.shifted_this_round = true;
      harm::release_grapples_by(context, actor);
      return status_changed(context, actor, "now at " + square_text(context.at(actor).position),
                            "shifted from " + square_text(old));
    }
    case ActionKind::STAND_UP:  // H15
      who.prone = false;
      return status_changed(context, actor, "standing", "stood up");
    case ActionKind::FALL_PRONE: return harm::set_prone(context, actor, "fell prone");
    case ActionKind::OPEN_DOOR:
    case ActionKind::CLOSE_DOOR: {  // S12
      if (!action.square) return;
      const bool opening = action.kind == ActionKind::OPEN_DOOR;
      context.state.set_door({action.square->x, action.square->y}, opening);
      events::DoorChanged event;
      event.actor = context.id(actor);
      event.square = *action.square;
      event.open = opening;
      return context.emit(std::move(event));
    }
    case ActionKind::MOUNT: {  // S13/H22
      const int m = target_of(context, action);
      if (!context.at(m).in_action() || context.at(m).ridden_by != kNone) {
        return lost(context, actor, "mount unavailable");
      }
      who.riding = m;
      context.at(m).ridden_by = actor;
      who.position = context.at(m).position;
      return status_changed(context, actor, "riding " + id_text(context, m), "mounted");
    }
    case ActionKind::DISMOUNT: {  // S13/H22
      if (who.riding == kNone) return lost(context, actor, "no longer mounted");
      const std::array<int, 2> pair{actor, who.riding};
      if (!action.square ||
          queries::occupied(context.query(), pair).contains({action.square->x, action.square->y})) {
        return lost(context, actor, "no room to dismount");
      }
      context.at(who.riding).ridden_by = kNone;
      who.riding = kNone;
      who.position = {action.square->x, action.square->y};
      return status_changed(context, actor, "on foot", "dismounted");
    }
    case ActionKind::PREPARE_COMPONENTS:  // H18
      who.components_ready = true;
      return status_changed(context, actor, "ready with spell components", "H18");
    case ActionKind::SPEAK: {  // H24
      events::Spoke event;
      event.actor = context.id(actor);
      return context.emit(std::move(event));
    }
    // No effect of their own (rules.effects.EFFECTS has no row for them either): a move's
    // frame is its effect, END_TURN ends the turn, reactions answer frames. Listed, with
    // no default, so a kind added to ActionKind without a case fails the build (-Wswitch).
    case ActionKind::END_TURN:
    case ActionKind::MOVE:
    case ActionKind::FULL_MOVE:
    case ActionKind::DISENGAGE:
    case ActionKind::FREE_ATTACK:
    case ActionKind::PARRY:
    case ActionKind::DODGE:
    case ActionKind::DECLINE:
      return;
  }
}

}  // namespace fray::effects
