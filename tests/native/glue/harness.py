"""The native step (issue 23): ``rules/native/core/harm.cpp`` (:mod:`rules.harm`),
``combat.cpp`` (:mod:`rules.combat`), ``effects.cpp`` (:mod:`rules.effects`), the offer
and attack frames of ``frames.cpp`` and ``roller.cpp`` (:mod:`rules.roller`'s rolls on
the native Pcg64, forced faces included), run on a native battle state
(``rules.bridge.battle_state``).

:mod:`rules.harm` and :mod:`rules.combat` stay the reference. This test-only module is
the differential tests' harness, calling the step's parts one by one:
``tests/native/test_apply_differential.py`` runs each rules function on a Python battle
and on its native state, from the same dice state, and compares ``to_dict()`` (state,
dice and events). :class:`rules.Battle` runs the same step through
``rules.bridge.driver``.

- :class:`NativeHarm` calls those functions by name on a native state:
  ``NativeHarm(battle).call("lose_hp", "hero", 3, "poison", True)``,
  ``.combat("resolve", frame_to_dict(frame))``; ``.answer_and_step(action)`` runs the
  offer and attack frames' answer and steps (``rules/native/core/frames.cpp``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules import engine
from rules.bridge.battle_state import apply_rules, native_state
from rules.bridge.legal import legal_map

if TYPE_CHECKING:
    from rules.battle import Battle


def _module() -> Any:
    """The compiled module, holding the native step (``rules.engine.require_native``)."""
    return engine.require_native("ApplyRules", "the native step")


class NativeHarm:
    """:mod:`rules.harm` on the native state of a battle (built once, changed in place)."""

    def __init__(self, battle: Battle) -> None:
        self.state = native_state(battle)
        self.map = legal_map(battle.state)
        self.rules = apply_rules(battle.state.content, self.state)

    def call(self, function: str, *arguments: Any) -> Any:
        """``rules.harm.<function>`` with combatants given by id (see bindings_apply.cpp
        for each function's arguments)."""
        return getattr(_module(), f"harm_{function}")(self.state, self.map, self.rules,
                                                        *arguments)

    def combat(self, function: str, *arguments: Any) -> Any:
        """``rules.combat.<function>`` on an AttackFrame given as ``frame_to_dict``'s dict;
        returns the frame's dict after (and roll_attack's hit first)."""
        if function == "settled":
            return _module().combat_settled(self.state, *arguments)
        return getattr(_module(), f"combat_{function}")(self.state, self.map, self.rules,
                                                          *arguments)

    def apply_effect(self, actor: str, action: Any) -> None:
        """``rules.effects.apply_effect`` of ``action`` by ``actor`` (``effects.cpp``)."""
        _module().effects_apply(self.state, self.map, self.rules, actor, action)

    def answer_and_step(self, action: Any) -> tuple[str, str, str | None] | None:
        """The top frame's answer to the pending reaction decision (``rules.frames``), then
        its steps while an offer or attack frame is on top: the decision one asks for, as
        (kind value, actor, source), or None once none is left on top."""
        return _module().frames_answer_and_step(self.state, self.map, self.rules, action)

    def to_dict(self) -> dict[str, Any]:
        """``Battle.to_dict()`` of the native state as it now stands."""
        return self.state.to_dict()


class NativeBattle:
    """A battle run natively (issue 23): its state (``bridge.battle_state.native_state``), the
    loop of ``rules/native/core/battle.cpp`` (``apply``: a TURN's ``start_action``, else the
    top frame's answer, then run to the next decision) and the legal actions of
    ``legal.cpp``, driven directly with no legality check (the differential tests'
    harness; a native :class:`rules.Battle` drives the same loop through
    ``rules.bridge.driver``)."""

    def __init__(self, battle: Battle) -> None:
        self.state = native_state(battle)
        self.rules = apply_rules(battle.state.content, self.state)
        self.loop = _module().BattleLoop(legal_map(battle.state),
                                         battle.scenario.max_rounds)

    def legal_actions(self) -> list[Any]:
        """The pending decision's legal actions (``[]`` once over)."""
        return _module().battle_legal_actions(self.state, self.loop)

    def apply(self, action: Any) -> None:
        """``Battle.apply(action)`` natively (the action must be legal: not checked)."""
        _module().battle_apply(self.state, self.loop, self.rules, action)

    def random_play(self, seed: int, max_decisions: int) -> int:
        """Play on with uniformly random legal actions chosen by a native Pcg64, all in
        C++; the number of decisions made."""
        return _module().battle_random_play(self.state, self.loop, self.rules, seed,
                                            max_decisions)

    def to_dict(self, *, events: bool = True) -> dict[str, Any]:
        """``Battle.to_dict()`` of the native battle as it now stands."""
        return self.state.to_dict(events=events)

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every event so far, as ``event_to_dict`` writes them."""
        return self.events_since(0)

    def events_since(self, start: int) -> list[dict[str, Any]]:
        """The events from index ``start`` on, as ``event_to_dict`` writes them."""
        return _module().events_since(self.state, start)
