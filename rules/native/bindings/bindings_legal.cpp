// The Python face of rules/native/legal.hpp (registered by bindings.cpp): a LegalMap (the
// Grid as its doors stand with the reach search over it) and the TURN decision's legal
// actions of a native BattleState as the cached rules.Actions of its Records
// (rules/bridge/legal.py).
#include "bindings_legal.hpp"

#include <nanobind/stl/pair.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings_battle.hpp"
#include "bindings_records.hpp"
#include "legal.hpp"

namespace nb = nanobind;
namespace legal = fray::legal;

namespace fray::bindings {

namespace {

// The actor of the pending TURN decision (Roster number); a ValueError otherwise.
int turn_actor(const NativeBattle& battle) {
  const auto& decision = battle.state.decision;
  if (!decision || decision->kind != actions::DecisionKind::TURN || decision->actor == content::kNone) {
    throw nb::value_error("turn_actions: the battle is not waiting for a TURN decision");
  }
  return decision->actor;
}

std::vector<actions::Action> listed(NativeBattle& battle, const legal::LegalMap& map) {
  const int actor = turn_actor(battle);
  if (map.grid.width() <= 0) throw nb::value_error("turn_actions: no map");
  return legal::turn_actions(battle.state, map, actor, battle.names().names());
}

// The records' cached rules.Actions, in order.
nb::object python_actions(NativeBattle& battle, const std::vector<actions::Action>& found) {
  records::Records& records = battle.names();
  nb::object out = records::checked(PyList_New(static_cast<Py_ssize_t>(found.size())));
  for (std::size_t i = 0; i < found.size(); ++i) {
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i),
                    records.action_to(found[i]).release().ptr());
  }
  return out;
}

}  // namespace

void bind_legal(nb::module_& module) {
  nb::class_<legal::LegalMap>(module, "LegalMap",
                              "A map as the legal actions read it: the Grid (doors as they "
                              "stand) and the reach search over it (legal.hpp).")
      .def("__init__",
           [](legal::LegalMap* self, const grid::Grid& map, int orthogonal,
              std::pair<int, int> diagonal, int difficult_multiplier) {
             reach::Costs costs;
             costs.orthogonal = orthogonal;
             costs.diagonal = {diagonal.first, diagonal.second};
             costs.difficult_multiplier = difficult_multiplier;
             try {
               new (self) legal::LegalMap(map, costs);
             } catch (const std::invalid_argument& error) {
               throw nb::value_error(error.what());
             }
           },
           nb::arg("grid"), nb::arg("orthogonal"), nb::arg("diagonal"),
           nb::arg("difficult_multiplier"));

  module.def(
      "turn_actions",
      [](NativeBattle& battle, const legal::LegalMap& map) {
        return python_actions(battle, listed(battle, map));
      },
      nb::arg("state"), nb::arg("map"),
      "The pending TURN decision's legal actions (rules.legal.turn_actions), as the "
      "state's Records' cached rules.Actions.");
  module.def(
      "decision_actions",
      [](NativeBattle& battle, const legal::LegalMap& map) {
        return python_actions(battle, legal::actions_for(battle.state, map, battle.names().names()));
      },
      nb::arg("state"), nb::arg("map"),
      "The pending decision's legal actions (rules.legal.actions_for: a TURN's, else the "
      "top frame's, rules.reactions), as the state's Records' cached rules.Actions.");
  module.def(
      "turn_action_count",
      [](NativeBattle& battle, const legal::LegalMap& map) { return listed(battle, map).size(); },
      nb::arg("state"), nb::arg("map"),
      "How many legal actions turn_actions lists, without building Python objects (to "
      "time the engine alone).");
}

}  // namespace fray::bindings
