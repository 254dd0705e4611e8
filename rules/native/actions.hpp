// rules/actions.py, its enums only so far: the action kinds (what Combatant.free_used
// holds, H25) and the budget categories (what Combatant.actions_used holds, S2). The
// actions themselves, their specs and legality follow with legal.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace fray::actions {

// ActionKind, in the order of the Python enum (its .value names below).
enum class ActionKind : std::uint8_t {
  end_turn, move, full_move, disengage, shift, melee_attack, missile_attack, cast_spell,
  use_item, fight_defensively, full_attack, unarmed_attack, grapple, trip, disarm,
  coup_de_grace, first_aid, ready_weapon, sheathe_weapon, stand_up, open_door, close_door,
  mount, dismount, pick_up, light_torch, load_crossbow, drop_item, fall_prone,
  prepare_components, nock_arrow, speak, free_attack, parry, dodge, decline,
};
inline constexpr std::array<std::string_view, 36> kActionKindNames = {
    "end_turn", "move", "full_move", "disengage", "shift", "melee_attack", "missile_attack",
    "cast_spell", "use_item", "fight_defensively", "full_attack", "unarmed_attack", "grapple",
    "trip", "disarm", "coup_de_grace", "first_aid", "ready_weapon", "sheathe_weapon",
    "stand_up", "open_door", "close_door", "mount", "dismount", "pick_up", "light_torch",
    "load_crossbow", "drop_item", "fall_prone", "prepare_components", "nock_arrow", "speak",
    "free_attack", "parry", "dodge", "decline"};

// S2/H25: a turn action's budget category (rules.budget.BUDGETED plus "free").
enum class Category : std::uint8_t { move, attack, full, free };
inline constexpr std::array<std::string_view, 4> kCategoryNames = {"move", "attack", "full",
                                                                    "free"};

}  // namespace fray::actions
