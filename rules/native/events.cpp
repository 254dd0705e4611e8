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

}  // namespace

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
