// The native agents' Python face (bindings_agents.cpp; rules/native_agents.py is its
// Python side).
#pragma once

#include <nanobind/nanobind.h>

namespace fray::bindings {

// Adds NativeAgent to the module.
void bind_agents(nanobind::module_& module);

}  // namespace fray::bindings
