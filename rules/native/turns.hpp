// rules/turns.py in C++: what starts and ends rounds and turns (S2, S5, S7, S8, S10, S21,
// H7, H14, H18, H22, H25), and starting a turn action: paying its budget (rules.budget.pay)
// and pushing the frame its ACTION_SPECS row names.
#pragma once

#include "actions.hpp"
#include "harm.hpp"

namespace fray::turns {

// ACTION_SPECS[kind]: its frame ("move", "act", "ride" or none) and whether it provokes.
enum class FrameKind : std::uint8_t { none, move, act, ride };
FrameKind frame_of(actions::ActionKind kind);
bool provoking(actions::ActionKind kind);  // PROVOKING

void start_round(harm::Context& context);           // S5, S7, S8, H14, H7, S21
void start_turn(harm::Context& context, int owner);  // S2, H25, S10
void finish_turn(harm::Context& context, int owner);  // H18
// Pay the action's budget (S2, H25) and push the frame that carries it out.
void start_action(harm::Context& context, int actor, const actions::Action& action);

}  // namespace fray::turns
