// The native env's Python face (env_observation.hpp, env_spaces.hpp, env_skirmish.hpp;
// env/native.py is its Python side): the observation and action layouts of a scenario,
// one env's core and a batch of cores stepped in one call with the GIL released.
#include "bindings_env.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "battle.hpp"
#include "bindings_agents.hpp"
#include "bindings_battle.hpp"
#include "env_observation.hpp"
#include "env_skirmish.hpp"
#include "env_spaces.hpp"

namespace fray::bindings {

namespace {

template <typename T, int Dimensions>
using Buffer = nb::ndarray<T, nb::ndim<Dimensions>, nb::c_contig, nb::device::cpu>;

// A combatant or team number by its id, or a ValueError naming `what`.
int number_in(const content::Names& names, std::string_view id, const char* what) {
  const int number = names.find(id);
  if (number == content::kNone) {
    throw nb::value_error((std::string(what) + ": unknown id '" + std::string(id) + "'").c_str());
  }
  return number;
}

std::int32_t name_of(records::Records& records, nb::handle text) {
  return static_cast<std::int32_t>(records.intern(text, "action layout"));
}

// env.native.layout_tables(codec)'s dict -> the C++ layout (names in `battle`'s records).
env::ActionLayout action_layout(NativeBattle& battle, nb::dict tables) {
  records::Records& records = battle.names();
  env::ActionLayout layout;
  layout.names = &records.names();
  layout.n = nb::cast<int>(tables["n"]);
  layout.scenario = nb::cast<std::string>(tables["scenario"]);
  const nb::list units = nb::cast<nb::list>(tables["units"]);
  layout.units = static_cast<int>(nb::len(units));
  for (std::size_t slot = 0; slot < nb::len(units); ++slot) {
    layout.slot_of[name_of(records, units[slot])] = static_cast<int>(slot);
  }
  const nb::list blocks = nb::cast<nb::list>(tables["blocks"]);
  if (nb::len(blocks) != actions::ACTION_KIND_COUNT) {
    throw nb::value_error("action layout: expected one block per ActionKind");
  }
  for (std::size_t kind = 0; kind < actions::ACTION_KIND_COUNT; ++kind) {
    nb::tuple block = nb::cast<nb::tuple>(blocks[kind]);
    env::KindBlock& out = layout.blocks[kind];
    out.offset = nb::cast<int>(block[0]);
    for (nb::handle item : nb::cast<nb::list>(block[1])) {
      nb::tuple row = nb::cast<nb::tuple>(item);
      env::Parameter parameter;
      parameter.type = static_cast<env::Parameter::Type>(nb::cast<int>(row[0]));
      parameter.size = nb::cast<int>(row[1]);
      parameter.radius_x = nb::cast<int>(row[2]);
      parameter.radius_y = nb::cast<int>(row[3]);
      parameter.category = nb::cast<int>(row[4]);
      out.parameters.push_back(parameter);
    }
    out.carried = static_cast<std::uint8_t>(nb::cast<int>(block[2]));
  }
  for (nb::handle spells : nb::cast<nb::list>(tables["spells"])) {
    auto& index = layout.spell_index.emplace_back();
    int i = 0;
    for (nb::handle spell : nb::cast<nb::list>(spells)) index.emplace(name_of(records, spell), i++);
  }
  for (nb::handle category : nb::cast<nb::list>(tables["items"])) {
    auto& per_slot = layout.item_index.emplace_back();
    for (nb::handle uids : nb::cast<nb::list>(category)) {
      auto& index = per_slot.emplace_back();
      int i = 0;
      for (nb::handle uid : nb::cast<nb::list>(uids)) index.emplace(name_of(records, uid), i++);
    }
  }
  for (nb::handle category : nb::cast<nb::list>(tables["overflow"])) {
    auto& index = layout.overflow_index.emplace_back();
    for (nb::handle row : nb::cast<nb::list>(category)) {
      nb::tuple entry = nb::cast<nb::tuple>(row);
      index[{nb::cast<std::string>(entry[0]), nb::cast<int>(entry[1])}] = nb::cast<int>(entry[2]);
    }
  }
  for (auto [origin, count] : nb::cast<nb::dict>(tables["split_capacity"])) {
    layout.split_capacity[nb::cast<std::string>(origin)] = nb::cast<int>(count);
  }
  for (nb::handle uid : nb::cast<nb::list>(tables["known_uids"])) {
    layout.known_uids.insert(nb::cast<std::string>(uid));
  }
  return layout;
}

env::ObservationBuffers buffers(Buffer<float, 3> planes, Buffer<float, 2> units,
                                Buffer<std::int64_t, 1> decision, Buffer<float, 1> globals,
                                const env::ObservationLayout& layout) {
  if (planes.shape(0) != env::PLANE_COUNT || planes.shape(1) != static_cast<std::size_t>(layout.height) ||
      planes.shape(2) != static_cast<std::size_t>(layout.width) ||
      units.shape(0) != static_cast<std::size_t>(layout.units) ||
      units.shape(1) != env::UNIT_FEATURE_COUNT || decision.shape(0) != 2 ||
      globals.shape(0) != env::GLOBAL_FEATURE_COUNT) {
    throw nb::value_error("observation buffers: shapes do not match the layout");
  }
  return {planes.data(), units.data(), decision.data(), globals.data()};
}

// One env: its core and the Python objects of the battle it plays (kept alive here).
struct EnvCore {
  nb::object observation_owner, actions_owner;
  std::unique_ptr<env::SkirmishCore> core;
  nb::object state_object, loop_object, rules_object;
};

// The views of row `row` of a batch's observation arrays.
env::ObservationBuffers row_of(const env::ObservationLayout& layout, float* planes, float* units,
                               std::int64_t* decision, float* globals, std::size_t row) {
  const std::size_t plane_size =
      static_cast<std::size_t>(env::PLANE_COUNT * layout.width * layout.height);
  const std::size_t unit_size = static_cast<std::size_t>(layout.units * env::UNIT_FEATURE_COUNT);
  return {planes + row * plane_size, units + row * unit_size, decision + row * 2,
          globals + row * env::GLOBAL_FEATURE_COUNT};
}

// A batch of cores stepped together (env.native.NativeVectorCore): one call, GIL released.
struct EnvBatch {
  std::vector<EnvCore*> cores;
  nb::list owners;
  // a selector batch (agents/options.py): per core, the native agents its actions name
  std::vector<std::vector<agents::Agent*>> options;
  nb::list option_owners;
  std::mutex busy;  // one step of a batch at a time
};

// EnvBatch.step: step every env with its action (an option's index when `options`), then
// write its outcome, observation and mask in row i; the GIL released while stepping.
void step_batch(EnvBatch& self, Buffer<const std::int64_t, 1> chosen, Buffer<double, 1> rewards,
                Buffer<bool, 1> terminated, Buffer<bool, 1> truncated, Buffer<bool, 1> illegal,
                Buffer<float, 4> planes, Buffer<float, 3> units, Buffer<std::int64_t, 2> decision,
                Buffer<float, 2> globals, Buffer<std::int8_t, 2> masks, bool options) {
  const std::size_t count = self.cores.size();
  if (chosen.shape(0) != count || rewards.shape(0) != count || masks.shape(0) != count ||
      planes.shape(0) != count) {
    throw nb::value_error("EnvBatch.step: arrays must have one row per env");
  }
  if (options) {
    if (self.options.size() != count) throw nb::value_error("EnvBatch.step: no options set");
    for (std::size_t i = 0; i < count; ++i) {
      if (chosen.data()[i] < 0 || static_cast<std::size_t>(chosen.data()[i]) >= self.options[i].size()) {
        throw nb::value_error("EnvBatch.step: an option out of range");
      }
    }
  }
  for (EnvCore* core : self.cores) {
    if (!core->core->started()) throw nb::value_error("EnvBatch.step: an env was never started");
  }
  const auto& layout = nb::cast<const env::ObservationLayout&>(self.cores[0]->observation_owner);
  const std::size_t n = masks.shape(1);
  {
    nb::gil_scoped_release released;
    std::lock_guard<std::mutex> lock(self.busy);
    for (std::size_t i = 0; i < count; ++i) {
      env::SkirmishCore& core = *self.cores[i]->core;
      const auto index = static_cast<int>(chosen.data()[i]);
      const env::StepOutcome outcome = core.step(
          options ? core.choice_index(*self.options[i][static_cast<std::size_t>(index)]) : index);
      rewards.data()[i] = outcome.reward;
      terminated.data()[i] = outcome.terminated;
      truncated.data()[i] = outcome.truncated;
      illegal.data()[i] = outcome.illegal;
      core.observe(row_of(layout, planes.data(), units.data(), decision.data(), globals.data(), i));
      std::copy(core.mask().begin(), core.mask().end(), masks.data() + i * n);
    }
  }
}

// The layouts of a scenario: env.observation's fixed planes and numbers, env.spaces'
// action codec tables.
void bind_layouts(nb::module_& module) {
  nb::class_<env::ObservationLayout>(module, "ObservationLayout",
                                     "env.observation's fixed planes and numbers of one scenario.")
      .def("__init__", [](env::ObservationLayout* self, NativeBattle& battle, battle::BattleLoop& loop,
                          int max_rounds, int parries_per_round, const std::string& dodge,
                          const std::vector<int>& destination_kinds) {
        std::vector<actions::ActionKind> kinds;
        for (const int kind : destination_kinds) kinds.push_back(static_cast<actions::ActionKind>(kind));
        const content::Content& tables = *battle.state.roster.content;
        new (self) env::ObservationLayout(
            loop.map_of(battle.state).grid, static_cast<int>(battle.state.roster.combatants.size()),
            max_rounds, parries_per_round, tables.skill_names.find(dodge), kinds);
      }, nb::arg("state"), nb::arg("loop"), nb::arg("max_rounds"), nb::arg("parries_per_round"),
      nb::arg("dodge"), nb::arg("destination_kinds"));

  nb::class_<env::ActionLayout>(module, "ActionLayout",
                                "env.spaces.ActionCodec's tables in the records' names.")
      .def("__init__", [](env::ActionLayout* self, NativeBattle& battle, nb::dict tables) {
        new (self) env::ActionLayout(action_layout(battle, tables));
      }, nb::arg("state"), nb::arg("tables"))
      .def_ro("n", &env::ActionLayout::n);

  nb::exception<env::EncodingFailure>(module, "EncodingFailure");
}

// The env's stateless calls: an observation, the units' numbers, the mask.
void bind_env_calls(nb::module_& module) {
  module.def("env_observe", [](const env::ObservationLayout& layout, NativeBattle& battle,
                               battle::BattleLoop& loop, const std::string& team,
                               nb::handle self_id, bool show_reachable, Buffer<float, 3> planes,
                               Buffer<float, 2> units, Buffer<std::int64_t, 1> decision,
                               Buffer<float, 1> globals) {
    const combatant::Roster& roster = battle.state.roster;
    const int self = self_id.is_none() ? content::kNone
                                       : number_in(roster.ids, nb::cast<std::string>(self_id), "self_id");
    const legal::LegalMap& map = loop.map_of(battle.state);
    std::vector<actions::Action> found;
    if (battle.state.decision && !battle.state.is_over) {
      found = legal::actions_for(battle.state, map, battle.names().names());
    }
    env::write_observation(layout, battle.state, map.grid, number_in(roster.teams, team, "team"),
                           self, show_reachable, found, buffers(planes, units, decision, globals, layout));
  }, nb::arg("layout"), nb::arg("state"), nb::arg("loop"), nb::arg("team"), nb::arg("self_id").none(),
  nb::arg("show_reachable"), nb::arg("planes"), nb::arg("units"), nb::arg("decision"),
  nb::arg("globals"), "ObservationBuilder.build into the given arrays.");

  module.def("env_units", [](const NativeBattle& battle) {
    // what the envs' rewards and endings read of each combatant, in slot order
    nb::list out;
    for (const combatant::Combatant& c : battle.state.roster.combatants) {
      out.append(nb::make_tuple(c.in_action(), c.hp, c.max_hp));
    }
    return out;
  }, nb::arg("state"), "(in action, hp, max hp) of each combatant, in the scenario's order.");

  module.def("env_mask", [](const env::ActionLayout& layout, NativeBattle& battle,
                            battle::BattleLoop& loop, Buffer<std::int8_t, 1> mask) {
    if (mask.shape(0) != static_cast<std::size_t>(layout.n)) throw nb::value_error("mask: wrong size");
    std::vector<actions::Action> found;
    if (battle.state.decision && !battle.state.is_over) {
      found = legal::actions_for(battle.state, loop.map_of(battle.state), battle.names().names());
    }
    std::vector<std::int32_t> position(static_cast<std::size_t>(layout.n), -1), touched;
    std::fill(mask.data(), mask.data() + layout.n, 0);
    env::write_mask(layout, battle.state, battle.names().names(), found, mask.data(), position, touched);
    std::vector<std::pair<int, int>> out;  // (index, place in the legal list)
    for (const std::int32_t index : touched) out.emplace_back(index, position[static_cast<std::size_t>(index)]);
    return out;
  }, nb::arg("layout"), nb::arg("state"), nb::arg("loop"), nb::arg("mask"),
  "ActionCodec.legal_by_index: fills the int8 mask, returns (index, legal position) pairs.");
}

// One env's step in C++ (env.native.NativeEnvCore).
void bind_env_core(nb::module_& module) {
  nb::class_<EnvCore>(module, "EnvCore", "env.skirmish.SkirmishEnv's step in C++ (one env).")
      .def("__init__", [](EnvCore* self, nb::object observation, nb::object actions,
                          const std::string& team, double illegal_penalty, double damage_reward,
                          NativeBattle& probe) {
        env::EnvSettings settings;
        settings.team = number_in(probe.state.roster.teams, team, "team");
        settings.illegal_penalty = illegal_penalty;
        settings.damage_reward = damage_reward;
        new (self) EnvCore{observation, actions,
                           std::make_unique<env::SkirmishCore>(
                               nb::cast<const env::ObservationLayout&>(observation),
                               nb::cast<const env::ActionLayout&>(actions), settings),
                           nb::object(), nb::object(), nb::object()};
      }, nb::arg("observation"), nb::arg("actions"), nb::arg("team"), nb::arg("illegal_penalty"),
      nb::arg("damage_reward"), nb::arg("probe"))
      .def("start", [](EnvCore& self, nb::object state, nb::object loop, nb::object rules,
                       const NativeAgent& opponent) {
        NativeBattle& battle = nb::cast<NativeBattle&>(state);
        self.state_object = state;
        self.loop_object = loop;
        self.rules_object = rules;
        env::BattleParts parts{&battle.state, &nb::cast<battle::BattleLoop&>(loop),
                               &nb::cast<const harm::ApplyRules&>(rules), &battle.names().names()};
        return self.core->start(parts, opponent.agent->clone());
      }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("opponent"),
      "A new episode (the opponent is copied); False when it ended before the learner's turn.")
      .def("step_observe", [](EnvCore& self, int index, Buffer<float, 3> planes, Buffer<float, 2> units,
                              Buffer<std::int64_t, 1> decision, Buffer<float, 1> globals,
                              Buffer<std::int8_t, 1> mask) {
        const auto& layout = nb::cast<const env::ObservationLayout&>(self.observation_owner);
        const env::ObservationBuffers out = buffers(planes, units, decision, globals, layout);
        if (mask.shape(0) != self.core->mask().size()) throw nb::value_error("step_observe: wrong mask size");
        const env::StepOutcome outcome = self.core->step(index);
        self.core->observe(out);
        std::copy(self.core->mask().begin(), self.core->mask().end(), mask.data());
        return nb::make_tuple(outcome.reward, outcome.terminated, outcome.truncated, outcome.illegal,
                              self.core->legal_count(), self.core->state().round);
      }, nb::arg("index"), nb::arg("planes"), nb::arg("units"), nb::arg("decision"),
      nb::arg("globals"), nb::arg("mask"),
      "step(index), then observe() and mask() into the buffers, in one call: (reward, "
      "terminated, truncated, illegal, legal_count, round).")
      .def("choice_index", [](EnvCore& self, NativeAgent& agent) {
        return self.core->choice_index(*agent.agent);
      }, nb::arg("agent"),
      "The index of the agent's answer to the learner's decision (a selector's option; the "
      "agent is used in place).")
      .def("observe", [](EnvCore& self, Buffer<float, 3> planes, Buffer<float, 2> units,
                         Buffer<std::int64_t, 1> decision, Buffer<float, 1> globals) {
        const auto& layout = nb::cast<const env::ObservationLayout&>(self.observation_owner);
        self.core->observe(buffers(planes, units, decision, globals, layout));
      })
      .def("mask", [](EnvCore& self, Buffer<std::int8_t, 1> out) {
        const std::vector<std::int8_t>& mask = self.core->mask();
        if (out.shape(0) != mask.size()) throw nb::value_error("mask: wrong size");
        std::copy(mask.begin(), mask.end(), out.data());
      })
      .def_prop_ro("winner", [](const EnvCore& self) {
        const state::BattleState& state = self.core->state();
        return optional_name(state.roster.teams, state.winner);
      }, "The winning team once the battle is over (None: a draw or not over).")
      .def_prop_ro("legal_count", [](const EnvCore& self) { return self.core->legal_count(); })
      .def_prop_ro("state", [](const EnvCore& self) { return self.state_object; });
}

// A batch of env cores stepped in one call (env.native.NativeVectorCore).
void bind_env_batch(nb::module_& module) {
  nb::class_<EnvBatch>(module, "EnvBatch", "EnvCores stepped in one call, the GIL released.")
      .def("__init__", [](EnvBatch* self, nb::list cores) {
        new (self) EnvBatch();
        for (nb::handle core : cores) self->cores.push_back(&nb::cast<EnvCore&>(core));
        self->owners = cores;
      }, nb::arg("cores"))
      .def("set_options", [](EnvBatch& self, nb::list per_core) {
        if (nb::len(per_core) != self.cores.size()) {
          throw nb::value_error("EnvBatch.set_options: expected one list of agents per env");
        }
        self.options.clear();
        for (nb::handle agents_of : per_core) {
          auto& row = self.options.emplace_back();
          for (nb::handle agent : nb::cast<nb::list>(agents_of)) {
            row.push_back(nb::cast<NativeAgent&>(agent).agent.get());
          }
        }
        self.option_owners = per_core;
      }, nb::arg("options"),
      "A selector batch: per env, the native agents that step(options=True)'s actions name "
      "(used in place).")
      .def("step", &step_batch, nb::arg("actions"), nb::arg("rewards"), nb::arg("terminated"),
           nb::arg("truncated"), nb::arg("illegal"), nb::arg("planes"), nb::arg("units"),
           nb::arg("decision"), nb::arg("globals"), nb::arg("masks"), nb::arg("options") = false,
      "Step every env with its action (options=True: the index its option chooses) and write "
      "its outcome, observation and mask in row i.")
      .def("observe", [](EnvBatch& self, std::size_t i, Buffer<float, 4> planes, Buffer<float, 3> units,
                         Buffer<std::int64_t, 2> decision, Buffer<float, 2> globals,
                         Buffer<std::int8_t, 2> masks) {
        env::SkirmishCore& core = *self.cores.at(i)->core;
        const auto& layout = nb::cast<const env::ObservationLayout&>(self.cores[0]->observation_owner);
        core.observe(row_of(layout, planes.data(), units.data(), decision.data(), globals.data(), i));
        std::copy(core.mask().begin(), core.mask().end(), masks.data() + i * masks.shape(1));
      }, "Write env i's observation and mask into row i.");
}

}  // namespace

void bind_env(nb::module_& module) {
  bind_layouts(module);
  bind_env_calls(module);
  bind_env_core(module);
  bind_env_batch(module);
}

}  // namespace fray::bindings
