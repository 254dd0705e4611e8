// env/observation.py in C++ (see env_observation.hpp). Each unit feature carries the name
// of its row in env.observation.UNIT_FEATURE_SPECS.
#include "env_observation.hpp"

#include <algorithm>
#include <cstddef>

#include "budget.hpp"
#include "queries.hpp"
#include "threat_zones.hpp"

namespace fray::env {

using combatant::Combatant;
using combatant::ItemInstance;
using content::kNone;

namespace {

double clip(double value, double low, double high) { return std::max(low, std::min(high, value)); }

// Python's true division of two ints.
double divide(int numerator, int denominator) {
  return static_cast<double>(numerator) / static_cast<double>(denominator);
}

std::size_t cell(const ObservationLayout& layout, int plane, int x, int y) {
  return (static_cast<std::size_t>(plane) * static_cast<std::size_t>(layout.height) +
          static_cast<std::size_t>(y)) * static_cast<std::size_t>(layout.width) +
         static_cast<std::size_t>(x);
}

// _missile_ready (H16): a ready missile weapon that needs no reload, or is nocked or loaded.
bool missile_ready(const Combatant& combatant) {
  bool ready = false;
  combatant.for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
    const ItemInstance& inst = combatant.inventory[index];
    if (weapon.kind == content::WeaponKind::missile &&
        (weapon.reload == content::Reload::none || inst.nocked || inst.loaded)) {
      ready = true;
    }
  });
  return ready;
}

// ObservationBuilder._lit: whether any torch burns (then the dark squares ask is_lit).
bool torch_burns(const state::BattleState& state) {
  for (const Combatant& c : state.roster.combatants) {
    for (const ItemInstance& inst : c.inventory) {
      if (inst.lit) return true;
    }
  }
  return std::any_of(state.ground.begin(), state.ground.end(),
                     [](const ItemInstance& inst) { return inst.lit; });
}

// ObservationBuilder's UnitView: what a unit's row reads besides the combatant.
struct UnitView {
  const Combatant& c;
  const ObservationLayout& layout;
  bool ally = false;
  bool self = false;
  bool deciding = false;
  bool owns_turn = false;
  bool source = false;
  bool threatens = false;
  bool encumbered = false;
  int reach = 0;
  int weapon_skill = 0;
  int rank = 0;
  int round = 0;
  double lit = 0.0;
};

// One function per env.observation.UNIT_FEATURE_SPECS row, named as the row
// (FRAY_UNIT_FEATURES, written from env/observation.py, lists them in column order).
namespace unit_feature {
double in_action(const UnitView& u) { return u.c.in_action(); }
double out_of_action(const UnitView& u) { return u.c.status == combatant::Status::out; }
double dead(const UnitView& u) { return u.c.dead(); }
double ally(const UnitView& u) { return u.ally; }
double self(const UnitView& u) { return u.self; }
double deciding(const UnitView& u) { return u.deciding; }
double turn_owner(const UnitView& u) { return u.owns_turn; }
double source(const UnitView& u) { return u.source; }
double hp_fraction(const UnitView& u) { return clip(divide(u.c.hp, std::max(1, u.c.max_hp)), -1.0, 1.0); }
double max_hp(const UnitView& u) { return std::min(1.0, divide(u.c.max_hp, 30)); }
double x(const UnitView& u) { return divide(u.c.position.x, std::max(1, u.layout.width - 1)); }
double y(const UnitView& u) { return divide(u.c.position.y, std::max(1, u.layout.height - 1)); }
double prone(const UnitView& u) { return u.c.prone; }
double threatens(const UnitView& u) { return u.threatens; }  // H12
double reach(const UnitView& u) { return std::min(1.0, divide(u.reach, 2)); }
double missile_ready(const UnitView& u) { return env::missile_ready(u.c); }  // H16
double move_left(const UnitView& u) {
  return u.owns_turn && budget::can_spend(u.c, actions::Category::move);
}
double attack_left(const UnitView& u) {
  return u.owns_turn && budget::can_spend(u.c, actions::Category::attack);
}
double full_left(const UnitView& u) {
  return u.owns_turn && budget::can_spend(u.c, actions::Category::full);
}
double moved_this_round(const UnitView& u) { return u.c.moved_this_round; }
double shifted_this_round(const UnitView& u) { return u.c.shifted_this_round; }
double free_attack_used(const UnitView& u) { return u.c.free_attack_used; }
double parries_left(const UnitView& u) {
  return clip(divide(u.layout.parries_per_round + u.c.extra_parries - u.c.parries_used, 2), 0.0, 1.0);
}
double bleeding(const UnitView& u) { return u.c.bleeding; }
double grappled(const UnitView& u) { return u.c.grappled_by != kNone; }
double mounted(const UnitView& u) { return u.c.riding != kNone || u.c.ridden_by != kNone; }
double casting(const UnitView& u) { return u.c.casting.has_value(); }
double power_points(const UnitView& u) {
  return u.c.max_power_points > 0 ? clip(divide(u.c.power_points, u.c.max_power_points), 0.0, 1.0)
                                  : 0.0;
}
double mov(const UnitView& u) { return std::min(1.0, divide(u.c.mov(u.encumbered), 12)); }
double encumbered(const UnitView& u) { return u.encumbered; }  // S19/S20
double fatigue(const UnitView& u) { return divide(u.c.fatigue_level, 2); }
double dodge(const UnitView& u) {
  return std::min(1.0, divide(u.c.skill(u.layout.dodge_skill, u.round, u.encumbered), 100));
}
double weapon_skill(const UnitView& u) { return std::min(1.0, divide(u.weapon_skill, 100)); }
double armour_points(const UnitView& u) { return std::min(1.0, divide(u.c.armour_points(), 10)); }
double initiative_rank(const UnitView& u) { return divide(u.rank, std::max(1, u.layout.units - 1)); }
double components_ready(const UnitView& u) { return u.c.components_ready; }
double in_dark(const UnitView& u) { return 1.0 - u.lit; }
}  // namespace unit_feature

