// The native step's Python face (bindings_apply.cpp).
#pragma once

#include <nanobind/nanobind.h>

namespace fray::bindings {

// Adds ApplyRules and the rules functions of the step (harm_*, ...) to the module.
void bind_apply(nanobind::module_& module);

}  // namespace fray::bindings
