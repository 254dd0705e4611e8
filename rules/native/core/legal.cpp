// rules/legal.py: a TURN decision's legal actions (S2, S7, S12-S17, H12-H25). See legal.hpp.
#include "legal.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <stdexcept>

#include "budget.hpp"
#include "queries.hpp"
#include "reactions.hpp"
#include "threat_zones.hpp"
#include "turns.hpp"

namespace fray::legal {

namespace {

using actions::Action;
using actions::ActionKind;
using actions::Category;
using actions::Name;
using budget::can_spend;
using combatant::Combatant;
using combatant::ItemInstance;
using combatant::ItemState;
using combatant::Status;
using content::kNone;
using grid::Square;
using K = actions::ActionKind;

// One listing: the state, its queries, the map and the names.
struct Lister {
  const state::BattleState& state;
  const LegalMap& map;
  queries::QueryState query;
  const content::Content& tables;
  Namer names;
  std::vector<Action>& out;

  const Combatant& at(int number) const { return query.combatant(number); }
  // H25: misc.free_actions_per_turn uses of a voluntary FREE kind a turn.
  bool free_left(const Combatant& actor, ActionKind kind) const {
    return budget::free_left(actor, kind, tables.ruleset.free_actions_per_turn);
  }

  void add(ActionKind kind) { out.push_back(Action{kind, {}, {}, {}}); }
  void add_target(ActionKind kind, int target) { out.push_back(Action{kind, names.id(target), {}, {}}); }
  void add_item(ActionKind kind, int uid) { out.push_back(Action{kind, {}, {}, names.uid(uid)}); }
  void add_square(ActionKind kind, Square square) {
    out.push_back(Action{kind, {}, actions::Square{square.x, square.y}, {}});
  }
  void add_attack(ActionKind kind, int target, int uid) {
    out.push_back(Action{kind, names.id(target), {}, names.uid(uid)});
  }
  void add_spell(ActionKind kind, int target, std::optional<Name> item) {
    out.push_back(Action{kind, names.id(target), {}, item});
  }
};

// S7/H15/H19: no moving after a Shift, while prone or while grappled.
bool may_move(const Combatant& actor) {
  return !actor.shifted_this_round && !actor.prone && actor.grappled_by == kNone;
}

// S12/S14/S17: the plain search's destinations and their costs (threats only choose the
// route, H13) for a MOVE, or a FULL_MOVE when `full`, in (x, y) order.
std::vector<reach::Destination> plain_destinations(Lister& l, const Combatant& actor, bool full) {
  return l.map.graph.destinations(turns::route_query(l.query, l.map.grid, actor.id, full, false));
}

// The squares of `found` costing at most `budget`, in its (x, y) order; those costing at
// most `cheaper` (<= budget) into `within`, if given.
std::vector<Square> squares_within(const std::vector<reach::Destination>& found,
                                   std::int64_t budget, std::int64_t cheaper = 0,
                                   std::vector<Square>* within = nullptr) {
  std::vector<Square> out;
  out.reserve(found.size());
  if (within != nullptr) within->reserve(found.size());
  for (const reach::Destination& destination : found) {
    if (destination.cost > budget) continue;
    out.push_back({destination.x, destination.y});
    if (within != nullptr && destination.cost <= cheaper) within->push_back({destination.x, destination.y});
  }
  return out;
}

// S2: the turn owner may always end its turn.
void end_turn(Lister& l, const Combatant&) { l.add(K::END_TURN); }

// S12/S14/S17: MOVE and DISENGAGE within half the rate, FULL_MOVE within the whole.
void walk(Lister& l, const Combatant& actor) {
  if (!may_move(actor)) return;
  const bool move = can_spend(actor, Category::move);
  const bool full = can_spend(actor, Category::full);
  if (!move && !full) return;
  // Within half the rate are the whole rate's destinations costing at most half: a
  // search's budget only cuts its routes off, every cheaper one is found the same.
  const std::int64_t half_budget = queries::move_budget(l.query, actor.id, false);
  std::optional<std::vector<Square>> whole;
  std::vector<Square> half;
  const std::int64_t whole_budget = full ? queries::move_budget(l.query, actor.id, true) : 0;
  if (full && whole_budget >= half_budget) {
    whole = squares_within(plain_destinations(l, actor, true), whole_budget, half_budget, &half);
  } else {
    if (full) whole = squares_within(plain_destinations(l, actor, true), whole_budget);
    half = squares_within(plain_destinations(l, actor, false), half_budget);
  }
  l.out.reserve(l.out.size() + (move ? half.size() : 0) +
                (whole ? whole->size() + half.size() : 0));
  if (move) {
    for (const Square square : half) l.add_square(K::MOVE, square);
  }
  if (whole) {
    for (const Square square : *whole) l.add_square(K::FULL_MOVE, square);
    for (const Square square : half) l.add_square(K::DISENGAGE, square);
  }
}

// S7: a Shift to a free, not difficult neighbouring square (not after moving, not riding).
void shift(Lister& l, const Combatant& actor) {
  if (!may_move(actor) || actor.moved_this_round || !l.free_left(actor, K::SHIFT) ||
      actor.riding != kNone) {
    return;
  }
  for (const Square square : queries::free_adjacent(l.query, actor.id)) {
    if (!l.map.grid.is_difficult(square)) l.add_square(K::SHIFT, square);
  }
}

struct Target {
  int enemy;
  int uid;
};

// H12: (enemy, weapon uid) for each foe in the zone of each ready melee weapon.
std::vector<Target> melee_targets(Lister& l, const Combatant& actor, const std::vector<int>& foes) {
  std::vector<Target> out;
  for (const int enemy : foes) {
    actor.for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
      if (weapon.kind != content::WeaponKind::melee) return;
      if (threat_zones::threatens(l.map.grid, actor.position, weapon.reach_squares,
                                  l.at(enemy).position)) {
        out.push_back({enemy, actor.inventory[index].uid});
      }
    });
  }
  return out;
}

