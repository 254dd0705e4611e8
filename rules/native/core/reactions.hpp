// rules/reactions.py in C++: the answers a waiting frame offers (S5 Free Attacks, S8
// parries, S9 dodges, H10, S10, H22), each list in Python's order and ending with
// DECLINE; what rules.frames' OfferFrame and AttackFrame legal_actions return.
// Whether a parry or dodge is open at all (can_parry, can_dodge) stays with the frames'
// logic, still Python's.
#pragma once

#include <cstddef>
#include <vector>

#include "actions.hpp"
#include "frames.hpp"
#include "legal.hpp"
#include "queries.hpp"
#include "state.hpp"

namespace fray::reactions {

// S5: one melee attack with each ready weapon that reaches the provoker (then its mount).
std::vector<actions::Action> free_attack_actions(const queries::QueryState& query,
                                                 const frames::OfferFrame& frame,
                                                 legal::Namer& names);

// S8/H9: the inventory indices of `defender`'s ready items that can parry (parry_items:
// weapons that parry and shields; only shields against missiles), in inventory order.
std::vector<std::size_t> parry_items(const queries::QueryState& query, int defender,
                                     bool missile);

// S8/H9: the PARRY decision: each ready item that can parry (only shields against
// missiles), then DECLINE.
std::vector<actions::Action> parry_actions(const queries::QueryState& query,
                                           const frames::AttackFrame& frame, legal::Namer& names);

// S9/H10/S10: the DODGE decision: a Shift back to each square not closer to the attacker,
// falling prone (DODGE without a square), or the waived DODGE; then DECLINE.
std::vector<actions::Action> dodge_actions(const state::BattleState& state,
                                           const queries::QueryState& query,
                                           const frames::AttackFrame& frame);

// The top frame's legal_actions: an offer's Free Attacks, an attack's parries or dodges;
// std::logic_error for a frame that waits for no decision.
std::vector<actions::Action> frame_actions(const state::BattleState& state,
                                           const queries::QueryState& query, legal::Namer& names);

}  // namespace fray::reactions
