// rules/queries.py: the read-only questions the rules ask of a battle (who threatens whom,
// who may react, what is lit, where a combatant may go), over a QueryState: the battle's
// combatants (a Roster), its map with the doors as they stand, the items on the ground,
// the initiative order and the round. The native battle state owns those and hands out a
// QueryState; nothing here changes them or knows Python.
//
// Combatants are their numbers in the Roster (scenario order, which is the order of the
// Python state.combatants dict); lists come out in the order Python's do. routes() is
// reach.hpp's search (rules/bridge/reach.py feeds it route_tables()).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "combatant.hpp"
#include "content.hpp"
#include "grid.hpp"

namespace fray::queries {

using combatant::Combatant;
using combatant::ItemInstance;
using combatant::Roster;
using grid::Grid;
using grid::Square;

// S6/S15/H19: the skill of unarmed fighting (queries.UNARMED_SKILL; content.hpp).
using content::kUnarmedSkill;

// A battle as the queries read it.
struct QueryState {
  const Roster& roster;                        // combatants in scenario order
  const Grid& grid;                            // the map, doors as they stand
  const std::vector<ItemInstance>& ground;     // items on the ground (H21)
  const std::vector<int>& initiative_order;    // combatant numbers (S1)
  int round = 0;

  const Combatant& combatant(int number) const {
    return roster.combatants.at(static_cast<std::size_t>(number));
  }
  const content::Ruleset& ruleset() const { return roster.content->ruleset; }
};

// occupied(): squares nobody may end a move on, each with its holder, in the order of
// Python's dict (a square's first holder placed it; an in-action holder wins the entry).
struct Occupancy {
  std::vector<std::pair<Square, int>> held;
  // The holder of `square`, or content::kNone.
  int holder(Square square) const;
  bool contains(Square square) const { return holder(square) != content::kNone; }
};

// mover_of(): the body that moves (a rider's mount, H22) and the combatants moving.
struct Mover {
  int body = content::kNone;
  std::array<int, 2> ids{content::kNone, content::kNone};
  int count = 0;
  std::span<const int> moving() const {
    return {ids.data(), static_cast<std::size_t>(count)};
  }
};

// route_tables(): a move's occupancy and threat zones (H12, H13). blocked and no_end are
// sets (Python's frozensets), here sorted by (y, x) without repeats; threats are
// (square, enemy number) pairs, sorted the same way then by number.
struct RouteTables {
  std::vector<Square> blocked;
  std::vector<Square> no_end;
  bool provoking = false;  // threats asked for (Python's threats is None otherwise)
  std::vector<std::pair<Square, int>> threats;
};

// S6/S15: an unarmed natural weapon (a fist); bites, claws and hooves are not.
bool is_unarmed(const content::Content& tables, const content::Weapon& weapon);

// H16/S18: squares between `start` and `end` walked on open ground (straight steps 1,
// diagonals alternating the ruleset's diagonal costs).
int walk_distance(const QueryState& state, Square start, Square end);

// In-action combatants of other teams, in initiative order.
std::vector<int> enemies(const QueryState& state, int combatant);
// visit(number) for each of enemies(state, combatant), in order, without the list.
template <typename Visit>
void for_each_enemy(const QueryState& state, int combatant, Visit&& visit) {
  const int team = state.combatant(combatant).team;
  for (const int number : state.initiative_order) {
    const combatant::Combatant& other = state.combatant(number);
    if (other.status == combatant::Status::active && other.team != team) visit(number);
  }
}

// H12: the squares `combatant` threatens with reach `reach` (its own when none).
std::vector<Square> threat_squares(const QueryState& state, int combatant,
                                   std::optional<int> reach = std::nullopt);
// H12: whether `combatant` threatens `square` now: it threatens (in action, standing, a
// ready melee weapon) and `square` is among threat_squares(state, combatant), without
// listing them; one pass over its gear (Combatant::threat_reach).
bool threatens_now(const QueryState& state, int combatant, Square square);

// H12: whether a weapon of reach letter `reach_letter` (Content::reach_names) reaches
// `square`.
bool weapon_reaches(const QueryState& state, int combatant, int reach_letter, Square square);

// S5/H12: `enemy` may take a Free Attack at `provoker` now.
bool can_free_attack(const QueryState& state, int enemy, int provoker);

// Enemies that may take a Free Attack at `mover` for an action in `square` (its own when
// none), in initiative order.
std::vector<int> provokers_at(const QueryState& state, int mover,
                              std::optional<Square> square = std::nullopt);

// Squares held by a living combatant not in `exclude` (in action or lying out of it).
Occupancy occupied(const QueryState& state, std::span<const int> exclude = {});
// occupied(state, exclude).holder(square), without building the table (a moving
// combatant asks before each step).
int holder_at(const QueryState& state, Square square, std::span<const int> exclude = {});

// H22: the body that moves for `combatant` and the ids moving.
Mover mover_of(const QueryState& state, int combatant);

// H12/H13: the occupancy and threat zones a move of `combatant` is searched with.
RouteTables route_tables(const QueryState& state, int combatant, bool provoking);

// S17/H22: squares per MOVE (or per FULL move) of the body moving.
int move_budget(const QueryState& state, int combatant, bool full);

// S7/H10: squares one legal king step from `combatant` that nobody holds, in
// KING_STEPS_BY_ROW order (drops left out when `avoid_drops`).
std::vector<Square> free_adjacent(const QueryState& state, int combatant, bool avoid_drops = true);

// H23: lit unless dark and outside every lit torch's radius (carried or on the ground).
bool is_lit(const QueryState& state, Square square);

// H16: none out of range or sight, else the range penalty points (0 or long_range).
std::optional<int> in_range(const QueryState& state, int shooter, int target, int base_range);

// H18: `target` in the spell's range and the caster's sight.
bool spell_target_ok(const QueryState& state, int caster, int target, int spell_range);

// The inventory index of the first carried stack of equipment `ammo` with something left,
// or none (none for ammo kNone).
std::optional<std::size_t> ammo_of(const Combatant& combatant, int ammo);

// H13/S23: `walked` cut back to the last square nobody but `bodies` holds, or walked on to
// the nearest free square when every square of it is held.
std::vector<Square> way_back(const QueryState& state, const std::vector<Square>& walked,
                             std::span<const int> bodies);

}  // namespace fray::queries
