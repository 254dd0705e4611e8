// The battle state's Python face (bindings_battle.hpp): the class BattleState, built from
// a rules.Battle's parts (rules/bridge/battle_state.py gathers them) and read back in the
// shape of rules.battle.Battle.to_dict(), key for key and list for list; and the checked
// value conversions bindings_frames.cpp shares.
#include <nanobind/stl/string_view.h>

#include <algorithm>
#include <string>
#include <utility>

#include "bindings_battle.hpp"
#include "bindings_state.hpp"

namespace fray::bindings {

namespace {

using content::kNone;

std::string message(std::string_view where, const char* expected, nb::handle value) {
  return std::string(where) + ": expected " + expected + ", got " + nb::repr(value).c_str();
}

}  // namespace

// ------------------------------------------------------------ checked Python values in

std::string_view text_of(nb::handle value, std::string_view where) {
  if (!PyUnicode_Check(value.ptr())) {
    throw nb::type_error(message(where, "a string", value).c_str());
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
  if (data == nullptr) throw nb::python_error();
  return {data, static_cast<std::size_t>(size)};
}

int int_of(nb::handle value, std::string_view where) {
  if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr())) {
    throw nb::type_error(message(where, "an integer", value).c_str());
  }
  int overflow = 0;
  const long long number = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow != 0 || number < INT32_MIN || number > INT32_MAX) {
    throw nb::value_error(message(where, "a 32-bit integer", value).c_str());
  }
  return static_cast<int>(number);
}

bool bool_of(nb::handle value, std::string_view where) {
  if (!PyBool_Check(value.ptr())) throw nb::type_error(message(where, "a bool", value).c_str());
  return value.ptr() == Py_True;
}

nb::handle item_of(nb::handle mapping, const char* key, std::string_view where) {
  if (!PyDict_Check(mapping.ptr())) throw nb::type_error(message(where, "a dict", mapping).c_str());
  PyObject* found = PyDict_GetItemString(mapping.ptr(), key);  // borrowed
  if (found == nullptr) throw nb::key_error((std::string(where) + ": no " + key).c_str());
  return found;
}

combatant::Square square_of(nb::handle value, std::string_view where) {
  if (nb::len(value) != 2) throw nb::value_error(message(where, "a square [x, y]", value).c_str());
  return {int_of(value[0], where), int_of(value[1], where)};
}

// ------------------------------------------------------------ Python values out

nb::str str_of(std::string_view text) { return nb::str(text.data(), text.size()); }

nb::object optional_name(const content::Names& names, int id) {
  return id == kNone ? nb::none() : nb::object(str_of(names.name(id)));
}

nb::list square_list(const combatant::Square& square) {
  nb::list out;
  out.append(square.x);
  out.append(square.y);
  return out;
}

