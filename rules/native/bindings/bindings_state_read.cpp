// The Python face of the engine's state, read back: a Roster's fields as
// rules.combatant.Combatant.to_dict() gives them, and every derived value (for
// rules/bridge/combatants.py and tests/native/test_combatant_differential.py); and the
// registration of the classes CompiledContent and Roster.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string_view.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bindings_state.hpp"

namespace nb = nanobind;
namespace content = fray::content;
namespace combatant = fray::combatant;
using content::kNone;

namespace {

// The compiled content as a Python object (rules/bridge/combatants.py keeps one per Content).
struct CompiledContent {
  std::shared_ptr<const content::Content> tables;
};

nb::str name_of(std::string_view name) { return nb::str(name.data(), name.size()); }

nb::object optional_name(const content::Names& names, int id) {
  if (id == kNone) return nb::none();
  return name_of(names.name(id));
}

nb::list names_of(const content::Names& names) {
  nb::list out;
  for (const std::string& name : names.all()) out.append(name_of(name));
  return out;
}

const combatant::Combatant& at(const combatant::Roster& roster, std::size_t index) {
  if (index >= roster.combatants.size()) throw nb::index_error("roster: no such combatant");
  return roster.combatants[index];
}

// A skill's id by name: kNone for a name not in the ruleset (as Python treats it).
int skill_id(const combatant::Roster& roster, std::string_view name) {
  return roster.content->skill_names.find(name);
}

nb::dict item_fields(const combatant::Roster& roster, const combatant::ItemInstance& inst) {
  nb::dict out;
  out["uid"] = name_of(roster.uids.name(inst.uid));
  out["item"] = name_of(roster.content->equipment_names.name(inst.item));
  out["state"] = name_of(combatant::kItemStateNames[static_cast<std::size_t>(inst.state)]);
  out["count"] = inst.count;
  out["ap"] = inst.ap ? nb::object(nb::int_(*inst.ap)) : nb::none();
  out["lit"] = inst.lit;
  out["nocked"] = inst.nocked;
  out["loaded"] = inst.loaded;
  out["square"] = inst.square ? nb::object(nb::make_tuple(inst.square->x, inst.square->y))
                              : nb::none();
  return out;
}

// Every field, as Combatant.to_dict() gives it (tuples, lists and dicts alike).
nb::dict fields_of(const combatant::Roster& roster, const combatant::Combatant& c) {
  const content::Content& tables = *roster.content;
  nb::dict out;
  out["id"] = name_of(roster.ids.name(c.id));
  out["team"] = name_of(roster.teams.name(c.team));
  out["creature"] = name_of(tables.creature_names.name(c.creature));
  out["name"] = name_of(roster.names.name(c.name));
  out["race"] = name_of(tables.race_names.name(c.race));
  nb::dict characteristics;
  for (std::size_t i = 0; i < c.characteristics.size(); ++i) {
    if (c.characteristics[i] == combatant::kAbsent) continue;
    characteristics[name_of(tables.characteristic_names.name(static_cast<int>(i)))] =
        c.characteristics[i];
  }
  out["characteristics"] = characteristics;
  nb::dict base_skills;
  for (std::size_t i = 0; i < c.base_skills.size(); ++i) {
    if (c.base_skills[i] == combatant::kAbsent) continue;
    base_skills[name_of(tables.skill_names.name(static_cast<int>(i)))] = c.base_skills[i];
  }
  out["base_skills"] = base_skills;
  out["armour"] = c.armour == kNone
                      ? nb::none()
                      : nb::object(name_of(tables.armour_names.name(c.armour)));
  out["armour_training"] =
      name_of(content::kBurdenNames[static_cast<std::size_t>(c.armour_training)]);
  out["position"] = nb::make_tuple(c.position.x, c.position.y);
  out["max_hp"] = c.max_hp;
  out["hp"] = c.hp;
  out["max_power_points"] = c.max_power_points;
  out["power_points"] = c.power_points;
  nb::list spells;
  for (int spell : c.spells) spells.append(name_of(tables.spell_names.name(spell)));
  out["spells"] = nb::tuple(spells);
  out["is_mount"] = c.is_mount;
  out["snake"] = c.snake;
  nb::list inventory;
  for (const combatant::ItemInstance& inst : c.inventory) {
    inventory.append(item_fields(roster, inst));
  }
  out["inventory"] = inventory;
  out["prone"] = c.prone;
  out["status"] = name_of(combatant::kStatusNames[static_cast<std::size_t>(c.status)]);
  out["fatigue_level"] = c.fatigue_level;
  out["bleeding"] = c.bleeding;
  nb::list buffs;
  for (const combatant::Buff& buff : c.buffs) {
    nb::list pair;
    pair.append(buff.points);
    pair.append(buff.last_round);
    buffs.append(pair);
  }
  out["buffs"] = buffs;
  out["grappled_by"] = optional_name(roster.ids, c.grappled_by);
  out["riding"] = optional_name(roster.ids, c.riding);
  out["ridden_by"] = optional_name(roster.ids, c.ridden_by);
  if (c.casting) {
    nb::dict casting;
    casting["spell"] = name_of(tables.spell_names.name(c.casting->spell));
    casting["target"] = optional_name(roster.ids, c.casting->target);
    casting["done"] = c.casting->done;
    casting["round"] = c.casting->round;
    out["casting"] = casting;
  } else {
    out["casting"] = nb::none();
  }
  out["components_ready"] = c.components_ready;
  out["initiative"] = c.initiative;
  nb::list actions_used;
  for (auto used : c.actions_used) {
    actions_used.append(name_of(fray::actions::kCategoryNames[static_cast<std::size_t>(used)]));
  }
  out["actions_used"] = actions_used;
  out["moved_this_round"] = c.moved_this_round;
  out["shifted_this_round"] = c.shifted_this_round;
  out["diagonal_parity"] = c.diagonal_parity;
  out["free_attack_used"] = c.free_attack_used;
  out["parries_used"] = c.parries_used;
  out["extra_parries"] = c.extra_parries;
  out["dodge_waived"] = c.dodge_waived;
  nb::list free_used;
  for (auto used : c.free_used) {
    free_used.append(name_of(fray::actions::ACTION_KIND_VALUES[static_cast<std::size_t>(used)]));
  }
  out["free_used"] = free_used;
  out["concentration"] =
      c.concentration == combatant::Concentration::none
          ? nb::none()
          : nb::object(name_of(
                combatant::kConcentrationNames[static_cast<std::size_t>(c.concentration)]));
  out["concentration_broken"] = c.concentration_broken;
  return out;
}

// Every derived value that takes no argument, and per ruleset skill its possibility,
// multiplier and base (the skill values themselves: Roster.skills).
nb::dict derived_of(const combatant::Roster& roster, const combatant::Combatant& c) {
  const content::Content& tables = *roster.content;
  nb::dict out;
  out["dex_bonus"] = c.dex_bonus();
  out["capacity_stones"] = c.capacity_stones();
  out["load_stones"] = c.load_stones();
  out["burden"] = name_of(content::kBurdenNames[static_cast<std::size_t>(c.burden())]);
  out["untrained_for_burden"] = c.untrained_for_burden();
  out["encumbered"] = c.encumbered();
  out["armour_points"] = c.armour_points();
  out["fatigue_factor"] = c.fatigue_factor();
  out["mov"] = c.mov();
  out["move_squares"] = c.move_squares();
  out["magic_fumble"] = c.magic_fumble();
  out["hands_used"] = c.hands_used();
  out["reach"] = c.reach();
  out["threatens"] = c.threatens();
  out["in_action"] = c.in_action();
  nb::list ready;
  c.for_each_ready_weapon([&](std::size_t index, const content::Weapon& weapon) {
    ready.append(nb::make_tuple(name_of(roster.uids.name(c.inventory[index].uid)),
                                name_of(tables.equipment_names.name(weapon.equipment))));
  });
  out["ready_weapons"] = ready;
  nb::dict possible, multiplier, base;
  for (int id = 0; id < tables.skill_names.size(); ++id) {
    nb::str name = name_of(tables.skill_names.name(id));
    possible[name] = c.skill_possible(id);
    multiplier[name] = c.skill_multiplier(id);
    base[name] = c.base_skill(id);
  }
  out["skill_possible"] = possible;
  out["skill_multiplier"] = multiplier;
  out["base_skill"] = base;
  return out;
}

}  // namespace

