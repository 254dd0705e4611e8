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
    const double lit_here = lit[grid.index(c.position)];
    const int reach = c.reach();  // H12
    const bool threatens = c.threatens();
    const bool owns_turn = id == owner;
    const bool encumbered = c.encumbered();  // S19/S20, read by MOV and each skill below
    int weapon_skill = 0;
    bool any_weapon = false;
    c.for_each_ready_weapon([&](std::size_t, const content::Weapon& weapon) {
      const int skill = c.skill(weapon.skill, state.round, encumbered);
      weapon_skill = any_weapon ? std::max(weapon_skill, skill) : skill;
      any_weapon = true;
    });
    const std::array<double, UNIT_FEATURE_COUNT> row = {
        static_cast<double>(c.in_action()),                              // in_action
        static_cast<double>(c.status == combatant::Status::out),          // out_of_action
        static_cast<double>(c.dead()),                                    // dead
        static_cast<double>(ally),                                        // ally
        static_cast<double>(id == self_id),                               // self
        static_cast<double>(id == decider),                               // deciding
        static_cast<double>(owns_turn),                                   // turn_owner
        static_cast<double>(id == source),                                // source
        clip(divide(c.hp, std::max(1, c.max_hp)), -1.0, 1.0),             // hp_fraction
        std::min(1.0, divide(c.max_hp, 30)),                              // max_hp
        divide(x, std::max(1, layout.width - 1)),                         // x
        divide(y, std::max(1, layout.height - 1)),                        // y
        static_cast<double>(c.prone),                                     // prone
        static_cast<double>(threatens),                                   // threatens
        std::min(1.0, divide(reach, 2)),                                  // reach
        static_cast<double>(missile_ready(c)),                            // missile_ready
        static_cast<double>(owns_turn && budget::can_spend(c, actions::Category::move)),
        static_cast<double>(owns_turn && budget::can_spend(c, actions::Category::attack)),
        static_cast<double>(owns_turn && budget::can_spend(c, actions::Category::full)),
        static_cast<double>(c.moved_this_round),                          // moved_this_round
        static_cast<double>(c.shifted_this_round),                        // shifted_this_round
        static_cast<double>(c.free_attack_used),                          // free_attack_used
        clip(divide(layout.parries_per_round + c.extra_parries - c.parries_used, 2), 0.0, 1.0),
        static_cast<double>(c.bleeding),                                  // bleeding
        static_cast<double>(c.grappled_by != kNone),                      // grappled
        static_cast<double>(c.riding != kNone || c.ridden_by != kNone),   // mounted
        static_cast<double>(c.casting.has_value()),                       // casting
        c.max_power_points > 0                                            // power_points
            ? clip(divide(c.power_points, c.max_power_points), 0.0, 1.0) : 0.0,
        std::min(1.0, divide(c.mov(encumbered), 12)),                     // mov
        static_cast<double>(encumbered),                                  // encumbered
        divide(c.fatigue_level, 2),                                       // fatigue
        std::min(1.0, divide(c.skill(layout.dodge_skill, state.round, encumbered), 100)),  // dodge
        std::min(1.0, divide(weapon_skill, 100)),                         // weapon_skill
        std::min(1.0, divide(c.armour_points(), 10)),                     // armour_points
        divide(rank[static_cast<std::size_t>(id)], std::max(1, n - 1)),   // initiative_rank
        static_cast<double>(c.components_ready),                          // components_ready
        1.0 - lit_here,                                                   // in_dark
    };
    float* units = out.units + static_cast<std::size_t>(slot) * UNIT_FEATURE_COUNT;
    for (int i = 0; i < UNIT_FEATURE_COUNT; ++i) units[i] = static_cast<float>(row[static_cast<std::size_t>(i)]);
    if (c.in_action()) {
      mark(ally ? ALLY : ENEMY, x, y);
      allies += ally;
      enemies += !ally;
      if (threatens) {
        for (const combatant::Square& square : threat_zones::threatened_squares(grid, c.position, reach)) {
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
  const std::array<double, GLOBAL_FEATURE_COUNT> globals = {
      std::min(1.0, divide(state.round, layout.max_rounds)),  // round_fraction
      static_cast<double>(own_turn),                          // own_turn
      divide(allies, std::max(1, ally_total)),                // allies_in_action
      divide(enemies, std::max(1, enemy_total)),              // enemies_in_action
      static_cast<double>(state.is_over),                     // over
  };
  for (int i = 0; i < GLOBAL_FEATURE_COUNT; ++i) out.globals[i] = static_cast<float>(globals[static_cast<std::size_t>(i)]);
}

}  // namespace fray::env