namespace {

state::Roller roller_from(nb::handle data) {
  state::Roller roller;
  nb::object generator =
      nb::type<dice::Pcg64>().attr("from_state")(item_of(data, "bit_generator", "dice"));
  roller.generator = nb::cast<dice::Pcg64>(generator);
  for (nb::handle face : item_of(data, "forced", "dice")) {
    roller.forced.push_back(int_of(face, "dice: forced"));
  }
  return roller;
}

std::optional<state::PendingDecision> decision_from(nb::handle data, combatant::Roster& roster) {
  if (data.is_none()) return std::nullopt;
  state::PendingDecision decision;
  decision.kind = static_cast<actions::DecisionKind>(word_of(
      actions::DECISION_KIND_VALUES, item_of(data, "kind", "decision"), "decision: kind"));
  decision.actor =
      roster.ids.intern(text_of(item_of(data, "actor", "decision"), "decision: actor"));
  nb::handle source = item_of(data, "source", "decision");
  if (!source.is_none()) decision.source = roster.ids.intern(text_of(source, "decision: source"));
  return decision;
}

void build(NativeBattle& self, nb::handle roster, nb::handle records, nb::dict parts) {
  self.records_object = nb::borrow(records);
  self.records = nb::cast<records::Records*>(records);
  self.header = nb::borrow(item_of(parts, "header", "parts"));
  state::BattleState& state = self.state;
  state.roster = nb::cast<const combatant::Roster&>(roster);
  state.names = &self.records->names();
  state.dice = roller_from(item_of(parts, "dice", "parts"));
  state.round = int_of(item_of(parts, "round", "parts"), "round");
  state.turn_index = int_of(item_of(parts, "turn_index", "parts"), "turn_index");
  for (nb::handle id : item_of(parts, "initiative_order", "parts")) {
    state.initiative_order.push_back(state.roster.ids.intern(text_of(id, "initiative_order")));
  }
  for (nb::handle inst : item_of(parts, "ground", "parts")) {
    state.ground.push_back(item_instance_from(inst, state.roster));
  }
  for (nb::handle door : item_of(parts, "doors", "parts")) {
    state.doors.push_back({square_of(door[0], "doors"), bool_of(door[1], "doors")});
  }
  std::sort(state.doors.begin(), state.doors.end(), [](const state::Door& a, const state::Door& b) {
    return std::pair(a.square.x, a.square.y) < std::pair(b.square.x, b.square.y);
  });
  for (nb::handle frame : item_of(parts, "stack", "parts")) {
    state.stack.push_back(frame_from(frame, state.roster, *self.records));
  }
  for (nb::handle event : item_of(parts, "events", "parts")) {
    state.events.push_back(self.records->event_from(event));
  }
  state.is_over = bool_of(item_of(parts, "is_over", "parts"), "is_over");
  nb::handle winner = item_of(parts, "winner", "parts");
  state.winner = winner.is_none() ? kNone : state.roster.teams.intern(text_of(winner, "winner"));
  state.end_turn_requested =
      bool_of(item_of(parts, "end_turn_requested", "parts"), "end_turn_requested");
  state.decision = decision_from(item_of(parts, "decision", "parts"), state.roster);
  check_from_outside(state);
}

// Roller.state(): the generator's state and the forced faces still queued.
nb::dict dice_dict(const state::Roller& roller) {
  nb::dict dice;
  dice["bit_generator"] = nb::cast(dice::Pcg64(roller.generator.state())).attr("state");
  nb::list forced;
  for (int face : roller.queued()) forced.append(face);
  dice["forced"] = forced;
  return dice;
}

// The state rebuilt in place from new parts (a Python battle's state after Python code
// changed it), keeping the event log: parts["events"] holds only the events to append.
void rebuild(NativeBattle& self, nb::handle roster, nb::dict parts) {
  state::BattleState& state = self.state;
  state::BattleState kept = state.copy();  // a refused part leaves the state as it was
  try {
    state.initiative_order.clear();
    state.ground.clear();
    state.doors.clear();
    state.stack.clear();
    build(self, roster, self.records_object, parts);
  } catch (...) {
    state = std::move(kept);
    throw;
  }
}

// The pending decision as the Python Decision (the records' cached one); None once over.
nb::object decision_object(const NativeBattle& self) {
  const state::BattleState& state = self.state;
  if (!state.decision || state.is_over) return nb::none();
  records::Records& records = self.names();
  actions::NameTable& names = records.names();
  actions::Decision decision;
  decision.kind = state.decision->kind;
  decision.actor = names.intern(state.roster.ids.name(state.decision->actor));
  if (state.decision->source != kNone) {
    decision.source = names.intern(state.roster.ids.name(state.decision->source));
  }
  return records.decision_to(decision);
}

nb::list id_names(const combatant::Roster& roster, const std::vector<int>& ids) {
  nb::list out;
  for (int id : ids) out.append(str_of(roster.ids.name(id)));
  return out;
}

// Battle.to_dict(events=events), from the records.
nb::dict to_dict(const NativeBattle& self, bool events_wanted) {
  const state::BattleState& state = self.state;
  const combatant::Roster& roster = state.roster;
  records::Records& records = self.names();
  nb::dict out;
  nb::handle header = self.header;
  out["version"] = nb::borrow(item_of(header, "version", "header"));
  out["scenario"] = nb::dict(nb::borrow<nb::dict>(item_of(header, "scenario", "header")));
  out["content_dir"] = nb::borrow(item_of(header, "content_dir", "header"));
  out["seed"] = nb::borrow(item_of(header, "seed", "header"));
  out["dice"] = dice_dict(state.dice);
  out["round"] = state.round;
  out["turn_index"] = state.turn_index;
  out["initiative_order"] = id_names(roster, state.initiative_order);
  nb::list combatants;
  for (const combatant::Combatant& member : roster.combatants) {
    combatants.append(combatant_dict(roster, member));
  }
  out["combatants"] = combatants;
  nb::list ground;
  for (const combatant::ItemInstance& inst : state.ground) ground.append(item_dict(roster, inst));
  out["ground"] = ground;
  nb::list doors_open;  // state.doors is sorted by square, as Python sorts [x, y] lists
  for (const state::Door& door : state.doors) {
    if (door.open) doors_open.append(square_list(door.square));
  }
  out["doors_open"] = doors_open;
  nb::list stack;
  for (const frames::Frame& frame : state.stack) stack.append(frame_dict(frame, roster, records));
  out["stack"] = stack;
  if (events_wanted) {
    nb::list events;
    for (std::size_t i = 0; i < state.events.size(); ++i) {
      events.append(records.event_dict(state.events[i]));
    }
    out["events"] = events;
  }
  out["is_over"] = state.is_over;
  out["winner"] = optional_name(roster.teams, state.winner);
  if (state.decision) {
    nb::dict decision;
    decision["kind"] =
        str_of(actions::DECISION_KIND_VALUES[static_cast<std::size_t>(state.decision->kind)]);
    decision["actor"] = str_of(roster.ids.name(state.decision->actor));
    decision["source"] = optional_name(roster.ids, state.decision->source);
    out["decision"] = decision;
  } else {
    out["decision"] = nb::none();
  }
  if (!events_wanted) out["event_count"] = state.events.size();  // last, as Python puts it
  return out;
}

NativeBattle clone(const NativeBattle& self) {
  return NativeBattle{self.records_object, self.records, self.header, self.state.copy()};
}

template <std::size_t N>
nb::list word_list(const std::array<std::string_view, N>& words) {
  nb::list out;
  for (std::string_view word : words) out.append(str_of(word));
  return out;
}

int traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<NativeBattle>(self)->traverse(visit, arg);
}