// H16: enemies in range and sight of a ready, loaded or nocked missile weapon.
std::vector<Target> missile_targets(Lister& l, const Combatant& actor, const std::vector<int>& foes) {
  std::vector<Target> out;
  actor.for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
    const ItemInstance& inst = actor.inventory[index];
    if (weapon.kind != content::WeaponKind::missile || !actor.skill_possible(weapon.skill)) return;
    if ((weapon.reload == content::Reload::nock && !inst.nocked) ||
        (weapon.reload == content::Reload::wind && !inst.loaded)) {
      return;
    }
    for (const int enemy : foes) {
      if (queries::in_range(l.query, actor.id, enemy, weapon.range)) out.push_back({enemy, inst.uid});
    }
  });
  return out;
}

// S15 ATTACK actions, then S14's FULL_ATTACK and COUP_DE_GRACE (H5, H12, H16, H19).
void attacks(Lister& l, const Combatant& actor) {
  const bool attack = can_spend(actor, Category::attack);
  const bool full = can_spend(actor, Category::full);
  if (!attack && !full) return;
  const std::vector<int> foes = queries::enemies(l.query, actor.id);
  const std::vector<Target> melee = melee_targets(l, actor, foes);
  const std::vector<Target> missile = missile_targets(l, actor, foes);
  if (attack) {
    for (const Target& t : melee) l.add_attack(K::MELEE_ATTACK, t.enemy, t.uid);
    for (const Target& t : missile) l.add_attack(K::MISSILE_ATTACK, t.enemy, t.uid);
    l.add(K::FIGHT_DEFENSIVELY);
    std::vector<int> adjacent;  // H19: one step away, no wall corner between
    for (const int enemy : foes) {
      const Square where = l.at(enemy).position;
      if (grid::chebyshev(actor.position, where) == 1 &&
          l.map.grid.step_allowed(actor.position, where)) {
        adjacent.push_back(enemy);
      }
    }
    const int unarmed = l.tables.unarmed_skill;
    if (actor.skill_possible(unarmed)) {
      for (const int enemy : adjacent) l.add_target(K::UNARMED_ATTACK, enemy);
    }
    for (const int enemy : adjacent) {
      if (actor.grappled_by == enemy || l.at(enemy).grappled_by == kNone) {
        l.add_target(K::GRAPPLE, enemy);
      }
    }
    for (const int enemy : adjacent) {
      if (!l.at(enemy).prone && l.at(enemy).riding == kNone) l.add_target(K::TRIP, enemy);
    }
    for (const int enemy : adjacent) {
      bool armed = false;
      l.at(enemy).for_each_ready_weapon(
          [&](std::size_t, const content::Weapon& weapon) { armed = armed || !weapon.natural; });
      if (armed) l.add_target(K::DISARM, enemy);
    }
  }
  if (full) {
    for (const Target& t : melee) l.add_attack(K::FULL_ATTACK, t.enemy, t.uid);
    for (const Target& t : missile) l.add_attack(K::FULL_ATTACK, t.enemy, t.uid);
    for (const Combatant& other : l.state.roster.combatants) {
      if (other.status != Status::out || other.team == actor.team) continue;
      bool reached = false;
      actor.for_each_ready_weapon([&](std::size_t, const content::Weapon& weapon) {
        reached = reached || (weapon.kind == content::WeaponKind::melee &&
                              threat_zones::threatens(l.map.grid, actor.position,
                                                      weapon.reach_squares, other.position));
      });
      if (reached) l.add_target(K::COUP_DE_GRACE, other.id);
    }
  }
}

