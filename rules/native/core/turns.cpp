// rules/turns.py (and rules/budget.py's pay, reset, spend_whole_round): see turns.hpp.
#include "turns.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include "budget.hpp"
#include "frames.hpp"

namespace fray::turns {

using actions::ActionKind;
using actions::Category;
using combatant::Combatant;
using content::kNone;

namespace {

// ACTION_SPECS' category (None: END_TURN and the reactions; CAST_SPELL's is the spell's),
// frame, provokes and rate columns, made at compile time from the rows rules_tables.hpp
// holds (written from rules/actions.py): a word the engine has no meaning for is a throw
// in a constant expression, which fails the build.
struct Spec {
  std::optional<Category> category;
  bool spell = false;
  FrameKind frame = FrameKind::none;
  bool provokes = false;
  bool whole = false;  // rate "whole": the whole movement rate (FULL_MOVE, S14)
};

constexpr Spec spec_of(const actions::ActionSpecRow& row) {
  Spec out;
  if (row.category == "move") out.category = Category::move;
  else if (row.category == "attack") out.category = Category::attack;
  else if (row.category == "full") out.category = Category::full;
  else if (row.category == "free") out.category = Category::free;
  else if (row.category == "spell") out.spell = true;
  else if (row.category != "none" && row.category != "reaction") {
    throw std::logic_error("ACTION_SPECS: a category turns.cpp does not know");
  }
  if (row.frame == "move") out.frame = FrameKind::move;
  else if (row.frame == "act") out.frame = FrameKind::act;
  else if (row.frame == "ride") out.frame = FrameKind::ride;
  else if (!row.frame.empty()) throw std::logic_error("ACTION_SPECS: a frame turns.cpp does not know");
  if (row.rate == "whole") out.whole = true;
  else if (!row.rate.empty() && row.rate != "half") {
    throw std::logic_error("ACTION_SPECS: a rate turns.cpp does not know");
  }
  out.provokes = row.provokes;
  return out;
}

template <std::size_t... Kinds>
constexpr std::array<Spec, sizeof...(Kinds)> specs_of(std::index_sequence<Kinds...>) {
  return {spec_of(actions::ACTION_SPEC_ROWS[Kinds])...};
}
constexpr std::array<Spec, actions::ACTION_KIND_COUNT> kSpecs =
    specs_of(std::make_index_sequence<actions::ACTION_KIND_COUNT>());

const Spec& spec(ActionKind kind) { return kSpecs[static_cast<std::size_t>(kind)]; }

int spell_of(const harm::Context& context, const actions::Action& action) {
  return action.item ? context.content().spell_names.find(context.names.text(*action.item)) : kNone;
}

int target_of(const harm::Context& context, const actions::Action& action) {
  return action.target ? context.state.roster.ids.find(context.names.text(*action.target)) : kNone;
}

void abandoned(harm::Context& context, int owner) {
  events::Concentration event;
  event.actor = context.id(owner);
  event.what = context.text("multi-round casting abandoned");
  context.emit(std::move(event));
}

// S2/H25: budget.pay.
void pay(harm::Context& context, int actor, const actions::Action& action) {
  Combatant& who = context.at(actor);
  std::optional<Category> category = spec(action.kind).category;
  if (spec(action.kind).spell) {
    category = budget::spell_category(context.content(), spell_of(context, action));
  }
  if (!category) return;
  if (*category == Category::free) {
    who.free_used.push_back(action.kind);
    return;
  }
  who.actions_used.push_back(*category);
  const bool continues = action.kind == ActionKind::CAST_SPELL && who.casting &&
                         who.casting->spell == spell_of(context, action) &&
                         who.casting->target == target_of(context, action);
  if (who.casting && !continues) {
    who.casting.reset();
    abandoned(context, actor);
  }
}

// queries.routes(...)[square].path: the chosen route (threats when provoking, H13).
std::vector<combatant::Square> route_to(harm::Context& context, int actor, bool full, bool provokes,
                                        combatant::Square square) {
  const grid::Grid& grid = context.grid;
  const reach::Query search = route_query(context.query(), grid, actor, full, provokes);
  const std::optional<reach::Route> route = context.graph->cheapest(search, square.x, square.y);
  if (!route) throw std::logic_error("start_action: no route to the chosen square");
  std::vector<combatant::Square> path;
  path.reserve(route->path.size());
  for (const int index : route->path) path.push_back({index % grid.width(), index / grid.width()});
  return path;
}

}  // namespace

reach::Query route_query(const queries::QueryState& query, const grid::Grid& grid, int actor,
                         bool full, bool provokes, std::vector<int>* ranked) {
  const queries::RouteTables tables = queries::route_tables(query, actor, provokes);
  const Combatant& who = query.combatant(actor);
  reach::Query search;
  search.x = who.position.x;
  search.y = who.position.y;
  search.parity = who.diagonal_parity;
  search.budget = queries::move_budget(query, actor, full);
  search.blocked.reserve(tables.blocked.size());
  for (const combatant::Square at : tables.blocked) {
    if (grid.in_bounds(at)) search.blocked.push_back(grid.index(at));
  }
  search.no_end.reserve(tables.no_end.size());
  for (const combatant::Square at : tables.no_end) {
    if (grid.in_bounds(at)) search.no_end.push_back(grid.index(at));
  }
  if (provokes) {  // enemies numbered by their ids in sorted order (rules.bridge.reach.compile_threats)
    std::vector<int> by_rank;  // the threatening enemies, by id
    for (const auto& entry : tables.threats) {
      if (std::find(by_rank.begin(), by_rank.end(), entry.second) == by_rank.end()) {
        by_rank.push_back(entry.second);
      }
    }
    std::sort(by_rank.begin(), by_rank.end(), [&](int first, int second) {
      return query.roster.ids.name(first) < query.roster.ids.name(second);
    });
    search.threats.reserve(tables.threats.size());
    for (const auto& [at, enemy] : tables.threats) {
      if (grid.in_bounds(at)) {
        const auto rank = std::find(by_rank.begin(), by_rank.end(), enemy) - by_rank.begin();
        search.threats.emplace_back(grid.index(at), static_cast<int>(rank));
      }
    }
    if (ranked != nullptr) *ranked = std::move(by_rank);
  }
  return search;
}

FrameKind frame_of(ActionKind kind) { return spec(kind).frame; }
bool provoking(ActionKind kind) { return spec(kind).provokes; }

void start_round(harm::Context& context) {
  for (Combatant& who : context.state.roster.combatants) {
    who.moved_this_round = false;
    who.shifted_this_round = false;
    who.diagonal_parity = 0;
    who.free_attack_used = false;
    who.parries_used = 0;
    std::erase_if(who.buffs, [&](const combatant::Buff& buff) { return buff.last_round < context.state.round; });
  }
  for (const int number : context.state.initiative_order) {
    if (context.at(number).bleeding && !context.at(number).dead()) {
      harm::lose_hp(context, number, context.rules.bleed_per_round, "bleeding");  // H7
    }
  }
  const int every = context.rules.fatigue_rounds_per_check;
  if (context.state.round > 1 && (context.state.round - 1) % every == 0) {  // S21
    for (const int number : context.state.initiative_order) {
      if (context.at(number).in_action()) harm::fatigue_check(context, number);
    }
  }
}

void start_turn(harm::Context& context, int owner) {
  Combatant& who = context.at(owner);
  who.free_used.clear();
  who.actions_used.clear();
  for (const int fighter : {owner, who.riding}) {
    if (fighter == kNone) continue;
    context.at(fighter).extra_parries = 0;
    context.at(fighter).dodge_waived = false;
  }
  who.concentration = combatant::Concentration::none;
  who.concentration_broken = false;
}

void finish_turn(harm::Context& context, int owner) {
  Combatant& who = context.at(owner);
  if (who.casting && who.casting->round < context.state.round) {
    who.casting.reset();
    abandoned(context, owner);
  }
}

void start_action(harm::Context& context, int actor, const actions::Action& action) {
  if (action.kind == ActionKind::END_TURN) {
    context.state.end_turn_requested = true;
    return;
  }
  pay(context, actor, action);
  events::ActionTaken taken;
  taken.actor = context.id(actor);
  taken.action = events::ActionText{action, std::nullopt};
  context.emit(std::move(taken));
  const Spec& row = spec(action.kind);
  if (row.frame == FrameKind::move) {
    frames::MoveFrame frame;
    frame.actor = actor;
    frame.kind = action.kind;
    frame.path = route_to(context, actor, row.whole, row.provokes,
                          {action.square->x, action.square->y});
    frame.parity = context.at(actor).diagonal_parity;
    frame.provokes = row.provokes;
    context.state.stack.emplace_back(std::move(frame));
  } else if (row.frame == FrameKind::ride) {
    frames::RideFrame frame;
    frame.actor = actor;
    frame.action = action;
    context.state.stack.emplace_back(std::move(frame));
  } else {
    frames::ActFrame frame;
    frame.actor = actor;
    frame.action = action;
    context.state.stack.emplace_back(std::move(frame));
  }
}

}  // namespace fray::turns
