// rules/reactions.py: the reaction decisions' answers (S5, S8, S9, H10, S10, H22). See
// reactions.hpp.
#include "reactions.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <variant>

#include "grid.hpp"

namespace fray::reactions {

namespace {

using actions::Action;
using combatant::Combatant;
using combatant::ItemInstance;
using combatant::ItemState;
using content::kNone;
using grid::Square;
using K = actions::ActionKind;

const Action kDecline{K::DECLINE, {}, {}, {}};

// H10: squares one shift away and not closer to the attacker; none if the Shift is spent,
// the defender moved this round or is moving now (S7), is prone (H15), grappled, or rides
// or is ridden (H22).
std::vector<Square> dodge_squares(const state::BattleState& state, const queries::QueryState& query,
                                  const Combatant& defender, const Combatant& attacker) {
  bool moving = false;
  for (const frames::Frame& frame : state.stack) {
    if (const auto* move = std::get_if<frames::MoveFrame>(&frame)) {
      moving = moving || move->actor == defender.id;
    }
  }
  if (defender.shifted_this_round || defender.moved_this_round || moving || defender.prone ||
      defender.grappled_by != kNone || defender.riding != kNone || defender.ridden_by != kNone) {
    return {};
  }
  const int here = grid::chebyshev(defender.position, attacker.position);
  std::vector<Square> out;
  for (const Square square : queries::free_adjacent(query, defender.id)) {
    if (grid::chebyshev(square, attacker.position) >= here) out.push_back(square);
  }
  return out;
}

// H10/H22: falling prone is open while standing; a rider (or the mount under one) falls
// from the saddle, which needs a free neighbouring square for the rider.
bool can_fall_to_dodge(const queries::QueryState& query, const Combatant& defender) {
  if (defender.prone) return false;
  if (defender.riding == kNone && defender.ridden_by == kNone) return true;
  const int rider = defender.riding != kNone ? defender.id : defender.ridden_by;
  return !queries::free_adjacent(query, rider).empty();
}

}  // namespace

// S5
std::vector<Action> free_attack_actions(const queries::QueryState& query,
                                        const frames::OfferFrame& frame, legal::Namer& names) {
  const Combatant& enemy = query.combatant(frame.enemy);
  const Combatant& provoker = query.combatant(frame.actor);
  std::vector<int> targets{provoker.id};
  if (provoker.riding != kNone) targets.push_back(provoker.riding);
  std::vector<Action> out;
  for (const int target : targets) {
    const Square where = query.combatant(target).position;
    enemy.for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
      if (weapon.kind != content::WeaponKind::melee) return;
      if (queries::weapon_reaches(query, enemy.id, weapon.reach, where)) {
        out.push_back(Action{K::FREE_ATTACK, names.id(target), {},
                             names.uid(enemy.inventory[index].uid)});
      }
    });
  }
  out.push_back(kDecline);
  return out;
}

// S8/H9: ready weapons that can parry, and shields; only shields parry missiles.
std::vector<std::size_t> parry_items(const queries::QueryState& query, int defender_number,
                                     bool missile) {
  const Combatant& defender = query.combatant(defender_number);
  const content::Content& tables = *query.roster.content;
  std::vector<std::size_t> out;
  for (std::size_t index = 0; index < defender.inventory.size(); ++index) {
    const ItemInstance& inst = defender.inventory[index];
    if (inst.state != ItemState::ready) continue;
    const content::Equipment& equipment = tables.equipment_of(inst.item);
    if (equipment.armour != kNone) {
      const content::Armour& armour = tables.armour[static_cast<std::size_t>(equipment.armour)];
      if (armour.slot == content::ArmourSlot::shield && armour.skill != kNone &&
          defender.skill_possible(armour.skill)) {
        out.push_back(index);
      }
    } else if (equipment.weapon != kNone && !missile) {
      const content::Weapon& weapon = tables.weapons[static_cast<std::size_t>(equipment.weapon)];
      if (weapon.parry && !weapon.natural && weapon.kind == content::WeaponKind::melee) {
        out.push_back(index);
      }
    }
  }
  return out;
}

// S8/H9: parry_items, then DECLINE.
std::vector<Action> parry_actions(const queries::QueryState& query,
                                  const frames::AttackFrame& frame, legal::Namer& names) {
  const Combatant& defender = query.combatant(frame.target);
  std::vector<Action> out;
  for (const std::size_t index : parry_items(query, frame.target, frame.missile)) {
    out.push_back(Action{K::PARRY, {}, {}, names.uid(defender.inventory[index].uid)});
  }
  out.push_back(kDecline);
  return out;
}

// S9/H10/S10: dodge_options, then DECLINE.
std::vector<Action> dodge_actions(const state::BattleState& state, const queries::QueryState& query,
                                  const frames::AttackFrame& frame) {
  const Combatant& defender = query.combatant(frame.target);
  const Combatant& attacker = query.combatant(frame.attacker);
  std::vector<Action> out;
  if (defender.in_action()) {
    if (defender.dodge_waived) {
      out.push_back(Action{K::DODGE, {}, {}, {}});
    } else {
      for (const Square square : dodge_squares(state, query, defender, attacker)) {
        out.push_back(Action{K::DODGE, {}, actions::Square{square.x, square.y}, {}});
      }
      if (can_fall_to_dodge(query, defender)) out.push_back(Action{K::DODGE, {}, {}, {}});
    }
  }
  out.push_back(kDecline);
  return out;
}

std::vector<Action> frame_actions(const state::BattleState& state,
                                  const queries::QueryState& query, legal::Namer& names) {
  if (state.stack.empty()) throw std::logic_error("no frame waits for a decision");
  const frames::Frame& top = state.stack.back();
  if (const auto* offer = std::get_if<frames::OfferFrame>(&top)) {
    return free_attack_actions(query, *offer, names);
  }
  if (const auto* attack = std::get_if<frames::AttackFrame>(&top)) {
    if (attack->stage == frames::AttackStage::parry) return parry_actions(query, *attack, names);
    if (attack->stage == frames::AttackStage::dodge) return dodge_actions(state, query, *attack);
    throw std::logic_error("an attack frame at this stage asks for no decision");
  }
  throw std::logic_error("a " + std::string(frames::frame_type_name(top.index())) +
                         " frame never waits for a decision");
}

}  // namespace fray::reactions
