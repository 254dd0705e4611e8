"""A saved battle checked completely before either engine sees it (issue 46).

``Battle.from_json`` calls :func:`check_save` on the decoded JSON, once the scenario and
the content it names are loaded, and before anything is restored: both engines are
restored from the Python state it fills (``rules.bridge.driver``), so they share this one
verdict. A save is accepted only when it is a state the rules could have built:

- the schema: exactly the keys ``Battle.to_dict`` writes, each of its JSON type (a bool
  is no integer, a float, NaN or None is no integer, strings are valid UTF-8);
- ranges: :mod:`rules.limits` (``MAX_STAT`` for every characteristic, skill, hit and
  power points, count, AP; ``MAX_ROUNDS``; the seed), enums (status, item state, frame
  phases and stages, attack modes, success levels 0..4, fatigue levels 0..2);
- cross-references: known combatant ids, content ids and item uids, uids unique over
  every inventory and the ground, the initiative order exactly the combatants, riding,
  ridden_by and grappled_by naming another combatant consistently;
- the rules' invariants of a state: one body per square (a rider shares its mount's;
  a move under way may pass an ally, H13, H22), HP at most the maximum and in action only
  above the out-of-action threshold (H5), standing on the map off walls and closed
  doors, ready items within two hands (H21), a round's budget spent as S2 allows, power
  points within 0..max, frames the rules could have built (a move frame's index within
  its path, an attack's levels for its stage), and the decision the stack or the turn
  order asks for, with the result (``is_over``, ``winner``) matching.

A bad save raises one :class:`rules.errors.SaveError`:
``FILE: FIELD: expected EXPECTED, got FOUND`` (``combatants[2].hp: expected an integer
in -10000..7, got 9``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rules import limits
from rules.actions import ATTACK_MODES, WALKING_KINDS, ActionKind, DecisionKind
from rules.budget import BUDGETED, ROUND_BUDGETS
from rules.combatant import FATIGUE_NAMES, HANDS, Combatant, ItemInstance
from rules.dice import SuccessLevel
from rules.frames import ACT_PHASES, ATTACK_STAGES, RIDE_PHASES
from rules.save_fields import Check, check_events

if TYPE_CHECKING:
    from rules.content import Content
    from rules.grid import GridMap
    from rules.scenario import Scenario

Square = tuple[int, int]

#: The keys ``Battle.to_dict`` writes (``events`` included).
SAVE_KEYS = ("version", "scenario", "content_dir", "seed", "dice", "round", "turn_index",
             "initiative_order", "combatants", "ground", "doors_open", "stack", "events",
             "is_over", "winner", "decision")
COMBATANT_KEYS = tuple(name for name in Combatant.__dataclass_fields__ if name != "content")
ITEM_KEYS = tuple(ItemInstance.__dataclass_fields__)
STATUSES = ("active", "out", "dead")
ITEM_STATES = ("ready", "carried", "sheathed", "hidden", "ground")
CONCENTRATIONS = ("aim", "cast")
ACTION_VALUES = tuple(kind.value for kind in ActionKind)
WALKING_VALUES = tuple(kind.value for kind in WALKING_KINDS)
LEVELS = range(min(SuccessLevel), max(SuccessLevel) + 1)
HIT_LEVELS = range(SuccessLevel.SUCCESS, max(SuccessLevel) + 1)
#: How a success level, a stat or a round is described in messages.
_STAT = (0, limits.MAX_STAT)
_ROUNDS = (0, limits.MAX_ROUNDS)


def check_save(data: Any, scenario: Scenario, content: Content, file: str = "battle JSON",
               grid: GridMap | None = None) -> None:
    """Raise :class:`SaveError` unless ``data`` (``Battle.to_dict`` data of ``scenario`` on
    ``content``) is a state the rules could have built (see the module docstring).
    ``grid``: the scenario's map with the save's doors (checked here when not given)."""
    from rules.saves import doors_as  # it imports the rules' modules

    check = Check(file)
    check.mapping(data, "", SAVE_KEYS)
    check.integer(data["seed"], "seed", 0, limits.MAX_SEED)
    if data["content_dir"] is not None:
        check.text(data["content_dir"], "content_dir")
    _check_dice(check, data["dice"])
    doors = scenario.grid.doors
    opened = []
    for i, door in enumerate(check.listed(data["doors_open"], "doors_open", len(doors))):
        square = check.square(door, f"doors_open[{i}]", scenario.grid)
        if square not in doors or square in opened:
            raise check.fail(f"doors_open[{i}]", "a door of the map, once", door)
        opened.append(square)
    if grid is None:
        grid = doors_as(scenario.grid, opened)
    check.integer(data["round"], "round", 1, min(scenario.max_rounds, limits.MAX_ROUNDS))
    combatants = check.listed(data["combatants"], "combatants", limits.MAX_UNITS)
    ids: dict[str, int] = {}
    for i, entry in enumerate(combatants):
        check.mapping(entry, f"combatants[{i}]", COMBATANT_KEYS)
        cid = check.text(entry["id"], f"combatants[{i}].id")
        if not cid or cid in ids:
            raise check.fail(f"combatants[{i}].id", "a new combatant id", cid)
        ids[cid] = i
    uids: set[str] = set()
    for i, entry in enumerate(combatants):
        _check_combatant(check, entry, f"combatants[{i}]", content, grid, ids, uids)
    for i, item in enumerate(check.listed(data["ground"], "ground", limits.MAX_STAT)):
        _check_item(check, item, f"ground[{i}]", content, grid, uids, on_ground=True)
    _check_relations(check, combatants, ids)
    order = check.ids(data["initiative_order"], "initiative_order", ids)
    if sorted(order) != sorted(ids):
        raise check.fail("initiative_order", "every combatant id once", order)
    is_over = check.boolean(data["is_over"], "is_over")
    check.integer(data["turn_index"], "turn_index", 0, len(order) - (0 if is_over else 1))
    stack = check.listed(data["stack"], "stack", limits.MAX_UNITS * 4)
    for i, frame in enumerate(stack):
        _check_frame(check, frame, f"stack[{i}]", content, grid, ids, uids)
    _check_bodies(check, combatants, stack)
    _check_result(check, data, combatants)
    check_events(check, data["events"])


def _check_dice(check: Check, dice: Any) -> None:
    check.mapping(dice, "dice", ("bit_generator", "forced"))
    state = check.mapping(dice["bit_generator"], "dice.bit_generator",
                          ("bit_generator", "has_uint32", "state", "uinteger"))
    check.choice(state["bit_generator"], "dice.bit_generator.bit_generator", ("PCG64",))
    check.integer(state["has_uint32"], "dice.bit_generator.has_uint32", 0, 1)
    check.integer(state["uinteger"], "dice.bit_generator.uinteger", 0, 2**32 - 1)
    inner = check.mapping(state["state"], "dice.bit_generator.state", ("inc", "state"))
    check.integer(inner["inc"], "dice.bit_generator.state.inc", 0, 2**128 - 1)
    check.integer(inner["state"], "dice.bit_generator.state.state", 0, 2**128 - 1)
    # forced faces are a test hook (rules.roller); a save from outside queues none, so no
    # face can fail to fit its die half-way through an apply
    check.listed(dice["forced"], "dice.forced", 0)


def _check_item(check: Check, item: Any, path: str, content: Content, grid: GridMap,
                uids: set[str], *, on_ground: bool) -> None:
    check.mapping(item, path, ITEM_KEYS)
    uid = check.text(item["uid"], f"{path}.uid")
    if not uid or uid in uids:
        raise check.fail(f"{path}.uid", "an item uid not used by any other item", uid)
    uids.add(uid)
    if content.kind_of(check.text(item["item"], f"{path}.item")) is None:
        raise check.fail(f"{path}.item", "a weapon, armour or item id of the content",
                         item["item"])
    state = check.choice(item["state"], f"{path}.state", ITEM_STATES)
    if (state == "ground") != on_ground:
        raise check.fail(f"{path}.state", "ground" if on_ground else "not ground", state)
    check.integer(item["count"], f"{path}.count", 1, limits.MAX_STAT)
    if item["ap"] is not None:
        check.integer(item["ap"], f"{path}.ap", *_STAT)
    for flag in ("lit", "nocked", "loaded"):
        check.boolean(item[flag], f"{path}.{flag}")
    if on_ground:
        check.square(item["square"], f"{path}.square", grid)
    elif item["square"] is not None:
        raise check.fail(f"{path}.square", "null for a carried item", item["square"])


def _check_combatant(check: Check, entry: dict[str, Any], path: str, content: Content,
                     grid: GridMap, ids: Mapping[str, int], uids: set[str]) -> None:
    ruleset = content.ruleset
    check.text(entry["team"], f"{path}.team")
    if not entry["team"]:
        raise check.fail(f"{path}.team", "a team name", entry["team"])
    check.text(entry["name"], f"{path}.name")
    check.choice(entry["creature"], f"{path}.creature", content.creatures)
    check.choice(entry["race"], f"{path}.race", content.races)
    names = ruleset.characteristics.names
    check.mapping(entry["characteristics"], f"{path}.characteristics", names)
    for name in names:
        check.integer(entry["characteristics"][name], f"{path}.characteristics.{name}", *_STAT)
    skills = entry["base_skills"]
    if not isinstance(skills, dict):
        raise check.fail(f"{path}.base_skills", "an object of skill percentages", skills)
    for name, value in skills.items():
        check.choice(name, f"{path}.base_skills", ruleset.skills)
        check.integer(value, f"{path}.base_skills.{name}", *_STAT)
    check.optional_choice(entry["armour"], f"{path}.armour", content.armour)
    check.choice(entry["armour_training"], f"{path}.armour_training", ruleset.burden)
    position = check.square(entry["position"], f"{path}.position", grid)
    if grid.blocks_movement(position):
        raise check.fail(f"{path}.position", "a floor square (not a wall or closed door)",
                         entry["position"])
    max_hp = check.integer(entry["max_hp"], f"{path}.max_hp", 1, limits.MAX_STAT)
    hp = check.integer(entry["hp"], f"{path}.hp", -limits.MAX_STAT, max_hp)
    max_pp = check.integer(entry["max_power_points"], f"{path}.max_power_points", *_STAT)
    check.integer(entry["power_points"], f"{path}.power_points", 0, max_pp)
    spells = check.listed(entry["spells"], f"{path}.spells", len(content.spells))
    for i, spell in enumerate(spells):
        check.choice(spell, f"{path}.spells[{i}]", content.spells)
        if spell in spells[:i]:
            raise check.fail(f"{path}.spells[{i}]", "each spell once", spell)
    for flag in ("is_mount", "snake", "prone", "bleeding", "components_ready",
                 "moved_this_round", "shifted_this_round", "free_attack_used",
                 "dodge_waived", "concentration_broken"):
        check.boolean(entry[flag], f"{path}.{flag}")
    for i, item in enumerate(check.listed(entry["inventory"], f"{path}.inventory",
                                          limits.MAX_STAT)):
        _check_item(check, item, f"{path}.inventory[{i}]", content, grid, uids,
                    on_ground=False)
    hands = sum(content.hands_of(item["item"]) for item in entry["inventory"]
                if item["state"] == "ready")
    if hands > HANDS:
        raise check.fail(f"{path}.inventory", f"ready items needing at most {HANDS} hands "
                         "(H21)", f"<{hands} hands>")
    status = check.choice(entry["status"], f"{path}.status", STATUSES)
    threshold = ruleset.hit_points.out_of_action_at
    if status == "active" and hp <= threshold:
        raise check.fail(f"{path}.hp", f"above {threshold} while in action (H5)", hp)
    if status == "out" and not entry["prone"]:
        raise check.fail(f"{path}.prone", "true while out of action (H5)", False)
    check.integer(entry["fatigue_level"], f"{path}.fatigue_level", 0, len(FATIGUE_NAMES) - 1)
    for i, buff in enumerate(check.listed(entry["buffs"], f"{path}.buffs", limits.MAX_STAT)):
        if type(buff) is not list or len(buff) != 2:
            raise check.fail(f"{path}.buffs[{i}]", "[points, last round]", buff)
        check.integer(buff[0], f"{path}.buffs[{i}][0]", -limits.MAX_STAT, limits.MAX_STAT)
        check.integer(buff[1], f"{path}.buffs[{i}][1]", *_ROUNDS)
    for link in ("grappled_by", "riding", "ridden_by"):
        other = check.optional_choice(entry[link], f"{path}.{link}", ids)
        if other == entry["id"]:
            raise check.fail(f"{path}.{link}", "another combatant's id", other)
    casting = entry["casting"]
    if casting is not None:
        check.mapping(casting, f"{path}.casting", ("spell", "target", "done", "round"))
        check.choice(casting["spell"], f"{path}.casting.spell", content.spells)
        check.optional_choice(casting["target"], f"{path}.casting.target", ids)
        check.integer(casting["done"], f"{path}.casting.done", *_ROUNDS)
        check.integer(casting["round"], f"{path}.casting.round", *_ROUNDS)
    check.integer(entry["initiative"], f"{path}.initiative", -limits.MAX_STAT, limits.MAX_STAT)
    used = check.listed(entry["actions_used"], f"{path}.actions_used", 2)
    for i, category in enumerate(used):
        check.choice(category, f"{path}.actions_used[{i}]", BUDGETED)
    if used not in ROUND_BUDGETS:
        raise check.fail(f"{path}.actions_used", "a round's budget (S2)", used)
    check.integer(entry["diagonal_parity"], f"{path}.diagonal_parity", 0, 1)
    check.integer(entry["parries_used"], f"{path}.parries_used", *_STAT)
    check.integer(entry["extra_parries"], f"{path}.extra_parries", *_STAT)
    free = check.listed(entry["free_used"], f"{path}.free_used", len(ACTION_VALUES))
    for i, kind in enumerate(free):
        check.choice(kind, f"{path}.free_used[{i}]", ACTION_VALUES)
    if len(set(free)) != len(free):
        raise check.fail(f"{path}.free_used", "each free action once a turn (H25)", free)
    check.optional_choice(entry["concentration"], f"{path}.concentration", CONCENTRATIONS)


def _check_relations(check: Check, combatants: list[dict[str, Any]],
                     ids: Mapping[str, int]) -> None:
    """H22: a rider and its mount name each other and share a square."""
    for i, entry in enumerate(combatants):
        mount_id = entry["riding"]
        if mount_id is not None:
            mount = combatants[ids[mount_id]]
            if mount["ridden_by"] != entry["id"] or mount["position"] != entry["position"]:
                raise check.fail(f"combatants[{i}].riding",
                                 f"a mount ridden by {entry['id']} on its square (H22)",
                                 mount_id)
        rider_id = entry["ridden_by"]
        if rider_id is not None and combatants[ids[rider_id]]["riding"] != entry["id"]:
            raise check.fail(f"combatants[{i}].ridden_by",
                             f"a rider riding {entry['id']} (H22)", rider_id)


def _check_action(check: Check, action: Any, path: str, grid: GridMap) -> None:
    check.mapping(action, path, ("kind", "target", "square", "item"))
    check.choice(action["kind"], f"{path}.kind", ACTION_VALUES)
    for name in ("target", "item"):
        if action[name] is not None:
            check.text(action[name], f"{path}.{name}")
    if action["square"] is not None:
        check.square(action["square"], f"{path}.square", grid)


def _check_frame(check: Check, frame: Any, path: str, content: Content, grid: GridMap,
                 ids: Mapping[str, int], uids: set[str]) -> None:
    if not isinstance(frame, dict):
        raise check.fail(path, "a frame object", frame)
    kind = check.choice(frame.get("type"), f"{path}.type",
                        ("move", "act", "ride", "offer", "attack"))
    keys = {
        "move": ("actor", "kind", "path", "index", "checked", "parity", "provokes",
                 "provoked", "offers", "mount"),
        "act": ("actor", "action", "phase", "offers"),
        "ride": ("actor", "action", "phase", "offers", "incomplete"),
        "offer": ("enemy", "actor"),
        "attack": ("attacker", "target", "weapon", "weapon_id", "mode", "points", "stage",
                   "missile", "skill", "level", "parry_level", "parry_item", "dodge_level"),
    }[kind]
    check.mapping(frame, path, ("type", *keys))
    for name in ("actor", "enemy", "attacker", "target"):
        if name in keys:
            check.choice(frame[name], f"{path}.{name}", ids)
    for name in ("offers", "provoked"):
        if name in keys:
            listed = check.ids(frame[name], f"{path}.{name}", ids)
            if len(set(listed)) != len(listed):
                raise check.fail(f"{path}.{name}", "each combatant once", listed)
    if kind == "move":
        check.choice(frame["kind"], f"{path}.kind", WALKING_VALUES)
        squares = check.listed(frame["path"], f"{path}.path", grid.width * grid.height)
        if not squares:
            raise check.fail(f"{path}.path", "a path of at least one square", squares)
        for i, square in enumerate(squares):
            check.square(square, f"{path}.path[{i}]", grid)
        check.integer(frame["index"], f"{path}.index", 0, len(squares) - 1)
        check.integer(frame["checked"], f"{path}.checked", -1, len(squares) - 1)
        check.integer(frame["parity"], f"{path}.parity", 0, 1)
        check.boolean(frame["provokes"], f"{path}.provokes")
        check.optional_choice(frame["mount"], f"{path}.mount", ids)
    elif kind in ("act", "ride"):
        _check_action(check, frame["action"], f"{path}.action", grid)
        check.choice(frame["phase"], f"{path}.phase",
                     ACT_PHASES if kind == "act" else RIDE_PHASES)
        if kind == "ride":
            check.boolean(frame["incomplete"], f"{path}.incomplete")
    elif kind == "attack":
        _check_attack(check, frame, path, content, uids)


def _check_attack(check: Check, frame: dict[str, Any], path: str, content: Content,
                  uids: set[str]) -> None:
    """An attack frame as ``rules.frames.AttackFrame`` builds it: its levels set stage by
    stage (S4 a hit to reach the parry, S8 the parry before the dodge)."""
    for name in ("weapon", "parry_item"):
        check.optional_choice(frame[name], f"{path}.{name}", uids)
    if frame["weapon_id"] is not None and content.kind_of(
            check.text(frame["weapon_id"], f"{path}.weapon_id")) is None:
        raise check.fail(f"{path}.weapon_id", "an equipment id of the content",
                         frame["weapon_id"])
    mode = check.choice(frame["mode"], f"{path}.mode", ATTACK_MODES)
    check.integer(frame["points"], f"{path}.points", -limits.MAX_STAT, limits.MAX_STAT)
    stage = check.choice(frame["stage"], f"{path}.stage", ATTACK_STAGES)
    if check.boolean(frame["missile"], f"{path}.missile") != ATTACK_MODES[mode].missile:
        raise check.fail(f"{path}.missile", f"{ATTACK_MODES[mode].missile} for mode {mode}",
                         frame["missile"])
    check.optional_choice(frame["skill"], f"{path}.skill", content.ruleset.skills)
    reached = ATTACK_STAGES.index(stage)
    for name, rolled_before, levels in (("level", 1, HIT_LEVELS),
                                        ("parry_level", 2, LEVELS),
                                        ("dodge_level", 3, LEVELS)):
        value = frame[name]
        if value is None:
            if name == "level" and reached >= rolled_before:
                raise check.fail(f"{path}.level", f"the hit's level (2..4) at stage {stage}",
                                 value)
            continue
        if reached < rolled_before:
            raise check.fail(f"{path}.{name}", f"null at stage {stage}", value)
        check.integer(value, f"{path}.{name}", levels.start, levels.stop - 1)
    if frame["parry_item"] is not None and frame["parry_level"] is None:
        raise check.fail(f"{path}.parry_item", "null without a parry roll",
                         frame["parry_item"])


def _check_bodies(check: Check, combatants: list[dict[str, Any]],
                  stack: list[dict[str, Any]]) -> None:
    """H13/H22: no two bodies in action share a square, except a rider on its own mount;
    the bodies of a move under way may stand on an ally's square they are passing (as
    ``experiments.fuzzing.invariants.check_bodies`` checks during play)."""
    by_id = {entry["id"]: entry for entry in combatants}
    passing: set[str] = set()
    for frame in stack:
        if frame["type"] == "move":
            passing.add(frame["actor"])
            for mount in (by_id[frame["actor"]]["riding"], frame["mount"]):
                if mount is not None:
                    passing.add(mount)
    held: dict[Square, str] = {}
    for i, entry in enumerate(combatants):
        if entry["status"] != "active" or entry["id"] in passing:
            continue
        if entry["riding"] is not None:
            mount = by_id[entry["riding"]]
            if mount["status"] == "active":
                continue
        square = (entry["position"][0], entry["position"][1])
        if square in held:
            raise check.fail(f"combatants[{i}].position",
                             f"a square no other body in action holds (H13; {held[square]} "
                             "stands there)", entry["position"])
        held[square] = entry["id"]


def _check_result(check: Check, data: dict[str, Any],
                  combatants: list[dict[str, Any]]) -> None:
    """H25 and the decision loop: over means no decision, no stack and a winner with
    someone in action (or a draw); a running battle waits for the decision its
    top frame asks for, or for the turn owner's turn."""
    by_id = {entry["id"]: entry for entry in combatants}
    teams = sorted({entry["team"] for entry in combatants})
    standing = sorted({entry["team"] for entry in combatants if entry["status"] == "active"})
    winner = check.optional_choice(data["winner"], "winner", teams)
    decision = data["decision"]
    stack = data["stack"]
    if data["is_over"]:
        if decision is not None:
            raise check.fail("decision", "null once the battle is over", decision)
        if stack:
            raise check.fail("stack", "empty once the battle is over", f"<{len(stack)} frames>")
        # the winner still has someone in action (H25); a draw is not checked against who
        # stands: resting after the end (Battle.rest) may bring the fallen back
        if winner is not None and winner not in standing:
            raise check.fail("winner", f"a team with anyone in action (H25), standing: "
                             f"{standing}", winner)
        return
    if winner is not None:
        raise check.fail("winner", "null while the battle runs", winner)
    check.mapping(decision, "decision", ("kind", "actor", "source"))
    kind = check.choice(decision["kind"], "decision.kind", [k.value for k in DecisionKind])
    actor = check.choice(decision["actor"], "decision.actor", by_id)
    source = check.optional_choice(decision["source"], "decision.source", by_id)
    if by_id[actor]["status"] != "active":
        raise check.fail("decision.actor", "a combatant in action (H5)", actor)
    expected = _expected_decision(data, stack)
    if expected is None:
        raise check.fail(f"stack[{len(stack) - 1}]", "a frame waiting for a decision (an "
                         "offer, or an attack at its parry or dodge stage)",
                         f"<a {stack[-1]['type']} frame>")
    if (kind, actor, source) != expected:
        want = f"{expected[0]} by {expected[1]}" + (
            f" (source {expected[2]})" if expected[2] else "")
        raise check.fail("decision", f"{want}, the decision this state waits for",
                         f"<{kind} by {actor} (source {source})>")
    if kind == "turn" and by_id[actor]["ridden_by"] is not None:
        raise check.fail("decision.actor", "a combatant that may take a turn (a ridden "
                         "mount takes none, H22)", actor)


def _expected_decision(data: dict[str, Any], stack: list[dict[str, Any]]
                       ) -> tuple[str, str, str | None] | None:
    """The decision a running battle with this stack and turn waits for (None: its top
    frame never waits for one)."""
    if not stack:
        return ("turn", data["initiative_order"][data["turn_index"]], None)
    top = stack[-1]
    if top["type"] == "offer":
        return ("free_attack", top["enemy"], top["actor"])
    if top["type"] == "attack" and top["stage"] in ("parry", "dodge"):
        return (top["stage"], top["target"], top["attacker"])
    return None
