// The records' Python face (bindings_records.hpp), its classes: bind_records adds them
// to rules._native (rules/bridge/records.py is their Python side).
#include <nanobind/stl/string.h>

#include <string>

#include "bindings_records.hpp"

using fray::actions::Action;
using fray::actions::Decision;
using fray::actions::Name;
using fray::events::Event;

// ------------------------------------------------------------------ the module's classes
namespace fray::records {

namespace {

nb::tuple field_tuple(std::uint8_t bits) {
  std::vector<nb::object> names;
  if (bits & actions::TARGET) names.push_back(nb::str("target"));
  if (bits & actions::SQUARE) names.push_back(nb::str("square"));
  if (bits & actions::ITEM) names.push_back(nb::str("item"));
  nb::tuple out = nb::steal<nb::tuple>(checked(PyTuple_New(static_cast<Py_ssize_t>(names.size()))).release());
  for (std::size_t i = 0; i < names.size(); ++i) {
    PyTuple_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), names[i].release().ptr());
  }
  return out;
}

nb::object optional_name(const std::optional<Name>& name) {
  if (!name) return nb::none();
  return nb::int_(static_cast<std::int32_t>(*name));
}

std::string action_repr(const Action& action) {
  std::string out = "ActionRecord(" +
                    std::string(actions::ACTION_KIND_NAMES[static_cast<std::size_t>(action.kind)]);
  if (action.target) out += ", target=" + std::to_string(static_cast<std::int32_t>(*action.target));
  if (action.square) {
    out += ", square=(" + std::to_string(action.square->x) + ", " +
           std::to_string(action.square->y) + ")";
  }
  if (action.item) out += ", item=" + std::to_string(static_cast<std::int32_t>(*action.item));
  return out + ")";
}

// Action records in order (legal actions, as the engine lists them).
struct ActionList {
  std::vector<Action> actions;
};

EventLogView new_view(nb::handle records) {
  EventLogView view;
  view.records_object = nb::borrow(records);
  view.records = nb::cast<Records*>(records);
  return view;
}

// Records and EventLog hold Python objects: the collector sees them (cycles through a
// module that keeps one are collected, none is left at exit).
template <typename Held>
int traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<Held>(self)->traverse(visit, arg);
}

template <typename Held>
int clear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<Held>(self)->clear_references();
  return 0;
}

template <typename Held>
PyType_Slot GC_SLOTS[] = {{Py_tp_traverse, reinterpret_cast<void*>(&traverse<Held>)},
                          {Py_tp_clear, reinterpret_cast<void*>(&clear<Held>)},
                          {0, nullptr}};

// The kinds, fields and event types the module was built with (rules_tables.hpp,
// events.hpp), for the records' checks against rules.actions and rules.events.
void bind_record_tables(nb::module_& module) {
  nb::list action_kinds, action_fields, decision_kinds, event_types;
  for (std::size_t i = 0; i < actions::ACTION_KIND_COUNT; ++i) {
    action_kinds.append(nb::make_tuple(nb::str(actions::ACTION_KIND_NAMES[i].data()),
                                       nb::str(actions::ACTION_KIND_VALUES[i].data())));
    action_fields.append(field_tuple(actions::ACTION_FIELDS[i]));
  }
  for (std::size_t i = 0; i < actions::DECISION_KIND_COUNT; ++i) {
    decision_kinds.append(nb::make_tuple(nb::str(actions::DECISION_KIND_NAMES[i].data()),
                                         nb::str(actions::DECISION_KIND_VALUES[i].data())));
  }
  for (std::size_t i = 0; i < events::EVENT_TYPE_COUNT; ++i) {
    nb::list fields;
    for (std::string_view name : events::event_field_names(i)) {
      fields.append(nb::str(name.data(), name.size()));
    }
    const std::string_view name = events::event_type_name(i);
    event_types.append(nb::make_tuple(nb::str(name.data(), name.size()), nb::tuple(fields)));
  }
  module.attr("ACTION_KINDS") = action_kinds;    // (name, value) per ActionKind, in order
  module.attr("ACTION_FIELDS") = action_fields;  // each kind's fields, ACTION_SPECS' order
  module.attr("DECISION_KINDS") = decision_kinds;
  module.attr("EVENT_TYPES") = event_types;      // (class name, field names), in order
  module.attr("RECORD_SIZES") = nb::make_tuple(sizeof(Action), sizeof(Event));
}

// ActionRecord, DecisionRecord, ActionList: the records as the engine holds them.
void bind_record_types(nb::module_& module) {
  nb::class_<Action>(module, "ActionRecord",
                     "An Action as the engine holds it: a kind number and interned names.")
      .def_prop_ro("kind", [](const Action& self) { return static_cast<int>(self.kind); })
      .def_prop_ro("target", [](const Action& self) { return optional_name(self.target); })
      .def_prop_ro("square", [](const Action& self) -> nb::object {
        return self.square ? square_to(*self.square, false) : nb::none();
      })
      .def_prop_ro("item", [](const Action& self) { return optional_name(self.item); })
      .def("__eq__", [](const Action& self, const Action& other) { return self == other; })
      .def("__hash__", [](const Action& self) { return std::hash<Action>()(self); })
      .def("__repr__", &action_repr);

  nb::class_<Decision>(module, "DecisionRecord", "A Decision as the engine holds it.")
      .def_prop_ro("kind", [](const Decision& self) { return static_cast<int>(self.kind); })
      .def_prop_ro("actor", [](const Decision& self) { return static_cast<std::int32_t>(self.actor); })
      .def_prop_ro("source", [](const Decision& self) { return optional_name(self.source); })
      .def("__eq__", [](const Decision& self, const Decision& other) { return self == other; });

  nb::class_<ActionList>(module, "ActionList", "Action records, in order.")
      .def("__len__", [](const ActionList& self) { return self.actions.size(); });
}

