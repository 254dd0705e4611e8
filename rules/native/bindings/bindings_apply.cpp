// The Python face of the native step (harm.hpp, ...; registered by bindings.cpp): the
// ruleset numbers the step reads (ApplyRules, compiled from a Python ruleset) and each
// rules function on a native BattleState, for rules/bridge/battle_state.py and the differential
// tests.
#include "bindings_apply.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bindings_battle.hpp"
#include "invariants.hpp"
#include "battle.hpp"
#include "combat.hpp"
#include "effects.hpp"
#include "harm.hpp"
#include "legal.hpp"
#include "roller.hpp"

namespace nb = nanobind;

namespace fray::bindings {

namespace {

int attr_int(nb::handle owner, const char* name) { return nb::cast<int>(owner.attr(name)); }

roller::Dice dice_of(nb::handle dice) {
  roller::Dice out;
  out.constant = attr_int(dice, "constant");
  for (nb::handle term : dice.attr("terms")) {
    nb::tuple parts = nb::cast<nb::tuple>(term);
    out.terms.push_back({nb::cast<int>(parts[0]), nb::cast<int>(parts[1]), nb::cast<int>(parts[2])});
  }
  return out;
}

harm::ApplyRules rules_of(nb::handle python_content, const content::Content& tables) {
  harm::ApplyRules out;
  nb::handle ruleset = python_content.attr("ruleset");
  out.initiative_die = dice_of(ruleset.attr("initiative").attr("die"));
  nb::handle success = ruleset.attr("success");
  out.success = {attr_int(success, "critical_divisor"), attr_int(success, "special_divisor"),
                 attr_int(success, "success_cap"), attr_int(success, "auto_success_max"),
                 attr_int(success, "auto_fail_min"), attr_int(success, "fumble_divisor")};
  nb::handle resistance = ruleset.attr("resistance");
  out.resistance_base = attr_int(resistance, "base");
  out.resistance_step = attr_int(resistance, "step");
  out.out_of_action_at = attr_int(ruleset.attr("hit_points"), "out_of_action_at");
  nb::handle fatigue = ruleset.attr("fatigue");
  out.fatigue_con_multiplier = attr_int(fatigue, "con_multiplier");
  out.fatigue_rounds_per_check = attr_int(fatigue, "rounds_per_check");
  out.rest_rounds_fatigued = attr_int(fatigue, "rest_rounds_fatigued");
  out.rest_rounds_exhausted = attr_int(fatigue, "rest_rounds_exhausted");
  nb::handle falling = ruleset.attr("falling");
  out.falling_die = dice_of(falling.attr("die"));
  out.feet_per_die = attr_int(falling, "feet_per_die");
  out.falling_skill_reduction = dice_of(falling.attr("skill_reduction"));
  for (nb::handle skill : falling.attr("reduction_skills")) {
    out.falling_reduction_skills.push_back(nb::cast<std::string>(skill));
  }
  nb::handle defence = ruleset.attr("defence");
  out.parry_special_factor = attr_int(defence, "parry_special_factor");
  out.parry_wear = attr_int(defence, "parry_wear");
  out.dodge_success_reduction = attr_int(defence, "dodge_success_reduction");
  out.dodge_special_reduction = attr_int(defence, "dodge_special_reduction");
  out.parries_per_round = attr_int(defence, "parries_per_round");
  out.fight_defensively_extra_parries = attr_int(defence, "fight_defensively_extra_parries");
  nb::handle modifiers = ruleset.attr("modifiers");
  out.prone_target_melee = attr_int(modifiers, "prone_target_melee");
  out.prone_attacker_melee = attr_int(modifiers, "prone_attacker_melee");
  out.prone_target_missile = attr_int(modifiers, "prone_target_missile");
  out.full_attack = attr_int(modifiers, "full_attack");
  out.dark_factor = nb::cast<double>(modifiers.attr("dark_factor"));
  nb::handle poison = ruleset.attr("poison");
  out.poison_con_multiplier = attr_int(poison, "con_multiplier");
  out.poison_snake_con_multiplier = attr_int(poison, "snake_con_multiplier");
  nb::handle bonus = ruleset.attr("damage_bonus");
  for (nb::handle row : bonus.attr("table")) {
    out.damage_bonus_table.push_back({attr_int(row, "max"), dice_of(row.attr("dice"))});
  }
  out.damage_bonus_step = attr_int(bonus, "step");
  out.damage_bonus_extra = dice_of(bonus.attr("extra"));
  nb::handle misc = ruleset.attr("misc");
  out.unarmed_damage = dice_of(misc.attr("unarmed_damage"));
  for (nb::handle kind : misc.attr("damage_bonus_applies_to")) {
    out.damage_bonus_applies_to.push_back(nb::cast<std::string>(kind));
  }
  out.bleed_per_round = attr_int(misc, "bleed_per_round");
  out.first_aid_heal = dice_of(misc.attr("first_aid_heal"));
  out.failed_cast_cost = attr_int(misc, "failed_cast_cost");
  nb::handle weapons = python_content.attr("weapons");
  for (const std::string& name : tables.weapon_names.all()) {
    nb::handle weapon = weapons[nb::str(name.data(), name.size())];
    harm::WeaponDamage row;
    row.damage = dice_of(weapon.attr("damage"));
    const std::string type = nb::cast<std::string>(weapon.attr("damage_type"));
    row.type = type == "slash" ? harm::DamageType::slash
               : type == "impale" ? harm::DamageType::impale : harm::DamageType::crush;
    row.thrown = nb::cast<bool>(weapon.attr("thrown"));
    nb::object venom = weapon.attr("poison");
    if (!venom.is_none()) {
      row.poisoned = true;
      row.poison_damage = dice_of(venom.attr("damage"));
      row.poison_snake = nb::cast<bool>(venom.attr("snake"));
    }
    out.weapons.push_back(std::move(row));
  }
  nb::handle spells = python_content.attr("spells");
  for (const std::string& name : tables.spell_names.all()) {
    nb::handle spell = spells[nb::str(name.data(), name.size())];
    harm::SpellExtra row;
    row.rounds = attr_int(spell, "rounds");
    nb::object dice = spell.attr("dice");
    row.has_dice = !dice.is_none();
    if (row.has_dice) row.dice = dice_of(dice);
    row.modifier = attr_int(spell, "modifier");
    row.duration = attr_int(spell, "duration");
    row.provokes = nb::cast<bool>(spell.attr("provokes"));
    row.ignores_armour = nb::cast<bool>(spell.attr("ignores_armour"));
    out.spells.push_back(std::move(row));
  }
  nb::handle items = python_content.attr("items");
  for (const std::string& name : tables.item_names.all()) {
    nb::object heal = items[nb::str(name.data(), name.size())].attr("heal");
    out.item_heal.push_back(heal.is_none() ? std::nullopt : std::optional<roller::Dice>(dice_of(heal)));
  }
  return out;
}

// A Roster number of a combatant id, or a KeyError.
int number_of(const NativeBattle& battle, std::string_view id) {
  const int number = battle.state.roster.ids.find(id);
  if (number == content::kNone || number >= static_cast<int>(battle.state.roster.combatants.size())) {
    throw nb::key_error(std::string(id).c_str());
  }
  return number;
}

harm::Context context_of(NativeBattle& battle, const legal::LegalMap& map,
                         const harm::ApplyRules& rules) {
  return harm::Context{battle.state, map.grid, battle.names().names(), rules};
}

frames::AttackFrame attack_frame(NativeBattle& battle, nb::handle data) {
  frames::Frame frame = frame_from(data, battle.state.roster, battle.names());
  auto* attack = std::get_if<frames::AttackFrame>(&frame);
  if (attack == nullptr) throw nb::value_error("expected an attack frame");
  return *attack;
}

// The engine's errors as rules.errors' (ForcedDiceError, InvariantViolation).
void bind_errors() {
  static nb::object forced_error = nb::module_::import_("rules.errors").attr("ForcedDiceError");
  nb::register_exception_translator([](const std::exception_ptr& pointer, void*) {
    try {
      std::rethrow_exception(pointer);
    } catch (const roller::ForcedDiceError& error) {
      PyErr_SetString(forced_error.ptr(), error.what());
    } catch (const invariants::Broken& error) {
      nb::object violation = nb::module_::import_("rules.errors").attr("InvariantViolation");
      PyErr_SetObject(violation.ptr(), violation(error.name(), error.what()).ptr());
    }
  });
}

// harm::ApplyRules: the ruleset numbers the native step reads.
void bind_rules(nb::module_& module) {
  nb::class_<harm::ApplyRules>(module, "ApplyRules",
                               "The ruleset numbers the native step reads (harm.hpp).")
      .def("__init__", [](harm::ApplyRules* self, nb::handle content, const NativeBattle& battle) {
        new (self) harm::ApplyRules(rules_of(content, *battle.state.roster.content));
      }, nb::arg("content"), nb::arg("state"),
      "From a rules.content.Content and a native state built with it (its weapon table order).");

}

// rules.harm, function by function (the differential tests' entry points).
void bind_harm(nb::module_& module) {
  // rules.harm, function by function: (state, map, rules, combatant id, arguments...).
#define FRAY_HARM_ARGS NativeBattle &battle, const legal::LegalMap &map, const harm::ApplyRules &rules
  module.def("harm_roll_skill",
             [](FRAY_HARM_ARGS, std::string_view actor, std::string_view skill,
                std::string_view purpose, double factor, int points, int extra_fumble) {
               harm::Context context = context_of(battle, map, rules);
               return static_cast<int>(harm::roll_skill(context, number_of(battle, actor), skill,
                                                        purpose, factor, points, extra_fumble));
             });
  module.def("harm_roll_under", [](FRAY_HARM_ARGS, std::string_view actor, int chance,
                                   std::string_view purpose) {
    harm::Context context = context_of(battle, map, rules);
    return harm::roll_under(context, number_of(battle, actor), chance, purpose);
  });
  module.def("harm_resist", [](FRAY_HARM_ARGS, std::string_view actor, int active, int passive,
                               std::string_view purpose) {
    harm::Context context = context_of(battle, map, rules);
    return harm::resist(context, number_of(battle, actor), active, passive, purpose);
  });
  module.def("harm_set_prone", [](FRAY_HARM_ARGS, std::string_view who, std::string_view cause) {
    harm::Context context = context_of(battle, map, rules);
    harm::set_prone(context, number_of(battle, who), cause);
  });
  module.def("harm_unseat", [](FRAY_HARM_ARGS, std::string_view who) {
    harm::Context context = context_of(battle, map, rules);
    return harm::unseat(context, number_of(battle, who));
  });
  module.def("harm_lose_hp", [](FRAY_HARM_ARGS, std::string_view who, int amount,
                                std::string_view cause, bool log) {
    harm::Context context = context_of(battle, map, rules);
    harm::lose_hp(context, number_of(battle, who), amount, cause, log);
  });
  module.def("harm_deal_damage",
             [](FRAY_HARM_ARGS, std::string_view attacker, std::string_view target, int damage,
                std::string_view cause, int rolled, std::vector<std::int32_t> dice, int parried,
                int dodged, int armour, std::string effect) {
               harm::Context context = context_of(battle, map, rules);
               harm::DamageRecord record{rolled, std::move(dice), parried, dodged, armour,
                                         std::move(effect)};
               harm::deal_damage(context, number_of(battle, attacker), number_of(battle, target),
                                 damage, cause, record);
             });
  module.def("harm_kill", [](FRAY_HARM_ARGS, std::string_view who, std::string_view cause) {
    harm::Context context = context_of(battle, map, rules);
    harm::kill(context, number_of(battle, who), cause);
  });
  module.def("harm_heal", [](FRAY_HARM_ARGS, std::string_view who, int amount,
                             std::string_view cause) {
    harm::Context context = context_of(battle, map, rules);
    harm::heal(context, number_of(battle, who), amount, cause);
  });
  module.def("harm_release_grapples_by", [](FRAY_HARM_ARGS, std::string_view who) {
    harm::Context context = context_of(battle, map, rules);
    harm::release_grapples_by(context, number_of(battle, who));
  });
  module.def("harm_drop_item", [](FRAY_HARM_ARGS, std::string_view who, std::string_view uid,
                                  std::string_view cause) {
    harm::Context context = context_of(battle, map, rules);
    const int number = battle.state.roster.uids.find(uid);
    if (number == content::kNone) return;  // not held: nothing to drop (as Python)
    harm::drop_item(context, number_of(battle, who), number, cause);
  });
  module.def("harm_fatigue_check", [](FRAY_HARM_ARGS, std::string_view who) {
    harm::Context context = context_of(battle, map, rules);
    harm::fatigue_check(context, number_of(battle, who));
  });
  module.def("harm_recover", [](FRAY_HARM_ARGS, std::string_view who, int rounds) {
    harm::Context context = context_of(battle, map, rules);
    harm::recover(context, number_of(battle, who), rounds);
  });
  module.def("harm_fall", [](FRAY_HARM_ARGS, std::string_view who, int depth_ft) {
    harm::Context context = context_of(battle, map, rules);
    harm::fall(context, number_of(battle, who), depth_ft);
  });
  module.def("harm_break_concentration", [](FRAY_HARM_ARGS, std::string_view who) {
    harm::Context context = context_of(battle, map, rules);
    harm::break_concentration(context, number_of(battle, who));
  });

}

// rules.combat on an attack frame given as frame_to_dict's dict.
void bind_combat(nb::module_& module) {
  // rules.combat on an AttackFrame given as frame_to_dict's dict: (result, the frame after).
  module.def("combat_roll_attack", [](FRAY_HARM_ARGS, nb::handle data) {
    harm::Context context = context_of(battle, map, rules);
    frames::AttackFrame frame = attack_frame(battle, data);
    const bool hit = combat::roll_attack(context, frame);
    return nb::make_tuple(hit, frame_dict(frame, battle.state.roster, battle.names()));
  });
  module.def("combat_roll_parry", [](FRAY_HARM_ARGS, nb::handle data, std::string_view item) {
    harm::Context context = context_of(battle, map, rules);
    frames::AttackFrame frame = attack_frame(battle, data);
    combat::roll_parry(context, frame, battle.state.roster.uids.find(item));
    return frame_dict(frame, battle.state.roster, battle.names());
  });
  module.def("combat_roll_dodge", [](FRAY_HARM_ARGS, nb::handle data, nb::handle square) {
    harm::Context context = context_of(battle, map, rules);
    frames::AttackFrame frame = attack_frame(battle, data);
    std::optional<combatant::Square> to;
    if (!square.is_none()) to = square_of(square, "square");
    combat::roll_dodge(context, frame, to);
    return frame_dict(frame, battle.state.roster, battle.names());
  }, nb::arg("state"), nb::arg("map"), nb::arg("rules"), nb::arg("frame"), nb::arg("square").none());
  module.def("combat_settled", [](NativeBattle& battle, nb::handle data) {
    return combat::settled(attack_frame(battle, data));
  });
  module.def("combat_resolve", [](FRAY_HARM_ARGS, nb::handle data) {
    harm::Context context = context_of(battle, map, rules);
    frames::AttackFrame frame = attack_frame(battle, data);
    combat::resolve(context, frame);
    return frame_dict(frame, battle.state.roster, battle.names());
  });

}

// Battle.apply(action, reason) without the legality check: `reason`, a Reasoned event
// or None, is logged first; the new events, as rules.events objects.
nb::list apply_action(NativeBattle& battle, battle::BattleLoop& loop, const harm::ApplyRules& rules,
                      nb::handle action, nb::handle reason) {
  const actions::Action record = battle.names().action_from(action);
  const std::size_t start = battle.state.events.size();
  if (!reason.is_none()) battle.state.events.push_back(battle.names().event_from(reason));
  try {
    loop.apply(battle.state, battle.names().names(), rules, record);
  } catch (const frames::IllegalAnswer& error) {
    static nb::object illegal = nb::module_::import_("rules.errors").attr("IllegalActionError");
    PyErr_SetString(illegal.ptr(), error.what());
    throw nb::python_error();
  }
  nb::list out;
  for (std::size_t i = start; i < battle.state.events.size(); ++i) {
    out.append(battle.names().event_to(battle.state.events[i]));
  }
  return out;
}

// Battle(scenario, seed).__init__ from roll_initiative on (battle::start_battle), from
// the state rules.bridge.start.start_template mustered: a new BattleState sharing
// its records, its header with "seed" set to `seed`.
NativeBattle start_battle(const NativeBattle& muster, nb::handle seed, battle::BattleLoop& loop,
                          const harm::ApplyRules& rules, std::string_view scenario) {
  if (muster.state.events.size() != 0 || muster.state.decision || !muster.state.stack.empty()) {
    throw nb::value_error("battle_start: expected a mustered state (no events, no decision; "
                          "rules.bridge.start.start_template builds one)");
  }
  const std::vector<std::uint32_t> words = seed_words(seed);
  records::Records& records = muster.names();
  PyObject* copied = PyDict_Copy(muster.header.ptr());
  if (copied == nullptr) throw nb::python_error();
  nb::dict header = nb::steal<nb::dict>(copied);
  header["seed"] = seed;
  return NativeBattle{muster.records_object, &records, std::move(header),
                      battle::start_battle(muster.state, words, loop, records.names(), rules,
                                           scenario)};
}

// Play on with a uniform policy over the legal actions (a native Pcg64 seeded with
// `seed`, drawing as numpy's default_rng(seed).integers(0, n) does), all in C++; with
// `check`, the bodies after every event and the bounds after every decision
// (invariants.hpp). The decisions made.
int random_play(NativeBattle& battle, battle::BattleLoop& loop, const harm::ApplyRules& rules,
                std::uint32_t seed, int max_decisions, bool check) {
  const std::array<std::uint32_t, 1> entropy{seed};
  dice::Pcg64 chooser = dice::Pcg64::from_seed(entropy);
  const bool watching = loop.watch;
  loop.watch = watching || check;
  int made = 0;
  try {
    while (battle.state.decision && !battle.state.is_over && made < max_decisions) {
      const std::vector<actions::Action> found =
          legal::actions_for(battle.state, loop.map_of(battle.state), battle.names().names());
      if (found.empty()) {
        throw invariants::Broken("legal-non-empty", "no legal action for the pending decision");
      }
      const auto pick = static_cast<std::size_t>(
          chooser.integers(0, static_cast<std::int64_t>(found.size())));
      loop.apply(battle.state, battle.names().names(), rules, found[pick]);
      ++made;
      if (check) invariants::check_bounds(battle.state, rules.out_of_action_at, loop.max_rounds());
    }
  } catch (...) {
    loop.watch = watching;
    throw;
  }
  loop.watch = watching;
  return made;
}

// rules.battle's loop: BattleLoop, apply, start, legal actions, random play.
void bind_loop(nb::module_& module) {
  // rules.battle's loop: apply an action and run to the next decision (battle.hpp).
  nb::class_<battle::BattleLoop>(module, "BattleLoop",
                                 "rules.battle's apply and run loop over one scenario's map.")
      .def("__init__", [](battle::BattleLoop* self, const legal::LegalMap& map, int max_rounds) {
        new (self) battle::BattleLoop(map.grid, map.graph.costs(), max_rounds);
      }, nb::arg("map"), nb::arg("max_rounds"))
      .def_rw("watch", &battle::BattleLoop::watch,
              "Check the bodies after every event (invariants.hpp): a broken invariant "
              "raises rules.errors.InvariantViolation.");
  module.def("battle_apply", &apply_action, nb::arg("state"), nb::arg("loop"), nb::arg("rules"),
  nb::arg("action"), nb::arg("reason") = nb::none(),
  "Battle.apply(action, reason) without the legality check, on the native state: the new "
  "events.");
  module.def("battle_start", &start_battle, nb::arg("template"), nb::arg("seed"), nb::arg("loop"),
  nb::arg("rules"), nb::arg("scenario"),
  "Battle(scenario, seed)'s native state, started from the mustered `template` "
  "(rules.bridge.start.start_template) with `loop` and `rules` of the same scenario and "
  "content; `scenario`: the scenario's name (BattleStarted.scenario).");
  module.def("listed", [](nb::list items, nb::handle item) {
    // Battle._is_listed: whether `item` is one of the very objects in `items` (identity).
    for (nb::handle each : items) {
      if (each.ptr() == item.ptr()) return true;
    }
    return false;
  }, nb::arg("items"), nb::arg("item").none(), "Whether item is one of the objects in items (is).");
  module.def("battle_legal_actions", [](NativeBattle& battle, battle::BattleLoop& loop) {
    if (!battle.state.decision || battle.state.is_over) return nb::list();
    const std::vector<actions::Action> found =
        legal::actions_for(battle.state, loop.map_of(battle.state), battle.names().names());
    nb::list out;
    for (const actions::Action& action : found) out.append(battle.names().action_to(action));
    return out;
  }, nb::arg("state"), nb::arg("loop"));
  module.def("events_since", [](NativeBattle& battle, std::size_t start) {
    nb::list out;
    for (std::size_t i = start; i < battle.state.events.size(); ++i) {
      out.append(battle.names().event_dict(battle.state.events[i]));
    }
    return out;
  }, nb::arg("state"), nb::arg("start"), "event_to_dict of every event from index `start` on.");
  module.def("battle_random_play", &random_play, nb::arg("state"), nb::arg("loop"),
  nb::arg("rules"), nb::arg("seed"), nb::arg("max_decisions"), nb::arg("check") = false);

}

// rules.effects.apply_effect and rules.frames' answer-and-step.
void bind_steps(nb::module_& module) {
  // rules.effects.apply_effect(state, actor, action, frame) (the frame is not read).
  module.def("effects_apply", [](FRAY_HARM_ARGS, std::string_view actor, nb::handle action) {
    harm::Context context = context_of(battle, map, rules);
    effects::apply_effect(context, number_of(battle, actor), battle.names().action_from(action));
  });

  // rules.frames: the top frame's answer to the pending reaction decision, then its steps
  // while an offer or attack frame is on top, until one asks for a decision (returned as
  // (kind value, actor, source)) or none is left on top (None).
  module.def("frames_answer_and_step", [](FRAY_HARM_ARGS, nb::handle action) -> nb::object {
    harm::Context context = context_of(battle, map, rules);
    const actions::Action record = battle.names().action_from(action);
    try {
      frames::answer_top(context, record);
      while (!battle.state.stack.empty() &&
             (std::holds_alternative<frames::OfferFrame>(battle.state.stack.back()) ||
              std::holds_alternative<frames::AttackFrame>(battle.state.stack.back()))) {
        const std::optional<frames::Asked> asked = frames::step_top(context);
        if (asked) {
          const auto& roster = battle.state.roster;
          return nb::make_tuple(
              str_of(actions::DECISION_KIND_VALUES[static_cast<std::size_t>(asked->kind)]),
              optional_name(roster.ids, asked->actor), optional_name(roster.ids, asked->source));
        }
      }
    } catch (const frames::IllegalAnswer& error) {
      static nb::object illegal = nb::module_::import_("rules.errors").attr("IllegalActionError");
      PyErr_SetString(illegal.ptr(), error.what());
      throw nb::python_error();
    }
    return nb::none();
  });
#undef FRAY_HARM_ARGS
}

}  // namespace

void bind_apply(nb::module_& module) {
  bind_errors();
  bind_rules(module);
  bind_harm(module);
  bind_combat(module);
  bind_loop(module);
  bind_steps(module);
}

}  // namespace fray::bindings
