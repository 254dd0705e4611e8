// agents/tactician.py in C++ (agents_tactician.hpp): ScriptedAgent.act, Tactician.turn
// and its steps stand, rearm, support, prepare, defend, attack and finish. Each function
// names its Python twin; reasons are the Python f-strings.
#include "agents_tactician.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "agents_tactics.hpp"
#include "grid.hpp"
#include "odds_risk.hpp"
#include "queries.hpp"

namespace fray::agents {

namespace {

using actions::ActionKind;
using combatant::Combatant;
using content::kNone;
using K = actions::ActionKind;
namespace t = tactics;

constexpr double kHurt = 0.35;  // HURT: share of max HP below which it heals itself

const Combatant& at(const Tactician::Turn& turn, int number) { return turn.odds.at(number); }

std::string id_of(const Tactician::Turn& turn, int number) {
  return turn.view.state.roster.ids.name(number);
}

// The Roster number an action's target names (kNone: none).
int target_of(const Tactician::Turn& turn, const actions::Action& action) {
  return action.target ? combatant_number(turn.view, *action.target) : kNone;
}

// The spell id a CAST_SPELL names (kNone: none).
int spell_of(const Tactician::Turn& turn, const actions::Action& action) {
  return action.item ? turn.odds.content().spell_names.find(turn.view.names.text(*action.item))
                     : kNone;
}

// An action's item or target name as written.
const std::string& text_of(const Tactician::Turn& turn, const std::optional<actions::Name>& name) {
  return turn.view.names.text(name.value());
}

// f"{float(drops):.0%}"
std::string drops_percent(const odds::Risk& risk) {
  return t::percent(t::python_float(risk.drops));
}

// Tactician._heal_target: the combatant a heal spell, heal scroll or healing potion would
// heal (H18, H21), or kNone.
int heal_target(const Tactician::Turn& turn, const actions::Action& action) {
  const content::Content& tables = turn.odds.content();
  bool heals = false;
  if (action.kind == K::CAST_SPELL) {
    const int spell = spell_of(turn, action);
    heals = spell != kNone &&
            tables.spells[static_cast<std::size_t>(spell)].effect == content::SpellEffect::heal;
  } else {
    const combatant::ItemInstance* inst =
        action.item ? item_of(turn.view, turn.me, *action.item) : nullptr;
    const int row = inst != nullptr ? tables.equipment_of(inst->item).item : kNone;
    if (row != kNone) {
      const int spell = tables.items[static_cast<std::size_t>(row)].spell;
      heals = turn.view.rules.item_heal.at(static_cast<std::size_t>(row)).has_value() ||
              (spell != kNone &&
               tables.spells[static_cast<std::size_t>(spell)].effect == content::SpellEffect::heal);
    }
  }
  if (!heals) return kNone;
  const int target = action.target ? target_of(turn, action) : turn.self;
  const Combatant& who = at(turn, target);
  return who.team != turn.me.team || who.dead() ? kNone : target;
}

// Tactician._hurt_ally_in_touch
bool hurt_ally_in_touch(const Tactician::Turn& turn) {
  for (const Combatant& other : turn.view.state.roster.combatants) {
    if (other.team == turn.me.team && !other.dead() && other.hp <= kHurt * other.max_hp &&
        grid::chebyshev(other.position, turn.me.position) <= 1) {
      return true;
    }
  }
  return false;
}

// The indices of every kind of `kinds_in`, kind by kind ([a for k in ks for a in kinds[k]]).
std::vector<std::size_t> listed(const ByKind& kinds, std::initializer_list<ActionKind> kinds_in) {
  std::vector<std::size_t> out;
  for (const ActionKind kind : kinds_in) {
    out.insert(out.end(), kinds[kind].begin(), kinds[kind].end());
  }
  return out;
}

}  // namespace

// ScriptedAgent.act: TURN decisions by turn, the rest by tactics.react
Choice Tactician::act(const View& view) {
  const ByKind kinds(view.legal);
  const state::PendingDecision& decision = *view.state.decision;
  if (decision.kind != actions::DecisionKind::TURN) return t::react(view, kinds);
  const odds::View odds_view = view.odds();
  return turn(Turn{view, kinds, odds_view, decision.actor, odds_view.at(decision.actor)});
}

std::optional<Choice> Tactician::act_without_moves(const View& view) {
  const ByKind kinds(view.legal);
  const int actor = view.state.decision->actor;
  const odds::View odds_view = view.odds();
  return before_move(Turn{view, kinds, odds_view, actor, odds_view.at(actor)});
}

Choice Tactician::act_after_without_moves(const View& view) {
  const ByKind kinds(view.legal);
  const int actor = view.state.decision->actor;
  const odds::View odds_view = view.odds();
  return from_move(Turn{view, kinds, odds_view, actor, odds_view.at(actor)});
}

// Tactician.turn
Choice Tactician::turn(const Turn& turn) {
  if (Step choice = before_move(turn)) return std::move(*choice);
  return from_move(turn);
}

Tactician::Step Tactician::before_move(const Turn& turn) {
  for (Step (*step)(const Turn&) : {&Tactician::stand, &Tactician::rearm, &Tactician::support,
                                    &Tactician::prepare, &Tactician::defend, &Tactician::attack,
                                    &Tactician::finish}) {
    if (Step choice = step(turn)) return choice;
  }
  return std::nullopt;
}

Choice Tactician::from_move(const Turn& turn) {
  if (Step choice = move(turn)) return std::move(*choice);
  if (step_back_) {
    if (Step choice = step_out_of_reach(turn)) return std::move(*choice);
  }
  const std::span<const std::size_t> end = turn.kinds[K::END_TURN];
  if (end.empty()) throw std::logic_error("tactician: no END_TURN among the legal actions");
  return {end.front(), "nothing useful left this turn"};
}

// Tactician.step_out_of_reach (S7: a Shift is free and never provokes)
Tactician::Step Tactician::step_out_of_reach(const Turn& turn) {
  const std::span<const std::size_t> shifts = turn.kinds[K::SHIFT];
  if (shifts.empty() || !threatened(turn)) return std::nullopt;
  const std::vector<int> foes = t::enemies_of(turn.odds, turn.self);
  std::optional<std::size_t> best;
  int best_gap = 0;
  for (const std::size_t index : shifts) {
    const auto& square = turn.view.legal[index].square;
    if (!square) continue;
    const combatant::Square to{square->x, square->y};
    if (!t::threatened_by(turn.odds, turn.self, to).empty()) continue;
    int gap = std::numeric_limits<int>::max();
    for (const int foe : foes) gap = std::min(gap, grid::chebyshev(to, at(turn, foe).position));
    if (!best || gap > best_gap) {  // max: the first of equals
      best = index;
      best_gap = gap;
    }
  }
  if (!best) return std::nullopt;
  const auto& square = *turn.view.legal[*best].square;
  return Choice{*best, "step back out of reach to " + t::square_text({square.x, square.y})};
}

// An enemy threatens the decider's square (H12)
bool Tactician::threatened(const Turn& turn) {
  return !t::threatened_by(turn.odds, turn.self, turn.me.position).empty();
}

// Tactician.stand: stand up unless the Free Attacks it draws are likely to drop it (S6)
Tactician::Step Tactician::stand(const Turn& turn) {
  const std::span<const std::size_t> stand_up = turn.kinds[K::STAND_UP];
  if (stand_up.empty()) return std::nullopt;
  const odds::Risk risk = odds::action_risk(turn.odds, turn.self, odds::Defence::none);
  if (t::python_float(risk.drops) > 0.5 && !turn.kinds[K::MELEE_ATTACK].empty()) {
    return std::nullopt;
  }
  return Choice{stand_up.front(), "stand up (" + drops_percent(risk) + " risk of dropping)"};
}

// Tactician.rearm: pick up the melee weapon at its feet it is best with (H11, H21)
Tactician::Step Tactician::rearm(const Turn& turn) {
  const std::span<const std::size_t> pick_up = turn.kinds[K::PICK_UP];
  if (pick_up.empty() || has_ready_melee(turn.me)) return std::nullopt;
  const content::Content& tables = turn.odds.content();
  const int free = 2 - turn.me.hands_used();
  std::size_t best = 0;
  int best_skill = 0;
  bool found = false;
  for (const std::size_t index : pick_up) {
    const actions::Action& action = turn.view.legal[index];
    const int uid = action.item ? turn.view.state.roster.uids.find(text_of(turn, action.item))
                                : kNone;
    const combatant::ItemInstance* inst = nullptr;
    for (const combatant::ItemInstance& lying : turn.view.state.ground) {
      if (uid != kNone && lying.uid == uid) {
        inst = &lying;
        break;
      }
    }
    if (inst == nullptr) continue;
    const int row = tables.equipment_of(inst->item).weapon;
    if (row == kNone) continue;
    const content::Weapon& weapon = tables.weapons[static_cast<std::size_t>(row)];
    if (weapon.kind != content::WeaponKind::melee || weapon.hands > free) continue;
    const int skill = turn.me.skill(weapon.skill, turn.view.state.round);
    if (!found || skill > best_skill) {  // max: the first of equals
      best = index;
      best_skill = skill;
      found = true;
    }
  }
  if (!found) return std::nullopt;
  const odds::Risk risk = odds::action_risk(turn.odds, turn.self, odds::Defence::none);
  if (t::python_float(risk.drops) > 0.5) return std::nullopt;
  return Choice{best, "pick up " + text_of(turn, turn.view.legal[best].item) + " (skill " +
                          std::to_string(best_skill) + ", " + drops_percent(risk) +
                          " risk of dropping)"};
}

// Tactician.support: first aid, heals, components for a heal, a torch (H18, H21, H23)
Tactician::Step Tactician::support(const Turn& turn) {
  const bool safe = !threatened(turn);
  const std::span<const std::size_t> aid = turn.kinds[K::FIRST_AID];
  if (safe && !aid.empty()) {
    // min by (0 if down, 1 if bleeding, else 2; hp): the first of equals
    std::size_t best = aid.front();
    const auto need = [&](std::size_t index) {
      const Combatant& o = at(turn, target_of(turn, turn.view.legal[index]));
      return std::pair<int, int>{!o.in_action() ? 0 : o.bleeding ? 1 : 2, o.hp};
    };
    for (const std::size_t index : aid) {
      if (need(index) < need(best)) best = index;
    }
    const int target = target_of(turn, turn.view.legal[best]);
    const Combatant& o = at(turn, target);
    if (!o.in_action() || o.bleeding) {
      return Choice{best, "first aid: " + id_of(turn, target) + " " +
                              (!o.in_action() ? "is down" : "bleeds")};
    }
  }
  for (const std::size_t index : listed(turn.kinds, {K::CAST_SPELL, K::USE_ITEM})) {
    const int target = heal_target(turn, turn.view.legal[index]);
    if (target == kNone) continue;
    const Combatant& heal = at(turn, target);
    if (!heal.in_action() || heal.hp <= kHurt * heal.max_hp) {
      return Choice{index, "heal: " + id_of(turn, target) + " at " + std::to_string(heal.hp) + "/" +
                               std::to_string(heal.max_hp) + " HP"};
    }
  }
  if (!turn.kinds[K::PREPARE_COMPONENTS].empty() && hurt_ally_in_touch(turn)) {
    return Choice{turn.kinds[K::PREPARE_COMPONENTS].front(), "prepare components for a heal"};
  }
  const std::span<const std::size_t> torches = turn.kinds[K::LIGHT_TORCH];
  if (torches.empty() || !safe) return std::nullopt;
  const std::vector<int> foes = t::enemies_of(turn.odds, turn.self);
  if (foes.empty()) return std::nullopt;
  for (const int foe : foes) {
    if (t::reaches(turn.odds, turn.self, turn.me.position, foe)) return std::nullopt;
  }
  std::size_t dark = 0;
  for (const int foe : foes) {
    if (!queries::is_lit(turn.odds.query(), at(turn, foe).position)) ++dark;
  }
  if (dark * 2 > foes.size()) {
    return Choice{torches.front(),
                  "light a torch: " + std::to_string(dark) + " enemies in the dark"};
  }
  return std::nullopt;
}

// Tactician.prepare: nock an arrow; wind a crossbow when nothing threatens (H16)
Tactician::Step Tactician::prepare(const Turn& turn) {
  if (!turn.kinds[K::NOCK_ARROW].empty()) {
    return Choice{turn.kinds[K::NOCK_ARROW].front(), "nock an arrow"};
  }
  if (!turn.kinds[K::LOAD_CROSSBOW].empty() && !threatened(turn)) {
    return Choice{turn.kinds[K::LOAD_CROSSBOW].front(), "load the crossbow: nothing threatens"};
  }
  return std::nullopt;
}

// Tactician.defend: S10 Fight Defensively when outnumbered and outmatched
Tactician::Step Tactician::defend(const Turn& turn) {
  const std::span<const std::size_t> defensively = turn.kinds[K::FIGHT_DEFENSIVELY];
  if (defensively.empty()) return std::nullopt;
  const std::size_t around = t::threatened_by(turn.odds, turn.self, turn.me.position).size();
  if (around < 2) return std::nullopt;
  const double danger = t::incoming(turn.odds, turn.self);
  const std::optional<t::Picked> best = t::best_listed(
      turn.view, listed(turn.kinds, {K::MELEE_ATTACK, K::MISSILE_ATTACK, K::FULL_ATTACK}));
  if (danger >= turn.me.hp && (!best || t::python_float(best->scored.odds.drops) < 0.25)) {
    return Choice{defensively.front(),
                  "fight defensively: " + std::to_string(around) + " enemies, " +
                      t::fixed(danger, 1) + " expected damage vs " + std::to_string(turn.me.hp) +
                      " HP"};
  }
  return std::nullopt;
}

// Tactician.attack: the best weapon attack now (missiles and Full Attacks provoke, S6;
// a Full Attack only when it does not want to move after, H17) or damage spell (H18)
Tactician::Step Tactician::attack(const Turn& turn) {
  const std::size_t threats = t::threatened_by(turn.odds, turn.self, turn.me.position).size();
  const bool provoking = threats > 0;
  const double risk = provoking ? t::provoke_cost(turn.odds, turn.self) : 0.0;
  std::optional<t::Picked> best = t::best_listed(turn.view, turn.kinds[K::MELEE_ATTACK]);
  std::optional<double> best_value;
  if (best) best_value = best->scored.value;
  const std::span<const std::size_t> missiles = turn.kinds[K::MISSILE_ATTACK];
  std::vector<std::size_t> provoked(missiles.begin(), missiles.end());
  if (threats <= 1) {  // not _wants_to_move_after
    const std::span<const std::size_t> full = turn.kinds[K::FULL_ATTACK];
    provoked.insert(provoked.end(), full.begin(), full.end());
  }
  std::optional<t::Picked> other = t::best_listed(turn.view, provoked);
  if (other && (!best_value || other->scored.value - risk > *best_value)) {
    best_value = other->scored.value - risk;
    best = std::move(other);
  }
  // _best_spell: the damage spell of highest value (not one that provokes, when provoking)
  const content::Content& tables = turn.odds.content();
  std::optional<std::pair<std::size_t, double>> spell;
  for (const std::size_t index : turn.kinds[K::CAST_SPELL]) {
    const actions::Action& action = turn.view.legal[index];
    const int id = spell_of(turn, action);
    if (id == kNone ||
        tables.spells[static_cast<std::size_t>(id)].effect != content::SpellEffect::damage ||
        (provoking && turn.view.rules.spells.at(static_cast<std::size_t>(id)).provokes)) {
      continue;
    }
    const double value = t::spell_value(turn.odds, turn.self, id, target_of(turn, action));
    if (!spell || value > spell->second) spell = std::pair{index, value};
  }
  if (spell && (!best_value || spell->second > *best_value)) {
    const actions::Action& action = turn.view.legal[spell->first];
    return Choice{spell->first, "spell " + text_of(turn, action.item) + " at " +
                                    text_of(turn, action.target) + ": value " +
                                    t::fixed(spell->second, 2)};
  }
  if (!best) return std::nullopt;
  return Choice{best->index, t::focus_reason(turn.view, best->scored)};
}

// Tactician.finish: Coup-de-Grace (H5) when nothing threatens it
Tactician::Step Tactician::finish(const Turn& turn) {
  const std::span<const std::size_t> coup = turn.kinds[K::COUP_DE_GRACE];
  if (coup.empty() || threatened(turn)) return std::nullopt;
  const actions::Action& action = turn.view.legal[coup.front()];
  return Choice{coup.front(), "coup-de-grace on " + text_of(turn, action.target) +
                                  ": nothing threatens"};
}

}  // namespace fray::agents
