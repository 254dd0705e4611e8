// The Python face of the engine's state (part of the module rules._native, registered by
// bindings.cpp; kept apart so each file stays readable): compiles a rules.content.Content
// into content.hpp's tables and rules.combatant.Combatant objects into combatant.hpp's,
// and reads back every field and derived value for rules/bridge/combatants.py and the tests.
#include <nanobind/nanobind.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "bindings_state.hpp"
#include "combatant.hpp"
#include "content.hpp"

namespace nb = nanobind;
namespace content = fray::content;
namespace combatant = fray::combatant;
using content::kNone;

namespace {

// ------------------------------------------------------------ Python values in

std::string_view text(nb::handle value, const std::string& where) {
  if (!PyUnicode_Check(value.ptr())) {
    throw nb::type_error((where + ": expected a string, got " + nb::repr(value).c_str()).c_str());
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
  if (data == nullptr) throw nb::python_error();
  return {data, static_cast<std::size_t>(size)};
}

int integer(nb::handle value, const std::string& where) {
  if (!PyLong_Check(value.ptr())) {
    throw nb::type_error((where + ": expected an integer, got " + nb::repr(value).c_str()).c_str());
  }
  int overflow = 0;
  const long long number = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow != 0 || number < INT32_MIN || number > INT32_MAX) {
    throw nb::value_error(
        (where + ": expected a 32-bit integer, got " + nb::repr(value).c_str()).c_str());
  }
  return static_cast<int>(number);
}

double real(nb::handle value, const std::string& where) {
  if (!PyFloat_Check(value.ptr()) && !PyLong_Check(value.ptr())) {
    throw nb::type_error((where + ": expected a number, got " + nb::repr(value).c_str()).c_str());
  }
  const double number = PyFloat_AsDouble(value.ptr());
  if (number == -1.0 && PyErr_Occurred()) throw nb::python_error();
  return number;
}

bool truth(nb::handle value, const std::string& where) {
  if (!PyBool_Check(value.ptr())) {
    throw nb::type_error((where + ": expected a bool, got " + nb::repr(value).c_str()).c_str());
  }
  return value.ptr() == Py_True;
}

// The number of a name in a fixed table of names (an enum), or a ValueError.
template <std::size_t N>
int choice(const std::array<std::string_view, N>& names, nb::handle value,
           const std::string& where) {
  const auto found = content::index_in(names, text(value, where));
  if (!found) {
    throw nb::value_error((where + ": unknown value " + nb::repr(value).c_str()).c_str());
  }
  return *found;
}

// The id of a name already interned in `names`, or a ValueError.
int known(const content::Names& names, nb::handle value, const std::string& where) {
  const int id = names.find(text(value, where));
  if (id == kNone) {
    throw nb::value_error((where + ": " + nb::repr(value).c_str() + " is not in the content").c_str());
  }
  return id;
}

// ------------------------------------------------------------ content

void compile_ruleset(nb::handle ruleset, content::Content& out) {
  content::Ruleset& r = out.ruleset;
  nb::object initiative = ruleset.attr("initiative");
  r.initiative.dex_bonus_base = integer(initiative.attr("dex_bonus_base"), "dex_bonus_base");
  r.initiative.dex_bonus_divisor =
      integer(initiative.attr("dex_bonus_divisor"), "dex_bonus_divisor");
  r.initiative.impaired_factor = real(initiative.attr("impaired_factor"), "impaired_factor");
  nb::object movement = ruleset.attr("movement");
  r.movement.move_divisor = integer(movement.attr("move_divisor"), "move_divisor");
  r.movement.min_mov = integer(movement.attr("min_mov"), "min_mov");
  r.movement.diagonal_costs.clear();
  for (nb::handle cost : movement.attr("diagonal_costs")) {
    r.movement.diagonal_costs.push_back(integer(cost, "diagonal_costs"));
  }
  if (r.movement.diagonal_costs.empty()) throw nb::value_error("diagonal_costs: empty");
  nb::object modifiers = ruleset.attr("modifiers");
  r.modifiers.long_range = integer(modifiers.attr("long_range"), "long_range");
  r.modifiers.long_range_factor = integer(modifiers.attr("long_range_factor"), "long_range_factor");
  r.torch_radius = integer(ruleset.attr("misc").attr("torch_radius"), "torch_radius");
  r.free_actions_per_turn = integer(ruleset.attr("misc").attr("free_actions_per_turn"),
                                    "free_actions_per_turn");
  nb::object encumbrance = ruleset.attr("encumbrance");
  r.encumbrance.str_offset = integer(encumbrance.attr("str_offset"), "str_offset");
  r.encumbrance.divisor = integer(encumbrance.attr("divisor"), "divisor");
  r.encumbrance.threshold_fraction =
      real(encumbrance.attr("threshold_fraction"), "threshold_fraction");
  r.encumbrance.factor = real(encumbrance.attr("factor"), "encumbrance.factor");
  nb::dict burden = nb::borrow<nb::dict>(ruleset.attr("burden"));
  for (std::size_t i = 0; i < content::kBurdenNames.size(); ++i) {
    const std::string name(content::kBurdenNames[i]);
    if (!burden.contains(name.c_str())) {
      throw nb::value_error(("ruleset.burden: no row " + name).c_str());
    }
    nb::handle row = burden[name.c_str()];
    r.burden[i].skill_factor = real(row.attr("skill_factor"), "burden.skill_factor");
    r.burden[i].mov_penalty = integer(row.attr("mov_penalty"), "burden.mov_penalty");
    r.burden[i].magic_fumble = integer(row.attr("magic_fumble"), "burden.magic_fumble");
  }
  nb::object fatigue = ruleset.attr("fatigue");
  r.fatigue.fatigued_factor = real(fatigue.attr("fatigued_factor"), "fatigued_factor");
  r.fatigue.exhausted_factor = real(fatigue.attr("exhausted_factor"), "exhausted_factor");
  for (auto [name, skill] : nb::borrow<nb::dict>(ruleset.attr("skills"))) {
    out.skill_names.intern(text(name, "ruleset.skills"));
    r.skills.push_back(
        {static_cast<content::SkillCategory>(
             choice(content::kSkillCategoryNames, skill.attr("category"), "skills.category")),
         integer(skill.attr("base"), "skills.base")});
  }
  for (nb::handle name : ruleset.attr("characteristics").attr("names")) {
    out.characteristic_names.intern(text(name, "characteristics.names"));
  }
  for (auto [letter, squares] : nb::borrow<nb::dict>(ruleset.attr("misc").attr("reach_squares"))) {
    out.reach_names.intern(text(letter, "misc.reach_squares"));
    r.reach_squares.push_back(integer(squares, "misc.reach_squares"));
  }
}

void compile_tables(nb::handle source, content::Content& out) {
  for (auto [id, race] : nb::borrow<nb::dict>(source.attr("races"))) {
    out.race_names.intern(text(id, "races"));
    out.races.push_back({integer(race.attr("mov"), "races.mov")});
  }
  for (auto [id, weapon] : nb::borrow<nb::dict>(source.attr("weapons"))) {
    const std::string_view name = text(id, "weapons");
    out.weapon_names.intern(name);
    content::Weapon row;
    row.equipment = out.equipment_names.intern(name);
    row.kind = static_cast<content::WeaponKind>(
        choice(content::kWeaponKindNames, weapon.attr("kind"), "weapons.kind"));
    row.skill = known(out.skill_names, weapon.attr("skill"), "weapons.skill");
    row.reach = known(out.reach_names, weapon.attr("reach"), "weapons.reach");
    row.natural = truth(weapon.attr("natural"), "weapons.natural");
    row.ap = integer(weapon.attr("ap"), "weapons.ap");
    row.weight = real(weapon.attr("weight"), "weapons.weight");
    row.hands = integer(weapon.attr("hands"), "weapons.hands");
    row.range = integer(weapon.attr("range"), "weapons.range");
    row.reload = static_cast<content::Reload>(
        choice(content::kReloadNames, weapon.attr("reload"), "weapons.reload"));
    row.parry = truth(weapon.attr("parry"), "weapons.parry");
    out.weapons.push_back(row);
  }
  for (auto [id, armour] : nb::borrow<nb::dict>(source.attr("armour"))) {
    const std::string_view name = text(id, "armour");
    out.armour_names.intern(name);
    content::Armour row;
    row.equipment = out.equipment_names.intern(name);
    row.slot = static_cast<content::ArmourSlot>(
        choice(content::kArmourSlotNames, armour.attr("slot"), "armour.slot"));
    row.ap = integer(armour.attr("ap"), "armour.ap");
    row.weight = real(armour.attr("weight"), "armour.weight");
    row.burden = static_cast<content::Burden>(
        choice(content::kBurdenNames, armour.attr("burden"), "armour.burden"));
    row.hands = integer(armour.attr("hands"), "armour.hands");
    nb::object skill = armour.attr("skill");
    row.skill = skill.is_none() ? kNone : known(out.skill_names, skill, "armour.skill");
    for (nb::handle impossible : armour.attr("impossible")) {
      row.impossible.push_back(known(out.skill_names, impossible, "armour.impossible"));
    }
    for (auto [skill_name, factor] : nb::borrow<nb::dict>(armour.attr("skill_factors"))) {
      row.skill_factors.emplace_back(known(out.skill_names, skill_name, "armour.skill_factors"),
                                     real(factor, "armour.skill_factors"));
    }
    out.armour.push_back(std::move(row));
  }
  for (auto [id, item] : nb::borrow<nb::dict>(source.attr("items"))) {
    const std::string_view name = text(id, "items");
    out.item_names.intern(name);
    out.items.push_back({out.equipment_names.intern(name), real(item.attr("weight"), "items.weight"),
                         integer(item.attr("hands"), "items.hands"),
                         static_cast<content::ItemKind>(
                             choice(content::kItemKindNames, item.attr("kind"), "items.kind")),
                         kNone});
  }
  for (auto [id, spell] : nb::borrow<nb::dict>(source.attr("spells"))) {
    out.spell_names.intern(text(id, "spells"));
    content::Spell row;
    row.casting = static_cast<content::SpellCasting>(
        choice(content::kSpellCastingNames, spell.attr("casting"), "spells.casting"));
    row.cost = integer(spell.attr("cost"), "spells.cost");
    row.range = integer(spell.attr("range"), "spells.range");
    row.effect = static_cast<content::SpellEffect>(
        choice(content::kSpellEffectNames, spell.attr("effect"), "spells.effect"));
    row.target = static_cast<content::SpellTarget>(
        choice(content::kSpellTargetNames, spell.attr("target"), "spells.target"));
    row.components = truth(spell.attr("components"), "spells.components");
    out.spells.push_back(row);
  }
  // What names other tables (looked up once every table is in, so no id is interned
  // early): a missile's ammunition (H16), a scroll's spell (H18).
  std::size_t row_number = 0;
  for (nb::handle weapon : nb::borrow<nb::dict>(source.attr("weapons")).values()) {
    nb::object ammo = weapon.attr("ammo");
    out.weapons[row_number++].ammo =
        ammo.is_none() ? kNone : out.equipment_names.find(text(ammo, "weapons.ammo"));
  }
  row_number = 0;
  for (nb::handle item : nb::borrow<nb::dict>(source.attr("items")).values()) {
    nb::object spell = item.attr("spell");
    out.items[row_number++].spell =
        spell.is_none() ? kNone : known(out.spell_names, spell, "items.spell");
  }
  for (nb::handle id : nb::borrow<nb::dict>(source.attr("creatures")).keys()) {
    out.creature_names.intern(text(id, "creatures"));
  }
}

// ------------------------------------------------------------ combatants

int optional_id(content::Names& names, nb::handle value, const std::string& where) {
  return value.is_none() ? kNone : names.intern(text(value, where));
}

combatant::ItemInstance item_from(nb::handle inst, const content::Content& tables,
                                  combatant::Roster& roster) {
  combatant::ItemInstance out;
  out.uid = roster.uids.intern(text(inst.attr("uid"), "inventory.uid"));
  out.item = known(tables.equipment_names, inst.attr("item"), "inventory.item");
  out.state = static_cast<combatant::ItemState>(
      choice(combatant::kItemStateNames, inst.attr("state"), "inventory.state"));
  out.count = integer(inst.attr("count"), "inventory.count");
  nb::object ap = inst.attr("ap");
  if (!ap.is_none()) out.ap = integer(ap, "inventory.ap");
  out.lit = truth(inst.attr("lit"), "inventory.lit");
  out.nocked = truth(inst.attr("nocked"), "inventory.nocked");
  out.loaded = truth(inst.attr("loaded"), "inventory.loaded");
  nb::object square = inst.attr("square");
  if (!square.is_none()) {
    out.square = combatant::Square{integer(square[0], "inventory.square"),
                                   integer(square[1], "inventory.square")};
  }
  return out;
}

std::optional<combatant::Casting> casting_from(nb::handle value, const content::Content& tables,
                                               combatant::Roster& roster) {
  if (value.is_none()) return std::nullopt;
  nb::dict casting = nb::borrow<nb::dict>(value);
  if (nb::len(casting) != 4) {
    throw nb::value_error("casting: expected the keys spell, target, done and round");
  }
  return combatant::Casting{known(tables.spell_names, casting["spell"], "casting.spell"),
                            optional_id(roster.ids, casting["target"], "casting.target"),
                            integer(casting["done"], "casting.done"),
                            integer(casting["round"], "casting.round")};
}

combatant::Combatant combatant_from(nb::handle py, combatant::Roster& roster) {
  const content::Content& tables = *roster.content;
  combatant::Combatant out;
  out.content = roster.content.get();
  out.id = roster.ids.intern(text(py.attr("id"), "id"));
  out.team = roster.teams.intern(text(py.attr("team"), "team"));
  out.creature = known(tables.creature_names, py.attr("creature"), "creature");
  out.name = roster.names.intern(text(py.attr("name"), "name"));
  out.race = known(tables.race_names, py.attr("race"), "race");
  out.characteristics.assign(static_cast<std::size_t>(tables.characteristic_names.size()),
                             combatant::kAbsent);
  for (auto [name, value] : nb::borrow<nb::dict>(py.attr("characteristics"))) {
    out.characteristics[static_cast<std::size_t>(
        known(tables.characteristic_names, name, "characteristics"))] =
        integer(value, "characteristics");
  }
  out.base_skills.assign(static_cast<std::size_t>(tables.skill_names.size()), combatant::kAbsent);
  for (auto [name, value] : nb::borrow<nb::dict>(py.attr("base_skills"))) {
    out.base_skills[static_cast<std::size_t>(known(tables.skill_names, name, "base_skills"))] =
        integer(value, "base_skills");
  }
  nb::object armour = py.attr("armour");
  out.armour = armour.is_none() ? kNone : known(tables.armour_names, armour, "armour");
  out.armour_training = static_cast<content::Burden>(
      choice(content::kBurdenNames, py.attr("armour_training"), "armour_training"));
  nb::object position = py.attr("position");
  out.position = {integer(position[0], "position"), integer(position[1], "position")};
  out.max_hp = integer(py.attr("max_hp"), "max_hp");
  out.hp = integer(py.attr("hp"), "hp");
  out.max_power_points = integer(py.attr("max_power_points"), "max_power_points");
  out.power_points = integer(py.attr("power_points"), "power_points");
  for (nb::handle spell : py.attr("spells")) {
    out.spells.push_back(known(tables.spell_names, spell, "spells"));
  }
  out.is_mount = truth(py.attr("is_mount"), "is_mount");
  out.snake = truth(py.attr("snake"), "snake");
  for (nb::handle inst : py.attr("inventory")) out.inventory.push_back(item_from(inst, tables, roster));
  out.prone = truth(py.attr("prone"), "prone");
  out.status = static_cast<combatant::Status>(
      choice(combatant::kStatusNames, py.attr("status"), "status"));
  out.fatigue_level = integer(py.attr("fatigue_level"), "fatigue_level");
  out.bleeding = truth(py.attr("bleeding"), "bleeding");
  for (nb::handle buff : py.attr("buffs")) {
    out.buffs.push_back({integer(buff[0], "buffs"), integer(buff[1], "buffs")});
  }
  out.grappled_by = optional_id(roster.ids, py.attr("grappled_by"), "grappled_by");
  out.riding = optional_id(roster.ids, py.attr("riding"), "riding");
  out.ridden_by = optional_id(roster.ids, py.attr("ridden_by"), "ridden_by");
  out.casting = casting_from(py.attr("casting"), tables, roster);
  out.components_ready = truth(py.attr("components_ready"), "components_ready");
  out.initiative = integer(py.attr("initiative"), "initiative");
  for (nb::handle used : py.attr("actions_used")) {
    out.actions_used.push_back(static_cast<fray::actions::Category>(
        choice(fray::actions::kCategoryNames, used, "actions_used")));
  }
  out.moved_this_round = truth(py.attr("moved_this_round"), "moved_this_round");
  out.shifted_this_round = truth(py.attr("shifted_this_round"), "shifted_this_round");
  out.diagonal_parity = integer(py.attr("diagonal_parity"), "diagonal_parity");
  out.free_attack_used = truth(py.attr("free_attack_used"), "free_attack_used");
  out.parries_used = integer(py.attr("parries_used"), "parries_used");
  out.extra_parries = integer(py.attr("extra_parries"), "extra_parries");
  out.dodge_waived = truth(py.attr("dodge_waived"), "dodge_waived");
  for (nb::handle used : py.attr("free_used")) {
    out.free_used.push_back(static_cast<fray::actions::ActionKind>(
        choice(fray::actions::ACTION_KIND_VALUES, used, "free_used")));
  }
  nb::object concentration = py.attr("concentration");
  out.concentration = concentration.is_none()
                          ? combatant::Concentration::none
                          : static_cast<combatant::Concentration>(choice(
                                combatant::kConcentrationNames, concentration, "concentration"));
  out.concentration_broken = truth(py.attr("concentration_broken"), "concentration_broken");
  return out;
}

}  // namespace

namespace fray::bindings {

std::shared_ptr<const content::Content> compile_content(nb::handle source) {
  auto out = std::make_shared<content::Content>();
  compile_ruleset(source.attr("ruleset"), *out);
  compile_tables(source, *out);
  try {
    out->finish();
  } catch (const std::out_of_range& error) {
    throw nb::value_error(error.what());
  }
  return out;
}

combatant::ItemInstance item_instance_from(nb::handle inst, combatant::Roster& roster) {
  return item_from(inst, *roster.content, roster);
}

combatant::Roster roster_from(std::shared_ptr<const content::Content> tables,
                              nb::handle combatants) {
  combatant::Roster roster;
  roster.content = std::move(tables);
  for (nb::handle py : combatants) {  // ids first: combatant i is id number i
    const std::string_view id = text(py.attr("id"), "id");
    if (roster.ids.find(id) != kNone) {
      throw nb::value_error(("roster: two combatants have the id " + std::string(id)).c_str());
    }
    roster.ids.intern(id);
  }
  for (nb::handle py : combatants) roster.combatants.push_back(combatant_from(py, roster));
  return roster;
}

}  // namespace fray::bindings
