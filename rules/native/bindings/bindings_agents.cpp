// The Python face of the native agents (agents_base.hpp; registered by bindings.cpp):
// NativeAgent(name, seed) answers the pending decision of a native BattleState (with its
// BattleLoop and ApplyRules) with the index of its choice among the decision's legal
// actions, as battle_legal_actions lists them (rules/bridge/agents.py turns it into the
// Action).
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
#include "agents_mcts.hpp"
#include "play.hpp"

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

// mcts.SEARCHED_TURN_KINDS and MOVE_KINDS, as positions in list(ActionKind).
agents::Grouping grouping_of(const std::vector<int>& searched, const std::vector<int>& moves) {
  const auto kind_at = [](int kind) {
    if (kind < 0 || kind >= static_cast<int>(actions::ACTION_KIND_COUNT)) {
      throw nb::value_error("mcts grouping: an action kind out of range");
    }
    return static_cast<actions::ActionKind>(kind);
  };
  agents::Grouping grouping;
  for (const int kind : searched) grouping.searched[static_cast<std::size_t>(kind_at(kind))] = true;
  for (const int kind : moves) grouping.moves.push_back(kind_at(kind));
  return grouping;
}

// battle_play: play on with a native agent per team until the battle is over or
// max_decisions were made (play.hpp).
nb::object play_on(NativeBattle& battle, battle::BattleLoop& loop, const harm::ApplyRules& rules,
                   nb::dict agents_by_team, int max_decisions, bool records) {
  const combatant::Roster& roster = battle.state.roster;
  std::vector<agents::Agent*> agents(static_cast<std::size_t>(roster.teams.size()), nullptr);
  for (auto [team, agent] : agents_by_team) {
    const int number = roster.teams.find(nb::cast<std::string>(team));
    if (number == content::kNone) {
      throw nb::value_error(("battle_play: no team " + nb::cast<std::string>(team)).c_str());
    }
    agents[static_cast<std::size_t>(number)] = nb::cast<NativeAgent&>(agent).agent.get();
  }
  // The GIL is held: the battle's names are the process's shared table, which other
  // threads' battles intern into (the batched env, which releases it, has its own).
  const std::vector<play::Decided> made = play::play_battle(
      battle.state, loop, battle.names().names(), rules, agents, max_decisions);
  const auto reason_of = [](const play::Decided& decided) {
    return decided.second.empty() ? nb::object(nb::none())
                                  : nb::object(nb::str(decided.second.c_str()));
  };
  if (records) {  // a replay's records: the actions' dicts and the reasons, two lists
    nb::list actions;
    nb::list reasons;
    for (const play::Decided& decided : made) {
      actions.append(battle.names().action_dict(decided.first));
      reasons.append(reason_of(decided));
    }
    return nb::make_tuple(actions, reasons);
  }
  nb::list out;
  for (const play::Decided& decided : made) {
    out.append(nb::make_tuple(battle.names().action_to(decided.first), reason_of(decided)));
  }
  return out;
}

// NativeAgent: a scripted agent's twin, answering a native battle's decision.
void bind_native_agent(nb::module_& module) {
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
           [](NativeAgent& self, NativeBattle& battle, battle::BattleLoop& loop,
              const harm::ApplyRules& rules) {
             if (!battle.state.decision || battle.state.is_over) {
               throw nb::value_error("the battle is over: there is no decision to act on");
             }
             const legal::LegalMap& map = loop.map_of(battle.state);
             actions::NameTable& names = battle.names().names();
             const std::vector<actions::Action> legal = legal::actions_for(battle.state, map, names);
             if (legal.empty()) throw nb::value_error("no legal action for the pending decision");
             agents::Choice choice =
                 self.agent->act(agents::View{battle.state, map, legal, names, rules});
             return nb::make_tuple(choice.index, nb::str(choice.reason.c_str()));
           },
           nb::arg("state"), nb::arg("loop"), nb::arg("rules"),
           "(index into the pending decision's legal actions, reason) for a native "
           "BattleState, its BattleLoop and ApplyRules (the odds the tactician reads); "
           "ValueError when the battle is over.")
      .def("clone",
           [](const NativeAgent& self) { return NativeAgent{self.agent->clone()}; },
           "An independent copy that decides exactly as this agent would from here on.")
      .def("__repr__", [](const NativeAgent& self) {
        return "NativeAgent('" + std::string(self.agent->name()) + "')";
      });
}

