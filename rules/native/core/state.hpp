// rules/state.py in C++: the battle state every rule module will change (S1, S2, H25):
// the combatants (a Roster, in scenario order), the items on the ground, the stack of
// frames (frames.hpp), the dice (the Roller: numpy's PCG64 and the forced faces), round,
// turn index, initiative order, the event log, the result, the door states of the map
// and the pending decision.
//
// Plain data read in place (observation and mask code reads the fields directly);
// copying is the clone: the event log shares its full chunks, the content tables are
// shared by pointer (Roster::content), everything else is copied.
//
// Combatants, teams and item uids are the Roster's numbers (combatant.hpp); events hold
// the Names of the records' NameTable (events.hpp), which `names` points to (the table
// outlives every state that uses it; the bindings keep its owner alive).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "actions.hpp"
#include "combatant.hpp"
#include "dice.hpp"
#include "events.hpp"
#include "frames.hpp"

namespace fray::state {

using combatant::Square;
using content::kNone;

// rules/roller.py's Roller: the bit generator and the queue of forced faces (a test
// hook: the next rolls return them, first first, instead of random faces).
struct Roller {
  dice::Pcg64 generator{dice::Pcg64State{}};
  std::vector<int> forced;
  std::size_t forced_next = 0;  // forced[forced_next:] are still queued

  // Roller.die: the next forced face, else a random one. A forced face that does not fit
  // the die is the caller's error to raise (nullopt).
  std::optional<int> die(int sides);
  // The faces still queued (Roller.forced).
  std::vector<int> queued() const {
    return {forced.begin() + static_cast<std::ptrdiff_t>(forced_next), forced.end()};
  }
};

// One door of the map and whether it is open (OPEN_DOOR, CLOSE_DOOR).
struct Door {
  Square square;
  bool open = false;
};

// Who decides what now (rules.actions.Decision, in Roster numbers): `source` is the
// combatant whose action or attack caused a reaction (kNone for TURN).
struct PendingDecision {
  actions::DecisionKind kind = actions::DecisionKind::TURN;
  int actor = kNone;
  int source = kNone;
};

struct BattleState {
  combatant::Roster roster;                 // combatants by id, in scenario order
  std::vector<combatant::ItemInstance> ground;  // items lying on the map (square set)
  std::vector<frames::Frame> stack;         // work in progress, top last
  Roller dice;
  int round = 0;
  int turn_index = 0;                       // index of the turn owner in initiative_order
  std::vector<int> initiative_order;        // Roster::ids in turn order (S1)
  events::EventLog events;
  const actions::NameTable* names = nullptr;  // the events' names
  bool is_over = false;
  int winner = kNone;                       // Roster::teams; kNone: a draw or not over
  bool end_turn_requested = false;
  std::vector<Door> doors;                  // every door of the map, by square
  std::optional<PendingDecision> decision;  // none once the battle is over

  // The owner of the current turn (Roster::ids), kNone past the end of the order.
  int current_actor() const;
  // Whether the door at `square` is open; nullopt when no door is there.
  std::optional<bool> door_open(Square square) const;
  // Open or close the door at `square`; false when no door is there.
  bool set_door(Square square, bool open);
  // An independent copy that continues exactly as this state would (BattleState.copy).
  BattleState copy() const { return *this; }
};

}  // namespace fray::state