// ObservationBuilder's GlobalView: what the globals read.
struct GlobalView {
  const ObservationLayout& layout;
  const state::BattleState& state;
  bool own_turn = false;
  int allies = 0, enemies = 0, ally_total = 0, enemy_total = 0;
};

// One function per env.observation.GLOBAL_FEATURE_SPECS row (FRAY_GLOBAL_FEATURES).
namespace global_feature {
double round_fraction(const GlobalView& g) { return std::min(1.0, divide(g.state.round, g.layout.max_rounds)); }
double own_turn(const GlobalView& g) { return g.own_turn; }
double allies_in_action(const GlobalView& g) { return divide(g.allies, std::max(1, g.ally_total)); }
double enemies_in_action(const GlobalView& g) { return divide(g.enemies, std::max(1, g.enemy_total)); }
double over(const GlobalView& g) { return g.state.is_over; }
}  // namespace global_feature

#define FRAY_UNIT_VALUE(name) unit_feature::name(view),
#define FRAY_GLOBAL_VALUE(name) global_feature::name(view),

}  // namespace

ObservationLayout::ObservationLayout(const grid::Grid& grid, int unit_count, int rounds,
                                     int parries, int dodge,
                                     const std::vector<actions::ActionKind>& destination_kinds)
    : width(grid.width()), height(grid.height()), units(unit_count), max_rounds(rounds),
      parries_per_round(parries), dodge_skill(dodge) {
  fixed.assign(static_cast<std::size_t>(PLANE_COUNT * width * height), 0.0F);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const combatant::Square square{x, y};
      if (grid.is_wall(square)) fixed[cell(*this, WALL, x, y)] = 1.0F;
      if (grid.is_difficult(square)) fixed[cell(*this, DIFFICULT, x, y)] = 1.0F;
      const int depth = grid.drop_depth(square);
      if (depth != 0) {
        fixed[cell(*this, DROP, x, y)] = static_cast<float>(std::min(1.0, divide(depth, 100)));
      }
      if (grid.is_dark(square)) {
        dark.push_back(grid.index(square));
      } else {
        fixed[cell(*this, LIT, x, y)] = 1.0F;
      }
    }
  }
  for (const actions::ActionKind kind : destination_kinds) {
    destination[static_cast<std::size_t>(kind)] = true;
  }
}

