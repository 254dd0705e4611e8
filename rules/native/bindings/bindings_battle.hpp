// The battle state's Python face (bindings_battle.cpp, bindings_frames.cpp;
// rules/bridge/battle_state.py is its Python side): a state.hpp BattleState built from a
// rules.Battle's parts and read back as Battle.to_dict() writes it.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bindings_records.hpp"
#include "combatant.hpp"
#include "frames.hpp"
#include "state.hpp"

namespace fray::bindings {

namespace nb = nanobind;

// ------------------------------------------------------------ checked Python values in
std::string_view text_of(nb::handle value, std::string_view where);
int int_of(nb::handle value, std::string_view where);
bool bool_of(nb::handle value, std::string_view where);
// value[key] of a dict, or a KeyError naming `where`.
nb::handle item_of(nb::handle mapping, const char* key, std::string_view where);
// A square [x, y] or (x, y).
combatant::Square square_of(nb::handle value, std::string_view where);
// numpy's SeedSequence entropy for an integer seed >= 0 (default_rng(seed)): its
// base-2**32 digits, lowest first (0 is {0}); TypeError or ValueError otherwise
// (bindings.cpp).
std::vector<std::uint32_t> seed_words(nb::handle seed);
// The number of a word in a fixed table of words (an enum), or a ValueError.
template <std::size_t N>
int word_of(const std::array<std::string_view, N>& words, nb::handle value,
            std::string_view where) {
  const std::string_view word = text_of(value, where);
  for (std::size_t i = 0; i < N; ++i) {
    if (words[i] == word) return static_cast<int>(i);
  }
  throw nb::value_error(
      (std::string(where) + ": unknown value " + nb::repr(value).c_str()).c_str());
}

// The bounds of rules/limits.py the engine relies on (tests/hostile/test_saves.py checks
// that they equal MAX_STAT, MAX_ROUNDS and MAX_DICE_SIDES there).
inline constexpr int kMaxStat = 10'000;
inline constexpr int kMaxRounds = 10'000;
inline constexpr int kMaxDiceSides = 10'000;
// A ValueError unless a state built from outside holds only what the engine may index
// with and compute on (bindings_state_check.cpp).
void check_from_outside(const state::BattleState& state);

// ------------------------------------------------------------ Python values out
nb::str str_of(std::string_view text);
// A name of `names`, or None for kNone.
nb::object optional_name(const content::Names& names, int id);
// A square as the JSON list [x, y].
nb::list square_list(const combatant::Square& square);

// ------------------------------------------------------------ frames (bindings_frames.cpp)
// rules.frames.frame_to_dict(frame), from the record.
nb::dict frame_dict(const frames::Frame& frame, const combatant::Roster& roster,
                    records::Records& records);
// The frame frame_to_dict wrote (names interned in the roster and the records).
frames::Frame frame_from(nb::handle data, combatant::Roster& roster, records::Records& records);
// Action.to_dict() and Action.from_dict() on a record.
nb::dict action_dict(const actions::Action& action, records::Records& records);
actions::Action action_from_dict(nb::handle data, records::Records& records);

// A battle's state as Python holds it: the records whose name table the events use, the
// parts of Battle.to_dict() that never change (version, scenario, content_dir, seed), and
// the state itself. A clone shares the first two.
struct NativeBattle {  // rules._native.BattleState
  nb::object records_object;
  records::Records* records = nullptr;
  nb::object header;  // {"version", "scenario": {"text", "source"}, "content_dir", "seed"}
  state::BattleState state;

  records::Records& names() const {
    if (records == nullptr) throw nb::value_error("BattleState: cleared");
    return *records;
  }
  int traverse(visitproc visit, void* arg) const {
    Py_VISIT(records_object.ptr());
    Py_VISIT(header.ptr());
    return 0;
  }
  void clear_references() {
    state.names = nullptr;
    state.events.clear();
    records = nullptr;
    records_object = nb::object();
    header = nb::object();
  }
};

// Adds BattleState and FRAME_TABLES to the module.
void bind_battle(nb::module_& module);

}  // namespace fray::bindings
