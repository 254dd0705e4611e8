// rules/state.py and rules/roller.py in C++: the battle state's few behaviours.
#include "state.hpp"

namespace fray::state {

std::optional<int> Roller::die(int sides) {
  if (forced_next < forced.size()) {
    const int face = forced[forced_next++];
    if (forced_next == forced.size()) {
      forced.clear();
      forced_next = 0;
    }
    if (face < 1 || face > sides) return std::nullopt;
    return face;
  }
  return generator.die(sides);
}

int BattleState::current_actor() const {
  if (turn_index >= 0 && static_cast<std::size_t>(turn_index) < initiative_order.size()) {
    return initiative_order[static_cast<std::size_t>(turn_index)];
  }
  return kNone;
}

std::optional<bool> BattleState::door_open(Square square) const {
  for (const Door& door : doors) {
    if (door.square == square) return door.open;
  }
  return std::nullopt;
}

bool BattleState::set_door(Square square, bool open) {
  for (Door& door : doors) {
    if (door.square == square) {
      door.open = open;
      return true;
    }
  }
  return false;
}

}  // namespace fray::state
