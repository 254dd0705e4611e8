// The Python face of the legal actions (bindings_legal.cpp; rules/bridge/legal.py is its
// Python side): LegalMap, turn_actions and decision_actions over a native BattleState.
#pragma once

#include <nanobind/nanobind.h>

namespace fray::bindings {

// Adds LegalMap, turn_actions, decision_actions and turn_action_count to the module.
void bind_legal(nanobind::module_& module);

}  // namespace fray::bindings
