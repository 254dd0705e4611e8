"""The native step (issue 23): ``rules/native/harm.cpp`` (:mod:`rules.harm`) and
``roller.cpp`` (:mod:`rules.roller`'s rolls on the native Pcg64, forced faces included),
run on a native battle state (:mod:`rules.native_battle`).

:mod:`rules.harm` stays the reference: nothing on the battle path calls this module yet.
``tests/native/test_apply_differential.py`` runs each rules function on a Python battle
and on its native state, from the same dice state, and compares ``to_dict()`` (state,
dice and events).

- :func:`apply_rules` compiles the ruleset numbers the step reads
  (``rules._native.ApplyRules``), kept per ruleset.
- :class:`NativeHarm` calls :mod:`rules.harm`'s functions by name on a native state:
  ``NativeHarm(battle).call("lose_hp", "hero", 3, "poison", True)``.
"""

from __future__ import annotations

from typing import Any

from rules import native_battle, native_legal, native_records
from rules.battle import Battle

_RULES: dict[int, tuple[Any, Any]] = {}


def _module() -> Any:
    module = native_records.native()
    if not hasattr(module, "ApplyRules"):
        raise RuntimeError("rules._native was built before the native step: run "
                           "`pip install -e .` again")
    return module


def apply_rules(ruleset: Any) -> Any:
    """``ruleset``'s numbers the native step reads, as a ``rules._native.ApplyRules``."""
    found = _RULES.get(id(ruleset))
    if found is None or found[0] is not ruleset:
        found = (ruleset, _module().ApplyRules(ruleset))
        _RULES[id(ruleset)] = found
    return found[1]


class NativeHarm:
    """:mod:`rules.harm` on the native state of a battle (built once, changed in place)."""

    def __init__(self, battle: Battle) -> None:
        self.state = native_battle.native_state(battle)
        self.map = native_legal.legal_map(battle.state)
        self.rules = apply_rules(battle.state.content.ruleset)

    def call(self, function: str, *arguments: Any) -> Any:
        """``rules.harm.<function>`` with combatants given by id (see bindings_apply.cpp
        for each function's arguments)."""
        return getattr(_module(), f"harm_{function}")(self.state, self.map, self.rules,
                                                        *arguments)

    def to_dict(self) -> dict[str, Any]:
        """``Battle.to_dict()`` of the native state as it now stands."""
        return native_battle.to_dict(self.state)
