// env/spaces.py in C++: encoding and the mask (see env_spaces.hpp).
#include "env_spaces.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "grid.hpp"

namespace fray::env {

using actions::Action;
using actions::Name;

namespace {

std::int32_t raw(Name name) { return static_cast<std::int32_t>(name); }

// _KING_INDEX: the row-by-row king step of (dx, dy), or nullopt.
std::optional<int> king_index(int dx, int dy) {
  for (std::size_t i = 0; i < grid::KING_STEPS_BY_ROW.size(); ++i) {
    if (grid::KING_STEPS_BY_ROW[i][0] == dx && grid::KING_STEPS_BY_ROW[i][1] == dy) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

template <typename Map, typename Key>
std::optional<int> lookup(const Map& table, const Key& key) {
  const auto found = table.find(key);
  if (found == table.end()) return std::nullopt;
  return found->second;
}

std::string describe(const Action& action, const actions::NameTable& names) {
  return actions::action_text(action, names);
}

}  // namespace

std::optional<std::pair<std::string, int>> SplitItems::of(Name uid) {
  if (!found_) {
    found_ = true;
    // ActionCodec.split_items: uids unknown at the start named "<origin>.<n>" of an origin
    // that can split, ranked by n within their origin (oldest first)
    std::map<std::string, std::vector<std::pair<long long, std::string>>> by_origin;
    const auto visit = [&](const combatant::ItemInstance& inst) {
      const std::string& text = state_.roster.uids.name(inst.uid);
      if (layout_.known_uids.contains(text)) return;
      const std::size_t dot = text.rfind('.');
      if (dot == std::string::npos) return;
      const std::string origin = text.substr(0, dot);
      const std::string digits = text.substr(dot + 1);
      if (!layout_.split_capacity.contains(origin) || digits.empty() ||
          !std::all_of(digits.begin(), digits.end(),
                       [](unsigned char c) { return std::isdigit(c) != 0; })) {
        return;
      }
      by_origin[origin].emplace_back(std::strtoll(digits.c_str(), nullptr, 10), text);
    };
    for (const combatant::ItemInstance& inst : state_.ground) visit(inst);
    for (const combatant::Combatant& c : state_.roster.combatants) {
      for (const combatant::ItemInstance& inst : c.inventory) visit(inst);
    }
    for (auto& [origin, members] : by_origin) {
      std::sort(members.begin(), members.end());
      for (std::size_t rank = 0; rank < members.size(); ++rank) {
        splits_[members[rank].second] = {origin, static_cast<int>(rank)};
      }
    }
  }
  const auto found = splits_.find(names_.text(uid));
  if (found == splits_.end()) return std::nullopt;
  return found->second;
}

std::optional<int> encode(const ActionLayout& layout, const state::BattleState& state, int slot,
                          const Action& action, SplitItems& splits) {
  const KindBlock& block = layout.blocks[static_cast<std::size_t>(action.kind)];
  // fields the layout does not carry must be absent (ActionCodec._encode)
  if ((action.target && !(block.carried & actions::TARGET)) ||
      (action.square && !(block.carried & actions::SQUARE)) ||
      (action.item && !(block.carried & actions::ITEM))) {
    return std::nullopt;
  }
  const combatant::Square at = state.roster.combatants[static_cast<std::size_t>(slot)].position;
  int index = 0;
  for (const Parameter& parameter : block.parameters) {
    std::optional<int> part;
    switch (parameter.type) {
      case Parameter::Type::target:
        if (action.target) part = lookup(layout.slot_of, raw(*action.target));
        break;
      case Parameter::Type::target_or_none:
        part = action.target ? lookup(layout.slot_of, raw(*action.target))
                             : std::optional<int>(layout.units);
        break;
      case Parameter::Type::adjacent:
        if (action.square) part = king_index(action.square->x - at.x, action.square->y - at.y);
        break;
      case Parameter::Type::dodge:
        part = action.square ? king_index(action.square->x - at.x, action.square->y - at.y)
                             : std::optional<int>(8);
        break;
      case Parameter::Type::window:
        if (action.square) {
          const int dx = action.square->x - at.x, dy = action.square->y - at.y;
          if (std::abs(dx) <= parameter.radius_x && std::abs(dy) <= parameter.radius_y) {
            part = (dy + parameter.radius_y) * (2 * parameter.radius_x + 1) + dx + parameter.radius_x;
          }
        }
        break;
      case Parameter::Type::spell:
        if (action.item) part = lookup(layout.spell_index[static_cast<std::size_t>(slot)], raw(*action.item));
        break;
      case Parameter::Type::item:
        if (action.item) {
          const auto category = static_cast<std::size_t>(parameter.category);
          part = lookup(layout.item_index[category][static_cast<std::size_t>(slot)], raw(*action.item));
          if (!part) {
            const auto split = splits.of(*action.item);
            if (split) part = lookup(layout.overflow_index[category], *split);
          }
        }
        break;
    }
    if (!part) return std::nullopt;
    index = index * parameter.size + *part;
  }
  return block.offset + index;
}

void write_mask(const ActionLayout& layout, const state::BattleState& state,
                const actions::NameTable& names, const std::vector<Action>& legal,
                std::int8_t* mask, std::vector<std::int32_t>& position,
                std::vector<std::int32_t>& touched) {
  for (const std::int32_t index : touched) {
    mask[index] = 0;
    position[static_cast<std::size_t>(index)] = -1;
  }
  touched.clear();
  if (!state.decision || state.is_over) {
    mask[0] = 1;
    touched.push_back(0);
    return;
  }
  const int slot = state.decision->actor;
  SplitItems splits(layout, state, names);
  for (std::size_t i = 0; i < legal.size(); ++i) {
    const std::optional<int> index = encode(layout, state, slot, legal[i], splits);
    const std::string& actor = state.roster.ids.name(slot);
    if (!index) {
      throw EncodingFailure("legal action " + describe(legal[i], names) + " of " + actor +
                            " has no index (scenario '" + layout.scenario + "')");
    }
    if (position[static_cast<std::size_t>(*index)] >= 0) {
      throw EncodingFailure("legal action " + describe(legal[i], names) + " of " + actor +
                            " shares index " + std::to_string(*index));
    }
    mask[*index] = 1;
    position[static_cast<std::size_t>(*index)] = static_cast<std::int32_t>(i);
    touched.push_back(*index);
  }
}

}  // namespace fray::env
