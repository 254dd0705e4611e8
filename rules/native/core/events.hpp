// rules/events.py in C++: one record per event class, the same classes, fields and order
// (BattleStarted ... BattleEnded), string ids interned as Names (actions.hpp), tuples and
// paths as vectors; and the EventLog a battle appends them to. Each record lists its
// fields, in rules.events' order, through `each(self, visit)`: visit(name, member) per
// field, which bindings_records.cpp uses to convert every record both ways.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "actions.hpp"

namespace fray::events {

using actions::Name;
using actions::Square;

// ActionTaken's action: str(Action) kept as the Action record, or as the text itself
// when it is not one Action's str (an id with a space in it).
struct ActionText {
  actions::Action action;
  std::optional<Name> text;
};

#define FRAY_EVENT_NAME(Type) static constexpr std::string_view type_name = #Type

struct BattleStarted {
  FRAY_EVENT_NAME(BattleStarted);
  std::int32_t round = 0;
  Name scenario{};
  std::vector<Name> order;
  std::vector<std::int32_t> initiative;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("scenario", self.scenario); visit("order", self.order);
    visit("initiative", self.initiative);
  }
};

struct RoundStarted {
  FRAY_EVENT_NAME(RoundStarted);
  std::int32_t round = 0;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round);
  }
};

// A record of round and actor only (TurnStarted, TurnEnded, Spoke).
#define FRAY_ACTOR_EVENT(Type)                                                          \
  struct Type {                                                                         \
    FRAY_EVENT_NAME(Type);                                                              \
    std::int32_t round = 0;                                                             \
    Name actor{};                                                                       \
    template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) { \
      visit("round", self.round); visit("actor", self.actor);                           \
    }                                                                                   \
  }

FRAY_ACTOR_EVENT(TurnStarted);
FRAY_ACTOR_EVENT(TurnEnded);

struct ActionTaken {
  FRAY_EVENT_NAME(ActionTaken);
  std::int32_t round = 0;
  Name actor{};
  ActionText action;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("action", self.action);
  }
};

// S12, S14, S17: a path walked square by square.
struct Moved {
  FRAY_EVENT_NAME(Moved);
  std::int32_t round = 0;
  Name actor{};
  std::vector<Square> path;
  std::int32_t cost = 0;
  bool complete = false;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("path", self.path);
    visit("cost", self.cost); visit("complete", self.complete);
  }
};

// S5, S6
struct Provoked {
  FRAY_EVENT_NAME(Provoked);
  std::int32_t round = 0;
  Name actor{};
  Name enemy{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("enemy", self.enemy);
  }
};

struct FreeAttackDeclined {
  FRAY_EVENT_NAME(FreeAttackDeclined);
  std::int32_t round = 0;
  Name enemy{};
  Name actor{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("enemy", self.enemy); visit("actor", self.actor);
  }
};

// S4, S15, H16, H17, H19
struct AttackRolled {
  FRAY_EVENT_NAME(AttackRolled);
  std::int32_t round = 0;
  Name attacker{};
  Name target{};
  Name weapon{};
  Name mode{};
  std::int32_t chance = 0;
  std::int32_t roll = 0;
  Name level{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("attacker", self.attacker); visit("target", self.target);
    visit("weapon", self.weapon); visit("mode", self.mode); visit("chance", self.chance);
    visit("roll", self.roll); visit("level", self.level);
  }
};

struct SkillRolled {
  FRAY_EVENT_NAME(SkillRolled);
  std::int32_t round = 0;
  Name actor{};
  Name skill{};
  Name purpose{};
  std::int32_t chance = 0;
  std::int32_t roll = 0;
  Name level{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("skill", self.skill);
    visit("purpose", self.purpose); visit("chance", self.chance); visit("roll", self.roll);
    visit("level", self.level);
  }
};

