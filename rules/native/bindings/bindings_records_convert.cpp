// The records' Python face (bindings_records.hpp), its conversions: the engine's Action,
// Decision and event records to and from rules.actions / rules.events objects.
#include "bindings_records.hpp"

#include <nanobind/stl/string.h>

#include <algorithm>
#include <array>
#include <climits>
#include <string>
#include <utility>

namespace fray::records {

using actions::Action;
using actions::Decision;
using actions::Name;
using actions::Square;
using events::Event;

nb::object checked(PyObject* object) {
  if (object == nullptr) throw nb::python_error();
  return nb::steal(object);
}

namespace {

// Entries the action cache holds at most (then it starts again): bounded memory over
// any number of battles and maps.
constexpr std::size_t CACHE_LIMIT = 1 << 16;

std::string describe(nb::handle value) { return nb::repr(value).c_str(); }

[[noreturn]] void type_error(const char* where, const char* expected, nb::handle value) {
  throw nb::type_error((std::string(where) + ": expected " + expected + ", got " +
                        describe(value)).c_str());
}

// A record of a frozen slotted dataclass, its fields set as its __init__ sets them
// (object.__setattr__), without the call: `values` in field order.
nb::object new_record(nb::handle type, const std::vector<nb::object>& names,
                      std::vector<nb::object>& values) {
  auto* cls = reinterpret_cast<PyTypeObject*>(type.ptr());
  nb::object record = checked(cls->tp_alloc(cls, 0));
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (PyObject_GenericSetAttr(record.ptr(), names[i].ptr(), values[i].ptr()) != 0) {
      throw nb::python_error();
    }
  }
  return record;
}

std::int32_t int_from(nb::handle value, const char* where) {
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) type_error(where, "an int", value);
  nb::object number = checked(PyNumber_Index(value.ptr()));
  int overflow = 0;
  const long long result = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
  if (overflow != 0 || result < INT32_MIN || result > INT32_MAX) {
    throw nb::value_error((std::string(where) + ": expected a 32-bit int, got " +
                           describe(value)).c_str());
  }
  return static_cast<std::int32_t>(result);
}

Square square_from(nb::handle value, const char* where) {
  if (!PyTuple_Check(value.ptr()) || PyTuple_GET_SIZE(value.ptr()) != 2) {
    type_error(where, "a square (x, y)", value);
  }
  return {int_from(PyTuple_GET_ITEM(value.ptr(), 0), where),
          int_from(PyTuple_GET_ITEM(value.ptr(), 1), where)};
}

nb::object int_to(std::int32_t value) { return checked(PyLong_FromLong(value)); }

}  // namespace

// A square as Python's tuple (x, y), or its JSON list [x, y].
nb::object square_to(const Square& square, bool json) {
  if (json) {
    nb::object list = checked(PyList_New(2));
    PyList_SET_ITEM(list.ptr(), 0, int_to(square.x).release().ptr());
    PyList_SET_ITEM(list.ptr(), 1, int_to(square.y).release().ptr());
    return list;
  }
  nb::object tuple = checked(PyTuple_New(2));
  PyTuple_SET_ITEM(tuple.ptr(), 0, int_to(square.x).release().ptr());
  PyTuple_SET_ITEM(tuple.ptr(), 1, int_to(square.y).release().ptr());
  return tuple;
}

namespace {

nb::object getattr_of(nb::handle object, const nb::object& name) {
  return checked(PyObject_GetAttr(object.ptr(), name.ptr()));
}

// One event field, Python -> record, by the record member's type.
struct Reader {
  Records& records;
  const char* where;

