// The Python face of the native agents (agents_base.hpp; registered by bindings.cpp):
// NativeAgent(name, seed) answers the pending decision of a native BattleState with the
// index of its choice among the decision's legal actions, as battle_legal_actions lists
// them (rules/native_agents.py turns it into the Action).
#include "bindings_agents.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agents_base.hpp"
#include "battle.hpp"
#include "bindings_battle.hpp"
#include "legal.hpp"

namespace nb = nanobind;

namespace fray::bindings {

namespace {

std::string known_list() {
  std::string out;
  for (const std::string_view name : agents::known_names()) {
    out += (out.empty() ? "" : ", ") + std::string(name);
  }
  return out;
}

}  // namespace

void bind_agents(nb::module_& module) {
  nb::class_<NativeAgent>(module, "NativeAgent",
                          "A scripted agent in C++ (agents_base.hpp), deciding as the Python "
                          "agent of that name with the same seed.")
      .def("__init__",
           [](NativeAgent* self, std::string_view name, nb::handle seed) {
             std::unique_ptr<agents::Agent> agent = agents::make(name, seed_words(seed));
             if (!agent) {
               throw nb::value_error(("NativeAgent: unknown agent '" + std::string(name) +
                                      "'; the native agents are: " + known_list()).c_str());
             }
             new (self) NativeAgent{std::move(agent)};
           },
           nb::arg("name"), nb::arg("seed"),
           "The agent `name` (see `known`) seeded as SeededAgent(seed), 0 <= seed.")
      .def_prop_ro("name", [](const NativeAgent& self) { return std::string(self.agent->name()); })
      .def_static("known", [] {
             std::vector<std::string> out;
             for (const std::string_view name : agents::known_names()) out.emplace_back(name);
             return out;
           },
           "The names of the native agents.")
      .def("act",
           [](NativeAgent& self, NativeBattle& battle, battle::BattleLoop& loop) {
             if (!battle.state.decision || battle.state.is_over) {
               throw nb::value_error("the battle is over: there is no decision to act on");
             }
             const legal::LegalMap& map = loop.map_of(battle.state);
             actions::NameTable& names = battle.names().names();
             const std::vector<actions::Action> legal = legal::actions_for(battle.state, map, names);
             if (legal.empty()) throw nb::value_error("no legal action for the pending decision");
             agents::Choice choice =
                 self.agent->act(agents::View{battle.state, map, legal, names});
             return nb::make_tuple(choice.index, nb::str(choice.reason.c_str()));
           },
           nb::arg("state"), nb::arg("loop"),
           "(index into the pending decision's legal actions, reason) for a native "
           "BattleState and its BattleLoop; ValueError when the battle is over.")
      .def("clone",
           [](const NativeAgent& self) { return NativeAgent{self.agent->clone()}; },
           "An independent copy that decides exactly as this agent would from here on.")
      .def("__repr__", [](const NativeAgent& self) {
        return "NativeAgent('" + std::string(self.agent->name()) + "')";
      });
}

}  // namespace fray::bindings
