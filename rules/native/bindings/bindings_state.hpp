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
// One rules.combatant.ItemInstance (its uid interned in the roster's uids).
combatant::ItemInstance item_instance_from(nanobind::handle inst, combatant::Roster& roster);
// A combatant's fields as Combatant.to_dict() gives them (bindings_state_read.cpp).
nanobind::dict combatant_dict(const combatant::Roster& roster, const combatant::Combatant& c);
// An item's fields as vars(ItemInstance) gives them.
nanobind::dict item_dict(const combatant::Roster& roster, const combatant::ItemInstance& inst);
// Adds CompiledContent, Roster and python_round to the module.
void bind_state(nanobind::module_& module);

}  // namespace fray::bindings
