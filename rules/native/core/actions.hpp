// rules/actions.py in C++: the action and decision kinds (S2, S5-S16), the Action and
// Decision records the engine and Python exchange at every decision, and the name table
// their string ids are interned in. No Python here: bindings_records.cpp converts.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

// ActionKind, DecisionKind, their names and values, ACTION_FIELDS and the ACTION_SPECS
// columns the engine reads: written from rules/actions.py at build time
// (rules/native/generate_tables.py); tests/native/test_records.py checks them member for member.
#include "rules_tables.hpp"

namespace fray::actions {

// S2/H25: a turn action's budget category (rules.budget.BUDGETED plus "free"), what
// Combatant.actions_used holds.
enum class Category : std::uint8_t { move, attack, full, free };
inline constexpr std::array<std::string_view, 4> kCategoryNames = {"move", "attack", "full",
                                                                    "free"};

// A string id (combatant, item uid, content id, status word...) interned in a NameTable:
// records compare and hash names as integers.
enum class Name : std::int32_t {};

// Strings <-> Names, append-only: a Name stays valid as long as its table. One table
// serves a battle and its clones (they share it: nothing is ever removed).
class NameTable {
 public:
  NameTable() = default;
  NameTable(const NameTable&) = delete;  // index_'s keys point into texts_
  NameTable& operator=(const NameTable&) = delete;
  Name intern(std::string_view text) {
    if (auto found = index_.find(text); found != index_.end()) return found->second;
    const Name name{static_cast<std::int32_t>(texts_.size())};
    texts_.push_back(std::make_unique<std::string>(text));
    index_.emplace(std::string_view(*texts_.back()), name);
    return name;
  }
  std::optional<Name> find(std::string_view text) const {
    if (auto found = index_.find(text); found != index_.end()) return found->second;
    return std::nullopt;
  }
  const std::string& text(Name name) const { return *texts_.at(static_cast<std::size_t>(name)); }
  std::size_t size() const { return texts_.size(); }

 private:
  std::vector<std::unique_ptr<std::string>> texts_;  // stable addresses for index_'s keys
  std::unordered_map<std::string_view, Name> index_;
};

// A square (x, y): x to the right, y down the map.
struct Square {
  std::int32_t x = 0;
  std::int32_t y = 0;
  friend bool operator==(const Square&, const Square&) = default;
};

// rules.actions.Action: a kind plus the fields ACTION_SPECS[kind].fields lets it carry.
// target: a combatant id; item: an item uid (CAST_SPELL: the spell id); square: where
// (a DODGE without one falls prone or takes no disadvantage, H10/S10).
struct Action {
  ActionKind kind = ActionKind::END_TURN;
  std::optional<Name> target;
  std::optional<Square> square;
  std::optional<Name> item;
  friend bool operator==(const Action&, const Action&) = default;
};

// rules.actions.Decision: who decides what; source is the combatant whose action or
// attack caused a reaction (none for TURN).
struct Decision {
  DecisionKind kind = DecisionKind::TURN;
  Name actor{};
  std::optional<Name> source;
  friend bool operator==(const Decision&, const Decision&) = default;
};

// str(Action) as rules.actions.Action.__str__ writes it ("MELEE_ATTACK target=orc item=x").
std::string action_text(const Action& action, const NameTable& names);
// The inverse: the Action whose str is `text`, or none when `text` is not one (names new
// to the table are interned).
std::optional<Action> parse_action_text(std::string_view text, NameTable& names);

}  // namespace fray::actions

template <>
struct std::hash<fray::actions::Action> {
  std::size_t operator()(const fray::actions::Action& action) const noexcept {
    // Each part fits in 32 bits; mix them into one 64-bit word per pair.
    const auto name = [](const std::optional<fray::actions::Name>& value) -> std::uint64_t {
      return value ? static_cast<std::uint32_t>(*value) + 1ULL : 0ULL;
    };
    std::uint64_t high = (static_cast<std::uint64_t>(action.kind) << 40) ^ (name(action.target) << 8)
        ^ (action.square ? 1ULL : 0ULL);
    std::uint64_t low = name(action.item);
    if (action.square) {
      low ^= (static_cast<std::uint64_t>(static_cast<std::uint32_t>(action.square->x)) << 32)
          ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(action.square->y)) << 1);
    }
    std::uint64_t mixed = high * 0x9E3779B97F4A7C15ULL ^ low;
    mixed ^= mixed >> 29;
    mixed *= 0xBF58476D1CE4E5B9ULL;
    return static_cast<std::size_t>(mixed ^ (mixed >> 32));
  }
};

template <>
struct std::hash<fray::actions::Decision> {
  std::size_t operator()(const fray::actions::Decision& decision) const noexcept {
    const std::uint64_t source = decision.source ? static_cast<std::uint32_t>(*decision.source) + 1ULL : 0ULL;
    std::uint64_t mixed = (static_cast<std::uint64_t>(decision.kind) << 56) ^
                          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(decision.actor)) << 24) ^ source;
    mixed *= 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(mixed ^ (mixed >> 31));
  }
};
