// rules/combat.py in C++: attack resolution (S4, S8, S9, S10, H6, H7, H9-H11, H15, H19,
// H23, S24). One attack is a frames.hpp AttackFrame: roll_attack, then the defender's
// roll_parry, then roll_dodge (H10: after any parry), then resolve: damage, or for a
// grapple, trip or disarm (H19) its resistance roll unless a parry or dodge defeated it.
// Rolls and resolves; pushes no frame. Hit points and status change through harm.hpp.
#pragma once

#include <optional>

#include "actions.hpp"
#include "frames.hpp"
#include "harm.hpp"

namespace fray::combat {

// rules.actions.ATTACK_MODES[mode]: whether it is a missile mode, a manoeuvre, and its kind.
bool mode_missile(frames::AttackMode mode);
bool mode_manoeuvre(frames::AttackMode mode);
actions::ActionKind mode_kind(frames::AttackMode mode);

// S4: the attack roll; a fumble drops the weapon (H11). True on a hit (its level stored).
bool roll_attack(harm::Context& context, frames::AttackFrame& frame);
// S8/S10: the parry with `item` (Roster::uids).
void roll_parry(harm::Context& context, frames::AttackFrame& frame, int item);
// S9/H10/S10: the dodge, to `square` (a Shift) or none (a fall).
void roll_dodge(harm::Context& context, frames::AttackFrame& frame, std::optional<combatant::Square> square);
// Nothing left to dodge: a critical parry (H9), or a defended manoeuvre (H19).
bool settled(const frames::AttackFrame& frame);
// After the defences: damage (H6-H10) or a manoeuvre's resistance roll (H19).
void resolve(harm::Context& context, frames::AttackFrame& frame);
// H3/H15/H23: the attack skill (skill id) with its situational modifiers.
int attack_chance(harm::Context& context, int attacker, int target, int skill, bool missile, int points);
// The same over a battle as the queries read it (rules/odds: no step under way).
int attack_chance(const queries::QueryState& query, const harm::ApplyRules& rules, int attacker,
                  int target, int skill, bool missile, int points);
// H6: the damage-bonus dice for STR+SIZ (Combatant.damage_bonus_dice).
roller::Dice damage_bonus_dice(const harm::Context& context, int combatant);
roller::Dice damage_bonus_dice(const combatant::Roster& roster, const harm::ApplyRules& rules,
                               int combatant);

}  // namespace fray::combat
