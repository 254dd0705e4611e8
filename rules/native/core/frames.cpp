// rules/frames.py in C++: the frame types' names (FRAME_TYPES), and the step and answer of
// the offer and attack frames.
#include "frames.hpp"

#include <string>
#include <utility>

#include "combat.hpp"
#include "harm.hpp"
#include "legal.hpp"
#include "reactions.hpp"

namespace fray::frames {

namespace {

template <std::size_t... Index>
constexpr std::array<std::string_view, FRAME_TYPE_COUNT> type_names(
    std::index_sequence<Index...>) {
  return {std::variant_alternative_t<Index, Frame>::type_name...};
}

constexpr auto TYPE_NAMES = type_names(std::make_index_sequence<FRAME_TYPE_COUNT>());

}  // namespace

std::string_view frame_type_name(std::size_t index) { return TYPE_NAMES.at(index); }

std::optional<std::size_t> frame_type_index(std::string_view name) {
  for (std::size_t i = 0; i < TYPE_NAMES.size(); ++i) {
    if (TYPE_NAMES[i] == name) return i;
  }
  return std::nullopt;
}

}  // namespace fray::frames

// ------------------------------------------------------------------ stepping (S4-S6, S8, S9, H10, H19)

namespace fray::frames {

using actions::ActionKind;
using actions::DecisionKind;

void push_offer(std::vector<Frame>& stack, int enemy, int actor) {
  stack.emplace_back(OfferFrame{enemy, actor});
}

void push_attack(std::vector<Frame>& stack, const combatant::Combatant& attacker, int target,
                 int weapon_uid, AttackMode mode, int points, int weapon_id, int skill) {
  if (weapon_id == kNone && weapon_uid != kNone) {
    for (const combatant::ItemInstance& inst : attacker.inventory) {
      if (inst.uid == weapon_uid) {
        weapon_id = inst.item;
        break;
      }
    }
  }
  AttackFrame frame;
  frame.attacker = attacker.id;
  frame.target = target;
  frame.weapon = weapon_uid;
  frame.weapon_id = weapon_id;
  frame.mode = mode;
  frame.points = points;
  frame.missile = combat::mode_missile(mode);
  frame.skill = skill;
  stack.emplace_back(frame);
}

namespace {

// A record's Name as a Roster number (kNone for none or a name not in the table).
int number_of(const harm::Context& context, const content::Names& table,
              const std::optional<actions::Name>& name) {
  return name ? table.find(context.names.text(*name)) : kNone;
}

std::optional<Asked> step_offer(harm::Context& context) {
  const OfferFrame frame = std::get<OfferFrame>(context.state.stack.back());
  if (!queries::can_free_attack(context.query(), frame.enemy, frame.actor)) {
    context.state.stack.pop_back();
    return std::nullopt;
  }
  return Asked{DecisionKind::FREE_ATTACK, frame.enemy, frame.actor};
}

// S4 roll, then S8 parry and S9 dodge decisions, then damage or a manoeuvre's roll (H19).
std::optional<Asked> step_attack(harm::Context& context) {
  AttackFrame& frame = std::get<AttackFrame>(context.state.stack.back());
  if (frame.stage == AttackStage::roll) {
    if (combat::roll_attack(context, frame)) {
      frame.stage = AttackStage::parry;
    } else {
      context.state.stack.pop_back();
    }
    return std::nullopt;
  }
  const combatant::Combatant& target = context.at(frame.target);
  if (frame.stage == AttackStage::parry) {
    // reactions.can_parry (S8/S10)
    legal::Namer namer(context.names, context.state.roster);
    if (target.in_action() &&
        (target.parries_used < context.rules.parries_per_round || target.extra_parries > 0) &&
        reactions::parry_actions(context.query(), frame, namer).size() > 1) {
      return Asked{DecisionKind::PARRY, frame.target, frame.attacker};
    }
    frame.stage = AttackStage::dodge;
    return std::nullopt;
  }
  if (frame.stage == AttackStage::dodge) {
    // reactions.can_dodge (S9/H10)
    if (!combat::settled(frame) &&
        reactions::dodge_actions(context.state, context.query(), frame).size() > 1) {
      return Asked{DecisionKind::DODGE, frame.target, frame.attacker};
    }
    frame.stage = AttackStage::damage;
    return std::nullopt;
  }
  AttackFrame done = frame;
  context.state.stack.pop_back();
  combat::resolve(context, done);
  return std::nullopt;
}

void answer_offer(harm::Context& context, const actions::Action& action) {
  if (action.kind != ActionKind::DECLINE && action.kind != ActionKind::FREE_ATTACK) {
    throw IllegalAnswer(actions::action_text(action, context.names) + " is no answer to a offer frame");
  }
  const OfferFrame frame = std::get<OfferFrame>(context.state.stack.back());
  context.state.stack.pop_back();
  if (action.kind == ActionKind::DECLINE) {
    events::FreeAttackDeclined event;
    event.enemy = context.id(frame.enemy);
    event.actor = context.id(frame.actor);
    context.emit(std::move(event));
    return;
  }
  context.at(frame.enemy).free_attack_used = true;
  push_attack(context.state.stack, context.at(frame.enemy),
              number_of(context, context.state.roster.ids, action.target),
              number_of(context, context.state.roster.uids, action.item), AttackMode::free);
}

void answer_attack(harm::Context& context, const actions::Action& action) {
  AttackFrame& frame = std::get<AttackFrame>(context.state.stack.back());
  if (frame.stage == AttackStage::parry &&
      (action.kind == ActionKind::PARRY || action.kind == ActionKind::DECLINE)) {
    frame.stage = AttackStage::dodge;
    if (action.kind == ActionKind::PARRY) {
      combat::roll_parry(context, frame, number_of(context, context.state.roster.uids, action.item));
    }
    return;
  }
  if (frame.stage == AttackStage::dodge &&
      (action.kind == ActionKind::DODGE || action.kind == ActionKind::DECLINE)) {
    frame.stage = AttackStage::damage;
    if (action.kind == ActionKind::DODGE) {
      std::optional<combatant::Square> square;
      if (action.square) square = combatant::Square{action.square->x, action.square->y};
      combat::roll_dodge(context, frame, square);
    }
    return;
  }
  throw IllegalAnswer(actions::action_text(action, context.names) +
                      " is no answer to an attack frame at stage " +
                      std::string(kAttackStageNames[static_cast<std::size_t>(frame.stage)]));
}

}  // namespace

std::optional<Asked> step_top(harm::Context& context) {
  Frame& top = context.state.stack.back();
  if (std::holds_alternative<OfferFrame>(top)) return step_offer(context);
  if (std::holds_alternative<AttackFrame>(top)) return step_attack(context);
  step_walk(context);
  return std::nullopt;
}

void answer_top(harm::Context& context, const actions::Action& action) {
  Frame& top = context.state.stack.back();
  if (std::holds_alternative<OfferFrame>(top)) return answer_offer(context, action);
  if (std::holds_alternative<AttackFrame>(top)) return answer_attack(context, action);
  throw IllegalAnswer(actions::action_text(action, context.names) + " is no answer to a " +
                      std::string(frame_type_name(top.index())) + " frame");
}

}  // namespace fray::frames