// agents/mcts.py in the engine: the flat rounds, the plan search, the candidates.
void bind_search(nb::module_& module) {
  // agents/mcts.py's flat iterations in the engine (agents_mcts.hpp).
  module.def("mcts_round", [](NativeBattle& battle, battle::BattleLoop& loop,
                              const harm::ApplyRules& rules, nb::list candidates,
                              nb::handle seed, NativeAgent& rollout, int depth,
                              const std::string& team) {
    const int number = battle.state.roster.teams.find(team);
    if (number == content::kNone) throw nb::value_error(("mcts_round: no team " + team).c_str());
    if (battle.state.is_over || !battle.state.decision) {
      throw nb::value_error("mcts_round: the battle is over");
    }
    std::vector<actions::Action> records;
    for (nb::handle candidate : candidates) records.push_back(battle.names().action_from(candidate));
    return agents::search_round(battle.state, loop, battle.names().names(), rules, records,
                                seed_words(seed), *rollout.agent, depth, number);
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("candidates"),
  nb::arg("seed"), nb::arg("rollout"), nb::arg("depth"), nb::arg("team"),
  "MCTS._iterate (flat) for each candidate under the dice of `seed` (each on a clone of "
  "the state): the leaf values for `team`. The rollout agent is used in place.");

  // agents/mcts.py's plan search (MCTS(plan=N)): the tree under the root candidates, one
  // object per decision (agents_mcts.hpp PlanSearch).
  nb::class_<agents::PlanSearch>(module, "PlanSearch",
                                 "MCTS(plan=N)'s tree under the root candidates (one per "
                                 "decision): round() runs one iteration per candidate.")
      .def("__init__",
           [](agents::PlanSearch* self, NativeBattle& battle, const std::vector<int>& searched,
              const std::vector<int>& moves, int plan, int depth, const std::string& team,
              double exploration) {
             const int number = battle.state.roster.teams.find(team);
             if (number == content::kNone) throw nb::value_error(("PlanSearch: no team " + team).c_str());
             new (self) agents::PlanSearch(grouping_of(searched, moves), plan, depth, number,
                                           exploration);
           },
           nb::arg("state"), nb::arg("searched"), nb::arg("moves"), nb::arg("plan"),
           nb::arg("depth"), nb::arg("team"), nb::arg("exploration"),
           "searched and moves: mcts.SEARCHED_TURN_KINDS and MOVE_KINDS as positions in "
           "list(ActionKind); plan: the searching team's decisions chosen by the tree; depth: "
           "decisions after the root candidate before the leaf value.")
      .def("round",
           [](agents::PlanSearch& self, NativeBattle& battle, battle::BattleLoop& loop,
              const harm::ApplyRules& rules, nb::list candidates, nb::handle seed,
              NativeAgent& rollout, NativeAgent* prior) {
             if (battle.state.is_over || !battle.state.decision) {
               throw nb::value_error("PlanSearch.round: the battle is over");
             }
             std::vector<actions::Action> records;
             for (nb::handle candidate : candidates) records.push_back(battle.names().action_from(candidate));
             return self.round(battle.state, loop, battle.names().names(), rules, records,
                               seed_words(seed), *rollout.agent,
                               prior == nullptr ? nullptr : prior->agent.get());
           },
           nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("candidates"),
           nb::arg("seed"), nb::arg("rollout"), nb::arg("prior").none(),
           "One iteration per candidate under the dice of `seed`: the leaf values. The "
           "rollout and prior agents are used in place.")
      .def_prop_ro("node_count", &agents::PlanSearch::node_count);

  module.def("mcts_candidates", [](NativeBattle& battle, battle::BattleLoop& loop,
                                   const harm::ApplyRules& rules, const std::vector<int>& searched,
                                   const std::vector<int>& moves) {
    if (battle.state.is_over || !battle.state.decision) {
      throw nb::value_error("mcts_candidates: the battle is over");
    }
    const legal::LegalMap& map = loop.map_of(battle.state);
    actions::NameTable& names = battle.names().names();
    const std::vector<actions::Action> legal = legal::actions_for(battle.state, map, names);
    nb::list out;
    for (const actions::Action& action :
         agents::grouped_candidates(agents::View{battle.state, map, legal, names, rules},
                                    grouping_of(searched, moves))) {
      out.append(battle.names().action_to(action));
    }
    return out;
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("searched"), nb::arg("moves"),
  "mcts.candidates in the engine (the action grouping), for tests.");
}

void bind_play(nb::module_& module) {
  // experiments/replay.py's play loop in the engine (play.hpp).
  module.def("battle_play", &play_on,
  nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("agents"),
  nb::arg("max_decisions"), nb::arg("records") = false,
  "Play on with a native agent per team (team -> NativeAgent, used in place) until the "
  "battle is over or max_decisions were made: [(action, reason or None)] per decision; "
  "with records=True, ([Action.to_dict() per decision], [reason or None per decision]).");
}

}  // namespace

void bind_agents(nb::module_& module) {
  bind_native_agent(module);
  bind_search(module);
  bind_play(module);
}

}  // namespace fray::bindings