namespace fray::bindings {

nb::dict combatant_dict(const combatant::Roster& roster, const combatant::Combatant& c) {
  return fields_of(roster, c);
}

nb::dict item_dict(const combatant::Roster& roster, const combatant::ItemInstance& inst) {
  return item_fields(roster, inst);
}

void bind_state(nb::module_& module) {
  module.def("python_round", &combatant::python_round, nb::arg("x"), nb::arg("ndigits"),
             "Python's round(x, ndigits) on a float, as combatant.cpp computes it.");

  nb::class_<CompiledContent>(module, "CompiledContent",
                              "A rules.content.Content compiled into the engine's tables.")
      .def("__init__",
           [](CompiledContent* self, nb::handle source) {
             new (self) CompiledContent{compile_content(source)};
           },
           nb::arg("content"))
      .def("names",
           [](const CompiledContent& self, std::string_view kind) {
             const content::Content& t = *self.tables;
             if (kind == "skills") return names_of(t.skill_names);
             if (kind == "characteristics") return names_of(t.characteristic_names);
             if (kind == "reach") return names_of(t.reach_names);
             if (kind == "races") return names_of(t.race_names);
             if (kind == "weapons") return names_of(t.weapon_names);
             if (kind == "armour") return names_of(t.armour_names);
             if (kind == "items") return names_of(t.item_names);
             if (kind == "equipment") return names_of(t.equipment_names);
             if (kind == "spells") return names_of(t.spell_names);
             if (kind == "creatures") return names_of(t.creature_names);
             throw nb::value_error("names: unknown kind");
           },
           nb::arg("kind"),
           "The interned ids of one kind (skills, characteristics, reach, races, weapons, "
           "armour, items, equipment, spells, creatures), numbered by their place.");

  nb::class_<combatant::Roster>(module, "Roster",
                                "A battle's combatants in the engine, in scenario order.")
      .def("__init__",
           [](combatant::Roster* self, const CompiledContent& compiled, nb::handle combatants) {
             new (self) combatant::Roster(roster_from(compiled.tables, combatants));
           },
           nb::arg("compiled"), nb::arg("combatants"))
      .def("__len__", [](const combatant::Roster& self) { return self.combatants.size(); })
      .def("ids", [](const combatant::Roster& self) { return names_of(self.ids); },
           "Combatant ids: the roster's combatants first, then any other id they name.")
      .def("fields",
           [](const combatant::Roster& self, std::size_t index) {
             return fields_of(self, at(self, index));
           },
           nb::arg("index"), "Combatant `index`'s fields, as Combatant.to_dict() gives them.")
      .def("derived",
           [](const combatant::Roster& self, std::size_t index) {
             return derived_of(self, at(self, index));
           },
           nb::arg("index"), "Combatant `index`'s derived values (every one without arguments).")
      .def("skill",
           [](const combatant::Roster& self, std::size_t index, std::string_view name,
              std::optional<int> current_round, double factor, int points) {
             return at(self, index).skill(skill_id(self, name), current_round, factor, points);
           },
           nb::arg("index"), nb::arg("name"), nb::arg("current_round") = nb::none(),
           nb::arg("factor") = 1.0, nb::arg("points") = 0, "Combatant.skill (H3).")
      .def("skills",
           [](const combatant::Roster& self, std::size_t index, std::optional<int> current_round,
              double factor, int points) {
             const combatant::Combatant& c = at(self, index);
             nb::dict out;
             for (int id = 0; id < self.content->skill_names.size(); ++id) {
               out[name_of(self.content->skill_names.name(id))] =
                   c.skill(id, current_round, factor, points);
             }
             return out;
           },
           nb::arg("index"), nb::arg("current_round") = nb::none(), nb::arg("factor") = 1.0,
           nb::arg("points") = 0, "Combatant.skill of every ruleset skill, by name.");
}

}  // namespace fray::bindings