// H18: the combatants `spell` may target from where the caster stands, in roster order.
std::vector<int> spell_targets(Lister& l, const Combatant& caster, int spell_id) {
  const content::Spell& spell = l.tables.spells.at(static_cast<std::size_t>(spell_id));
  std::vector<int> out;
  for (const Combatant& other : l.state.roster.combatants) {
    if (spell.target == content::SpellTarget::self && other.id != caster.id) continue;
    if (spell.target == content::SpellTarget::enemy &&
        (other.team == caster.team || !other.in_action())) {
      continue;
    }
    if (spell.target == content::SpellTarget::ally && other.team != caster.team) continue;
    if (other.dead() || (spell.effect != content::SpellEffect::heal && !other.in_action())) continue;
    if (queries::spell_target_ok(l.query, caster.id, other.id, spell.range)) out.push_back(other.id);
  }
  return out;
}

// H18: the next round of a multi-round casting first, then every affordable spell.
void spells(Lister& l, const Combatant& actor) {
  const std::optional<combatant::Casting>& casting = actor.casting;
  if (casting && casting->round < l.state.round && can_spend(actor, Category::full) &&
      actor.power_points >= l.tables.spells.at(static_cast<std::size_t>(casting->spell)).cost &&
      casting->target != kNone) {
    const std::vector<int> targets = spell_targets(l, actor, casting->spell);
    if (std::find(targets.begin(), targets.end(), casting->target) != targets.end()) {
      l.add_spell(K::CAST_SPELL, casting->target, l.names.spell(casting->spell));
    }
  }
  for (const int spell_id : actor.spells) {
    const content::Spell& spell = l.tables.spells.at(static_cast<std::size_t>(spell_id));
    const Category category = budget::spell_category(l.tables, spell_id);
    if (casting && casting->spell == spell_id) continue;
    if (actor.power_points < spell.cost || (spell.components && !actor.components_ready)) continue;
    if (category == Category::free ? !l.free_left(actor, K::CAST_SPELL)
                                   : !can_spend(actor, category)) {
      continue;
    }
    for (const int target : spell_targets(l, actor, spell_id)) {
      l.add_spell(K::CAST_SPELL, target, l.names.spell(spell_id));
    }
  }
}

