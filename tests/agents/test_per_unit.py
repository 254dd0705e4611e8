"""``per_unit``: a composition of agents, one per unit."""

from __future__ import annotations

import pytest

import agents
from experiments.replay import play
from rules import Battle
from rules import events as ev


def _without_reasons(events: list) -> list:
    return [e for e in events if not isinstance(e, ev.Reasoned)]


def test_per_unit_without_overrides_plays_exactly_as_its_default() -> None:
    for seed in (0, 5):
        alone, alone_replay = play("skirmish", seed, {"party": "berserker",
                                                      "monsters": "tactician"})
        composed, composed_replay = play("skirmish", seed, {"party": "berserker",
                                                            "monsters": "per_unit()"})
        assert composed_replay.actions == alone_replay.actions
        assert _without_reasons(composed.events) == _without_reasons(alone.events)


def test_each_named_unit_is_played_by_its_own_agent() -> None:
    battle, _ = play("skirmish", 3, {"party": "berserker",
                                     "monsters": "per_unit(wolf_1=defender,default=pack)"})
    by_unit: dict[str, set[str]] = {}
    for event in battle.events:
        if isinstance(event, ev.Reasoned) and event.actor in {"wolf_1", "orc_1", "goblin_1"}:
            by_unit.setdefault(event.actor, set()).add(event.reason.split(":")[0])
    assert by_unit["wolf_1"] == {"defender"}
    assert by_unit["orc_1"] == by_unit["goblin_1"] == {"pack"}


def test_per_unit_rejects_unknown_units_and_agents() -> None:
    with pytest.raises(ValueError, match=r"wolf_1 expects an agent spec .*got 'nobody'"):
        agents.make("per_unit(wolf_1=nobody)")
    agent = agents.make("per_unit(wolf_2=defender)", seed=0)
    with pytest.raises(ValueError, match="no unit wolf_2 in this battle"):
        agent.act(Battle.from_scenario("skirmish", seed=0))
