// rules/effects.py in C++: what each turn action does once its Free Attacks are over
// (S7, S10-S16, H16-H24). Each effect re-checks what the interruption may have changed
// and wastes the action with a logged reason (lost) instead of breaking a rule.
//
// The door effect (S12) sets the state's door; the Context's map is the caller's to
// rebuild after it (the Python state swaps its GridMap).
#pragma once

#include <string_view>

#include "actions.hpp"
#include "harm.hpp"
#include "roller.hpp"

namespace fray::effects {

// EFFECTS[action.kind]: the effect of `action` by `actor` (Roster number). Kinds with no
// effect (moves, END_TURN) do nothing.
void apply_effect(harm::Context& context, int actor, const actions::Action& action);
// Waste the action with a logged reason.
void lost(harm::Context& context, int actor, std::string_view why);
// H18: a spell's damage, heal or buff on `target` (spell: content spell id).
void spell_effect(harm::Context& context, int caster, int target, int spell, roller::Level level);

}  // namespace fray::effects
