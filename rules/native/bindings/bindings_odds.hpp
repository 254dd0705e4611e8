// The native odds' Python face (bindings_odds.cpp).
#pragma once

#include <nanobind/nanobind.h>

namespace fray::bindings {

// Adds the odds_* functions (rules.odds over a native battle state) to the module.
void bind_odds(nanobind::module_& module);

}  // namespace fray::bindings
