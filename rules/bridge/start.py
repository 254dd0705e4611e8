"""Battles started in C++ (issue 23): a scenario mustered once as native parts
(:func:`start_template`), then each battle's initiative, first turn and first decision run
by ``rules/native/core/battle.cpp``'s ``start_battle`` (:func:`start_native`). How
``rules.Battle(..., engine="native")`` starts (:func:`started_driver`, one template per
scenario and thread) and how the batched env starts its battles.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, NamedTuple

from rules import engine, muster
from rules.bridge.driver import NativeDriver, json_header, native_module, state_parts
from rules.content import default_content
from rules.roller import Roller
from rules.state import BattleState

if TYPE_CHECKING:
    from rules.content import Content
    from rules.scenario import Scenario


class StartTemplate(NamedTuple):
    """A scenario mustered once, to start its battles in C++ (:func:`start_template`)."""

    state: Any  # rules._native.BattleState: the combatants before initiative, no events
    rules: Any  # rules._native.ApplyRules of the content
    loop: Any  # rules._native.BattleLoop of the scenario's map
    scenario: str  # the scenario's name (BattleStarted.scenario)


def start_template(scenario: Scenario, content: Content | None = None,
                   content_dir: str | None = None, records: Any = None) -> StartTemplate:
    """``scenario`` mustered as ``Battle(scenario, seed, content, content_dir)`` musters it
    for any seed (``rules.muster.muster_combatants``: round ``start_round``, no events, no
    decision), as native parts; :func:`start_native` starts battles from it. ``records``:
    as in :func:`rules.bridge.driver.native_parts` (the started battles' events are
    interned there too).

    ValueError when mustering rolls dice (a unit with ``roll_characteristics``, H1): its
    combatants depend on the seed, so the battle must be built by ``rules.Battle``."""
    if muster.rolls_at_muster(scenario):
        rolled = [spec.id for spec in scenario.units if spec.roll_characteristics]
        raise ValueError(f"start_template: scenario {scenario.name!r} rolls characteristics "
                         f"at muster ({', '.join(rolled)}), so its combatants depend on the "
                         f"seed; build its battles with rules.Battle")
    state = BattleState(content if content is not None else default_content(), scenario,
                        Roller(None))
    state.combatants.update(muster.muster_combatants(state.content, state.dice, scenario))
    native, rules, loop = state_parts(state, None, json_header(state, content_dir, None),
                                       records)
    return StartTemplate(native, rules, loop, scenario.name)


def start_native(template: StartTemplate, seed: int) -> Any:
    """The native state (``rules._native.BattleState``) of
    ``Battle(scenario, seed, content, content_dir)`` of ``template``'s scenario, built in
    C++ (``rules/native/core/battle.cpp`` ``start_battle``: initiative, BattleStarted, the first
    turn, run to the first decision); ``to_dict()`` equals that battle's. ``seed``: an
    integer >= 0. It steps with ``template.loop`` and ``template.rules``, which every
    battle started from the template may share (one thread at a time)."""
    return native_module().battle_start(template.state, seed, template.loop, template.rules,
                                  template.scenario)


def driver_from_template(template: StartTemplate, seed: int, content: Content,
                         scenario: Scenario) -> NativeDriver:
    """The driver of ``rules.Battle(scenario, seed, content, content_dir, engine="native")``
    started in C++ from ``template`` (:func:`start_native`; the template of that scenario
    and content): the same battle, its Python mirror built only when read. The battle
    steps with the template's loop and rules (one thread at a time)."""
    return NativeDriver(start_native(template, seed), template.rules, template.loop,
                        content, scenario, "native")


#: this thread's templates (a template's loop serves one thread at a time), by scenario
_THREAD = threading.local()
_TEMPLATES_KEPT = 16


def started_driver(scenario: Scenario, seed: int, content: Content,
                   content_dir: str | None = None) -> NativeDriver | None:
    """The driver of ``Battle(scenario, seed, content, content_dir, engine="native")``
    started in C++ from this thread's template of the scenario (made at its first battle
    and kept; ``rules.Battle`` asks for it), or None when it cannot be: the engine is not
    built, ``seed`` is not an int >= 0, or mustering rolls dice (then the battle is built
    by the Python code and handed over, ``NativeDriver.start``)."""
    if not engine.native_available() or not isinstance(seed, int) or seed < 0:
        return None
    made = _THREAD.__dict__.setdefault("templates", {})
    key = (scenario.name, scenario.text, content_dir)
    known = made.get(key)
    if known is None or known[0] is not content or known[1] is not scenario:
        try:
            template = start_template(scenario, content, content_dir)
        except ValueError:
            template = None
        if len(made) >= _TEMPLATES_KEPT:
            made.pop(next(iter(made)))
        known = made[key] = (content, scenario, template)
    template = known[2]
    if template is None:
        return None
    return driver_from_template(template, seed, content, scenario)


