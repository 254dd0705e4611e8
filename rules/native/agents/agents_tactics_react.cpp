// agents/tactics.py's decision-level half in C++ (agents_tactics.hpp): the attacks listed
// among a decision's legal actions scored (best_attack, focus_reason) and react, the
// shared answer of the scripted agents to Free Attack, parry and dodge decisions (S5, S8,
// S9, H9, H10, H19). Reasons are formatted as Python's f-strings format them.
#include <stdexcept>
#include <string>

#include "agents_tactics.hpp"
#include "combat.hpp"

namespace fray::agents::tactics {

namespace {

using actions::ActionKind;
using combatant::Combatant;
using content::kNone;

// kinds[kind][0], or std::logic_error where Python's kinds[kind] raises KeyError.
std::size_t first_of(const ByKind& kinds, ActionKind kind) {
  const std::span<const std::size_t> found = kinds[kind];
  if (found.empty()) {
    throw std::logic_error("tactics: no " +
                           std::string(actions::ACTION_KIND_NAMES[static_cast<std::size_t>(kind)]) +
                           " among the legal actions");
  }
  return found.front();
}

// An action's item uid as a Roster number (nullopt: no item; kNone: a uid nobody holds).
std::optional<int> uid_of(const View& view, const actions::Action& action) {
  if (!action.item) return std::nullopt;
  return view.state.roster.uids.find(view.names.text(*action.item));
}

// tactics._harm: what a hit costs me (value_of on my own HP).
double harm_of(const odds::AttackOdds& attack_odds, const Combatant& me) {
  return value_of(attack_odds, me);
}

// tactics._defeat_manoeuvre (H19): any successful parry or dodge defeats a grapple, trip
// or disarm: parry with the item of best chance; dodge only by a Shift.
Choice defeat_manoeuvre(const View& view, const ByKind& kinds, int me, const std::string& mode) {
  const std::span<const std::size_t> parries = kinds[ActionKind::PARRY];
  if (!parries.empty()) {
    const std::vector<odds::ParryOption> options = odds::parry_options(view.odds(), me, false);
    const auto chance_of = [&](std::size_t index) {  // options.get(item, (0, 0))[0]
      const std::optional<int> uid = uid_of(view, view.legal[index]);
      for (const odds::ParryOption& option : options) {
        if (uid && option.uid == *uid) return option.chance;
      }
      return 0;
    };
    std::size_t best = parries.front();
    int best_chance = chance_of(best);
    for (const std::size_t index : parries) {  // max: the first of equals
      const int chance = chance_of(index);
      if (chance > best_chance) {
        best = index;
        best_chance = chance;
      }
    }
    return {best, "parry the " + mode};
  }
  for (const std::size_t index : kinds[ActionKind::DODGE]) {
    if (const auto& square = view.legal[index].square) {
      return {index, "dodge the " + mode + " to " + square_text({square->x, square->y})};
    }
  }
  return {first_of(kinds, ActionKind::DECLINE), "no cheap defence against the " + mode};
}

// react's PARRY branch: the parry item that saves most, if any saves more than 1e-12.
Choice parry(const View& view, const ByKind& kinds, const Combatant& me) {
  const odds::View odds_view = view.odds();
  const std::size_t decline = first_of(kinds, ActionKind::DECLINE);
  const double base = harm_of(odds::pending_hit_odds(odds_view, odds::Defence::none), me);
  std::size_t best = decline;
  double best_gain = 0.0;
  for (const std::size_t index : kinds[ActionKind::PARRY]) {
    const odds::AttackOdds parried =
        odds::pending_hit_odds(odds_view, odds::Defence::parry, uid_of(view, view.legal[index]));
    const double gain = base - harm_of(parried, me);
    if (gain > best_gain + kTie) {
      best = index;
      best_gain = gain;
    }
  }
  if (best == decline) return {decline, "parry would not help"};
  return {best, "parry: saves " + fixed(best_gain, 2) + " of my HP share"};
}

// react's DODGE branch: a dodge when its gain beats its price (a Shift, cheap once its
// own turn is over; falling prone, dear unless Fight Defensively waived it, S10).
Choice dodge(const View& view, const ByKind& kinds, int number, const Combatant& me) {
  const odds::View odds_view = view.odds();
  const std::size_t decline = first_of(kinds, ActionKind::DECLINE);
  const double gain = harm_of(odds::pending_hit_odds(odds_view, odds::Defence::none), me) -
                      harm_of(odds::pending_hit_odds(odds_view, odds::Defence::dodge), me);
  const std::span<const std::size_t> dodges = kinds[ActionKind::DODGE];
  std::vector<std::size_t> squares;
  for (const std::size_t index : dodges) {
    if (view.legal[index].square) squares.push_back(index);
  }
  std::size_t choice = 0;
  double price = 0.0;
  if (!squares.empty()) {
    const bool done = my_turn_done(odds_view, number);
    const std::vector<int> foes = enemies_of(odds_view, number);
    const auto square_of = [&](std::size_t index) {
      const auto& square = view.legal[index].square;
      return Square{square->x, square->y};
    };
    const auto keeps_reach = [&](std::size_t index) {
      for (const int foe : foes) {
        if (reaches(odds_view, number, square_of(index), foe)) return true;
      }
      return false;
    };
    // min by (not done and not keeps_reach, threats there, listed order)
    bool best_far = false;
    std::size_t best_threats = 0;
    for (std::size_t k = 0; k < squares.size(); ++k) {
      const bool far = !done && !keeps_reach(squares[k]);
      const std::size_t threats = threatened_by(odds_view, number, square_of(squares[k])).size();
      if (k == 0 || far < best_far || (far == best_far && threats < best_threats)) {
        choice = squares[k];
        best_far = far;
        best_threats = threats;
      }
    }
    price = done || keeps_reach(choice) ? kShiftPriceLate : kShiftPrice;
  } else if (!dodges.empty()) {  // falling prone, or no disadvantage at all (S10)
    price = me.dodge_waived ? 0.0 : kPronePrice;
    choice = dodges.front();
  } else {
    return {decline, "no dodge open"};
  }
  const auto& square = view.legal[choice].square;
  if (gain > price) {
    const std::string how = square ? "to " + square_text({square->x, square->y}) : "falling prone";
    return {choice, "dodge " + how + ": gain " + fixed(gain, 2) + " > price " + fixed(price, 2)};
  }
  return {decline, "dodge not worth it: gain " + fixed(gain, 2) + " <= price " + fixed(price, 2)};
}

}  // namespace

// The Strike of an attack action
Strike strike_of(const View& view, const actions::Action& action) {
  const int target = action.target ? combatant_number(view, *action.target) : kNone;
  return {action.kind, target, uid_of(view, action).value_or(kNone)};
}

// tactics.best_attack over listed legal actions (ties within kTie: the first listed)
std::optional<Picked> best_listed(const View& view, std::span<const std::size_t> listed) {
  const odds::View odds_view = view.odds();
  std::optional<Picked> best;
  for (const std::size_t index : listed) {
    Scored scored = score_attack(odds_view, strike_of(view, view.legal[index]));
    if (!best || scored.value > best->scored.value + kTie) best = Picked{index, std::move(scored)};
  }
  return best;
}

// tactics.focus_reason
std::string focus_reason(const View& view, const Scored& scored, std::string_view prefix) {
  const Combatant& target =
      view.state.roster.combatants.at(static_cast<std::size_t>(scored.strike.target));
  return std::string(prefix) + ": " + view.state.roster.ids.name(scored.strike.target) + " at " +
         std::to_string(target.hp) + " HP, " +
         fixed(python_float(scored.odds.expected_damage()), 2) + " expected damage, " +
         percent(python_float(scored.odds.drops)) + " to drop";
}

// Tactician._ready_melee (H11)
std::optional<Choice> ready_melee(const View& view, const ByKind& kinds, const Combatant& me) {
  for (const std::size_t index : kinds[ActionKind::READY_WEAPON]) {
    const actions::Action& action = view.legal[index];
    const combatant::ItemInstance* inst = action.item ? item_of(view, me, *action.item) : nullptr;
    const content::Weapon* weapon = inst != nullptr ? weapon_of(me, *inst) : nullptr;
    if (weapon != nullptr && weapon->kind == content::WeaponKind::melee) {
      return Choice{index, "ready " + me.c().equipment_names.name(inst->item)};
    }
  }
  return std::nullopt;
}

// tactics.react
Choice react(const View& view, const ByKind& kinds) {
  const state::PendingDecision& decision = *view.state.decision;
  const int number = decision.actor;
  const Combatant& me = view.state.roster.combatants.at(static_cast<std::size_t>(number));
  if (decision.kind == actions::DecisionKind::FREE_ATTACK) {
    const std::size_t decline = first_of(kinds, ActionKind::DECLINE);
    const std::optional<Picked> best = best_listed(view, kinds[ActionKind::FREE_ATTACK]);
    if (!best) return {decline, "no Free Attack reaches"};
    return {best->index, focus_reason(view, best->scored, "free attack")};
  }
  if (decision.kind != actions::DecisionKind::PARRY &&
      decision.kind != actions::DecisionKind::DODGE) {
    const std::size_t answer = default_answer(view.legal);
    const auto kind = static_cast<std::size_t>(view.legal[answer].kind);
    return {answer, "no rule for a " +
                        std::string(actions::DECISION_KIND_NAMES[static_cast<std::size_t>(
                            decision.kind)]) +
                        " decision: " + std::string(actions::ACTION_KIND_NAMES[kind])};
  }
  first_of(kinds, ActionKind::DECLINE);  // Python reads kinds[K.DECLINE] first
  if (const events::AttackRolled* hit = odds::pending_attack(view.odds())) {
    const std::string& mode = view.state.names->text(hit->mode);
    const std::optional<int> found = content::index_in(frames::kAttackModeNames, mode);
    if (found && combat::mode_manoeuvre(static_cast<frames::AttackMode>(*found))) {
      return defeat_manoeuvre(view, kinds, number, mode);
    }
  }
  if (decision.kind == actions::DecisionKind::PARRY) return parry(view, kinds, me);
  return dodge(view, kinds, number, me);
}

}  // namespace fray::agents::tactics
