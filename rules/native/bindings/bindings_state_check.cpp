// The native engine never trusts Python (issue 46): a BattleState built from outside
// (bindings_battle.cpp's build, after rules.save_validation has checked a save) is
// checked again here for everything the engine indexes with or computes on, so a bad
// value is a Python ValueError at the binding and never an out-of-bounds read, an
// overflow or a crash later: every combatant id a frame, the decision, the initiative
// order or a link names is a combatant of the roster; item uids are unique; success
// levels, fatigue levels and diagonal parity are in their enums; a move frame's index is
// within its path; stats, counts and hit and power points are within +-kMaxStat (so the
// 32-bit arithmetic of chances and skills cannot overflow); round and turn in range.
// The rules' own invariants (hp at most max, counts >= 1, one body per square, ...) are
// rules.save_validation's: tests build such states through the mirror on purpose, and
// the engine computes on them safely.
#include <set>
#include <string>
#include <type_traits>
#include <variant>

#include "bindings_battle.hpp"
#include "roller.hpp"

namespace fray::bindings {

namespace {

[[noreturn]] void refuse(const std::string& where, const std::string& expected, long long found) {
  throw nb::value_error(("native battle state: " + where + ": expected " + expected + ", got " +
                         std::to_string(found)).c_str());
}

void within(long long value, long long low, long long high, const std::string& where) {
  if (value < low || value > high) {
    refuse(where, "a value in " + std::to_string(low) + ".." + std::to_string(high), value);
  }
}

struct Checker {
  const state::BattleState& state;
  std::size_t combatants() const { return state.roster.combatants.size(); }

  void combatant_id(int id, const std::string& where, bool optional = false) const {
    if (optional && id == content::kNone) return;
    if (id < 0 || static_cast<std::size_t>(id) >= combatants()) {
      refuse(where, "a combatant of the battle", id);
    }
  }
  void ids(const std::vector<int>& list, const std::string& where) const {
    for (int id : list) combatant_id(id, where);
  }
  static void level(const std::optional<int>& value, const std::string& where) {
    if (value) within(*value, 0, static_cast<int>(roller::Level::CRITICAL), where);
  }

  void operator()(const frames::MoveFrame& frame) const {
    combatant_id(frame.actor, "move frame: actor");
    if (frame.path.empty()) refuse("move frame: path", "at least one square", 0);
    const auto last = static_cast<long long>(frame.path.size()) - 1;
    within(frame.index, 0, last, "move frame: index");
    within(frame.checked, -1, last, "move frame: checked");
    within(frame.parity, 0, 1, "move frame: parity");
    ids(frame.provoked, "move frame: provoked");
    ids(frame.offers, "move frame: offers");
    combatant_id(frame.mount, "move frame: mount", true);
  }
  void operator()(const frames::ActFrame& frame) const {
    combatant_id(frame.actor, "act frame: actor");
    ids(frame.offers, "act frame: offers");
  }
  void operator()(const frames::RideFrame& frame) const {
    combatant_id(frame.actor, "ride frame: actor");
    ids(frame.offers, "ride frame: offers");
  }
  void operator()(const frames::OfferFrame& frame) const {
    combatant_id(frame.enemy, "offer frame: enemy");
    combatant_id(frame.actor, "offer frame: actor");
  }
  void operator()(const frames::AttackFrame& frame) const {
    combatant_id(frame.attacker, "attack frame: attacker");
    combatant_id(frame.target, "attack frame: target");
    within(frame.points, -kMaxStat, kMaxStat, "attack frame: points");
    level(frame.level, "attack frame: level");
    level(frame.parry_level, "attack frame: parry_level");
    level(frame.dodge_level, "attack frame: dodge_level");
  }

  void item(const combatant::ItemInstance& inst, std::set<int>& uids) const {
    if (!uids.insert(inst.uid).second) {
      refuse("item uid", "an item uid used once", inst.uid);
    }
    within(inst.count, 0, kMaxStat, "item count");
    if (inst.ap) within(*inst.ap, 0, kMaxStat, "item ap");
  }

  void combatant(const combatant::Combatant& c, std::set<int>& uids) const {
    for (int value : c.characteristics) {
      if (value != combatant::kAbsent) within(value, 0, kMaxStat, "characteristic");
    }
    for (int value : c.base_skills) {
      if (value != combatant::kAbsent) within(value, 0, kMaxStat, "base skill");
    }
    within(c.max_hp, 0, kMaxStat, "max_hp");
    within(c.hp, -kMaxStat, kMaxStat, "hp");
    within(c.max_power_points, 0, kMaxStat, "max_power_points");
    within(c.power_points, -kMaxStat, kMaxStat, "power_points");
    within(c.fatigue_level, 0, 2, "fatigue_level");
    within(c.diagonal_parity, 0, 1, "diagonal_parity");
    within(c.parries_used, 0, kMaxStat, "parries_used");
    within(c.extra_parries, 0, kMaxStat, "extra_parries");
    within(c.initiative, -kMaxStat, kMaxStat, "initiative");
    for (const combatant::Buff& buff : c.buffs) {
      within(buff.points, -kMaxStat, kMaxStat, "buff points");
      within(buff.last_round, 0, kMaxRounds, "buff round");
    }
    combatant_id(c.grappled_by, "grappled_by", true);
    combatant_id(c.riding, "riding", true);
    combatant_id(c.ridden_by, "ridden_by", true);
    if (c.casting) combatant_id(c.casting->target, "casting target", true);
    for (const combatant::ItemInstance& inst : c.inventory) item(inst, uids);
  }

  void all() const {
    std::set<int> uids;
    for (const combatant::Combatant& c : state.roster.combatants) combatant(c, uids);
    for (const combatant::ItemInstance& inst : state.ground) item(inst, uids);
    within(state.round, 1, kMaxRounds, "round");
    ids(state.initiative_order, "initiative_order");
    if (std::set<int>(state.initiative_order.begin(), state.initiative_order.end()).size() !=
        state.initiative_order.size()) {
      refuse("initiative_order", "each combatant once", 0);
    }
    within(state.turn_index, 0, static_cast<long long>(state.initiative_order.size()),
           "turn_index");
    for (const frames::Frame& frame : state.stack) std::visit(*this, frame);
    if (state.decision) {
      combatant_id(state.decision->actor, "decision: actor");
      combatant_id(state.decision->source, "decision: source", true);
    }
    if (!state.dice.forced.empty()) {  // a test hook's faces: 1..the largest die
      for (int face : state.dice.forced) within(face, 1, kMaxDiceSides, "dice: forced");
    }
  }
};

}  // namespace

void check_from_outside(const state::BattleState& state) { Checker{state}.all(); }

}  // namespace fray::bindings
