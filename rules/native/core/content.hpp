// rules/content/ (schema.py): the compiled content tables the native engine reads.
//
// Content stays parsed and validated in Python (rules/content/loader.py: one validator,
// one set of error messages); bindings.cpp compiles a checked rules.content.Content into
// a fray::content::Content once per Content object (rules/bridge/combatants.py caches it).
// Every string id of the content is interned to a small integer, in the order of its
// Python table (dict order), so index i of a table is the i-th key of the Python dict
// and `names.name(i)` gives the key back. Only what the engine reads is compiled so far:
// what a combatant's derived values need (rules/combatant.py).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fray::content {

// "No such id" for an interned index that Python holds as None.
inline constexpr int kNone = -1;

// S6/S15/H19: the skill of unarmed fighting (queries.UNARMED_SKILL).
inline constexpr std::string_view kUnarmedSkill = "brawl";

// Names <-> small integers, numbered in the order first interned. Copies share one table
// until one of them interns a new name (copy on write): a battle state's copy (a clone
// every search iteration makes) copies no string.
class Names {
 public:
  // The number of `name`, adding it at the end if new.
  int intern(std::string_view name);
  // The number of `name`, or kNone.
  int find(std::string_view name) const;
  const std::string& name(int id) const { return table_->names.at(static_cast<std::size_t>(id)); }
  int size() const { return static_cast<int>(table_->names.size()); }
  const std::vector<std::string>& all() const { return table_->names; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept {
      return std::hash<std::string_view>{}(text);
    }
  };
  struct Table {
    std::vector<std::string> names;
    std::unordered_map<std::string, int, Hash, std::equal_to<>> ids;
  };
  std::shared_ptr<Table> table_ = std::make_shared<Table>();
};

// schema.Burden; the order is rules.combatant.BURDEN_RANK's (S20).
enum class Burden : std::uint8_t { none = 0, light = 1, moderate = 2, heavy = 3 };
inline constexpr std::array<std::string_view, 4> kBurdenNames = {"none", "light", "moderate",
                                                                 "heavy"};
std::optional<Burden> burden_from(std::string_view name);

// schema.SkillCategory (H3: which multipliers apply).
enum class SkillCategory : std::uint8_t { physical, mental, magic };
inline constexpr std::array<std::string_view, 3> kSkillCategoryNames = {"physical", "mental",
                                                                        "magic"};

enum class WeaponKind : std::uint8_t { melee, missile };
inline constexpr std::array<std::string_view, 2> kWeaponKindNames = {"melee", "missile"};

// schema.Weapon.reload (H16): what a missile needs before each shot.
enum class Reload : std::uint8_t { none, nock, wind };
inline constexpr std::array<std::string_view, 3> kReloadNames = {"none", "nock", "wind"};

// schema.Item.kind (H21, H23).
enum class ItemKind : std::uint8_t { torch, potion, scroll, ammo, gear };
inline constexpr std::array<std::string_view, 5> kItemKindNames = {"torch", "potion", "scroll",
                                                                   "ammo", "gear"};

// schema.Spell (H18): casting time, effect and target kind.
enum class SpellCasting : std::uint8_t { free, attack, full, rounds };
inline constexpr std::array<std::string_view, 4> kSpellCastingNames = {"free", "attack", "full",
                                                                       "rounds"};
enum class SpellEffect : std::uint8_t { damage, heal, buff };
inline constexpr std::array<std::string_view, 3> kSpellEffectNames = {"damage", "heal", "buff"};
enum class SpellTarget : std::uint8_t { enemy, ally, self, any };
inline constexpr std::array<std::string_view, 4> kSpellTargetNames = {"enemy", "ally", "self",
                                                                      "any"};

enum class ArmourSlot : std::uint8_t { body, head, hands, shield };
inline constexpr std::array<std::string_view, 4> kArmourSlotNames = {"body", "head", "hands",
                                                                      "shield"};

