// rules/battle.py's loop: see battle.hpp.
#include "battle.hpp"

#include <algorithm>


#include "frames.hpp"
#include "muster.hpp"
#include "turns.hpp"

namespace fray::battle {

using content::kNone;

namespace {

struct Loop {
  harm::Context& context;
  int max_rounds;

  state::BattleState& state() { return context.state; }

  // H5/H22: out-of-action combatants and ridden mounts take no turns.
  bool may_take_turn(int number) {
    const combatant::Combatant& who = context.at(number);
    return who.in_action() && who.ridden_by == kNone;
  }

  void finish(int winner, std::string_view reason) {  // H25
    state().is_over = true;
    state().winner = winner;
    state().stack.clear();
    state().decision.reset();
    events::BattleEnded event;
    if (winner != kNone) event.winner = context.text(state().roster.teams.name(winner));
    event.reason = context.text(reason);
    context.emit(std::move(event));
  }

  bool check_end() {  // H25
    if (state().is_over) return true;
    int standing = kNone;  // the one team with someone in action, if only one has
    for (const combatant::Combatant& who : state().roster.combatants) {
      if (who.status != combatant::Status::active) continue;
      if (standing != kNone && who.team != standing) return false;
      standing = who.team;
    }
    finish(standing, standing == kNone ? "no team has anyone in action"
                                       : "no other team has anyone in action");
    return true;
  }

  void new_round() {  // S1/S21
    if (state().round >= max_rounds) {
      finish(kNone, "round limit " + std::to_string(max_rounds) + " reached");
      return;
    }
    state().round += 1;
    state().turn_index = 0;
    context.emit(events::RoundStarted{});
    turns::start_round(context);
    if (!check_end()) begin_turn();
  }

  void begin_turn() {
    while (static_cast<std::size_t>(state().turn_index) < state().initiative_order.size()) {
      const int number = state().initiative_order[static_cast<std::size_t>(state().turn_index)];
      if (may_take_turn(number)) {
        turns::start_turn(context, number);
        events::TurnStarted event;
        event.actor = context.id(number);
        context.emit(std::move(event));
        return;
      }
      state().turn_index += 1;
    }
    new_round();
  }

  void end_turn() {
    const int owner = state().current_actor();
    if (owner != kNone) {
      turns::finish_turn(context, owner);
      events::TurnEnded event;
      event.actor = context.id(owner);
      context.emit(std::move(event));
    }
    state().turn_index += 1;
    begin_turn();
  }
};

}  // namespace

BattleLoop::BattleLoop(const grid::Grid& map, reach::Costs costs, int max_rounds)
    : base_(map), costs_(costs), max_rounds_(max_rounds) {}

const legal::LegalMap& BattleLoop::map_of(const state::BattleState& state) {
  if (last_map_ != nullptr && last_doors_.size() == state.doors.size() &&
      std::equal(state.doors.begin(), state.doors.end(), last_doors_.begin(),
                 [](const state::Door& door, bool open) { return door.open == open; })) {
    return *last_map_;  // the doors stand as at the last call
  }
  std::vector<bool> key;
  key.reserve(state.doors.size());
  for (const state::Door& door : state.doors) key.push_back(door.open);
  auto found = maps_.find(key);
  if (found == maps_.end()) {
    grid::Grid grid = base_;
    for (const state::Door& door : state.doors) grid.open_door(door.square, door.open);
    found = maps_.emplace(key, std::make_shared<const legal::LegalMap>(std::move(grid), costs_)).first;
  }
  last_doors_ = std::move(key);
  last_map_ = found->second.get();
  return *found->second;
}

void BattleLoop::run(state::BattleState& state, actions::NameTable& names, const harm::ApplyRules& rules) {
  while (true) {
    const legal::LegalMap& map = map_of(state);
    harm::Context context{state, map.grid, names, rules, &map.graph};
    context.watch = watch;
    Loop loop{context, max_rounds_};
    if (state.is_over) {
      state.decision.reset();
      return;
    }
    if (state.end_turn_requested) {  // END_TURN, or a rule that ends the turn (S13)
      state.end_turn_requested = false;
      loop.end_turn();
      continue;
    }
    if (!state.stack.empty()) {
      const std::optional<frames::Asked> asked = frames::step_top(context);
      if (asked) {
        state.decision = state::PendingDecision{asked->kind, asked->actor, asked->source};
        return;
      }
      continue;
    }
    if (loop.check_end()) continue;
    const int owner = state.current_actor();
    if (owner != kNone && loop.may_take_turn(owner)) {
      state.decision = state::PendingDecision{actions::DecisionKind::TURN, owner, kNone};
      return;
    }
    loop.end_turn();
  }
}

// Battle.__init__: turns.start_round(state) (no RoundStarted: the first round's is
// BattleStarted), self._begin_turn(), self._run().
void BattleLoop::begin(state::BattleState& state, actions::NameTable& names,
                       const harm::ApplyRules& rules) {
  {
    const legal::LegalMap& map = map_of(state);
    harm::Context context{state, map.grid, names, rules, &map.graph};
    context.watch = watch;
    Loop loop{context, max_rounds_};
    turns::start_round(context);
    loop.begin_turn();
  }
  run(state, names, rules);
}

state::BattleState start_battle(const state::BattleState& muster,
                                std::span<const std::uint32_t> seed, BattleLoop& loop,
                                actions::NameTable& names, const harm::ApplyRules& rules,
                                std::string_view scenario) {
  // Battle.__init__ from `self.initiative_order = muster.roll_initiative(...)` on (S1, H4)
  state::BattleState state = muster.copy();
  state.names = &names;
  state.dice = state::Roller{dice::Pcg64::from_seed(seed), {}, 0};  // Roller(seed)
  state.initiative_order = muster::roll_initiative(state, rules.initiative_die);
  events::BattleStarted started;  // emit(BattleStarted, scenario=, order=, initiative=)
  started.round = state.round;    // BattleState.emit
  started.scenario = names.intern(scenario);
  for (const int number : state.initiative_order) {
    const combatant::Combatant& who = state.roster.combatants[static_cast<std::size_t>(number)];
    started.order.push_back(names.intern(state.roster.ids.name(number)));
    started.initiative.push_back(who.initiative);
  }
  state.events.push_back(events::Event(std::move(started)));
  loop.begin(state, names, rules);
  return state;
}

void BattleLoop::apply(state::BattleState& state, actions::NameTable& names,
                       const harm::ApplyRules& rules, const actions::Action& action) {
  if (!state.decision) throw frames::IllegalAnswer("no decision is pending");
  const state::PendingDecision decision = *state.decision;
  {
    const legal::LegalMap& map = map_of(state);
    harm::Context context{state, map.grid, names, rules, &map.graph};
    context.watch = watch;
    if (decision.kind == actions::DecisionKind::TURN) {
      turns::start_action(context, decision.actor, action);
    } else {
      frames::answer_top(context, action);
    }
  }
  run(state, names, rules);
}

}  // namespace fray::battle