// S8, H9
struct ParryRolled {
  FRAY_EVENT_NAME(ParryRolled);
  std::int32_t round = 0;
  Name defender{};
  Name item{};
  std::int32_t chance = 0;
  std::int32_t roll = 0;
  Name level{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("defender", self.defender); visit("item", self.item);
    visit("chance", self.chance); visit("roll", self.roll); visit("level", self.level);
  }
};

// S9, H10, S10
struct DodgeRolled {
  FRAY_EVENT_NAME(DodgeRolled);
  std::int32_t round = 0;
  Name defender{};
  std::int32_t chance = 0;
  std::int32_t roll = 0;
  Name level{};
  std::optional<Square> square;
  Name disadvantage{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("defender", self.defender); visit("chance", self.chance);
    visit("roll", self.roll); visit("level", self.level); visit("square", self.square);
    visit("disadvantage", self.disadvantage);
  }
};

struct DamageDealt {
  FRAY_EVENT_NAME(DamageDealt);
  std::int32_t round = 0;
  Name attacker{};
  Name target{};
  std::int32_t rolled = 0;
  std::vector<std::int32_t> dice;
  std::int32_t parried = 0;
  std::int32_t dodged = 0;
  std::int32_t armour = 0;
  std::int32_t damage = 0;
  std::int32_t hp = 0;
  Name effect{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("attacker", self.attacker); visit("target", self.target);
    visit("rolled", self.rolled); visit("dice", self.dice); visit("parried", self.parried);
    visit("dodged", self.dodged); visit("armour", self.armour); visit("damage", self.damage);
    visit("hp", self.hp); visit("effect", self.effect);
  }
};

struct ItemWorn {
  FRAY_EVENT_NAME(ItemWorn);
  std::int32_t round = 0;
  Name owner{};
  Name item{};
  std::int32_t ap = 0;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("owner", self.owner); visit("item", self.item);
    visit("ap", self.ap);
  }
};

struct ItemBroken {
  FRAY_EVENT_NAME(ItemBroken);
  std::int32_t round = 0;
  Name owner{};
  Name item{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("owner", self.owner); visit("item", self.item);
  }
};

// H21
struct ItemMoved {
  FRAY_EVENT_NAME(ItemMoved);
  std::int32_t round = 0;
  Name actor{};
  Name item{};
  Name state_from{};
  Name state_to{};
  std::optional<Square> square;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("item", self.item);
    visit("state_from", self.state_from); visit("state_to", self.state_to);
    visit("square", self.square);
  }
};

struct StatusChanged {
  FRAY_EVENT_NAME(StatusChanged);
  std::int32_t round = 0;
  Name actor{};
  Name status{};
  Name cause{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("status", self.status);
    visit("cause", self.cause);
  }
};

struct HitPointsChanged {
  FRAY_EVENT_NAME(HitPointsChanged);
  std::int32_t round = 0;
  Name actor{};
  std::int32_t amount = 0;
  std::int32_t hp = 0;
  Name cause{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("amount", self.amount);
    visit("hp", self.hp); visit("cause", self.cause);
  }
};

// H19 and the other resistance rolls
struct Resisted {
  FRAY_EVENT_NAME(Resisted);
  std::int32_t round = 0;
  Name actor{};
  Name purpose{};
  std::int32_t chance = 0;
  std::int32_t roll = 0;
  bool success = false;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("purpose", self.purpose);
    visit("chance", self.chance); visit("roll", self.roll); visit("success", self.success);
  }
};

// H18
struct SpellCast {
  FRAY_EVENT_NAME(SpellCast);
  std::int32_t round = 0;
  Name caster{};
  Name spell{};
  std::optional<Name> target;
  std::int32_t chance = 0;
  std::int32_t roll = 0;
  Name level{};
  std::int32_t cost = 0;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("caster", self.caster); visit("spell", self.spell);
    visit("target", self.target); visit("chance", self.chance); visit("roll", self.roll);
    visit("level", self.level); visit("cost", self.cost);
  }
};

struct Concentration {
  FRAY_EVENT_NAME(Concentration);
  std::int32_t round = 0;
  Name actor{};
  Name what{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("what", self.what);
  }
};