// The items-table row of an equipment id, or null.
const content::Item* item_row(const content::Content& tables, int equipment) {
  const int row = tables.equipment_of(equipment).item;
  return row == kNone ? nullptr : &tables.items[static_cast<std::size_t>(row)];
}
const content::Weapon* weapon_row(const content::Content& tables, int equipment) {
  const int row = tables.equipment_of(equipment).weapon;
  return row == kNone ? nullptr : &tables.weapons[static_cast<std::size_t>(row)];
}
const content::Armour* shield_row(const content::Content& tables, int equipment) {
  const int row = tables.equipment_of(equipment).armour;
  if (row == kNone) return nullptr;
  const content::Armour& armour = tables.armour[static_cast<std::size_t>(row)];
  return armour.slot == content::ArmourSlot::shield ? &armour : nullptr;
}

// S15: drink a potion, or read a scroll at each target of its spell.
void use_item(Lister& l, const Combatant& actor) {
  if (!can_spend(actor, Category::attack)) return;
  for (const ItemInstance& inst : actor.inventory) {
    const content::Item* item = item_row(l.tables, inst.item);
    if (item == nullptr) continue;
    if (item->kind == content::ItemKind::potion) {
      l.add_item(K::USE_ITEM, inst.uid);
    } else if (item->kind == content::ItemKind::scroll && item->spell != kNone) {
      for (const int target : spell_targets(l, actor, item->spell)) {
        l.out.push_back(Action{K::USE_ITEM, l.names.id(target), {}, l.names.uid(inst.uid)});
      }
    }
  }
}

// H18: prepare spell components once (FREE) when a known spell needs them.
void components(Lister& l, const Combatant& actor) {
  const bool needed = std::any_of(actor.spells.begin(), actor.spells.end(), [&](int spell) {
    return l.tables.spells.at(static_cast<std::size_t>(spell)).components;
  });
  if (needed && !actor.components_ready && l.free_left(actor, K::PREPARE_COMPONENTS)) {
    l.add(K::PREPARE_COMPONENTS);
  }
}

// S12/H21: ready a stowed weapon or shield that fits in the free hands.
void ready(Lister& l, const Combatant& actor) {
  if (!can_spend(actor, Category::move)) return;
  const int free_hands = combatant::kHands - actor.hands_used();
  for (const ItemInstance& inst : actor.inventory) {
    if (inst.state != ItemState::carried && inst.state != ItemState::sheathed &&
        inst.state != ItemState::hidden) {
      continue;
    }
    int hands = 0;
    if (const content::Weapon* weapon = weapon_row(l.tables, inst.item)) {
      hands = weapon->hands;
    } else if (const content::Armour* shield = shield_row(l.tables, inst.item)) {
      hands = shield->hands;
    } else {
      continue;
    }
    if (hands <= free_hands) l.add_item(K::READY_WEAPON, inst.uid);
  }
}

// S12/H21: sheathe or stow a ready weapon (not a natural one) or shield.
void sheathe(Lister& l, const Combatant& actor) {
  if (!can_spend(actor, Category::move)) return;
  for (const ItemInstance& inst : actor.inventory) {
    if (inst.state != ItemState::ready) continue;
    const content::Weapon* weapon = weapon_row(l.tables, inst.item);
    if ((weapon != nullptr && !weapon->natural) || shield_row(l.tables, inst.item) != nullptr) {
      l.add_item(K::SHEATHE_WEAPON, inst.uid);
    }
  }
}

// S12/H21: pick up an item lying in the actor's square.
void pick_up(Lister& l, const Combatant& actor) {
  if (!can_spend(actor, Category::move)) return;
  for (const ItemInstance& item : l.state.ground) {
    if (item.square && *item.square == actor.position) l.add_item(K::PICK_UP, item.uid);
  }
}

// S16/H21: drop any carried item but a natural weapon (FREE, once a turn).
void drop(Lister& l, const Combatant& actor) {
  if (!l.free_left(actor, K::DROP_ITEM)) return;
  for (const ItemInstance& inst : actor.inventory) {
    const content::Weapon* weapon = weapon_row(l.tables, inst.item);
    if (!(weapon != nullptr && weapon->natural)) l.add_item(K::DROP_ITEM, inst.uid);
  }
}

