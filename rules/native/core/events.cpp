// rules/events.py in C++: the records' names and fields, and the event log.
#include "events.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace fray::events {

namespace {

template <std::size_t... Index>
constexpr std::array<std::string_view, EVENT_TYPE_COUNT> type_names(
    std::index_sequence<Index...>) {
  return {std::variant_alternative_t<Index, Event>::type_name...};
}

constexpr auto TYPE_NAMES = type_names(std::make_index_sequence<EVENT_TYPE_COUNT>());

template <typename Record>
std::vector<std::string_view> field_names_of() {
  const Record record{};
  std::vector<std::string_view> names;
  Record::each(record, [&names](std::string_view name, const auto&) { names.push_back(name); });
  return names;
}

using FieldNames = std::vector<std::string_view> (*)();

template <std::size_t... Index>
constexpr std::array<FieldNames, EVENT_TYPE_COUNT> field_name_lists(std::index_sequence<Index...>) {
  return {&field_names_of<std::variant_alternative_t<Index, Event>>...};
}

constexpr auto FIELD_NAMES = field_name_lists(std::make_index_sequence<EVENT_TYPE_COUNT>());

// One field into log_bytes' text, by the record member's type: fixed-width ints, names and
// strings as their text after its length, optionals and lists after a tag or a length.
struct Bytes {
  const actions::NameTable& names;
  std::string& out;

  void raw(const void* data, std::size_t size) const {
    out.append(static_cast<const char*>(data), size);
  }
  void operator()(std::int32_t value) const { raw(&value, sizeof value); }
  void operator()(bool value) const { out.push_back(value ? '\1' : '\0'); }
  void operator()(std::string_view text) const {
    (*this)(static_cast<std::int32_t>(text.size()));
    raw(text.data(), text.size());
  }
  void operator()(const std::string& text) const { (*this)(std::string_view(text)); }
  void operator()(Name name) const { (*this)(std::string_view(names.text(name))); }
  void operator()(const Square& square) const {
    (*this)(square.x);
    (*this)(square.y);
  }
  void operator()(const ActionText& value) const {
    (*this)(value.text);
    (*this)(static_cast<std::int32_t>(value.action.kind));
    (*this)(value.action.target);
    (*this)(value.action.square);
    (*this)(value.action.item);
  }
  template <typename T>
  void operator()(const std::optional<T>& value) const {
    (*this)(value.has_value());
    if (value) (*this)(*value);
  }
  template <typename T>
  void operator()(const std::vector<T>& values) const {
    (*this)(static_cast<std::int32_t>(values.size()));
    for (const T& value : values) (*this)(value);
  }
};

}  // namespace

std::string log_bytes(const EventLog& log, const actions::NameTable& names) {
  std::string out;
  const Bytes bytes{names, out};
  for (std::size_t i = 0; i < log.size(); ++i) {
    const Event& event = log[i];
    bytes(static_cast<std::int32_t>(event.index()));
    std::visit([&](const auto& record) {
      std::decay_t<decltype(record)>::each(record, [&](std::string_view, const auto& member) {
        bytes(member);
      });
    }, event);
  }
  return out;
}

std::string_view event_type_name(std::size_t index) { return TYPE_NAMES.at(index); }

std::vector<std::string_view> event_field_names(std::size_t index) {
  return FIELD_NAMES.at(index)();
}

const Event& EventLog::at(std::size_t index) const {
  if (index >= size()) throw std::out_of_range("EventLog: no such event");
  return (*this)[index];
}

void EventLog::push_back(Event event) {
  tail_.push_back(std::move(event));
  if (tail_.size() == CHUNK) {
    chunks_.push_back(std::make_shared<const std::vector<Event>>(std::move(tail_)));
    tail_ = std::vector<Event>();
    tail_.reserve(CHUNK);
  }
}

}  // namespace fray::events
