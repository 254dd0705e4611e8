// agents_base.hpp's shared helpers and the registry of native agents.
#include "agents_base.hpp"

#include <algorithm>

#include "agents_berserker.hpp"
#include "agents_defender.hpp"
#include "agents_random.hpp"
#include "agents_skirmisher.hpp"
#include "agents_tactician.hpp"

namespace fray::agents {

ByKind::ByKind(const std::vector<actions::Action>& legal) : indices_(legal.size()) {
  for (const actions::Action& action : legal) ++start_[static_cast<std::size_t>(action.kind) + 1];
  for (std::size_t k = 0; k < actions::ACTION_KIND_COUNT; ++k) start_[k + 1] += start_[k];
  std::array<std::size_t, actions::ACTION_KIND_COUNT> next{};
  std::copy(start_.begin(), start_.end() - 1, next.begin());
  for (std::size_t i = 0; i < legal.size(); ++i) {
    indices_[next[static_cast<std::size_t>(legal[i].kind)]++] = i;  // in listing order
  }
}

int combatant_number(const View& view, actions::Name name) {
  const int number = view.state.roster.ids.find(view.names.text(name));
  const auto count = static_cast<int>(view.state.roster.combatants.size());
  return number >= 0 && number < count ? number : content::kNone;
}

const combatant::ItemInstance* item_of(const View& view, const combatant::Combatant& owner,
                                       actions::Name uid) {
  const int number = view.state.roster.uids.find(view.names.text(uid));
  if (number == content::kNone) return nullptr;
  for (const combatant::ItemInstance& inst : owner.inventory) {
    if (inst.uid == number) return &inst;
  }
  return nullptr;
}

const content::Weapon* weapon_of(const combatant::Combatant& owner,
                                 const combatant::ItemInstance& inst) {
  const content::Content& tables = owner.c();
  const int row = tables.equipment_of(inst.item).weapon;
  return row == content::kNone ? nullptr : &tables.weapons[static_cast<std::size_t>(row)];
}

bool has_ready_melee(const combatant::Combatant& owner) {
  bool found = false;
  owner.for_each_ready_weapon([&](std::size_t, const content::Weapon& weapon) {
    found = found || weapon.kind == content::WeaponKind::melee;
  });
  return found;
}

Answer decide(Agent& agent, const state::BattleState& state, const legal::LegalMap& map,
              actions::NameTable& names, const harm::ApplyRules& rules) {
  // (each list goes back to legal::recycle once its choice is made)
  const auto answer = [](std::vector<actions::Action>& listed, Choice& choice) {
    Answer out{listed.at(choice.index), std::move(choice.reason)};
    legal::recycle(std::move(listed));
    return out;
  };
  if (agent.answers_without_moves() && state.decision->kind == actions::DecisionKind::TURN) {
    std::vector<actions::Action> some =
        legal::turn_actions(state, map, state.decision->actor, names, false);
    if (std::optional<Choice> choice = agent.act_without_moves(View{state, map, some, names, rules})) {
      return answer(some, *choice);
    }
    legal::insert_moves(state, map, state.decision->actor, names, some);  // = actions_for
    Choice choice = agent.act_after_without_moves(View{state, map, some, names, rules});
    return answer(some, choice);
  }
  std::vector<actions::Action> found = legal::actions_for(state, map, names);
  Choice choice = agent.act(View{state, map, found, names, rules});
  return answer(found, choice);
}

std::size_t default_answer(const std::vector<actions::Action>& legal) {
  for (std::size_t i = 0; i < legal.size(); ++i) {
    if (legal[i].kind == actions::ActionKind::DECLINE) return i;
  }
  return 0;
}

namespace {

// The registry: each native agent's name and maker, in known_names() order. Its home is
// here, not in Python: which agents have a native twin is a fact of this folder (each
// row needs its C++ class); the Python side names the twin on its class
// (agents.base.SeededAgent.native_name), and tests/native/test_generated_tables.py checks
// that every such name is a row here.
template <typename Kind, bool... options>
std::unique_ptr<Agent> maker(const std::vector<std::uint32_t>& seed_words) {
  return std::make_unique<Kind>(seed_words, options...);
}
struct Registered {
  std::string_view name;
  std::unique_ptr<Agent> (*make)(const std::vector<std::uint32_t>&);
};
constexpr Registered kRegistry[] = {
    {"random", maker<RandomAgent>},
    {"berserker", maker<Berserker>},
    {"tactician", maker<Tactician>},
    {"tactician(step_back=true)", maker<Tactician, true>},
    {"skirmisher", maker<Skirmisher>},
    {"defender", maker<Defender>},
};

}  // namespace

const std::vector<std::string_view>& known_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const Registered& row : kRegistry) out.push_back(row.name);
    return out;
  }();
  return names;
}

std::unique_ptr<Agent> make(std::string_view name, const std::vector<std::uint32_t>& seed_words) {
  for (const Registered& row : kRegistry) {
    if (row.name == name) return row.make(seed_words);
  }
  return nullptr;
}

}  // namespace fray::agents
