// The native env's Python face (bindings_env.cpp; env/native.py is its Python side).
#pragma once

#include <nanobind/nanobind.h>

namespace fray::bindings {

// Adds ObservationLayout, ActionLayout, EnvCore, EnvBatch and env_observe/env_mask.
void bind_env(nanobind::module_& module);

}  // namespace fray::bindings