void write_observation(const ObservationLayout& layout, const state::BattleState& state,
                       const grid::Grid& grid, int team, int self_id, bool show_reachable,
                       const std::vector<actions::Action>& legal, const ObservationBuffers& out) {
  const std::size_t plane_size = static_cast<std::size_t>(layout.width * layout.height);
  std::copy(layout.fixed.begin(), layout.fixed.end(), out.planes);
  const auto mark = [&](int plane, int x, int y) { out.planes[cell(layout, plane, x, y)] = 1.0F; };
  for (const state::Door& door : state.doors) {
    mark(door.open ? OPEN_DOOR : CLOSED_DOOR, door.square.x, door.square.y);
  }
  float* lit = out.planes + static_cast<std::size_t>(LIT) * plane_size;
  if (!layout.dark.empty() && torch_burns(state)) {
    const queries::QueryState query{state.roster, grid, state.ground, state.initiative_order,
                                    state.round};
    for (const int index : layout.dark) {
      const combatant::Square square{index % layout.width, index / layout.width};
      lit[index] = queries::is_lit(query, square) ? 1.0F : 0.0F;
    }
  }
  const std::optional<state::PendingDecision>& decision = state.decision;
  const int decider = decision ? decision->actor : kNone;
  const int source = decision ? decision->source : kNone;
  const int owner = state.current_actor();
  std::vector<int> rank(state.roster.combatants.size(), 0);
  for (std::size_t i = 0; i < state.initiative_order.size(); ++i) {
    rank[static_cast<std::size_t>(state.initiative_order[i])] = static_cast<int>(i);
  }
  int allies = 0, enemies = 0, ally_total = 0;
  const int n = layout.units;
  for (int slot = 0; slot < n; ++slot) {
    const Combatant& c = state.roster.combatants[static_cast<std::size_t>(slot)];
    const int id = c.id;
    const int x = c.position.x, y = c.position.y;
    const bool ally = c.team == team;
    ally_total += ally;
    const bool encumbered = c.encumbered();  // S19/S20, read by MOV and each skill
    int weapon_skill = 0;
    bool any_weapon = false;
    c.for_each_ready_weapon([&](std::size_t, const content::Weapon& weapon) {
      const int skill = c.skill(weapon.skill, state.round, encumbered);
      weapon_skill = any_weapon ? std::max(weapon_skill, skill) : skill;
      any_weapon = true;
    });
    const UnitView view{c, layout, ally, id == self_id, id == decider, id == owner, id == source,
                        c.threatens(), encumbered, c.reach(), weapon_skill,
                        rank[static_cast<std::size_t>(id)], state.round, lit[grid.index(c.position)]};
    const std::array<double, UNIT_FEATURE_COUNT> row = {FRAY_UNIT_FEATURES(FRAY_UNIT_VALUE)};
    float* units = out.units + static_cast<std::size_t>(slot) * UNIT_FEATURE_COUNT;
    for (int i = 0; i < UNIT_FEATURE_COUNT; ++i) units[i] = static_cast<float>(row[static_cast<std::size_t>(i)]);
    if (c.in_action()) {
      mark(ally ? ALLY : ENEMY, x, y);
      allies += ally;
      enemies += !ally;
      if (view.threatens) {
        for (const combatant::Square& square : threat_zones::threatened_squares(grid, c.position, view.reach)) {
          mark(ally ? ALLY_THREAT : ENEMY_THREAT, square.x, square.y);
        }
      }
    } else {
      mark(DOWN, x, y);
    }
    if (id == decider) mark(DECIDER, x, y);
    if (id == self_id) mark(SELF, x, y);
  }
  for (const ItemInstance& inst : state.ground) {
    if (inst.square) mark(GROUND_ITEM, inst.square->x, inst.square->y);
  }
  if (show_reachable && decision) {
    for (const actions::Action& action : legal) {
      if (action.square && layout.destination[static_cast<std::size_t>(action.kind)]) {
        mark(REACHABLE, action.square->x, action.square->y);
      }
    }
  }
  if (decision) {
    out.decision[0] = static_cast<std::int64_t>(decision->kind);
    out.decision[1] = decision->actor;
  } else {
    out.decision[0] = static_cast<std::int64_t>(actions::DECISION_KIND_COUNT);
    out.decision[1] = n;
  }
  const int enemy_total = n - ally_total;
  const bool own_turn = owner != kNone && decision &&
                        state.roster.combatants[static_cast<std::size_t>(owner)].team == team;
  const GlobalView view{layout, state, own_turn, allies, enemies, ally_total, enemy_total};
  const std::array<double, GLOBAL_FEATURE_COUNT> globals = {FRAY_GLOBAL_FEATURES(FRAY_GLOBAL_VALUE)};
  for (int i = 0; i < GLOBAL_FEATURE_COUNT; ++i) out.globals[i] = static_cast<float>(globals[static_cast<std::size_t>(i)]);
}

}  // namespace fray::env
