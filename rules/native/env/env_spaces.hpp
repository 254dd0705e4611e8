// env/spaces.py in C++: the action codec's encoding side (a legal action -> its flat index)
// and the mask, for the native env step. The layout itself (blocks, parameter sizes, item
// and spell slots) is env.spaces.ActionCodec's, built once per scenario in Python and
// handed over as tables (env/native.py); here each legal action is encoded as
// ActionCodec._encode does, and the mask and the index -> action table are filled as
// ActionCodec.legal_by_index fills them, with the same errors for an action without an
// index or two actions on one index (a codec bug).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "actions.hpp"
#include "state.hpp"

namespace fray::env {

// A legal action without an index or two sharing one (env.spaces.EncodingError).
class EncodingFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One parameter of a block (env.spaces.LAYOUT's names).
struct Parameter {
  enum class Type : std::uint8_t { target, target_or_none, adjacent, dodge, window, spell, item };
  Type type = Type::target;
  int size = 0;
  int radius_x = 0, radius_y = 0;  // window: the clipped radii (ActionCodec._radii)
  int category = 0;                // item: index into ITEM_CATEGORIES
};

struct KindBlock {
  int offset = 0;
  std::vector<Parameter> parameters;
  std::uint8_t carried = 0;  // actions::FieldBit of the fields the parameters carry
};

// ActionCodec's tables in the records' Names (see env/native.py layout_tables).
struct ActionLayout {
  int n = 0;
  int units = 0;
  std::array<KindBlock, actions::ACTION_KIND_COUNT> blocks{};
  std::unordered_map<std::int32_t, int> slot_of;  // a combatant id's Name -> slot
  // per slot: a spell's Name -> its index in the actor's own list
  std::vector<std::unordered_map<std::int32_t, int>> spell_index;
  // per item category, per slot: an item uid's Name -> slot in that category
  std::vector<std::vector<std::unordered_map<std::int32_t, int>>> item_index;
  // per item category: (origin uid, rank among its splits) -> slot
  std::vector<std::map<std::pair<std::string, int>, int>> overflow_index;
  std::unordered_map<std::string, int> split_capacity;  // origin uid -> splits it allows
  std::unordered_set<std::string> known_uids;  // every uid of the battle's start
  std::string scenario;                 // for messages
  const actions::NameTable* names = nullptr;  // the table the Names above are in
};

// The per-call context: the battle's split-off items, found once when first needed.
class SplitItems {
 public:
  explicit SplitItems(const ActionLayout& layout, const state::BattleState& state,
                      const actions::NameTable& names)
      : layout_(layout), state_(state), names_(names) {}
  // (origin uid, rank) of a split-off uid, or nullopt (ActionCodec.split_items).
  std::optional<std::pair<std::string, int>> of(actions::Name uid);

 private:
  const ActionLayout& layout_;
  const state::BattleState& state_;
  const actions::NameTable& names_;
  bool found_ = false;
  std::unordered_map<std::string, std::pair<std::string, int>> splits_;
};

// ActionCodec._encode: the index of `action` for the combatant in `slot`, or nullopt.
std::optional<int> encode(const ActionLayout& layout, const state::BattleState& state, int slot,
                          const actions::Action& action, SplitItems& splits);

// ActionCodec.legal_by_index: the mask (int8, layout.n) set exactly at the legal actions'
// indices and `position[index]` = the action's place in `legal` (-1 elsewhere; the caller
// keeps `position` at -1 between calls: `touched` lists what was set). When the battle is
// over (no decision): only index 0 is set, as the env's terminal mask. EncodingFailure
// as the codec raises EncodingError.
void write_mask(const ActionLayout& layout, const state::BattleState& state,
                const actions::NameTable& names, const std::vector<actions::Action>& legal,
                std::int8_t* mask, std::vector<std::int32_t>& position,
                std::vector<std::int32_t>& touched);

}  // namespace fray::env
