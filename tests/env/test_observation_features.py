"""The observation's features are (name, function) pairs, and the env docstring's sizes
and names are the pairs' (issue 7 part 3)."""

from __future__ import annotations

import random
import re

import rules
from env.observation import GLOBAL_FEATURES, PLANES, UNIT_FEATURES, ObservationBuilder
from env.skirmish import SkirmishEnv


def _documented(part: str) -> tuple[str, list[str]]:
    """The shape text and the listed names of one observation key in the docstring."""
    doc = " ".join((SkirmishEnv.__doc__ or "").split())
    match = re.search(rf"``{part}`` float32 ``\(([^)]*)\)``(?: in \[[^\]]*\])?: (.*?)\. - ",
                      doc)
    assert match is not None, f"the env docstring does not describe {part}"
    names = [re.sub(r"\(.*?\)", "", item).split("/")[0].strip()
             for item in match.group(2).split(", ")]
    return match.group(1), names


def test_every_named_feature_stays_in_its_box_over_a_random_battle() -> None:
    battle = rules.Battle.from_scenario("cavalry", seed=2)
    builder = ObservationBuilder(battle)
    pick = random.Random(2)
    teams = sorted({c.team for c in battle.combatants.values()})
    builds = 0
    while not battle.is_over and builds < 300:
        for team in teams:
            obs = builder.build(battle, team)
            builds += 1
            for slot, name in enumerate(UNIT_FEATURES):
                column = obs["units"][:, slot]
                assert column.min() >= -1.0 and column.max() <= 1.0, name
            for slot, name in enumerate(GLOBAL_FEATURES):
                assert 0.0 <= obs["globals"][slot] <= 1.0, name
        actions = battle.legal_actions()
        battle.apply(actions[pick.randrange(len(actions))])
    assert builds > 20


def test_env_docstring_sizes_and_names_match_the_features() -> None:
    shape, names = _documented("units")
    assert shape == f"N, {len(UNIT_FEATURES)}"
    assert names == list(UNIT_FEATURES)
    shape, names = _documented("planes")
    assert shape == f"{len(PLANES)}, H, W"
    assert names == list(PLANES)
    shape, names = _documented("globals")
    assert shape == f"{len(GLOBAL_FEATURES)},"
    assert len(names) == len(GLOBAL_FEATURES)