// Records: one name table and the Python objects the records convert to.
void bind_record_names(nb::module_& module) {
  nb::class_<Records>(module, "Records",
                      "One name table and the Python objects the records convert to "
                      "(rules/bridge/records.py makes them).",
                      nb::type_slots(GC_SLOTS<Records>))
      .def(nb::init<nb::sequence, nb::sequence, nb::handle, nb::handle, nb::sequence,
                    nb::sequence>(),
           nb::arg("action_kinds"), nb::arg("decision_kinds"), nb::arg("action_class"),
           nb::arg("decision_class"), nb::arg("event_classes"), nb::arg("event_fields"))
      .def("intern", [](Records& self, nb::handle text) {
             return static_cast<std::int32_t>(self.intern(text, "intern"));
           }, nb::arg("text"), "The name of `text` (a str), interned if new.")
      .def("name", [](Records& self, std::int32_t name) { return self.name_object(Name{name}); },
           nb::arg("name"), "The str of a name.")
      .def_prop_ro("name_count", [](Records& self) { return self.names().size(); })
      .def("action", &Records::action_from, nb::arg("action"), "Action -> ActionRecord.")
      .def("python_action", &Records::action_to, nb::arg("record"),
           "ActionRecord -> the one (cached) Action equal to it.")
      .def("actions",
           [](Records& self, nb::iterable actions) {
             ActionList out;
             for (nb::handle action : actions) out.actions.push_back(self.action_from(action));
             return out;
           },
           nb::arg("actions"), "Actions -> an ActionList.")
      .def("python_actions",
           [](Records& self, const ActionList& records) {
             const std::vector<Action>& actions = records.actions;
             nb::object out = checked(PyList_New(static_cast<Py_ssize_t>(actions.size())));
             for (std::size_t i = 0; i < actions.size(); ++i) {
               PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i),
                               self.action_to(actions[i]).release().ptr());
             }
             return out;
           },
           nb::arg("records"), "ActionList -> a list of the cached Actions.")
      .def("decision", &Records::decision_from, nb::arg("decision"))
      .def("python_decision", &Records::decision_to, nb::arg("record"))
      .def_prop_ro("cache_size", &Records::cache_size)
      .def("clear_cache", &Records::clear_cache, "Forget the Actions and Decisions built.");
}

// EventLog: event records, each Python event built when first asked for.
void bind_event_log(nb::module_& module) {
  nb::class_<EventLogView>(module, "EventLog",
                           "Event records; the Python event at an index is built when first "
                           "asked for, then kept (tests/native/glue/state.py NativeEvents).",
                           nb::type_slots(GC_SLOTS<EventLogView>))
      .def("__init__", [](EventLogView* self, nb::handle records) {
             new (self) EventLogView(new_view(records));
           }, nb::arg("records"))
      .def("__len__", [](const EventLogView& self) { return self.log.size(); })
      .def("get", &EventLogView::get, nb::arg("index"), "The event at index (0 <= index < len).")
      .def("get_range",
           [](EventLogView& self, std::size_t start, std::size_t stop) {
             nb::list out;
             for (std::size_t i = start; i < stop && i < self.log.size(); ++i) out.append(self.get(i));
             return out;
           },
           nb::arg("start"), nb::arg("stop"), "[get(i) for i in range(start, stop)].")
      .def("dict", [](EventLogView& self, std::size_t index) {
             if (index >= self.log.size()) throw nb::index_error("event index out of range");
             return self.records->event_dict(self.log[index]);
           }, nb::arg("index"), "event_to_dict of the event at index, without building it.")
      .def("append", [](EventLogView& self, nb::handle event) {
             self.log.push_back(self.records->event_from(event));
           }, nb::arg("event"), "Append a rules.events event as its record.")
      .def("extend", [](EventLogView& self, nb::iterable events) {
             for (nb::handle event : events) self.log.push_back(self.records->event_from(event));
           }, nb::arg("events"))
      .def_prop_ro("built", [](const EventLogView& self) { return self.built_count; },
                   "How many Python events were built so far.")
      .def_prop_ro("records", [](const EventLogView& self) { return self.records_object; })
      .def("copy", [](const EventLogView& self) {
             EventLogView copy = new_view(self.records_object);
             copy.log = self.log;
             return copy;
           }, "The same records (full chunks shared), no Python events built yet.");
}

}  // namespace

void bind_records(nb::module_& module) {
  bind_record_tables(module);
  bind_record_types(module);
  bind_record_names(module);
  bind_event_log(module);
}

}  // namespace fray::records
