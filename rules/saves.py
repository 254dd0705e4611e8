"""A battle as JSON data (``Battle.to_dict``/``to_json``/``from_json``): what the Python
engine writes, and how a restored battle's state is filled in from it. The native engine
writes the same data itself (``rules._native.BattleState.to_dict``) and is restored from
the Python state this module fills (``rules.bridge.driver``)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rules.combatant import Combatant, item_from_dict
from rules.errors import SaveError
from rules.events import event_from_dict, event_to_dict
from rules.frames import frame_from_dict, frame_to_dict
from rules.grid import GridMap
from rules.roller import Roller

if TYPE_CHECKING:
    from rules.battle import Battle
    from rules.state import BattleState

Square = tuple[int, int]
#: The version of the battle JSON (to_json/from_json; rules.battle re-exports it).
JSON_VERSION = 3  # 2: typed frames (rules.frames.frame_to_dict); 3: the ride frame


def battle_to_dict(battle: Battle, *, events: bool = True) -> dict[str, Any]:
    """``Battle.to_dict`` of a battle run by the Python engine."""
    state = battle.state
    decision = battle._decision
    out = {
        "version": JSON_VERSION,
        "scenario": {"text": state.scenario.text, "source": state.scenario.source},
        "content_dir": battle.content_dir,
        "seed": battle.seed,
        "dice": state.dice.state(),
        "round": state.round,
        "turn_index": state.turn_index,
        "initiative_order": list(state.initiative_order),
        "combatants": [c.to_dict() for c in state.combatants.values()],
        "ground": [vars(i).copy() for i in state.ground],
        "doors_open": sorted(
            [list(sq) for sq, is_open in state.grid.doors.items() if is_open]),
        "stack": [frame_to_dict(frame) for frame in state.stack],
        "events": [event_to_dict(e) for e in state.events] if events else None,
        "is_over": state.is_over,
        "winner": state.winner,
        "decision": None if decision is None else {
            "kind": decision.kind.value, "actor": decision.actor,
            "source": decision.source},
    }
    if not events:
        del out["events"]
        out["event_count"] = len(state.events)
    return out


def decode(text: str, source: str) -> dict[str, Any]:
    """The top of a save (``Battle.from_json``'s ``text``, read from ``source``): JSON
    of this fray's version whose header (content folder, scenario) can be loaded; the rest
    is ``rules.save_validation``'s to check."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise SaveError(source, "JSON", "a battle saved by Battle.to_json",
                        f"<{type(error).__name__}: {error}>") from None
    if not isinstance(data, dict):
        raise SaveError(source, "save", "a JSON object", f"<a {type(data).__name__}>")
    if type(data.get("version")) is not int or data["version"] != JSON_VERSION:
        raise SaveError(source, "version", str(JSON_VERSION),  # else another fray wrote it
                        data.get("version", "<missing>"))
    if "content_dir" not in data or not (data["content_dir"] is None
                                         or type(data["content_dir"]) is str):
        raise SaveError(source, "content_dir", "null or a folder name",
                        data.get("content_dir", "<missing>"))
    scenario = data.get("scenario")
    if not isinstance(scenario, dict) or set(scenario) != {"text", "source"} or any(
            type(scenario[key]) is not str for key in ("text", "source")):
        raise SaveError(source, "scenario", "an object of two strings, text and source",
                        scenario if scenario is not None else "<missing>")
    return data


def doors_as(grid: GridMap, opened: Iterable[Square]) -> GridMap:
    """``grid`` (the scenario's map) with exactly the doors ``opened`` open."""
    wanted = {(square[0], square[1]) for square in opened}
    for square in grid.doors:
        grid = grid.with_door(square, square in wanted)
    return grid


def restore(state: BattleState, data: dict[str, Any]) -> None:
    """Fill a new battle's empty state from ``Battle.to_dict`` data (all but the decision,
    which the driver keeps)."""
    state.dice = Roller.from_state(data["dice"])
    state.round = data["round"]
    state.turn_index = data["turn_index"]
    state.initiative_order = list(data["initiative_order"])
    for entry in data["combatants"]:
        combatant = Combatant.from_dict(entry, state.content)
        state.combatants[combatant.id] = combatant
    state.ground = [item_from_dict(item) for item in data["ground"]]
    state.set_grid(doors_as(state.scenario.grid, data["doors_open"]))
    state.stack = [frame_from_dict(frame) for frame in data["stack"]]
    state.events = [event_from_dict(event) for event in data["events"]]
    state.is_over = data["is_over"]
    state.winner = data["winner"]
