// rules/actions.py in C++: str(Action) both ways (the ActionTaken event carries it).
#include "actions.hpp"

#include <charconv>

namespace fray::actions {

std::string action_text(const Action& action, const NameTable& names) {
  std::string text(ACTION_KIND_NAMES[static_cast<std::size_t>(action.kind)]);
  if (action.target) text += " target=" + names.text(*action.target);
  if (action.square) {
    text += " square=(" + std::to_string(action.square->x) + ", " +
            std::to_string(action.square->y) + ")";
  }
  if (action.item) text += " item=" + names.text(*action.item);
  return text;
}

namespace {

// `text` without `prefix`, or none when it does not start with it.
std::optional<std::string_view> after(std::string_view text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
  return text.substr(prefix.size());
}

// The next word of `rest` (up to a space or the end), consumed with its space.
std::string_view take_word(std::string_view& rest) {
  const std::size_t space = rest.find(' ');
  const std::string_view word = rest.substr(0, space);
  rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  return word;
}

std::optional<std::int32_t> parse_int(std::string_view text) {
  std::int32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<Action> parse_action_text(std::string_view text, NameTable& names) {
  std::string_view rest = text;
  const std::string_view kind_name = take_word(rest);
  Action action;
  std::size_t kind = 0;
  while (kind < ACTION_KIND_COUNT && ACTION_KIND_NAMES[kind] != kind_name) ++kind;
  if (kind == ACTION_KIND_COUNT) return std::nullopt;
  action.kind = static_cast<ActionKind>(kind);
  if (auto value = after(rest, "target=")) {
    rest = *value;
    action.target = names.intern(take_word(rest));
  }
  if (auto value = after(rest, "square=(")) {
    const std::size_t close = value->find(')');
    const std::size_t comma = value->find(", ");
    if (close == std::string_view::npos || comma == std::string_view::npos || comma > close) {
      return std::nullopt;
    }
    const auto x = parse_int(value->substr(0, comma));
    const auto y = parse_int(value->substr(comma + 2, close - comma - 2));
    if (!x || !y) return std::nullopt;
    action.square = Square{*x, *y};
    rest = value->substr(close + 1);
    if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  }
  if (auto value = after(rest, "item=")) {
    rest = *value;
    action.item = names.intern(take_word(rest));
  }
  // Ids with spaces or an unusual spelling: not this action's str, so none (the caller
  // keeps the text as it is).
  if (!rest.empty() || action_text(action, names) != text) return std::nullopt;
  return action;
}

}  // namespace fray::actions
