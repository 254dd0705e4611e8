// rules/turns.py in C++: what starts and ends rounds and turns (S2, S5, S7, S8, S10, S21,
// H7, H14, H18, H22, H25), and starting a turn action: paying its budget (rules.budget.pay)
// and pushing the frame its ACTION_SPECS row names.
#pragma once

#include <vector>

#include "actions.hpp"
#include "harm.hpp"

namespace fray::turns {

// ACTION_SPECS[kind]: its frame ("move", "act", "ride" or none) and whether it provokes.
enum class FrameKind : std::uint8_t { none, move, act, ride };
FrameKind frame_of(actions::ActionKind kind);
bool provoking(actions::ActionKind kind);  // PROVOKING

// queries.routes' search for a move of `actor` (MOVE, or FULL_MOVE when `full`; H13): the
// occupancy, and when `provokes` the threat zones, enemies numbered by their ids in sorted
// order (rules.bridge.reach.compile_threats); `ranked`, when given, gets the enemy (Roster
// number) of each number, so a Route's provokers read ranked[number].
reach::Query route_query(const queries::QueryState& query, const grid::Grid& grid, int actor,
                         bool full, bool provokes, std::vector<int>* ranked = nullptr);

void start_round(harm::Context& context);           // S5, S7, S8, H14, H7, S21
void start_turn(harm::Context& context, int owner);  // S2, H25, S10
void finish_turn(harm::Context& context, int owner);  // H18
// Pay the action's budget (S2, H25) and push the frame that carries it out.
void start_action(harm::Context& context, int actor, const actions::Action& action);

}  // namespace fray::turns
