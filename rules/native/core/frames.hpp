// rules/frames.py in C++, the frames' data: one struct per frame class (FRAME_TYPES, in
// order: move, act, ride, offer, attack) with every field in the dataclass's order, and
// Frame, the variant a battle's stack holds. Only the data so far: each frame's step,
// legal_actions and answer (S4-S6, S8, S9, S13, H10, H13, H19, H22) stay Python's until
// the rule modules they call are ported. bindings_frames.cpp converts to and from
// frame_to_dict's shape.
//
// Strings are numbers: combatants are Roster::ids (their place in Roster::combatants),
// item uids Roster::uids, item and skill ids the compiled content's tables (content.hpp);
// the phase and stage words and the attack mode are enums named in Python's order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <variant>
#include <vector>

#include "actions.hpp"
#include "combatant.hpp"

namespace fray::harm {
struct Context;
}

namespace fray::frames {

using combatant::Square;
using content::kNone;

// ActFrame.phase: start, provoke (S5, S6), effect, done.
enum class ActPhase : std::uint8_t { start, provoke, effect, done };
inline constexpr std::array<std::string_view, 4> kActPhaseNames = {"start", "provoke", "effect",
                                                                   "done"};

// RideFrame.phase (S13, H22): roll (the Ride roll), provoke (after a failure), effect, done.
enum class RidePhase : std::uint8_t { roll, provoke, effect, done };
inline constexpr std::array<std::string_view, 4> kRidePhaseNames = {"roll", "provoke", "effect",
                                                                    "done"};

// AttackFrame.stage: roll (S4), parry (S8), dodge (S9, H10), damage.
enum class AttackStage : std::uint8_t { roll, parry, dodge, damage };
inline constexpr std::array<std::string_view, 4> kAttackStageNames = {"roll", "parry", "dodge",
                                                                      "damage"};

// AttackMode (rules.actions.ATTACK_MODES' keys), kAttackModeNames and each mode's kind,
// missile and manoeuvre columns: in rules_tables.hpp, written from rules/actions.py.

// A MOVE, FULL_MOVE or DISENGAGE walking `path` (S12, S14, S17, H13, H22): `index` is the
// square reached, `checked` the last square whose provokers were counted, `mount` the
// mount that carried the actor when it set out.
struct MoveFrame {
  static constexpr std::string_view type_name = "move";
  int actor = kNone;
  actions::ActionKind kind = actions::ActionKind::MOVE;  // Python: its value ("move")
  std::vector<Square> path;
  int index = 0;
  int checked = -1;
  int parity = 0;
  bool provokes = true;
  std::vector<int> provoked;  // Roster::ids
  std::vector<int> offers;    // Roster::ids
  int mount = kNone;          // Roster::ids
};

// A turn action other than a move or a ride: provoked Free Attacks (S5, S6), its effect.
struct ActFrame {
  static constexpr std::string_view type_name = "act";
  int actor = kNone;
  actions::Action action;
  ActPhase phase = ActPhase::start;
  std::vector<int> offers;  // Roster::ids
};

// A MOUNT or DISMOUNT (S13, H22); `incomplete`: failed with the round no longer whole.
struct RideFrame {
  static constexpr std::string_view type_name = "ride";
  int actor = kNone;
  actions::Action action;
  RidePhase phase = RidePhase::roll;
  std::vector<int> offers;  // Roster::ids
  bool incomplete = false;
};

// S5: `enemy` decides whether to take its Free Attack on `actor`.
struct OfferFrame {
  static constexpr std::string_view type_name = "offer";
  int enemy = kNone;  // Roster::ids
  int actor = kNone;  // Roster::ids
};

// One attack (S4, S8, S9, H10, H19); levels are SuccessLevel ints.
struct AttackFrame {
  static constexpr std::string_view type_name = "attack";
  int attacker = kNone;   // Roster::ids
  int target = kNone;     // Roster::ids
  int weapon = kNone;     // Roster::uids (the item instance)
  int weapon_id = kNone;  // content equipment id
  AttackMode mode = AttackMode::melee;
  int points = 0;
  AttackStage stage = AttackStage::roll;
  bool missile = false;
  int skill = kNone;  // content skill id (a manoeuvre's skill, H19)
  std::optional<int> level;
  std::optional<int> parry_level;
  int parry_item = kNone;  // Roster::uids
  std::optional<int> dodge_level;
};

// Any frame; the alternatives in rules.frames.FRAME_TYPES' order.
using Frame = std::variant<MoveFrame, ActFrame, RideFrame, OfferFrame, AttackFrame>;
inline constexpr std::size_t FRAME_TYPE_COUNT = std::variant_size_v<Frame>;

// ------------------------------------------------------------ stepping (frames.cpp)
// The decision a frame asks for: rules.actions.Decision in Roster numbers.
struct Asked {
  actions::DecisionKind kind = actions::DecisionKind::TURN;
  int actor = kNone;
  int source = kNone;
};

// rules.errors.IllegalActionError: an answer the top frame does not take.
struct IllegalAnswer : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// S5: queue `enemy`'s Free Attack decision on `actor` (push_offer).
void push_offer(std::vector<Frame>& stack, int enemy, int actor);
// Queue one attack (push_attack; weapon_id found from the uid when kNone).
void push_attack(std::vector<Frame>& stack, const combatant::Combatant& attacker, int target,
                 int weapon_uid, AttackMode mode, int points = 0, int weapon_id = kNone,
                 int skill = kNone);

// The top frame's step: the decision it asks for, or nullopt once it advanced.
std::optional<Asked> step_top(harm::Context& context);
// The step of a move, act or ride frame on top (frames_walk.cpp); none asks for a decision.
void step_walk(harm::Context& context);
// The top frame's answer to a reaction decision (offer and attack frames); IllegalAnswer
// for an answer of a kind it does not take.
void answer_top(harm::Context& context, const actions::Action& action);

// The `type` name of alternative `index` ("move").
std::string_view frame_type_name(std::size_t index);
// The alternative whose `type` name is `name`, or nullopt.
std::optional<std::size_t> frame_type_index(std::string_view name);

}  // namespace fray::frames