// S12
struct DoorChanged {
  FRAY_EVENT_NAME(DoorChanged);
  std::int32_t round = 0;
  Name actor{};
  Square square;
  bool open = false;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("square", self.square);
    visit("open", self.open);
  }
};

// S23
struct Fell {
  FRAY_EVENT_NAME(Fell);
  std::int32_t round = 0;
  Name actor{};
  std::int32_t depth_ft = 0;
  std::int32_t rolled = 0;
  std::int32_t reduced = 0;
  std::int32_t damage = 0;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("depth_ft", self.depth_ft);
    visit("rolled", self.rolled); visit("reduced", self.reduced); visit("damage", self.damage);
  }
};

FRAY_ACTOR_EVENT(Spoke);  // H24

// An agent's free text: kept as it is, never interned (the name table stays bounded).
struct Reasoned {
  FRAY_EVENT_NAME(Reasoned);
  std::int32_t round = 0;
  Name actor{};
  std::string reason;
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("actor", self.actor); visit("reason", self.reason);
  }
};

// H19
struct ManoeuvreDefeated {
  FRAY_EVENT_NAME(ManoeuvreDefeated);
  std::int32_t round = 0;
  Name attacker{};
  Name target{};
  Name manoeuvre{};
  Name defence{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("attacker", self.attacker); visit("target", self.target);
    visit("manoeuvre", self.manoeuvre); visit("defence", self.defence);
  }
};

struct BattleEnded {
  FRAY_EVENT_NAME(BattleEnded);
  std::int32_t round = 0;
  std::optional<Name> winner;
  Name reason{};
  template <typename Self, typename Visit> static void each(Self& self, Visit&& visit) {
    visit("round", self.round); visit("winner", self.winner); visit("reason", self.reason);
  }
};

#undef FRAY_ACTOR_EVENT
#undef FRAY_EVENT_NAME

// Any event; the alternatives in rules.events.EVENT_TYPES' order (checked by the tests).
using Event = std::variant<BattleStarted, RoundStarted, TurnStarted, TurnEnded, ActionTaken,
                           Moved, Provoked, FreeAttackDeclined, AttackRolled, SkillRolled,
                           ParryRolled, DodgeRolled, DamageDealt, ItemWorn, ItemBroken,
                           ItemMoved, StatusChanged, HitPointsChanged, Resisted, SpellCast,
                           Concentration, DoorChanged, Fell, Spoke, Reasoned,
                           ManoeuvreDefeated, BattleEnded>;
inline constexpr std::size_t EVENT_TYPE_COUNT = std::variant_size_v<Event>;

// The type name of alternative `index` ("BattleStarted").
std::string_view event_type_name(std::size_t index);
// The field names of alternative `index`, in order.
std::vector<std::string_view> event_field_names(std::size_t index);

// Every event so far, append-only. Copying is cheap (a battle's clone): full chunks of
// CHUNK events are immutable and shared between copies; only the last, partial chunk
// is copied.
class EventLog {
 public:
  static constexpr std::size_t CHUNK = 64;

  std::size_t size() const { return chunks_.size() * CHUNK + tail_.size(); }
  const Event& operator[](std::size_t index) const {
    const std::size_t chunk = index / CHUNK;
    return chunk < chunks_.size() ? (*chunks_[chunk])[index % CHUNK] : tail_[index % CHUNK];
  }
  const Event& at(std::size_t index) const;
  void push_back(Event event);
  void clear() {
    chunks_.clear();
    tail_.clear();
  }

 private:
  std::vector<std::shared_ptr<const std::vector<Event>>> chunks_;
  std::vector<Event> tail_;
};

// The whole log as bytes, each event its type and fields in order, names as their text:
// two logs hold the same events (whatever their name tables) exactly when their bytes are
// equal (a replay's determinism check compares them without building Python events).
std::string log_bytes(const EventLog& log, const actions::NameTable& names);

}  // namespace fray::events
