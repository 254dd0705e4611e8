// rules/legal.py in C++: the legal actions of a TURN decision (S2, S7, S12-S17, H12-H25),
// one generator per group of rules.actions.ACTION_SPECS, run in the table's order
// (legal.TURN_GROUPS), each listing its actions in the Python generator's own order, so
// that turn_actions() equals rules.legal.turn_actions action for action
// (tests/native/test_legal_differential.py checks it).
//
// The generators read the native BattleState (state.hpp) and answer queries over a
// QueryState of it and the map as its doors stand (grid.hpp); moves come from the reach
// search (reach.hpp) over that map. Actions are records (actions.hpp) whose names are
// interned in the records' NameTable. Nothing here knows Python.
#pragma once

#include <utility>
#include <vector>

#include "actions.hpp"
#include "grid.hpp"
#include "reach.hpp"
#include "state.hpp"

namespace fray::legal {

// The map a battle's legal actions are listed on: the Grid as its doors stand and the
// reach search over it with the ruleset's movement costs (S17, S18, H13).
struct LegalMap {
  grid::Grid grid;
  reach::ReachGraph graph;
  LegalMap(grid::Grid map, reach::Costs costs) : grid(std::move(map)), graph(grid.table(), costs) {}
};

// Roster numbers and content ids as the records' Names, each interned once per listing.
class Namer {
 public:
  Namer(actions::NameTable& table, const combatant::Roster& roster) : table_(table), roster_(roster) {}
  actions::Name id(int number) { return get(ids_, roster_.ids, number); }
  actions::Name uid(int number) { return get(uids_, roster_.uids, number); }
  actions::Name spell(int number) { return get(spells_, roster_.content->spell_names, number); }

 private:
  actions::Name get(std::vector<int>& cache, const content::Names& names, int number) {
    const auto index = static_cast<std::size_t>(number);
    if (cache.size() <= index) cache.resize(index + 1, -1);
    if (cache[index] < 0) cache[index] = static_cast<int>(table_.intern(names.name(number)));
    return actions::Name{cache[index]};
  }
  actions::NameTable& table_;
  const combatant::Roster& roster_;
  std::vector<int> ids_, uids_, spells_;
};


// A TURN decision's legal actions for `actor` (a Roster number): each generator group of
// ACTION_SPECS in the table's order. Names new to `names` are interned. Without `moves`
// the walk group (MOVE, FULL_MOVE, DISENGAGE: the reach search) is left out, every other
// action listed as it would be (agents::decide, for agents that answer many turns
// without looking at the moves).
std::vector<actions::Action> turn_actions(const state::BattleState& state, const LegalMap& map,
                                          int actor, actions::NameTable& names,
                                          bool moves = true);

// turn_actions(state, map, actor, names) from `listed`, the same state's listing with
// moves = false: the walk group's actions inserted where the whole listing has them (no
// group reads another's actions, and walk's actions name nobody, so the rest is the same
// list).
void insert_moves(const state::BattleState& state, const LegalMap& map, int actor,
                  actions::NameTable& names, std::vector<actions::Action>& listed);

// An empty action list with room for a turn's listing: a list recycle() gave back on this
// thread when there is one (a listing's list is some 5 KB, beyond the allocator's small
// caches, and every decision of the engine's agents and envs makes one).
std::vector<actions::Action> empty_list();
// Keeps `list`'s storage for empty_list (a few lists per thread; the rest are freed).
void recycle(std::vector<actions::Action>&& list);

// rules.legal.actions_for: the pending decision's legal actions (a TURN's, else the top
// frame's: reactions.hpp). std::logic_error when nothing waits for a decision there.
std::vector<actions::Action> actions_for(const state::BattleState& state, const LegalMap& map,
                                         actions::NameTable& names);

}  // namespace fray::legal
