"""The battle state: plain data at the bottom of ``rules`` (the State of OpenSpiel's
Game/State split).

A :class:`BattleState` holds everything that changes during a battle (combatants, ground
items, the frame stack of work in progress, dice, round, turn index, initiative order,
events, the result) plus the immutable parts it needs (content, scenario) and the map
with its reach-graph cache. Rule modules (:mod:`rules.frames`, :mod:`rules.legal`,
:mod:`rules.effects`, :mod:`rules.combat`, :mod:`rules.harm`, :mod:`rules.queries`) take
a state, change it and record events with :meth:`BattleState.emit`; none of them drives
the decision loop. Where a rule ends the turn it sets ``end_turn_requested`` and the
driver (:class:`rules.battle.Battle`) honours it.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from rules.combatant import Combatant, ItemInstance
from rules.content import Content
from rules.events import Event
from rules.grid import GridMap
from rules.reach import ReachGraph
from rules.roller import Roller

if TYPE_CHECKING:
    from rules.frames import Frame
    from rules.scenario import Scenario


class BattleState:
    """Everything one battle is made of, without the decision loop."""

    __slots__ = (
        "_graph",
        "_graph_grid",
        "combatants",
        "content",
        "dice",
        "end_turn_requested",
        "engine",
        "events",
        "grid",
        "ground",
        "initiative_order",
        "is_over",
        "round",
        "scenario",
        "stack",
        "turn_index",
        "winner",
    )

    def __init__(self, content: Content, scenario: Scenario, dice: Roller) -> None:
        self.content = content
        self.scenario = scenario
        self.dice = dice
        self.grid: GridMap = scenario.grid
        self.round: int = scenario.start_round
        self.combatants: dict[str, Combatant] = {}
        self.ground: list[ItemInstance] = []
        self.initiative_order: list[str] = []
        self.turn_index = 0
        self.stack: list[Frame] = []
        self.events: list[Event] = []
        self.is_over = False
        self.winner: str | None = None
        self.end_turn_requested = False
        #: which engine runs this battle: "python" or "native" (rules.engine.resolve)
        self.engine = "python"
        self._graph: ReachGraph | None = None
        self._graph_grid: GridMap | None = None  # the map object ``_graph`` was found for

    def emit(self, cls: type[Event], **fields: Any) -> Event:
        """Record one event of this round."""
        event = cls(round=self.round, **fields)
        self.events.append(event)
        return event

    @property
    def current_actor(self) -> str | None:
        """The owner of the current turn."""
        if self.turn_index < len(self.initiative_order):
            return self.initiative_order[self.turn_index]
        return None

    @property
    def graph(self) -> ReachGraph:
        """The reach graph of the map as its doors are now (built once per door state)."""
        # by identity of this battle's map: the shared graph's own map may be an equal
        # map of another battle, and comparing two equal maps compares all their squares
        if self._graph is None or self._graph_grid is not self.grid:
            movement = self.content.ruleset.movement
            self._graph_grid = self.grid
            self._graph = _graph_for(self.grid, tuple(movement.diagonal_costs),
                                     movement.difficult_multiplier)
        return self._graph

    def set_grid(self, grid: GridMap) -> None:
        """Swap the map (a door opened or closed); the reach graph follows."""
        self.grid = grid
        self._graph = None

    def active(self) -> list[Combatant]:
        """The combatants still in action."""
        return [combatant for combatant in self.combatants.values() if combatant.in_action]

    def copy(self) -> BattleState:
        """An independent copy: immutable parts (content, scenario, map, reach graph,
        frozen events) shared, everything mutable copied."""
        new = BattleState.__new__(BattleState)
        for name in BattleState.__slots__:
            setattr(new, name, getattr(self, name))
        new.dice = self.dice.copy()
        new.combatants = {cid: combatant.copy() for cid, combatant in self.combatants.items()}
        new.ground = [item.copy() for item in self.ground]
        new.initiative_order = list(self.initiative_order)
        new.stack = [frame.copy() for frame in self.stack]
        new.events = list(self.events)
        return new


_GRAPH_CACHE: OrderedDict[tuple[GridMap, tuple[int, ...], int], ReachGraph] = OrderedDict()
#: Reach graphs kept (door states of the maps in use); the least recently used goes first.
_GRAPHS_KEPT = 16


def _graph_for(grid: GridMap, diagonal_costs: tuple[int, ...], multiplier: int) -> ReachGraph:
    """One reach graph per (map, movement costs), shared across battles and clones."""
    key = (grid, diagonal_costs, multiplier)
    graph = _GRAPH_CACHE.get(key)
    if graph is None:
        while len(_GRAPH_CACHE) >= _GRAPHS_KEPT:
            _GRAPH_CACHE.popitem(last=False)
        graph = ReachGraph(grid, diagonal_costs=diagonal_costs,
                           difficult_multiplier=multiplier)
        _GRAPH_CACHE[key] = graph
    else:
        _GRAPH_CACHE.move_to_end(key)
    return graph