  void operator()(nb::handle value, std::int32_t& out) const { out = int_from(value, where); }
  void operator()(nb::handle value, bool& out) const {
    if (!PyBool_Check(value.ptr())) type_error(where, "a bool", value);
    out = value.ptr() == Py_True;
  }
  void operator()(nb::handle value, Name& out) const { out = records.intern(value, where); }
  void operator()(nb::handle value, std::string& out) const {
    if (!PyUnicode_Check(value.ptr())) type_error(where, "a str", value);
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (data == nullptr) throw nb::python_error();
    out.assign(data, static_cast<std::size_t>(size));
  }
  void operator()(nb::handle value, Square& out) const { out = square_from(value, where); }
  void operator()(nb::handle value, events::ActionText& out) const {
    const Name text = records.intern(value, where);
    if (auto action = actions::parse_action_text(records.names().text(text), records.names())) {
      out.action = *action;
      out.text.reset();
    } else {
      out.text = text;
    }
  }
  template <typename T>
  void operator()(nb::handle value, std::optional<T>& out) const {
    if (value.is_none()) {
      out.reset();
      return;
    }
    (*this)(value, out.emplace());
  }
  template <typename T>
  void operator()(nb::handle value, std::vector<T>& out) const {
    if (!PyTuple_Check(value.ptr())) type_error(where, "a tuple", value);
    const Py_ssize_t size = PyTuple_GET_SIZE(value.ptr());
    out.resize(static_cast<std::size_t>(size));
    for (Py_ssize_t i = 0; i < size; ++i) (*this)(PyTuple_GET_ITEM(value.ptr(), i), out[i]);
  }
};

// One event field, record -> Python (json: tuples as lists, as event_to_dict gives).
struct Writer {
  Records& records;
  bool json;

  nb::object operator()(std::int32_t value) const { return int_to(value); }
  nb::object operator()(bool value) const { return nb::borrow(value ? Py_True : Py_False); }
  nb::object operator()(Name value) const { return records.name_object(value); }
  nb::object operator()(const std::string& value) const {
    return checked(PyUnicode_FromStringAndSize(value.data(), static_cast<Py_ssize_t>(value.size())));
  }
  nb::object operator()(const Square& value) const { return square_to(value, json); }
  nb::object operator()(const events::ActionText& value) const {
    return value.text ? records.name_object(*value.text) : records.action_text(value.action);
  }
  template <typename T>
  nb::object operator()(const std::optional<T>& value) const {
    return value ? (*this)(*value) : nb::none();
  }
  template <typename T>
  nb::object operator()(const std::vector<T>& values) const {
    const auto size = static_cast<Py_ssize_t>(values.size());
    nb::object out = checked(json ? PyList_New(size) : PyTuple_New(size));
    for (Py_ssize_t i = 0; i < size; ++i) {
      PyObject* item = (*this)(values[static_cast<std::size_t>(i)]).release().ptr();
      if (json) {
        PyList_SET_ITEM(out.ptr(), i, item);
      } else {
        PyTuple_SET_ITEM(out.ptr(), i, item);
      }
    }
    return out;
  }
};

// Python event of type `Index` -> its record.
template <std::size_t Index>
Event read_event(Records& records, nb::handle event) {
  using Record = std::variant_alternative_t<Index, Event>;
  Record record;
  const std::vector<nb::object>& names = records.field_names(Index);
  std::size_t field = 0;
  try {
    // The field names are string literals: their views end in a NUL.
    Record::each(record, [&](std::string_view name, auto& member) {
      Reader{records, name.data()}(getattr_of(event, names[field++]), member);
    });
  } catch (const nb::builtin_exception& error) {  // named by its class too
    const std::string message = std::string(Record::type_name) + "." + error.what();
    if (error.type() == nb::exception_type::type_error) throw nb::type_error(message.c_str());
    throw nb::value_error(message.c_str());
  }
  return Event(std::in_place_index<Index>, std::move(record));
}

template <std::size_t... Index>
constexpr auto event_readers(std::index_sequence<Index...>) {
  return std::array<Event (*)(Records&, nb::handle), sizeof...(Index)>{&read_event<Index>...};
}

constexpr auto EVENT_READERS = event_readers(std::make_index_sequence<events::EVENT_TYPE_COUNT>());

std::vector<nb::object> members_of(nb::sequence kinds, std::size_t count,
                                   const std::string_view* names, const std::string_view* values,
                                   const char* what, nb::dict& index) {
  std::vector<nb::object> members;
  for (nb::handle member : kinds) members.push_back(nb::borrow(member));
  if (members.size() != count) {
    throw nb::value_error((std::string(what) + ": expected " + std::to_string(count) +
                           " members (rules/native/actions.hpp), got " +
                           std::to_string(members.size())).c_str());
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::string name = nb::cast<std::string>(members[i].attr("name"));
    const std::string value = nb::cast<std::string>(members[i].attr("value"));
    if (name != names[i] || value != values[i]) {
      throw nb::value_error((std::string(what) + " member " + std::to_string(i) + ": C++ has " +
                             std::string(names[i]) + " = '" + std::string(values[i]) +
                             "', Python " + name + " = '" + value + "'").c_str());
    }
    index[members[i]] = nb::int_(i);
  }
  return members;
}

}  // namespace

