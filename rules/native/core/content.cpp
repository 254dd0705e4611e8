// rules/content/schema.py: the compiled tables (see content.hpp).
#include "content.hpp"

#include <stdexcept>

namespace fray::content {

int Names::intern(std::string_view name) {
  const auto found = table_->ids.find(name);
  if (found != table_->ids.end()) return found->second;
  if (table_.use_count() > 1) table_ = std::make_shared<Table>(*table_);  // copy on write
  const int id = size();
  table_->names.emplace_back(name);
  table_->ids.emplace(table_->names.back(), id);
  return id;
}

int Names::find(std::string_view name) const {
  const auto found = table_->ids.find(name);
  return found == table_->ids.end() ? kNone : found->second;
}

std::optional<Burden> burden_from(std::string_view name) {
  const auto index = index_in(kBurdenNames, name);
  if (!index) return std::nullopt;
  return static_cast<Burden>(*index);
}

int Content::hands_of(int equipment_id) const {
  // Content.hands_of: weapons first (natural ones take no hands, H12/H21), then armour,
  // then items.
  const Equipment& entry = equipment_of(equipment_id);
  if (entry.weapon != kNone) {
    const Weapon& weapon = weapons[static_cast<std::size_t>(entry.weapon)];
    return weapon.natural ? 0 : weapon.hands;
  }
  if (entry.armour != kNone) return armour[static_cast<std::size_t>(entry.armour)].hands;
  if (entry.item != kNone) return items[static_cast<std::size_t>(entry.item)].hands;
  throw std::out_of_range("hands_of: " + equipment_names.name(equipment_id) +
                          " is in no equipment table");
}

void Content::finish() {
  equipment.assign(static_cast<std::size_t>(equipment_names.size()), Equipment{});
  for (std::size_t i = 0; i < weapons.size(); ++i) {
    Weapon& weapon = weapons[i];
    equipment.at(static_cast<std::size_t>(weapon.equipment)).weapon = static_cast<int>(i);
    // H12: squares threatened, from ruleset.misc.reach_squares by the weapon's letter
    if (weapon.reach == kNone || weapon.reach >= static_cast<int>(ruleset.reach_squares.size())) {
      throw std::out_of_range("weapon " + weapon_names.name(static_cast<int>(i)) +
                              ": its reach letter is not in ruleset.misc.reach_squares");
    }
    weapon.reach_squares = ruleset.reach_squares[static_cast<std::size_t>(weapon.reach)];
  }
  for (std::size_t i = 0; i < armour.size(); ++i) {
    equipment.at(static_cast<std::size_t>(armour[i].equipment)).armour = static_cast<int>(i);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    equipment.at(static_cast<std::size_t>(items[i].equipment)).item = static_cast<int>(i);
  }
  // Content.weight_of, in its order: weapons (natural ones weigh nothing), armour, items
  for (Equipment& entry : equipment) {
    if (entry.weapon != kNone) {
      const Weapon& weapon = weapons[static_cast<std::size_t>(entry.weapon)];
      entry.weight = weapon.natural ? 0.0 : weapon.weight;
    } else if (entry.armour != kNone) {
      entry.weight = armour[static_cast<std::size_t>(entry.armour)].weight;
    } else if (entry.item != kNone) {
      entry.weight = items[static_cast<std::size_t>(entry.item)].weight;
    }
  }
  strength = characteristic_names.find("str");
  size = characteristic_names.find("siz");
  dexterity = characteristic_names.find("dex");
  constitution = characteristic_names.find("con");
  dodge_skill = skill_names.find("dodge");
  shield_skill = skill_names.find("shield");
  unarmed_skill = skill_names.find(kUnarmedSkill);
}

}  // namespace fray::content
