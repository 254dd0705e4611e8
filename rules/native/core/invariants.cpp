// The rules' cheap run-time invariants: see invariants.hpp.
#include "invariants.hpp"

#include <map>
#include <set>
#include <utility>

namespace fray::invariants {

namespace {

using combatant::Combatant;
using combatant::Square;
using content::kNone;

std::string square_text(const Square& square) {
  return "(" + std::to_string(square.x) + ", " + std::to_string(square.y) + ")";
}

}  // namespace

void check_bodies(const state::BattleState& state, int finished) {
  const combatant::Roster& roster = state.roster;
  std::set<int> passing;
  for (const frames::Frame& frame : state.stack) {
    const auto* move = std::get_if<frames::MoveFrame>(&frame);
    if (move == nullptr || move->actor == finished) continue;
    passing.insert(move->actor);
    const int riding = roster.combatants.at(static_cast<std::size_t>(move->actor)).riding;
    if (riding != kNone) passing.insert(riding);
    if (move->mount != kNone) passing.insert(move->mount);
  }
  std::map<std::pair<int, int>, int> held;
  for (const Combatant& who : roster.combatants) {
    if (!who.in_action() || passing.contains(who.id)) continue;
    if (who.riding != kNone) {  // a rider on its mount in action counts as one body
      const Combatant& mount = roster.combatants.at(static_cast<std::size_t>(who.riding));
      if (mount.in_action() && mount.position == who.position) continue;
    }
    const auto [other, added] = held.emplace(std::pair(who.position.x, who.position.y), who.id);
    if (!added) {
      throw Broken("one-body-per-square", roster.ids.name(who.id) + " and " +
                                              roster.ids.name(other->second) + " both stand on " +
                                              square_text(who.position) + " (H13, H22)");
    }
  }
}

void check_moved(const state::BattleState& state, int actor, const Square& last) {
  const Combatant& who = state.roster.combatants.at(static_cast<std::size_t>(actor));
  if (!(who.position == last)) {
    throw Broken("moved-where-it-stands", state.roster.ids.name(actor) + " moved to " +
                                              square_text(last) + " but stands on " +
                                              square_text(who.position));
  }
}

void check_bounds(const state::BattleState& state, int out_of_action_at, int max_rounds) {
  const combatant::Roster& roster = state.roster;
  for (const Combatant& who : roster.combatants) {
    const std::string& id = roster.ids.name(who.id);
    if (who.hp > who.max_hp) {
      throw Broken("hp", id + " has " + std::to_string(who.hp) + " HP of " +
                             std::to_string(who.max_hp));
    }
    if (who.power_points < 0) {
      throw Broken("power-points", id + " has " + std::to_string(who.power_points) +
                                       " power points");
    }
    if (who.in_action()) {
      if (who.hp <= out_of_action_at) {
        throw Broken("hp", id + " is in action at " + std::to_string(who.hp) + " HP (H5)");
      }
    } else if (!(who.prone || who.dead())) {
      throw Broken("out-of-action", id + " is out of action but standing");
    }
    if (who.riding != kNone) {
      const Combatant& mount = roster.combatants.at(static_cast<std::size_t>(who.riding));
      if (mount.ridden_by != who.id || !(mount.position == who.position)) {
        throw Broken("mount", id + " rides " + roster.ids.name(mount.id) + " at " +
                                  square_text(who.position) + " vs " +
                                  square_text(mount.position) + " (H22)");
      }
    }
  }
  if (state.round > max_rounds) {
    throw Broken("round-limit", "round " + std::to_string(state.round) + " past the limit " +
                                    std::to_string(max_rounds) + " (H25)");
  }
}

}  // namespace fray::invariants
