// rules/combatant.py: a combatant's state as plain data, and every derived value of
// S17, S19-S21, H3-H6, H12 computed from it on demand with Python's arithmetic in
// Python's order (floats are doubles in both), so the two engines agree bit for bit.
//
// Strings are interned: content ids (creature, race, armour, item, spell, skill,
// characteristic) into the compiled content's tables (content.hpp); battle ids
// (combatant ids, teams, display names, item uids) into the Roster's. A battle's
// combatants sit in one std::vector in scenario order, and a combatant's number there is
// its id's number in Roster::ids (other combatants it names, e.g. grappled_by, are
// numbers in the same table). Nothing here allocates per query.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "actions.hpp"
#include "content.hpp"

namespace fray::combatant {

using content::Burden;
using content::kNone;

// Hands every combatant has for ready weapons, shields and items (S12, H21).
inline constexpr int kHands = 2;
// A characteristic or base skill the Python dict does not hold.
inline constexpr int kAbsent = INT32_MIN;

enum class ItemState : std::uint8_t { ready, carried, sheathed, hidden, ground };
inline constexpr std::array<std::string_view, 5> kItemStateNames = {
    "ready", "carried", "sheathed", "hidden", "ground"};

enum class Status : std::uint8_t { active, out, dead };  // H5
inline constexpr std::array<std::string_view, 3> kStatusNames = {"active", "out", "dead"};

// S11/H16/H18: what a provoking action waits on ("aim" or "cast"), or none.
enum class Concentration : std::uint8_t { none, aim, cast };
inline constexpr std::array<std::string_view, 3> kConcentrationNames = {"", "aim", "cast"};

// S21: fresh, fatigued, exhausted (FATIGUE_NAMES).
inline constexpr std::array<std::string_view, 3> kFatigueNames = {"fresh", "fatigued",
                                                                  "exhausted"};

struct Square {
  int x = 0;
  int y = 0;
  bool operator==(const Square&) const = default;
};

// One carried or dropped thing (H21); ItemInstance.
struct ItemInstance {
  int uid = kNone;   // Roster::uids
  int item = kNone;  // content equipment id (weapons, armour or items table)
  ItemState state = ItemState::carried;
  int count = 1;
  std::optional<int> ap;  // current AP of a parrying weapon or shield (H9 wear)
  bool lit = false;       // torches (H23)
  bool nocked = false;    // bows and slings (H16)
  bool loaded = false;    // crossbows (H16)
  std::optional<Square> square;  // where it lies, for items on the ground
};

struct Buff {  // (points, last round) of a buff spell (H18)
  int points = 0;
  int last_round = 0;
};

// A multi-round spell in progress (H18): Python's dict {spell, target, done, round}.
struct Casting {
  int spell = kNone;   // content spell id
  int target = kNone;  // Roster::ids, kNone for None
  int done = 0;
  int round = 0;
};

struct Combatant {
  // ------------------------------------------------------------ fields (Python's order)
  int id = kNone;        // Roster::ids; equals the combatant's place in Roster::combatants
  int team = kNone;      // Roster::teams
  int creature = kNone;  // content creature id
  int name = kNone;      // Roster::names (display name)
  int race = kNone;      // content race id
  std::vector<int> characteristics;  // by characteristic id, kAbsent where not held
  std::vector<int> base_skills;      // by skill id, kAbsent where not held
  int armour = kNone;                // row of content armour (body armour), kNone
  Burden armour_training = Burden::none;
  Square position;
  int max_hp = 0;
  int hp = 0;
  int max_power_points = 0;
  int power_points = 0;
  std::vector<int> spells;  // content spell ids
  bool is_mount = false;
  bool snake = false;
  std::vector<ItemInstance> inventory;
  bool prone = false;
  Status status = Status::active;
  int fatigue_level = 0;  // 0 fresh, 1 fatigued, 2 exhausted (S21)
  bool bleeding = false;
  std::vector<Buff> buffs;
  int grappled_by = kNone;  // Roster::ids
  int riding = kNone;
  int ridden_by = kNone;
  std::optional<Casting> casting;
  bool components_ready = false;
  int initiative = 0;
  // per round / per turn bookkeeping (S2, S5, S7, S8, H14, H25)
  std::vector<actions::Category> actions_used;
  bool moved_this_round = false;
  bool shifted_this_round = false;
  int diagonal_parity = 0;
  bool free_attack_used = false;
  int parries_used = 0;
  int extra_parries = 0;
  bool dodge_waived = false;  // S10
  std::vector<actions::ActionKind> free_used;
  Concentration concentration = Concentration::none;
  bool concentration_broken = false;
  const content::Content* content = nullptr;

