// The native agents' Python face (bindings_agents.cpp; rules/bridge/agents.py is its
// Python side).
#pragma once

#include <nanobind/nanobind.h>

#include <memory>

#include "agents_base.hpp"

namespace fray::bindings {

// rules._native.NativeAgent: one native agent (the env's opponents are copies of one).
struct NativeAgent {
  std::unique_ptr<agents::Agent> agent;
};

// Adds NativeAgent to the module.
void bind_agents(nanobind::module_& module);

}  // namespace fray::bindings