// H16: nock a bow or sling (FREE) or wind a crossbow (FULL), weapon by weapon.
void reload(Lister& l, const Combatant& actor) {
  actor.for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
    const ItemInstance& inst = actor.inventory[index];
    const bool ammo = queries::ammo_of(actor, weapon.ammo).has_value();
    if (weapon.reload == content::Reload::nock && !inst.nocked && ammo &&
        l.free_left(actor, K::NOCK_ARROW)) {
      l.add_item(K::NOCK_ARROW, inst.uid);
    }
    if (weapon.reload == content::Reload::wind && !inst.loaded && ammo &&
        can_spend(actor, Category::full)) {
      l.add_item(K::LOAD_CROSSBOW, inst.uid);
    }
  });
}

// H23: light a torch held ready or that fits in the free hands (FULL).
void light_torch(Lister& l, const Combatant& actor) {
  if (!can_spend(actor, Category::full)) return;
  const int free_hands = combatant::kHands - actor.hands_used();
  for (const ItemInstance& inst : actor.inventory) {
    const content::Item* item = item_row(l.tables, inst.item);
    if (item != nullptr && item->kind == content::ItemKind::torch && !inst.lit &&
        (inst.state == ItemState::ready || free_hands >= item->hands)) {
      l.add_item(K::LIGHT_TORCH, inst.uid);
    }
  }
}

// H15: standing up is a MOVE action.
void stand_up(Lister& l, const Combatant& actor) {
  if (actor.prone && can_spend(actor, Category::move)) l.add(K::STAND_UP);
}

// H15: falling prone is FREE (once a turn), not from the saddle.
void fall_prone(Lister& l, const Combatant& actor) {
  if (!actor.prone && l.free_left(actor, K::FALL_PRONE) && actor.riding == kNone) {
    l.add(K::FALL_PRONE);
  }
}

// S12: open a closed neighbouring door, or close an open one nothing stands in.
void doors(Lister& l, const Combatant& actor) {
  if (!can_spend(actor, Category::move) || actor.prone) return;
  for (const auto& [dx, dy] : grid::KING_STEPS_BY_ROW) {
    const Square square{actor.position.x + dx, actor.position.y + dy};
    const std::optional<bool> open = l.state.door_open(square);
    if (!open) continue;
    if (!*open) {
      l.add_square(K::OPEN_DOOR, square);
      continue;
    }
    // occupied() is a subset of every combatant's square, the dead included
    const bool held = std::any_of(l.state.roster.combatants.begin(), l.state.roster.combatants.end(),
                                  [&](const Combatant& other) { return other.position == square; });
    const bool littered = std::any_of(l.state.ground.begin(), l.state.ground.end(),
                                      [&](const ItemInstance& item) { return item.square == square; });
    if (!held && !littered) l.add_square(K::CLOSE_DOOR, square);
  }
}

// S13/H22: mount a free, standing, neighbouring mount of the team (one rider).
void mount(Lister& l, const Combatant& actor) {
  if (!can_spend(actor, Category::move) || actor.prone || actor.riding != kNone ||
      actor.ridden_by != kNone || actor.grappled_by != kNone || actor.is_mount) {
    return;
  }
  for (const Combatant& other : l.state.roster.combatants) {
    if (other.is_mount && other.in_action() && other.ridden_by == kNone && other.riding == kNone &&
        other.team == actor.team && !other.prone &&
        grid::chebyshev(other.position, actor.position) == 1) {
      l.add_target(K::MOUNT, other.id);
    }
  }
}

// S13/H22: dismount into a free neighbouring square.
void dismount(Lister& l, const Combatant& actor) {
  if (!can_spend(actor, Category::move) || actor.prone || actor.riding == kNone) return;
  for (const Square square : queries::free_adjacent(l.query, actor.id)) {
    l.add_square(K::DISMOUNT, square);
  }
}

// H20: First Aid (FULL) on oneself or a hurt or bleeding neighbouring ally.
void first_aid(Lister& l, const Combatant& actor) {
  if (!can_spend(actor, Category::full)) return;
  for (const Combatant& other : l.state.roster.combatants) {
    if (other.team == actor.team && !other.dead() && (other.hp < other.max_hp || other.bleeding) &&
        (other.id == actor.id || grid::chebyshev(other.position, actor.position) <= 1)) {
      l.add_target(K::FIRST_AID, other.id);
    }
  }
}