int clear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<NativeBattle>(self)->clear_references();
  return 0;
}

PyType_Slot GC_SLOTS[] = {{Py_tp_traverse, reinterpret_cast<void*>(&traverse)},
                          {Py_tp_clear, reinterpret_cast<void*>(&clear)},
                          {0, nullptr}};

}  // namespace

void bind_battle(nb::module_& module) {
  nb::dict tables;
  tables["types"] = nb::list();
  for (std::size_t i = 0; i < frames::FRAME_TYPE_COUNT; ++i) {
    nb::borrow<nb::list>(tables["types"]).append(str_of(frames::frame_type_name(i)));
  }
  tables["attack_modes"] = word_list(frames::kAttackModeNames);
  tables["act_phases"] = word_list(frames::kActPhaseNames);
  tables["ride_phases"] = word_list(frames::kRidePhaseNames);
  tables["attack_stages"] = word_list(frames::kAttackStageNames);
  module.attr("FRAME_TABLES") = tables;

  nb::class_<NativeBattle>(module, "BattleState",
                           "A battle's whole state in the engine (rules/native/state.hpp).",
                           nb::type_slots(GC_SLOTS))
      .def("__init__",
           [](NativeBattle* self, nb::handle roster, nb::handle records, nb::dict parts) {
             // built aside first: a refused part (a ValueError) leaves no half-built
             // object whose references nanobind would never release
             NativeBattle built;
             build(built, roster, records, parts);
             new (self) NativeBattle(std::move(built));
           },
           nb::arg("roster"), nb::arg("records"), nb::arg("parts"),
           "From a Roster of the battle's combatants, a Records, and the other parts "
           "(rules/bridge/battle_state.py gathers them).")
      .def("to_dict", &to_dict, nb::kw_only(), nb::arg("events") = true,
           "The state as Battle.to_dict(events=events) gives it.")
      .def("rebuild", &rebuild, nb::arg("roster"), nb::arg("parts"),
           "Rebuild from new parts in place, keeping the event log (parts['events'] are "
           "appended to it).")
      .def("dice", [](const NativeBattle& self) { return dice_dict(self.state.dice); },
           "The dice as Roller.state() gives them.")
      .def("set_forced", [](NativeBattle& self, nb::iterable faces) {
             std::vector<int> queued;
             for (nb::handle face : faces) queued.push_back(int_of(face, "forced"));
             self.state.dice.forced = std::move(queued);
             self.state.dice.forced_next = 0;
           }, nb::arg("faces"), "Replace the queue of forced faces (Roller.forced).")
      .def("append_events", [](NativeBattle& self, nb::iterable events) {
             for (nb::handle event : events) {
               self.state.events.push_back(self.names().event_from(event));
             }
           }, nb::arg("events"), "Append rules.events events to the log.")
      .def("events_from", [](NativeBattle& self, std::size_t start) {
             nb::list out;
             records::Records& records = self.names();
             for (std::size_t i = start; i < self.state.events.size(); ++i) {
               out.append(records.event_to(self.state.events[i]));
             }
             return out;
           }, nb::arg("start"), "The rules.events events from index `start` on.")
      .def("event_bytes", [](NativeBattle& self) {
             const std::string bytes = events::log_bytes(self.state.events, self.names().names());
             return nb::bytes(bytes.data(), bytes.size());
           }, "The event log as bytes (events::log_bytes): equal bytes, the same events.")
      .def_prop_ro("decision", &decision_object,
                   "The pending rules.actions.Decision; None once the battle is over.")
      .def_prop_ro("winner", [](const NativeBattle& self) {
        return optional_name(self.state.roster.teams, self.state.winner);
      })
      .def("clone", &clone, "An independent copy (event chunks and content shared).")
      .def("__copy__", &clone)
      .def_prop_ro("round", [](const NativeBattle& self) { return self.state.round; })
      .def_prop_ro("turn_index", [](const NativeBattle& self) { return self.state.turn_index; })
      .def_prop_ro("is_over", [](const NativeBattle& self) { return self.state.is_over; })
      .def_prop_ro("event_count", [](const NativeBattle& self) { return self.state.events.size(); })
      .def_prop_ro("stack_types",
                   [](const NativeBattle& self) {
                     nb::list out;
                     for (const frames::Frame& frame : self.state.stack) {
                       out.append(str_of(frames::frame_type_name(frame.index())));
                     }
                     return out;
                   },
                   "The frames' type names, bottom first.")
      .def_prop_ro("current_actor", [](const NativeBattle& self) {
        return optional_name(self.state.roster.ids, self.state.current_actor());
      });
}

}  // namespace fray::bindings