  // ------------------------------------------------------------ basics
  const content::Content& c() const;
  bool in_action() const { return status == Status::active; }  // H5
  bool dead() const { return status == Status::dead; }
  int characteristic(int characteristic_id) const;

  // ------------------------------------------------------------ H4
  int dex_bonus() const;
  // ------------------------------------------------------------ S19, S20
  double capacity_stones() const;
  double load_stones() const;      // rounded to 9 decimals (Combatant.load_stones)
  double carried_stones() const;   // the same sum unrounded
  Burden burden() const;
  bool untrained_for_burden() const;
  bool encumbered() const;
  int armour_points() const;  // H6
  // ------------------------------------------------------------ S17, S21, H3
  double fatigue_factor() const;
  int mov() const;
  int mov(bool is_encumbered) const;  // mov() with encumbered() already known
  int move_squares() const;
  // Skills by ruleset skill id; kNone stands for a name not in the ruleset (physical,
  // base 0 unless held, never made impossible by gear), as Python treats such a name.
  bool skill_possible(int skill_id) const;
  double skill_multiplier(int skill_id) const;
  int base_skill(int skill_id) const;
  // H3: current_round nullopt counts every buff (Python's None).
  int skill(int skill_id, std::optional<int> current_round = std::nullopt, double factor = 1.0,
            int points = 0) const;
  // The same with encumbered() already known: a caller asking several skills (and MOV) of
  // one combatant in a row sums its load once (the observation's unit features).
  double skill_multiplier(int skill_id, bool is_encumbered) const;
  int skill(int skill_id, std::optional<int> current_round, bool is_encumbered) const;
  int magic_fumble() const;  // S20/H18
  // ------------------------------------------------------------ items, H12
  // Body armour, then ready helmets, gauntlets and shields (worn()), as armour rows.
  template <typename Visit>
  void for_each_worn(Visit&& visit) const;
  // (inventory index, weapon) of every ready weapon, in inventory order (ready_weapons()).
  template <typename Visit>
  void for_each_ready_weapon(Visit&& visit) const;
  int hands_used() const;
  int reach() const;  // H12
  bool threatens() const;  // H12
  int threat_reach() const;  // H12: reach() when threatens(), else 0 (one pass over the gear)
};

// A battle's combatants in scenario order and the battle's interned strings.
struct Roster {
  std::shared_ptr<const content::Content> content;
  std::vector<Combatant> combatants;
  content::Names ids;    // combatants' ids first (in order), then any other id named
  content::Names teams;
  content::Names names;  // display names
  content::Names uids;   // item instance uids
};

// Python's round(x, ndigits) on a double: the correctly rounded decimal with ndigits
// after the point (exact ties to even), read back as the nearest double (CPython's
// float.__round__ through dtoa mode 3 and strtod).
double python_round(double x, int ndigits);

// Python's a // b on integers (floor division).
constexpr int floor_divide(int a, int b) {
  const int quotient = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? quotient - 1 : quotient;
}

// ------------------------------------------------------------ template definitions

template <typename Visit>
void Combatant::for_each_worn(Visit&& visit) const {
  const content::Content& tables = c();
  if (armour != kNone) visit(tables.armour[static_cast<std::size_t>(armour)]);
  for (const ItemInstance& inst : inventory) {
    if (inst.state != ItemState::ready) continue;
    const int row = tables.equipment_of(inst.item).armour;
    if (row != kNone) visit(tables.armour[static_cast<std::size_t>(row)]);
  }
}

template <typename Visit>
void Combatant::for_each_ready_weapon(Visit&& visit) const {
  const content::Content& tables = c();
  for (std::size_t i = 0; i < inventory.size(); ++i) {
    const ItemInstance& inst = inventory[i];
    if (inst.state != ItemState::ready) continue;
    const int row = tables.equipment_of(inst.item).weapon;
    if (row != kNone) visit(i, tables.weapons[static_cast<std::size_t>(row)]);
  }
}

}  // namespace fray::combatant
