// rules/frames.py in C++, the frames that carry out a turn action: MoveFrame (S12, S14,
// S17, H13, H22, S23), ActFrame (S5, S6, S11, H17) and RideFrame (S13, H22); their step
// (the offer and attack frames' are frames.cpp's).
#include <algorithm>
#include <string>

#include "effects.hpp"
#include "frames.hpp"
#include "harm.hpp"
#include "turns.hpp"

namespace fray::frames {

using actions::ActionKind;
using combatant::Combatant;

namespace {

void provoked(harm::Context& context, int actor, int enemy) {
  events::Provoked event;
  event.actor = context.id(actor);
  event.enemy = context.id(enemy);
  context.emit(std::move(event));
}

int uid_of(const harm::Context& context, const actions::Action& action) {
  return action.item ? context.state.roster.uids.find(context.names.text(*action.item)) : kNone;
}

const combatant::ItemInstance* item_of(const Combatant& who, int uid) {
  if (uid == kNone) return nullptr;
  for (const combatant::ItemInstance& inst : who.inventory) {
    if (inst.uid == uid) return &inst;
  }
  return nullptr;
}

const content::Weapon* weapon_of(const harm::Context& context, int equipment_id) {
  const int row = context.content().equipment_of(equipment_id).weapon;
  return row == kNone ? nullptr : &context.content().weapons[static_cast<std::size_t>(row)];
}

int spell_of(const harm::Context& context, const actions::Action& action) {
  return action.item ? context.content().spell_names.find(context.names.text(*action.item)) : kNone;
}

// S6/S15: whether this action provokes Free Attacks (frames.provokes).
bool provokes(const harm::Context& context, const ActFrame& frame) {
  const actions::Action& action = frame.action;
  if (action.kind == ActionKind::MELEE_ATTACK) {
    const combatant::ItemInstance* inst = item_of(context.state.roster.combatants[static_cast<std::size_t>(frame.actor)], uid_of(context, action));
    const content::Weapon* weapon = inst != nullptr ? weapon_of(context, inst->item) : nullptr;
    return weapon != nullptr && queries::is_unarmed(context.content(), *weapon);
  }
  if (action.kind == ActionKind::CAST_SPELL) {
    const int spell = spell_of(context, action);
    return context.rules.spells[static_cast<std::size_t>(spell)].provokes &&
           context.content().spells[static_cast<std::size_t>(spell)].casting != content::SpellCasting::free;
  }
  return turns::provoking(action.kind);
}

// S11/H17: casting, and an aimed shot, need concentration.
combatant::Concentration concentration(const harm::Context& context, const Combatant& actor,
                                       const actions::Action& action) {
  if (action.kind == ActionKind::CAST_SPELL &&
      context.content().spells[static_cast<std::size_t>(spell_of(context, action))].casting != content::SpellCasting::free) {
    return combatant::Concentration::cast;
  }
  if (action.kind == ActionKind::FULL_ATTACK) {
    const combatant::ItemInstance* inst = item_of(actor, uid_of(context, action));
    if (inst != nullptr && weapon_of(context, inst->item)->kind == content::WeaponKind::missile) {
      return combatant::Concentration::aim;
    }
  }
  return combatant::Concentration::none;
}

// MoveFrame.finish: the walked path (cut back for bodies on a held square), Moved (true
// logs: a mover that left its walk gets the mount's way as the mount's event, then its own).
void finish_move(harm::Context& context, bool complete) {
  const MoveFrame& frame = std::get<MoveFrame>(context.state.stack.back());  // popped last
  std::vector<Square> walked(frame.path.begin(), frame.path.begin() + frame.index + 1);
  std::vector<int> bodies;
  for (const int body : {frame.actor, frame.mount}) {
    if (body != kNone && !context.at(body).dead() && context.at(body).position == walked.back()) {
      bodies.push_back(body);
    }
  }
  if (!bodies.empty()) {
    walked = queries::way_back(context.query(), walked, bodies);
    for (const int body : bodies) context.at(body).position = walked.back();
  }
  std::vector<std::pair<int, int>> steps;
  steps.reserve(walked.size());
  for (const Square square : walked) steps.emplace_back(square.x, square.y);
  const auto [cost, parity] = context.graph->path_cost(steps, frame.parity);
  Combatant& mover = context.at(frame.actor);
  mover.diagonal_parity = parity;
  mover.moved_this_round = true;
  const auto moved = [&](int actor, const std::vector<Square>& path, int paid) {
    events::Moved event;
    event.actor = context.id(actor);
    event.path.reserve(path.size());
    for (const Square square : path) event.path.push_back({square.x, square.y});
    event.cost = paid;
    event.complete = complete;
    context.emit(std::move(event));
  };
  const Square where = context.at(frame.actor).position;
  if (where == walked.back()) {
    moved(frame.actor, walked, cost);
  } else {  // the mover left its walk: thrown from the saddle (H22), shifted by a dodge (H10)
    bool carried = false;  // the mount, its own way
    for (const int body : bodies) {
      if (body == frame.actor) continue;
      carried = true;
      moved(body, walked, cost);
    }
    std::vector<Square> own;
    if (!carried) own = walked;
    own.push_back(where);
    moved(frame.actor, own, carried ? 0 : cost);
  }
  context.state.stack.pop_back();
}

void step_move(harm::Context& context) {
  MoveFrame& frame = std::get<MoveFrame>(context.state.stack.back());
  const int actor = frame.actor;
  const queries::Mover mover = queries::mover_of(context.query(), actor);
  const std::span<const int> ids = mover.moving();
  if (context.at(actor).riding != kNone) frame.mount = context.at(actor).riding;
  const int index = frame.index;
  const Combatant& who = context.at(actor);
  if (!who.in_action() || who.prone || who.position != frame.path[static_cast<std::size_t>(index)]) {
    return finish_move(context, false);
  }
  const int last = static_cast<int>(frame.path.size()) - 1;
  if (frame.provokes && frame.checked != index && index < last) {
    frame.checked = index;
    std::vector<int> fresh;
    for (const int enemy : queries::provokers_at(context.query(), actor)) {
      if (std::find(frame.provoked.begin(), frame.provoked.end(), enemy) == frame.provoked.end()) {
        fresh.push_back(enemy);
      }
    }
    frame.provoked.insert(frame.provoked.end(), fresh.begin(), fresh.end());
    frame.offers.insert(frame.offers.end(), fresh.begin(), fresh.end());
    for (const int enemy : fresh) provoked(context, actor, enemy);
  }
  if (!frame.offers.empty()) {
    const int enemy = frame.offers.front();
    frame.offers.erase(frame.offers.begin());
    push_offer(context.state.stack, enemy, actor);  // invalidates `frame`
    return;
  }
  if (index == last) return finish_move(context, true);
  const Square following = frame.path[static_cast<std::size_t>(index + 1)];
  const int holder = queries::holder_at(context.query(), following, ids);
  if (holder != kNone && ((context.at(holder).in_action() && context.at(holder).team != who.team) ||
                          index + 1 == last)) {
    return finish_move(context, false);
  }
  for (const int id : ids) context.at(id).position = following;
  harm::release_grapples_by(context, actor);
  frame.index = index + 1;
  const int depth = context.grid.drop_depth(following);
  if (depth != 0) {
    finish_move(context, index + 1 == last);
    for (const int id : ids) harm::fall(context, id, depth);
  }
}

void step_act(harm::Context& context) {
  ActFrame& frame = std::get<ActFrame>(context.state.stack.back());
  const int actor = frame.actor;
  if (frame.phase == ActPhase::start) {
    if (provokes(context, frame)) {
      const combatant::Concentration mode = concentration(context, context.at(actor), frame.action);
      if (mode != combatant::Concentration::none) {
        context.at(actor).concentration = mode;
        context.at(actor).concentration_broken = false;
      }
      frame.offers = queries::provokers_at(context.query(), actor);
      for (const int enemy : frame.offers) provoked(context, actor, enemy);
    }
    frame.phase = ActPhase::provoke;
    return;
  }
  if (frame.phase == ActPhase::provoke) {
    if (!context.at(actor).in_action()) {
      context.at(actor).concentration = combatant::Concentration::none;
      context.state.stack.pop_back();
      return;
    }
    if (!frame.offers.empty()) {
      const int enemy = frame.offers.front();
      frame.offers.erase(frame.offers.begin());
      push_offer(context.state.stack, enemy, actor);
      return;
    }
    frame.phase = ActPhase::effect;
    return;
  }
  if (frame.phase == ActPhase::effect) {
    frame.phase = ActPhase::done;
    const actions::Action action = frame.action;
    effects::apply_effect(context, actor, action);  // may push frames
    return;
  }
  context.at(actor).concentration = combatant::Concentration::none;
  context.at(actor).concentration_broken = false;
  context.state.stack.pop_back();
}

void step_ride(harm::Context& context) {
  RideFrame& frame = std::get<RideFrame>(context.state.stack.back());
  const int actor = frame.actor;
  if ((frame.phase == RidePhase::roll || frame.phase == RidePhase::provoke) && !context.at(actor).in_action()) {
    context.at(actor).concentration = combatant::Concentration::none;
    context.state.stack.pop_back();
    return;
  }
  if (frame.phase == RidePhase::roll) {
    frame.phase = RidePhase::effect;
    const std::string purpose(actions::ACTION_KIND_VALUES[static_cast<std::size_t>(frame.action.kind)]);
    const roller::Level level = harm::roll_skill(context, actor, "ride", purpose);
    RideFrame& again = std::get<RideFrame>(context.state.stack.back());
    if (!roller::succeeded(level)) {
      Combatant& who = context.at(actor);  // budget.spend_whole_round (S13)
      const bool whole = who.actions_used.size() == 1 && who.actions_used[0] == actions::Category::move;
      if (whole) who.actions_used = {actions::Category::full};
      again.incomplete = !whole;
      again.offers = queries::provokers_at(context.query(), actor);
      for (const int enemy : again.offers) provoked(context, actor, enemy);
      again.phase = RidePhase::provoke;
    }
    return;
  }
  if (frame.phase == RidePhase::provoke) {
    if (!frame.offers.empty()) {
      const int enemy = frame.offers.front();
      frame.offers.erase(frame.offers.begin());
      push_offer(context.state.stack, enemy, actor);
      return;
    }
    frame.phase = RidePhase::effect;
    return;
  }
  if (frame.phase == RidePhase::effect) {
    frame.phase = RidePhase::done;
    const actions::Action action = frame.action;
    if (frame.incomplete) {
      const std::string kind(actions::ACTION_KIND_VALUES[static_cast<std::size_t>(action.kind)]);
      effects::lost(context, actor, kind + " failed with the round no longer whole (S13)");
    } else {
      effects::apply_effect(context, actor, action);
    }
    return;
  }
  const bool incomplete = frame.incomplete;
  context.at(actor).concentration = combatant::Concentration::none;
  context.at(actor).concentration_broken = false;
  context.state.stack.pop_back();
  if (incomplete) context.state.end_turn_requested = true;  // S13: the failed attempt ends the turn
}

}  // namespace

void step_walk(harm::Context& context) {
  const Frame& top = context.state.stack.back();
  if (std::holds_alternative<MoveFrame>(top)) return step_move(context);
  if (std::holds_alternative<ActFrame>(top)) return step_act(context);
  return step_ride(context);
}

}  // namespace fray::frames