// The index of `name` in `names`, or nullopt.
template <std::size_t N>
std::optional<int> index_in(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- ruleset.toml

struct InitiativeRules {  // S1/H4
  int dex_bonus_base = 10;    // H4: DEX bonus = floor((DEX - base) / divisor)
  int dex_bonus_divisor = 2;  // H4
  double impaired_factor = 0.5;  // H4: encumbered / fatigued halve the total
};

struct MovementRules {  // S17
  int move_divisor = 2;  // S17: squares per MOVE action = floor(MOV / 2)
  int min_mov = 1;       // S20 (house): MOV never below this after penalties
  std::vector<int> diagonal_costs{1, 2};  // S18/H16: alternating diagonal costs
};

struct EncumbranceRules {  // S19
  int str_offset = 10;  // S19: capacity = SIZ x (STR + str_offset) / divisor stones
  int divisor = 20;
  double threshold_fraction = 0.5;  // S19: a load over this fraction encumbers
  double factor = 0.5;              // S19: MOV, initiative, physical skills
};

struct BurdenLevel {  // S20: one row of the armour-burden table
  double skill_factor = 1.0;
  int mov_penalty = 0;
  int magic_fumble = 0;  // H18
};

struct FatigueRules {  // S21
  double fatigued_factor = 0.5;
  double exhausted_factor = 0.1;
};

struct ModifierRules {  // H16
  int long_range = -20;       // between range and long_range_factor x range
  int long_range_factor = 2;  // beyond it: out of range
};

struct SkillDef {  // ruleset [skills.*]
  SkillCategory category = SkillCategory::physical;
  int base = 0;
};

struct Ruleset {
  InitiativeRules initiative;
  MovementRules movement;
  EncumbranceRules encumbrance;
  std::array<BurdenLevel, 4> burden;  // indexed by Burden (S20)
  FatigueRules fatigue;
  std::vector<SkillDef> skills;      // indexed by skill id (Content::skill_names)
  std::vector<int> reach_squares;    // H12: indexed by reach letter (Content::reach_names)
  ModifierRules modifiers;
  int torch_radius = 0;              // H23: misc.torch_radius, in squares
  int free_actions_per_turn = 1;     // H25: misc.free_actions_per_turn
};

// ---------------------------------------------------------------- the tables

struct Race {  // races.toml (S17)
  int mov = 0;
};

struct Weapon {  // weapons.toml
  int equipment = kNone;  // its id in Content::equipment_names
  WeaponKind kind = WeaponKind::melee;
  int skill = kNone;            // skill id
  int reach = kNone;            // reach letter id (S, M, L)
  int reach_squares = 0;        // H12: ruleset.misc.reach_squares[reach]
  bool natural = false;         // H12/H21: no hands, no weight
  int ap = 0;                   // H9
  double weight = 0.0;          // stones
  int hands = 0;
  int range = 0;                // H16: base range in squares (missiles)
  Reload reload = Reload::none;  // H16
  int ammo = kNone;             // H16: equipment id consumed per shot
  bool parry = true;            // S8/H9: false for weapons that cannot parry
};

struct Armour {  // armour.toml (S20, H6, H9)
  int equipment = kNone;
  ArmourSlot slot = ArmourSlot::body;
  int ap = 0;
  double weight = 0.0;
  Burden burden = Burden::none;
  int hands = 0;
  int skill = kNone;                                  // a shield's parry skill
  std::vector<int> impossible;                        // S20: skill ids
  std::vector<std::pair<int, double>> skill_factors;  // S20: (skill id, factor), dict order
};

struct Item {  // items.toml (H21)
  int equipment = kNone;
  double weight = 0.0;
  int hands = 0;
  ItemKind kind = ItemKind::gear;  // H21/H23
  int spell = kNone;               // scrolls: the spell id cast when read (H18)
};

struct Spell {  // spells.toml (H18): what the legal actions read
  SpellCasting casting = SpellCasting::full;
  int cost = 0;   // power points
  int range = 0;  // squares; 0 = self
  SpellEffect effect = SpellEffect::damage;
  SpellTarget target = SpellTarget::enemy;
  bool components = false;
};

// One equipment id (what an ItemInstance names): its row in each table, or kNone.
struct Equipment {
  int weapon = kNone;
  int armour = kNone;
  int item = kNone;
  double weight = 0.0;  // Content.weight_of: stones carried per unit (natural weapons 0)
};

struct Content {
  Ruleset ruleset;
  std::vector<Race> races;
  std::vector<Weapon> weapons;
  std::vector<Armour> armour;
  std::vector<Item> items;
  std::vector<Spell> spells;  // indexed by spell id (spell_names)
  std::vector<Equipment> equipment;  // indexed by equipment id

  Names skill_names;           // ruleset.skills, in order
  Names characteristic_names;  // ruleset.characteristics.names, in order
  Names reach_names;           // ruleset.misc.reach_squares keys
  Names race_names;
  Names weapon_names, armour_names, item_names;  // each table's own ids
  Names equipment_names;  // weapons, then armour, then items ids (each once)
  Names spell_names;
  Names creature_names;

  // Characteristic ids the derived values read (kNone where the ruleset lacks one).
  int strength = kNone, size = kNone, dexterity = kNone, constitution = kNone;
  // Skill ids the rules and the odds ask for by name, found once (kNone where missing):
  // "dodge", "shield", and the unarmed skill (kUnarmedSkill).
  int dodge_skill = kNone, shield_skill = kNone, unarmed_skill = kNone;

  // Content.hands_of: hands one ready `equipment_id` takes (natural weapons none).
  int hands_of(int equipment_id) const;
  // Which tables an equipment id is in (Content.kind_of asks them in this order).
  const Equipment& equipment_of(int equipment_id) const {
    return equipment.at(static_cast<std::size_t>(equipment_id));
  }
  // Fills `equipment` and the derived columns once every table is in (call last).
  void finish();
};

}  // namespace fray::content
