// rules/frames.py in C++: the frame types' names (FRAME_TYPES).
#include "frames.hpp"

#include <utility>

namespace fray::frames {

namespace {

template <std::size_t... Index>
constexpr std::array<std::string_view, FRAME_TYPE_COUNT> type_names(
    std::index_sequence<Index...>) {
  return {std::variant_alternative_t<Index, Frame>::type_name...};
}

constexpr auto TYPE_NAMES = type_names(std::make_index_sequence<FRAME_TYPE_COUNT>());

}  // namespace

std::string_view frame_type_name(std::size_t index) { return TYPE_NAMES.at(index); }

std::optional<std::size_t> frame_type_index(std::string_view name) {
  for (std::size_t i = 0; i < TYPE_NAMES.size(); ++i) {
    if (TYPE_NAMES[i] == name) return i;
  }
  return std::nullopt;
}

}  // namespace fray::frames
