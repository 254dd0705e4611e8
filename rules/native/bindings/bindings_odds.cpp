// The Python face of the native odds (odds_hit.hpp, odds_attack.hpp, odds_risk.hpp;
// registered by bindings.cpp): each public function of rules.odds over a native battle
// state (rules._native.BattleState with its BattleLoop and ApplyRules, as a native
// rules.Battle's driver holds them), answering with floats, ids and dicts shaped like the
// Python results; tests/native/glue/odds.py wraps them for a rules.Battle and
// tests/native/test_native_odds.py compares them with rules.odds' Fractions. Then the
// tactics_* functions: agents/tactics.py's scoring on the same odds (agents_tactics.hpp).
#include "bindings_odds.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string_view.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "battle.hpp"
#include "agents_tactics.hpp"
#include "bindings_battle.hpp"
#include "combat.hpp"
#include "odds_attack.hpp"
#include "odds_hit.hpp"
#include "odds_risk.hpp"

namespace nb = nanobind;

namespace fray::bindings {

namespace {

using content::kNone;
using odds::Defence;

// The odds' View of a native battle: its state, the map as its doors stand, the rules.
odds::View view_of(NativeBattle& battle, battle::BattleLoop& loop, const harm::ApplyRules& rules) {
  return {battle.state, loop.map_of(battle.state), rules};
}

// A combatant id's Roster number, or a KeyError.
int combatant_of(const NativeBattle& battle, std::string_view id) {
  const int number = battle.state.roster.ids.find(id);
  if (number == kNone || number >= static_cast<int>(battle.state.roster.combatants.size())) {
    throw nb::key_error(std::string(id).c_str());
  }
  return number;
}

// An item uid's Roster number (kNone for a uid the battle never saw: nobody holds it).
std::optional<int> item_of(const NativeBattle& battle, const std::optional<std::string_view>& uid) {
  if (!uid) return std::nullopt;
  return battle.state.roster.uids.find(*uid);
}

Defence defence_of(std::string_view name) {
  const std::optional<int> found = content::index_in(odds::kDefenceNames, name);
  if (!found) {
    throw nb::value_error(("defence: expected one of none, parry, dodge, both, got '" +
                           std::string(name) + "'").c_str());
  }
  return static_cast<Defence>(*found);
}

actions::ActionKind kind_of(std::string_view name) {
  const std::optional<int> found = content::index_in(actions::ACTION_KIND_NAMES, name);
  if (!found) throw nb::value_error(("unknown action kind '" + std::string(name) + "'").c_str());
  return static_cast<actions::ActionKind>(*found);
}

nb::object optional_int(const std::optional<int>& value) {
  return value ? nb::object(nb::int_(*value)) : nb::none();
}

// A Distribution as {value: probability}, zeros left out.
nb::dict distribution_dict(const odds::Distribution& dist) {
  nb::dict out;
  for (std::size_t i = 0; i < dist.probability.size(); ++i) {
    if (dist.probability[i] != 0.0) out[nb::int_(dist.lowest + static_cast<int>(i))] = dist.probability[i];
  }
  return out;
}

// rules.odds.AttackOdds as a dict (levels by SuccessLevel name; its properties included).
nb::dict attack_odds_dict(const odds::AttackOdds& found) {
  nb::dict levels;
  for (std::size_t i = 0; i < odds::kLevelCount; ++i) levels[roller::kLevelNames[i]] = found.levels[i];
  nb::dict out;
  out["chance"] = found.chance;
  out["levels"] = levels;
  out["damage"] = distribution_dict(found.damage);
  out["drops"] = found.drops;
  out["kills"] = found.kills;
  out["bleeds"] = found.bleeds;
  out["knocked_down"] = found.knocked_down;
  out["parry_chance"] = optional_int(found.parry_chance);
  out["dodge_chance"] = optional_int(found.dodge_chance);
  out["expected_damage"] = found.expected_damage();
  out["hit"] = found.hit();
  out["wounds"] = found.wounds();
  return out;
}

// rules.odds.Risk as a dict (provokers as a tuple of ids; expected_damage included).
nb::dict risk_dict(const NativeBattle& battle, const odds::Risk& risk) {
  nb::list provokers;
  for (const int number : risk.provokers) provokers.append(str_of(battle.state.roster.ids.name(number)));
  nb::dict out;
  out["provokers"] = nb::tuple(provokers);
  out["damage"] = distribution_dict(risk.damage);
  out["wounds"] = risk.wounds;
  out["drops"] = risk.drops;
  out["stops"] = risk.stops;
  out["expected_damage"] = risk.expected_damage();
  return out;
}

namespace tactics = agents::tactics;

// A square (x, y), or None for none.
std::optional<combatant::Square> optional_square(nb::handle value) {
  if (value.is_none()) return std::nullopt;
  return square_of(value, "square");
}

std::vector<combatant::Square> squares_of(nb::handle squares) {
  std::vector<combatant::Square> out;
  for (nb::handle square : squares) out.push_back(square_of(square, "squares"));
  return out;
}

nb::list ids_of(const NativeBattle& battle, const std::vector<int>& numbers) {
  nb::list out;
  for (const int number : numbers) out.append(str_of(battle.state.roster.ids.name(number)));
  return out;
}

// agents/tactics.py's helpers (agents_tactics.hpp), combatants by id.
void bind_tactics(nb::module_& module) {
#define FRAY_ODDS_ARGS NativeBattle &battle, battle::BattleLoop &loop, const harm::ApplyRules &rules
  module.def("tactics_best_attack", [](FRAY_ODDS_ARGS, nb::iterable strikes,
                                       std::optional<std::string_view> attacker) -> nb::object {
    // strikes: (kind name, target id, item uid or None) each; the best's index, value, odds
    std::vector<tactics::Strike> wanted;
    for (nb::handle strike : strikes) {
      nb::object item = strike[2];
      wanted.push_back({kind_of(text_of(strike[0], "kind")),
                        combatant_of(battle, text_of(strike[1], "target")),
                        item.is_none() ? kNone
                                       : battle.state.roster.uids.find(text_of(item, "item"))});
    }
    const std::optional<tactics::Scored> best = tactics::best_attack(
        view_of(battle, loop, rules), wanted, attacker ? combatant_of(battle, *attacker) : kNone);
    if (!best) return nb::none();
    std::size_t index = 0;
    while (&wanted[index] != &wanted.back() &&
           !(wanted[index].kind == best->strike.kind && wanted[index].target == best->strike.target &&
             wanted[index].item == best->strike.item)) {
      ++index;
    }
    return nb::make_tuple(index, best->value, attack_odds_dict(best->odds));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("strikes"),
  nb::arg("attacker").none() = nb::none(),
  "tactics.best_attack: (index of the best strike, its value, its odds dict), or None.");
  module.def("tactics_hypothetical_melee", [](FRAY_ODDS_ARGS, std::string_view combatant,
                                              std::string_view target) -> nb::object {
    const std::optional<tactics::Scored> best = tactics::hypothetical_melee(
        view_of(battle, loop, rules), combatant_of(battle, combatant), combatant_of(battle, target));
    if (!best) return nb::none();
    return nb::make_tuple(str_of(battle.state.roster.uids.name(best->strike.item)), best->value,
                          attack_odds_dict(best->odds));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("combatant"), nb::arg("target"),
  "tactics.hypothetical_melee: (item uid, value, odds dict), or None.");
  module.def("tactics_threats", [](FRAY_ODDS_ARGS, std::string_view combatant, nb::handle square) {
    // (enemies_of, allies_of, threatened_by square or its own, incoming, my_turn_done)
    const odds::View view = view_of(battle, loop, rules);
    const int me = combatant_of(battle, combatant);
    const combatant::Square where = optional_square(square).value_or(view.at(me).position);
    return nb::make_tuple(ids_of(battle, tactics::enemies_of(view, me)),
                          ids_of(battle, tactics::allies_of(view, me)),
                          ids_of(battle, tactics::threatened_by(view, me, where)),
                          tactics::incoming(view, me, optional_square(square)),
                          tactics::my_turn_done(view, me));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("combatant"),
  nb::arg("square").none() = nb::none(),
  "tactics' enemies_of, allies_of, threatened_by, incoming and my_turn_done at once.");
  module.def("tactics_reaches", [](FRAY_ODDS_ARGS, std::string_view combatant, nb::handle square,
                                   std::string_view target) {
    return tactics::reaches(view_of(battle, loop, rules), combatant_of(battle, combatant),
                            square_of(square, "square"), combatant_of(battle, target));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("combatant"), nb::arg("square"),
  nb::arg("target"), "tactics.reaches.");
  module.def("tactics_route_costs", [](FRAY_ODDS_ARGS, std::string_view combatant,
                                       nb::iterable squares, bool full) {
    nb::list keys;
    for (nb::handle square : squares) keys.append(square);
    const std::vector<std::pair<int, double>> found = tactics::route_costs(
        view_of(battle, loop, rules), combatant_of(battle, combatant), squares_of(keys), full);
    nb::dict out;
    for (std::size_t i = 0; i < found.size(); ++i) {
      out[keys[i]] = nb::make_tuple(found[i].first, found[i].second);
    }
    return out;
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("combatant"), nb::arg("squares"),
  nb::arg("full") = false, "tactics.route_costs: {square: (provokers, cost)}.");
  module.def("tactics_provoke_cost", [](FRAY_ODDS_ARGS, std::string_view combatant) {
    return tactics::provoke_cost(view_of(battle, loop, rules), combatant_of(battle, combatant));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("combatant"),
  "tactics.provoke_cost.");
  module.def("tactics_spell_value", [](FRAY_ODDS_ARGS, std::string_view caster,
                                       std::string_view spell, std::string_view target) {
    const odds::View view = view_of(battle, loop, rules);
    const int id = view.content().spell_names.find(spell);
    if (id == kNone) throw nb::key_error(std::string(spell).c_str());
    return tactics::spell_value(view, combatant_of(battle, caster), id,
                                combatant_of(battle, target));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("caster"), nb::arg("spell"),
  nb::arg("target"), "tactics.spell_value.");
  module.def("tactics_manoeuvre_chance", [](FRAY_ODDS_ARGS, std::string_view combatant,
                                            std::string_view kind, std::string_view target) {
    return tactics::manoeuvre_chance(view_of(battle, loop, rules), combatant_of(battle, combatant),
                                     kind_of(kind), combatant_of(battle, target));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("combatant"), nb::arg("kind"),
  nb::arg("target"), "tactics.manoeuvre_chance (kind: TRIP or GRAPPLE).");
#undef FRAY_ODDS_ARGS
}

#define FRAY_ODDS_ARGS NativeBattle &battle, battle::BattleLoop &loop, const harm::ApplyRules &rules
// rules.odds' hit odds: dice distributions, an attack's odds, the defences' chances, the
// pending hit.
void bind_hit_odds(nb::module_& module) {
  // rules.odds.dice_distribution: a Dice given as its (sign, count, sides) terms and constant.
  module.def("odds_dice_distribution", [](nb::iterable terms, int constant) {
    roller::Dice dice;
    dice.constant = constant;
    for (nb::handle term : terms) {
      dice.terms.push_back({nb::cast<int>(term[0]), nb::cast<int>(term[1]), nb::cast<int>(term[2])});
    }
    return distribution_dict(odds::dice_distribution(dice));
  }, nb::arg("terms"), nb::arg("constant"), "rules.odds.dice_distribution as {total: float}.");

  module.def("odds_attack", [](FRAY_ODDS_ARGS, std::string_view kind, std::string_view target,
                               std::optional<std::string_view> item, std::string_view defence,
                               std::optional<std::string_view> parry_item,
                               std::optional<std::string_view> attacker) {
    const odds::View view = view_of(battle, loop, rules);
    const std::optional<int> weapon = item_of(battle, item);
    return attack_odds_dict(odds::attack_odds(
        view, kind_of(kind), combatant_of(battle, target), weapon.value_or(kNone),
        defence_of(defence), item_of(battle, parry_item),
        attacker ? combatant_of(battle, *attacker) : kNone));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("kind"), nb::arg("target"),
  nb::arg("item").none(), nb::arg("defence") = "none", nb::arg("parry_item").none() = nb::none(),
  nb::arg("attacker").none() = nb::none(),
  "rules.odds.attack_odds for the action (kind name, target id, item uid) as a dict.");

  module.def("odds_attack_chance", [](FRAY_ODDS_ARGS, std::string_view attacker,
                                      std::string_view target, std::string_view skill,
                                      bool missile, int points) {
    const odds::View view = view_of(battle, loop, rules);
    return combat::attack_chance(view.query(), rules, combatant_of(battle, attacker),
                                 combatant_of(battle, target),
                                 view.content().skill_names.find(skill), missile, points);
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("attacker"), nb::arg("target"),
  nb::arg("skill"), nb::arg("missile"), nb::arg("points"), "rules.odds.attack_chance.");

  module.def("odds_parry_options", [](FRAY_ODDS_ARGS, std::string_view defender, bool missile) {
    nb::dict out;
    const odds::View view = view_of(battle, loop, rules);
    for (const odds::ParryOption& option : odds::parry_options(view, combatant_of(battle, defender), missile)) {
      out[str_of(battle.state.roster.uids.name(option.uid))] = nb::make_tuple(option.chance, option.ap);
    }
    return out;
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("defender"), nb::arg("missile"),
  "rules.odds.parry_options: {item uid: (parry chance, AP)}.");

  module.def("odds_dodge_chance", [](FRAY_ODDS_ARGS, std::string_view defender) {
    return optional_int(odds::dodge_chance(view_of(battle, loop, rules), combatant_of(battle, defender)));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("defender"),
  "rules.odds.dodge_chance: the dodge skill, or None.");

  module.def("odds_pending_attack", [](FRAY_ODDS_ARGS) -> nb::object {
    const events::AttackRolled* hit = odds::pending_attack(view_of(battle, loop, rules));
    if (hit == nullptr) return nb::none();
    const actions::NameTable& names = battle.names().names();
    nb::dict out;
    out["attacker"] = str_of(names.text(hit->attacker));
    out["target"] = str_of(names.text(hit->target));
    out["weapon"] = str_of(names.text(hit->weapon));
    out["mode"] = str_of(names.text(hit->mode));
    out["chance"] = hit->chance;
    out["roll"] = hit->roll;
    out["level"] = str_of(names.text(hit->level));
    return out;
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"),
  "rules.odds.pending_attack: the AttackRolled's fields as a dict, or None.");

  module.def("odds_pending_hit", [](FRAY_ODDS_ARGS, std::string_view defence,
                                    std::optional<std::string_view> parry_item) {
    return attack_odds_dict(odds::pending_hit_odds(view_of(battle, loop, rules), defence_of(defence),
                                                   item_of(battle, parry_item)));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("defence"),
  nb::arg("parry_item").none() = nb::none(), "rules.odds.pending_hit_odds as a dict.");
}

// rules.odds' risks: the Free Attacks a move or an action provokes.
void bind_risks(nb::module_& module) {
  module.def("odds_free_attack_risk", [](FRAY_ODDS_ARGS, std::string_view mover,
                                         nb::iterable enemies, std::string_view defence) {
    std::vector<int> numbers;
    for (nb::handle id : enemies) numbers.push_back(combatant_of(battle, text_of(id, "enemies")));
    return risk_dict(battle, odds::free_attack_risk(view_of(battle, loop, rules),
                                                    combatant_of(battle, mover), numbers,
                                                    defence_of(defence)));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("mover"), nb::arg("enemies"),
  nb::arg("defence") = "none", "rules.odds.free_attack_risk as a dict.");

  module.def("odds_route_risks", [](FRAY_ODDS_ARGS, std::string_view mover, nb::iterable squares,
                                    bool full, std::string_view defence) {
    std::vector<combatant::Square> wanted;
    nb::list keys;
    for (nb::handle square : squares) {
      wanted.push_back(square_of(square, "squares"));
      keys.append(square);
    }
    const std::vector<odds::Risk> found = odds::route_risks(
        view_of(battle, loop, rules), combatant_of(battle, mover), wanted, full, defence_of(defence));
    nb::dict out;
    for (std::size_t i = 0; i < found.size(); ++i) out[keys[i]] = risk_dict(battle, found[i]);
    return out;
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("mover"), nb::arg("squares"),
  nb::arg("full") = false, nb::arg("defence") = "none",
  "rules.odds.route_risks: {square: risk dict}.");

  module.def("odds_action_risk", [](FRAY_ODDS_ARGS, std::string_view mover, std::string_view defence) {
    return risk_dict(battle, odds::action_risk(view_of(battle, loop, rules),
                                               combatant_of(battle, mover), defence_of(defence)));
  }, nb::arg("state"), nb::arg("loop"), nb::arg("rules"), nb::arg("mover"),
  nb::arg("defence") = "none", "rules.odds.action_risk as a dict.");
}
#undef FRAY_ODDS_ARGS

}  // namespace

void bind_odds(nb::module_& module) {
  bind_hit_odds(module);
  bind_risks(module);
  bind_tactics(module);
}

}  // namespace fray::bindings
