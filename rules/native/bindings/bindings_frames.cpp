// The frames' Python face (frames.hpp <-> rules.frames.frame_to_dict's shape): every
// field under its Python name, in the dataclass's order, after "type"; Actions as
// Action.to_dict() writes them, paths as lists of [x, y], lists copied.
#include <string>
#include <type_traits>
#include <variant>

#include "bindings_battle.hpp"

namespace fray::bindings {

namespace {

using actions::Name;
using combatant::Roster;
using content::kNone;

nb::object name_or_none(const std::optional<Name>& name, records::Records& records) {
  return name ? records.name_object(*name) : nb::none();
}

std::optional<Name> optional_record_name(nb::handle value, records::Records& records,
                                         const char* where) {
  if (value.is_none()) return std::nullopt;
  return records.intern(value, where);
}

nb::object optional_int(const std::optional<int>& value) {
  return value ? nb::object(nb::int_(*value)) : nb::none();
}

std::optional<int> optional_int_of(nb::handle value, std::string_view where) {
  if (value.is_none()) return std::nullopt;
  return int_of(value, where);
}

nb::list id_list(const Roster& roster, const std::vector<int>& ids) {
  nb::list out;
  for (int id : ids) out.append(str_of(roster.ids.name(id)));
  return out;
}

std::vector<int> id_list_of(nb::handle value, Roster& roster, std::string_view where) {
  std::vector<int> out;
  for (nb::handle id : value) out.push_back(roster.ids.intern(text_of(id, where)));
  return out;
}

int id_of(nb::handle value, Roster& roster, std::string_view where) {
  return roster.ids.intern(text_of(value, where));
}

int optional_in(nb::handle value, content::Names& names, std::string_view where) {
  return value.is_none() ? kNone : names.intern(text_of(value, where));
}

// A content id that must already be in the compiled table.
int known_in(nb::handle value, const content::Names& names, std::string_view where) {
  if (value.is_none()) return kNone;
  const int id = names.find(text_of(value, where));
  if (id == kNone) {
    throw nb::value_error((std::string(where) + ": " + nb::repr(value).c_str() +
                           " is not in the content").c_str());
  }
  return id;
}

template <std::size_t N>
nb::str word(const std::array<std::string_view, N>& words, auto value) {
  return str_of(words[static_cast<std::size_t>(value)]);
}

// ------------------------------------------------------------ records -> dicts

void fill(nb::dict& out, const frames::MoveFrame& frame, const Roster& roster, records::Records&) {
  out["actor"] = str_of(roster.ids.name(frame.actor));
  out["kind"] = word(actions::ACTION_KIND_VALUES, frame.kind);
  nb::list path;
  for (const combatant::Square& square : frame.path) path.append(square_list(square));
  out["path"] = path;
  out["index"] = frame.index;
  out["checked"] = frame.checked;
  out["parity"] = frame.parity;
  out["provokes"] = frame.provokes;
  out["provoked"] = id_list(roster, frame.provoked);
  out["offers"] = id_list(roster, frame.offers);
  out["mount"] = optional_name(roster.ids, frame.mount);
}

void fill(nb::dict& out, const frames::ActFrame& frame, const Roster& roster,
          records::Records& records) {
  out["actor"] = str_of(roster.ids.name(frame.actor));
  out["action"] = action_dict(frame.action, records);
  out["phase"] = word(frames::kActPhaseNames, frame.phase);
  out["offers"] = id_list(roster, frame.offers);
}

void fill(nb::dict& out, const frames::RideFrame& frame, const Roster& roster,
          records::Records& records) {
  out["actor"] = str_of(roster.ids.name(frame.actor));
  out["action"] = action_dict(frame.action, records);
  out["phase"] = word(frames::kRidePhaseNames, frame.phase);
  out["offers"] = id_list(roster, frame.offers);
  out["incomplete"] = frame.incomplete;
}

void fill(nb::dict& out, const frames::OfferFrame& frame, const Roster& roster, records::Records&) {
  out["enemy"] = str_of(roster.ids.name(frame.enemy));
  out["actor"] = str_of(roster.ids.name(frame.actor));
}

void fill(nb::dict& out, const frames::AttackFrame& frame, const Roster& roster,
          records::Records&) {
  const content::Content& tables = *roster.content;
  out["attacker"] = str_of(roster.ids.name(frame.attacker));
  out["target"] = str_of(roster.ids.name(frame.target));
  out["weapon"] = optional_name(roster.uids, frame.weapon);
  out["weapon_id"] = optional_name(tables.equipment_names, frame.weapon_id);
  out["mode"] = word(frames::kAttackModeNames, frame.mode);
  out["points"] = frame.points;
  out["stage"] = word(frames::kAttackStageNames, frame.stage);
  out["missile"] = frame.missile;
  out["skill"] = optional_name(tables.skill_names, frame.skill);
  out["level"] = optional_int(frame.level);
  out["parry_level"] = optional_int(frame.parry_level);
  out["parry_item"] = optional_name(roster.uids, frame.parry_item);
  out["dodge_level"] = optional_int(frame.dodge_level);
}

// ------------------------------------------------------------ dicts -> records

frames::MoveFrame move_from(nb::handle data, Roster& roster) {
  frames::MoveFrame frame;
  frame.actor = id_of(item_of(data, "actor", "move frame"), roster, "move frame: actor");
  frame.kind = static_cast<actions::ActionKind>(
      word_of(actions::ACTION_KIND_VALUES, item_of(data, "kind", "move frame"),
              "move frame: kind"));
  for (nb::handle square : item_of(data, "path", "move frame")) {
    frame.path.push_back(square_of(square, "move frame: path"));
  }
  frame.index = int_of(item_of(data, "index", "move frame"), "move frame: index");
  frame.checked = int_of(item_of(data, "checked", "move frame"), "move frame: checked");
  frame.parity = int_of(item_of(data, "parity", "move frame"), "move frame: parity");
  frame.provokes = bool_of(item_of(data, "provokes", "move frame"), "move frame: provokes");
  frame.provoked =
      id_list_of(item_of(data, "provoked", "move frame"), roster, "move frame: provoked");
  frame.offers = id_list_of(item_of(data, "offers", "move frame"), roster, "move frame: offers");
  frame.mount = optional_in(item_of(data, "mount", "move frame"), roster.ids, "move frame: mount");
  return frame;
}

frames::ActFrame act_from(nb::handle data, Roster& roster, records::Records& records) {
  frames::ActFrame frame;
  frame.actor = id_of(item_of(data, "actor", "act frame"), roster, "act frame: actor");
  frame.action = action_from_dict(item_of(data, "action", "act frame"), records);
  frame.phase = static_cast<frames::ActPhase>(
      word_of(frames::kActPhaseNames, item_of(data, "phase", "act frame"), "act frame: phase"));
  frame.offers = id_list_of(item_of(data, "offers", "act frame"), roster, "act frame: offers");
  return frame;
}

frames::RideFrame ride_from(nb::handle data, Roster& roster, records::Records& records) {
  frames::RideFrame frame;
  frame.actor = id_of(item_of(data, "actor", "ride frame"), roster, "ride frame: actor");
  frame.action = action_from_dict(item_of(data, "action", "ride frame"), records);
  frame.phase = static_cast<frames::RidePhase>(
      word_of(frames::kRidePhaseNames, item_of(data, "phase", "ride frame"), "ride frame: phase"));
  frame.offers = id_list_of(item_of(data, "offers", "ride frame"), roster, "ride frame: offers");
  frame.incomplete = bool_of(item_of(data, "incomplete", "ride frame"), "ride frame: incomplete");
  return frame;
}

frames::OfferFrame offer_from(nb::handle data, Roster& roster) {
  frames::OfferFrame frame;
  frame.enemy = id_of(item_of(data, "enemy", "offer frame"), roster, "offer frame: enemy");
  frame.actor = id_of(item_of(data, "actor", "offer frame"), roster, "offer frame: actor");
  return frame;
}

frames::AttackFrame attack_from(nb::handle data, Roster& roster) {
  const content::Content& tables = *roster.content;
  const auto field = [&data](const char* key) { return item_of(data, key, "attack frame"); };
  frames::AttackFrame frame;
  frame.attacker = id_of(field("attacker"), roster, "attack frame: attacker");
  frame.target = id_of(field("target"), roster, "attack frame: target");
  frame.weapon = optional_in(field("weapon"), roster.uids, "attack frame: weapon");
  frame.weapon_id = known_in(field("weapon_id"), tables.equipment_names, "attack frame: weapon_id");
  frame.mode = static_cast<frames::AttackMode>(
      word_of(frames::kAttackModeNames, field("mode"), "attack frame: mode"));
  frame.points = int_of(field("points"), "attack frame: points");
  frame.stage = static_cast<frames::AttackStage>(
      word_of(frames::kAttackStageNames, field("stage"), "attack frame: stage"));
  frame.missile = bool_of(field("missile"), "attack frame: missile");
  frame.skill = known_in(field("skill"), tables.skill_names, "attack frame: skill");
  frame.level = optional_int_of(field("level"), "attack frame: level");
  frame.parry_level = optional_int_of(field("parry_level"), "attack frame: parry_level");
  frame.parry_item = optional_in(field("parry_item"), roster.uids, "attack frame: parry_item");
  frame.dodge_level = optional_int_of(field("dodge_level"), "attack frame: dodge_level");
  return frame;
}

// The number of fields each frame type has (its dict holds them and "type").
constexpr std::array<std::size_t, frames::FRAME_TYPE_COUNT> kFieldCounts = {10, 4, 5, 2, 13};

}  // namespace

nb::dict action_dict(const actions::Action& action, records::Records& records) {
  nb::dict out;
  out["kind"] = str_of(actions::ACTION_KIND_VALUES[static_cast<std::size_t>(action.kind)]);
  out["target"] = name_or_none(action.target, records);
  out["square"] = action.square ? nb::object(records::square_to(*action.square, true)) : nb::none();
  out["item"] = name_or_none(action.item, records);
  return out;
}

actions::Action action_from_dict(nb::handle data, records::Records& records) {
  actions::Action action;
  action.kind = static_cast<actions::ActionKind>(
      word_of(actions::ACTION_KIND_VALUES, item_of(data, "kind", "action"), "action: kind"));
  action.target =
      optional_record_name(item_of(data, "target", "action"), records, "action: target");
  nb::handle square = item_of(data, "square", "action");
  if (!square.is_none()) {
    const combatant::Square at = square_of(square, "action: square");
    action.square = actions::Square{at.x, at.y};
  }
  action.item = optional_record_name(item_of(data, "item", "action"), records, "action: item");
  return action;
}

nb::dict frame_dict(const frames::Frame& frame, const Roster& roster, records::Records& records) {
  nb::dict out;
  out["type"] = str_of(frames::frame_type_name(frame.index()));
  std::visit([&](const auto& record) { fill(out, record, roster, records); }, frame);
  return out;
}

frames::Frame frame_from(nb::handle data, Roster& roster, records::Records& records) {
  if (!PyDict_Check(data.ptr())) {
    throw nb::type_error(
        (std::string("frame: expected a dict, got ") + nb::repr(data).c_str()).c_str());
  }
  const std::string_view type = text_of(item_of(data, "type", "frame"), "frame: type");
  const std::optional<std::size_t> index = frames::frame_type_index(type);
  if (!index) {
    throw nb::value_error(("unknown frame type '" + std::string(type) +
                           "'; expected one of act, attack, move, offer, ride").c_str());
  }
  if (nb::len(data) != kFieldCounts[*index] + 1) {
    throw nb::value_error(("a " + std::string(type) + " frame has " +
                           std::to_string(kFieldCounts[*index]) + " fields and its type, got " +
                           nb::repr(data).c_str()).c_str());
  }
  switch (*index) {
    case 0: return move_from(data, roster);
    case 1: return act_from(data, roster, records);
    case 2: return ride_from(data, roster, records);
    case 3: return offer_from(data, roster);
    default: return attack_from(data, roster);
  }
}

}  // namespace fray::bindings
