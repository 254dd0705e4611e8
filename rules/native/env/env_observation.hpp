// env/observation.py in C++: a battle's observation seen by one team, written straight into
// the caller's buffers (the numpy arrays of env.observation.ObservationBuilder.spaces()),
// value for value what ObservationBuilder.build returns (tests/env/test_native_env.py
// compares the bytes on recorded states of every scenario).
//
// Every value is computed in double as Python computes it and rounded once to float32,
// as numpy's float32 conversion of the Python row does. Planes, unit features and globals
// are in the Python tables' order (PLANES, UNIT_FEATURE_SPECS, GLOBAL_FEATURE_SPECS); the
// binding checks the sizes against them.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "actions.hpp"
#include "env_tables.hpp"
#include "legal.hpp"
#include "state.hpp"

namespace fray::env {

// Plane (env.observation.PLANES), UNIT_FEATURE_COUNT, GLOBAL_FEATURE_COUNT and the features'
// names: in env_tables.hpp, written from env/observation.py at build time.

// What an observation of one scenario reads besides the state: the map's fixed planes,
// its dark squares and the numbers ObservationBuilder takes from content and scenario.
struct ObservationLayout {
  int width = 0;
  int height = 0;
  int units = 0;                 // slots: the scenario's units (the Roster's order)
  int max_rounds = 1;            // the scenario's (H25)
  int parries_per_round = 1;     // ruleset.defence.parries_per_round (S8)
  int dodge_skill = content::kNone;  // the "dodge" skill's id
  std::vector<float> fixed;      // PLANE_COUNT x H x W: wall, difficult, drop; lit by default
  std::vector<int> dark;         // square indices of the dark squares (H23)
  std::array<bool, actions::ACTION_KIND_COUNT> destination{};  // rules.actions.DESTINATION_KINDS

  // The layout of the map `grid` (the scenario's, any door state).
  ObservationLayout(const grid::Grid& grid, int units, int max_rounds, int parries_per_round,
                    int dodge_skill, const std::vector<actions::ActionKind>& destination_kinds);
};

// Where an observation goes: float32 planes (PLANE_COUNT, H, W), units (N, UNIT_FEATURE_COUNT), int64
// decision (2,), float32 globals (GLOBAL_FEATURE_COUNT,), each C-contiguous.
struct ObservationBuffers {
  float* planes = nullptr;
  float* units = nullptr;
  std::int64_t* decision = nullptr;
  float* globals = nullptr;
};

// ObservationBuilder.build(battle, team, self_id, show_reachable): `team` a Roster team
// number, `self_id` a Roster combatant number or kNone; `legal` the pending decision's
// legal actions (the reachable plane's squares; unread when nothing is pending).
void write_observation(const ObservationLayout& layout, const state::BattleState& state,
                       const grid::Grid& grid, int team, int self_id, bool show_reachable,
                       const std::vector<actions::Action>& legal, const ObservationBuffers& out);

}  // namespace fray::env
