// The Python face of the engine's state (bindings_state.cpp, bindings_state_read.cpp):
// compiling content and combatants from Python objects, and registering the classes.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>

#include "combatant.hpp"
#include "content.hpp"

namespace fray::bindings {

// A checked rules.content.Content as compiled tables.
std::shared_ptr<const content::Content> compile_content(nanobind::handle source);
// rules.combatant.Combatant objects (an iterable, in scenario order) as a Roster.
combatant::Roster roster_from(std::shared_ptr<const content::Content> tables,
                              nanobind::handle combatants);
// Adds CompiledContent, Roster and python_round to the module.
void bind_state(nanobind::module_& module);

}  // namespace fray::bindings
