// The records' Python face (rules/bridge/records.py is its Python side): Action,
// Decision and event records to and from rules.actions / rules.events objects.
//
// Records holds one name table and the Python objects conversions return: each name's
// str, the kinds' Enum members, and a cache of the Python Action (and Decision) built
// for each record, so that listing legal actions costs a hash lookup per action, not a
// construction. EventLogView is a battle's event log seen from Python: the Python event
// at index i is built the first time it is asked for, then kept.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <optional>
#include <unordered_map>
#include <vector>

#include "actions.hpp"
#include "events.hpp"

namespace fray::records {

namespace nb = nanobind;

class Records {
 public:
  Records(nb::sequence action_kinds, nb::sequence decision_kinds, nb::handle action_class,
          nb::handle decision_class, nb::sequence event_classes, nb::sequence event_fields);

  actions::NameTable& names() { return names_; }
  actions::Name intern(nb::handle text, const char* where);
  nb::object name_object(actions::Name name);

  actions::Action action_from(nb::handle action);
  // The one Python Action for `action` (built once, then cached).
  nb::object action_to(const actions::Action& action);
  // str() of that Action (as ActionTaken.action holds it), cached with it.
  nb::object action_text(const actions::Action& action);
  // Action.to_dict() of that Action (a fresh dict, as a replay records it), built straight
  // from the record.
  nb::object action_dict(const actions::Action& action);
  actions::Decision decision_from(nb::handle decision);
  nb::object decision_to(const actions::Decision& decision);

  events::Event event_from(nb::handle event);
  nb::object event_to(const events::Event& event);
  // event_to_dict(event_to(event)), built straight from the record.
  nb::object event_dict(const events::Event& event);

  std::size_t cache_size() const { return actions_.size() + decisions_.size(); }
  void clear_cache() {
    actions_.clear();
    square_actions_.clear();
    decisions_.clear();
  }

  // The garbage collector's view (tp_traverse, tp_clear): every Python object held.
  int traverse(visitproc visit, void* arg) const;
  void clear_references();

  // Used by the converters (bindings_records.cpp).
  nb::object kind_object(actions::ActionKind kind) const {
    return action_kinds_[static_cast<std::size_t>(kind)];
  }
  const std::vector<nb::object>& field_names(std::size_t type) const { return event_fields_[type]; }
  nb::handle event_class(std::size_t type) const { return event_classes_[type]; }

 private:
  struct CachedAction {
    nb::object action;
    nb::object text;  // str(action), built when first asked
  };

  actions::NameTable names_;
  std::vector<nb::object> name_objects_;  // Name -> its str
  nb::dict name_ids_;                     // str -> Name
  std::vector<nb::object> action_kinds_;  // ActionKind members, in order
  std::vector<nb::object> action_kind_values_;  // their .value, in the same order
  nb::dict action_kind_index_;            // member -> its position
  std::vector<nb::object> decision_kinds_;
  nb::dict decision_kind_index_;
  nb::object action_class_;
  nb::object decision_class_;
  std::vector<nb::object> action_fields_;    // "kind", "target", "square", "item"
  std::vector<nb::object> decision_fields_;  // "kind", "actor", "source"
  std::vector<nb::object> event_classes_;         // rules.events classes, in Event's order
  nb::dict event_class_index_;                     // class -> its position
  std::vector<std::vector<nb::object>> event_fields_;  // each class's field names (str)
  std::unordered_map<actions::Action, CachedAction> actions_;
  // The same Action objects for actions that carry a square only (moves: most of a turn's
  // list), by kind and square in a flat table, found without hashing.
  static constexpr int kSquareSide = 512;
  std::vector<std::vector<nb::object>> square_actions_;  // [kind][y * kSquareSide + x]
  nb::object* square_slot(const actions::Action& action);
  CachedAction& entry(const actions::Action& action);
  nb::object name_or_none(const std::optional<actions::Name>& name) {
    return name ? name_object(*name) : nb::none();
  }
  std::unordered_map<actions::Decision, nb::object> decisions_;
};

// A battle's event log as Python sees it: the records, and the Python event built for
// each index asked for (None until then). Copies share the log's full chunks.
struct EventLogView {
  nb::object records_object;  // keeps `records` alive
  Records* records = nullptr;
  events::EventLog log;
  std::vector<nb::object> built;
  std::size_t built_count = 0;

  nb::object get(std::size_t index);
  int traverse(visitproc visit, void* arg) const;
  void clear_references() {
    built.clear();
    built_count = 0;
    log.clear();
    records = nullptr;
    records_object = nb::object();
  }
};

// A new reference as an object; the Python error raised when it is null.
nb::object checked(PyObject* object);
// A square as Python's tuple (x, y), or its JSON list [x, y] when `json`.
nb::object square_to(const actions::Square& square, bool json);

// Adds ActionRecord, DecisionRecord, ActionList, Records, EventLog and the kind tables
// (ACTION_KINDS, ACTION_FIELDS, DECISION_KINDS, EVENT_TYPES) to the module.
void bind_records(nb::module_& module);

}  // namespace fray::records