Records::Records(nb::sequence action_kinds, nb::sequence decision_kinds, nb::handle action_class,
                 nb::handle decision_class, nb::sequence event_classes, nb::sequence event_fields)
    : action_class_(nb::borrow(action_class)), decision_class_(nb::borrow(decision_class)),
      action_fields_{nb::str("kind"), nb::str("target"), nb::str("square"), nb::str("item")},
      decision_fields_{nb::str("kind"), nb::str("actor"), nb::str("source")} {
  action_kinds_ = members_of(action_kinds, actions::ACTION_KIND_COUNT,
                             actions::ACTION_KIND_NAMES.data(), actions::ACTION_KIND_VALUES.data(),
                             "ActionKind", action_kind_index_);
  for (const nb::object& kind : action_kinds_) action_kind_values_.push_back(kind.attr("value"));
  decision_kinds_ = members_of(decision_kinds, actions::DECISION_KIND_COUNT,
                               actions::DECISION_KIND_NAMES.data(),
                               actions::DECISION_KIND_VALUES.data(), "DecisionKind",
                               decision_kind_index_);
  for (nb::handle cls : event_classes) event_classes_.push_back(nb::borrow(cls));
  for (nb::handle fields : event_fields) {
    std::vector<nb::object> names;
    for (nb::handle name : fields) names.push_back(nb::borrow(name));
    event_fields_.push_back(std::move(names));
  }
  if (event_classes_.size() != events::EVENT_TYPE_COUNT ||
      event_fields_.size() != events::EVENT_TYPE_COUNT) {
    throw nb::value_error(("event classes: expected " + std::to_string(events::EVENT_TYPE_COUNT) +
                           " (rules/native/events.hpp) with their fields").c_str());
  }
  for (std::size_t i = 0; i < events::EVENT_TYPE_COUNT; ++i) {
    const std::string name = nb::cast<std::string>(event_classes_[i].attr("__name__"));
    std::vector<std::string> python_fields;
    for (const nb::object& field : event_fields_[i]) python_fields.push_back(nb::cast<std::string>(field));
    const std::vector<std::string_view> native_fields = events::event_field_names(i);
    if (name != events::event_type_name(i) ||
        !std::equal(python_fields.begin(), python_fields.end(), native_fields.begin(),
                    native_fields.end())) {
      throw nb::value_error(("event class " + std::to_string(i) + ": C++ has " +
                             std::string(events::event_type_name(i)) +
                             " with other fields than Python's " + name).c_str());
    }
    event_class_index_[event_classes_[i]] = nb::int_(i);
  }
}

Name Records::intern(nb::handle text, const char* where) {
  PyObject* found = PyDict_GetItemWithError(name_ids_.ptr(), text.ptr());
  if (found != nullptr) return Name{static_cast<std::int32_t>(PyLong_AsLong(found))};
  if (PyErr_Occurred()) throw nb::python_error();
  if (!PyUnicode_CheckExact(text.ptr())) type_error(where, "a str", text);
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (data == nullptr) throw nb::python_error();
  const Name name = names_.intern(std::string_view(data, static_cast<std::size_t>(size)));
  name_object(name);  // brings name_objects_ and name_ids_ up to the table
  return name;
}