// H24: speaking is FREE, once a turn.
void speak(Lister& l, const Combatant& actor) {
  if (l.free_left(actor, K::SPEAK)) l.add(K::SPEAK);
}

using Generator = void (*)(Lister&, const Combatant&);
// legal.TURN_GROUPS: the generator groups in ACTION_SPECS order, each the generator above
// of its name (FRAY_TURN_GROUPS, written from rules/actions.py): a group without its
// generator here fails the build, and a generator no group names is an unused function.
#define FRAY_TURN_GROUP(name) &name,
constexpr Generator kTurnGroups[] = {FRAY_TURN_GROUPS(FRAY_TURN_GROUP)};
#undef FRAY_TURN_GROUP

// This thread's recycled lists; not inlined, so that its users keep the address.
[[gnu::noinline]] std::vector<std::vector<Action>>& spare_lists() {
  thread_local std::vector<std::vector<Action>> spare;
  return spare;
}

constexpr std::size_t kSpareLists = 4;
constexpr std::size_t kListed = 128;  // room for most turns' listings

}  // namespace

std::vector<Action> empty_list() {
  std::vector<std::vector<Action>>& spare = spare_lists();
  if (spare.empty()) {
    std::vector<Action> out;
    out.reserve(kListed);
    return out;
  }
  std::vector<Action> out = std::move(spare.back());
  spare.pop_back();
  return out;
}

void recycle(std::vector<Action>&& list) {
  std::vector<std::vector<Action>>& spare = spare_lists();
  if (spare.size() >= kSpareLists || list.capacity() < kListed) return;
  list.clear();
  spare.push_back(std::move(list));
}

std::vector<Action> turn_actions(const state::BattleState& state, const LegalMap& map, int actor,
                                 actions::NameTable& names, bool moves) {
  std::vector<Action> out = empty_list();
  Lister lister{state, map,
                queries::QueryState{state.roster, map.grid, state.ground, state.initiative_order,
                                    state.round},
                *state.roster.content, Namer(names, state.roster), out};
  const Combatant& who = lister.at(actor);
  for (const Generator generator : kTurnGroups) {
    if (moves || generator != walk) generator(lister, who);
  }
  return out;
}

void insert_moves(const state::BattleState& state, const LegalMap& map, int actor,
                  actions::NameTable& names, std::vector<Action>& listed) {
  std::vector<Action> before;  // the groups before walk's, to count where its actions go
  std::vector<Action> moves;
  const queries::QueryState query{state.roster, map.grid, state.ground, state.initiative_order,
                                  state.round};
  Lister ahead{state, map, query, *state.roster.content, Namer(names, state.roster), before};
  Lister walking{state, map, query, *state.roster.content, Namer(names, state.roster), moves};
  const Combatant& who = ahead.at(actor);
  for (const Generator generator : kTurnGroups) {
    if (generator == walk) break;
    generator(ahead, who);
  }
  walk(walking, who);
  listed.insert(listed.begin() + static_cast<std::ptrdiff_t>(before.size()), moves.begin(),
                moves.end());
#ifndef NDEBUG
  // debug builds (the sanitized one in CI) check the list against the whole listing
  if (listed != turn_actions(state, map, actor, names)) {
    throw std::logic_error("insert_moves: the list differs from turn_actions'");
  }
#endif
}

std::vector<Action> actions_for(const state::BattleState& state, const LegalMap& map,
                                actions::NameTable& names) {
  if (!state.decision || state.decision->actor == kNone) {
    throw std::logic_error("no decision is pending");
  }
  if (state.decision->kind == actions::DecisionKind::TURN) {
    return turn_actions(state, map, state.decision->actor, names);
  }
  Namer namer(names, state.roster);
  return reactions::frame_actions(
      state,
      queries::QueryState{state.roster, map.grid, state.ground, state.initiative_order, state.round},
      namer);
}

}  // namespace fray::legal