nb::object Records::name_object(Name name) {
  const auto index = static_cast<std::size_t>(name);
  while (name_objects_.size() <= index && name_objects_.size() < names_.size()) {
    // Names the engine interned itself get their str here, once.
    const std::string& text = names_.text(Name{static_cast<std::int32_t>(name_objects_.size())});
    // "replace": a name that is not UTF-8 (none should be) cannot stop every later name
    // of the shared table from reaching Python (issue 46: it once poisoned the process)
    nb::object object = checked(
        PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
    name_ids_[object] = nb::int_(name_objects_.size());
    name_objects_.push_back(std::move(object));
  }
  if (index >= name_objects_.size()) throw nb::index_error("no such name");
  return name_objects_[index];
}

Action Records::action_from(nb::handle action) {
  if (!PyObject_TypeCheck(action.ptr(), reinterpret_cast<PyTypeObject*>(action_class_.ptr()))) {
    type_error("action", "a rules.actions.Action", action);
  }
  Action out;
  nb::object kind = getattr_of(action, action_fields_[0]);
  PyObject* position = PyDict_GetItemWithError(action_kind_index_.ptr(), kind.ptr());
  if (position == nullptr) {
    if (PyErr_Occurred()) throw nb::python_error();
    type_error("Action.kind", "an ActionKind", kind);
  }
  out.kind = static_cast<actions::ActionKind>(PyLong_AsLong(position));
  nb::object target = getattr_of(action, action_fields_[1]);
  if (!target.is_none()) out.target = intern(target, "Action.target");
  nb::object square = getattr_of(action, action_fields_[2]);
  if (!square.is_none()) out.square = square_from(square, "Action.square");
  nb::object item = getattr_of(action, action_fields_[3]);
  if (!item.is_none()) out.item = intern(item, "Action.item");
  return out;
}

nb::object* Records::square_slot(const Action& action) {
  if (action.target || action.item || !action.square) return nullptr;
  const auto [x, y] = *action.square;
  if (x < 0 || y < 0 || x >= kSquareSide || y >= kSquareSide) return nullptr;
  const auto kind = static_cast<std::size_t>(action.kind);
  if (square_actions_.size() <= kind) square_actions_.resize(kind + 1);
  std::vector<nb::object>& table = square_actions_[kind];
  const std::size_t index = static_cast<std::size_t>(y) * kSquareSide + static_cast<std::size_t>(x);
  if (table.size() <= index) table.resize((static_cast<std::size_t>(y) + 1) * kSquareSide);
  return &table[index];
}

Records::CachedAction& Records::entry(const Action& action) {
  if (auto found = actions_.find(action); found != actions_.end()) return found->second;
  const nb::object* slot = square_slot(action);
  nb::object built;
  if (slot != nullptr && slot->is_valid()) {
    built = *slot;  // the object already handed out for it
  } else {
    std::vector<nb::object> values = {
        kind_object(action.kind), name_or_none(action.target),
        action.square ? square_to(*action.square, false) : nb::none(), name_or_none(action.item)};
    built = new_record(action_class_, action_fields_, values);
  }
  if (actions_.size() >= CACHE_LIMIT) actions_.clear();
  return actions_.emplace(action, CachedAction{built, nb::object()}).first->second;
}

nb::object Records::action_to(const Action& action) {
  nb::object* slot = square_slot(action);
  if (slot != nullptr && slot->is_valid()) return *slot;
  nb::object built = entry(action).action;
  slot = square_slot(action);  // entry() may have grown the table
  if (slot != nullptr) *slot = built;
  return built;
}

nb::object Records::action_dict(const Action& action) {
  nb::dict out;
  out[action_fields_[0]] = action_kind_values_[static_cast<std::size_t>(action.kind)];
  out[action_fields_[1]] = name_or_none(action.target);
  out[action_fields_[2]] = action.square ? square_to(*action.square, true) : nb::none();
  out[action_fields_[3]] = name_or_none(action.item);
  return out;
}

nb::object Records::action_text(const Action& action) {
  CachedAction& cached = entry(action);
  if (!cached.text.is_valid()) cached.text = checked(PyObject_Str(cached.action.ptr()));
  return cached.text;
}

Decision Records::decision_from(nb::handle decision) {
  if (!PyObject_TypeCheck(decision.ptr(), reinterpret_cast<PyTypeObject*>(decision_class_.ptr()))) {
    type_error("decision", "a rules.actions.Decision", decision);
  }
  Decision out;
  nb::object kind = getattr_of(decision, decision_fields_[0]);
  PyObject* position = PyDict_GetItemWithError(decision_kind_index_.ptr(), kind.ptr());
  if (position == nullptr) {
    if (PyErr_Occurred()) throw nb::python_error();
    type_error("Decision.kind", "a DecisionKind", kind);
  }
  out.kind = static_cast<actions::DecisionKind>(PyLong_AsLong(position));
  out.actor = intern(getattr_of(decision, decision_fields_[1]), "Decision.actor");
  nb::object source = getattr_of(decision, decision_fields_[2]);
  if (!source.is_none()) out.source = intern(source, "Decision.source");
  return out;
}

nb::object Records::decision_to(const Decision& decision) {
  if (auto found = decisions_.find(decision); found != decisions_.end()) return found->second;
  std::vector<nb::object> values = {decision_kinds_[static_cast<std::size_t>(decision.kind)],
                                    name_object(decision.actor),
                                    decision.source ? name_object(*decision.source) : nb::none()};
  nb::object built = new_record(decision_class_, decision_fields_, values);
  if (decisions_.size() >= CACHE_LIMIT) decisions_.clear();
  decisions_.emplace(decision, built);
  return built;
}

Event Records::event_from(nb::handle event) {
  PyObject* position = PyDict_GetItemWithError(event_class_index_.ptr(),
                                               reinterpret_cast<PyObject*>(Py_TYPE(event.ptr())));
  if (position == nullptr) {
    if (PyErr_Occurred()) throw nb::python_error();
    type_error("event", "a rules.events event", event);
  }
  return EVENT_READERS[static_cast<std::size_t>(PyLong_AsLong(position))](*this, event);
}

nb::object Records::event_to(const Event& event) {
  return std::visit(
      [&](const auto& record) {
        using Record = std::decay_t<decltype(record)>;
        std::vector<nb::object> values;
        const Writer write{*this, false};
        Record::each(record, [&](std::string_view, const auto& member) {
          values.push_back(write(member));
        });
        return new_record(event_classes_[event.index()], event_fields_[event.index()], values);
      },
      event);
}

nb::object Records::event_dict(const Event& event) {
  return std::visit(
      [&](const auto& record) {
        using Record = std::decay_t<decltype(record)>;
        nb::dict out;
        out["type"] = nb::str(Record::type_name.data(), Record::type_name.size());
        const Writer write{*this, true};
        const std::vector<nb::object>& names = event_fields_[event.index()];
        std::size_t field = 0;
        Record::each(record, [&](std::string_view, const auto& member) {
          out[names[field++]] = write(member);
        });
        return nb::object(out);
      },
      event);
}

namespace {

int visit_all(const std::vector<nb::object>& objects, visitproc visit, void* arg) {
  for (const nb::object& object : objects) Py_VISIT(object.ptr());
  return 0;
}

}  // namespace

int Records::traverse(visitproc visit, void* arg) const {
  for (const auto* objects : {&name_objects_, &action_kinds_, &action_kind_values_,
                              &decision_kinds_, &event_classes_, &action_fields_,
                              &decision_fields_}) {
    if (const int failed = visit_all(*objects, visit, arg)) return failed;
  }
  for (const auto& names : event_fields_) {
    if (const int failed = visit_all(names, visit, arg)) return failed;
  }
  for (const nb::handle object : {name_ids_, action_kind_index_, decision_kind_index_,
                                  event_class_index_}) {
    Py_VISIT(object.ptr());
  }
  Py_VISIT(action_class_.ptr());
  Py_VISIT(decision_class_.ptr());
  for (const auto& [record, cached] : actions_) {
    Py_VISIT(cached.action.ptr());
    Py_VISIT(cached.text.ptr());
  }
  for (const auto& [record, built] : decisions_) Py_VISIT(built.ptr());
  return 0;
}

void Records::clear_references() {
  clear_cache();
  for (auto* objects : {&name_objects_, &action_kinds_, &action_kind_values_, &decision_kinds_,
                        &event_classes_, &action_fields_, &decision_fields_}) {
    objects->clear();
  }
  event_fields_.clear();
  name_ids_.clear();
  action_kind_index_.clear();
  decision_kind_index_.clear();
  event_class_index_.clear();
  action_class_ = nb::object();
  decision_class_ = nb::object();
}

int EventLogView::traverse(visitproc visit, void* arg) const {
  Py_VISIT(records_object.ptr());
  return visit_all(built, visit, arg);
}

nb::object EventLogView::get(std::size_t index) {
  if (index >= log.size()) throw nb::index_error("event index out of range");
  if (built.size() < log.size()) built.resize(log.size());
  if (!built[index].is_valid()) {
    built[index] = records->event_to(log[index]);
    ++built_count;
  }
  return built[index];
}

}  // namespace fray::records
