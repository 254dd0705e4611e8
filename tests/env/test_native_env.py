"""The env's observation, mask and step in the engine (env/native.py) equal the Python
encoders byte for byte on recorded states of every shipped scenario."""

from __future__ import annotations

import numpy as np
import pytest

import rules
from env import native
from env.observation import ObservationBuilder
from env.spaces import ActionCodec

pytestmark = pytest.mark.skipif(not native.available(), reason="the native env is not built")

SCENARIOS = rules.shipped_scenarios()


def recorded_states(scenario: str, seed: int, every: int = 3, limit: int = 400):
    """A native battle of ``scenario`` played at random, paused every ``every`` decisions
    (the battle itself is yielded: read it before the next one)."""
    battle = rules.Battle.from_scenario(scenario, seed, engine="native")
    rng = np.random.default_rng(seed)
    made = 0
    while not battle.is_over and made < limit:
        if made % every == 0:
            yield battle
        legal = battle.legal_actions()
        battle.apply(legal[int(rng.integers(len(legal)))])
        made += 1
    yield battle


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_observation_and_mask_equal_the_python_encoders(scenario: str) -> None:
    probe = rules.Battle.from_scenario(scenario, 0, engine="native")
    builder = ObservationBuilder(probe)
    codec = ActionCodec(probe)
    layouts = native.NativeLayouts(probe, codec)
    teams = probe.scenario.teams
    compared = 0
    for seed in (1, 2):
        for battle in recorded_states(scenario, seed):
            decision = battle.decision
            decider = decision.actor if decision is not None else None
            for team in teams:
                for self_id, reachable in ((decider, True), (None, False)):
                    want = builder.build(battle, team, self_id, show_reachable=reachable)
                    got = layouts.observe(battle, team, self_id, show_reachable=reachable)
                    for key, array in want.items():
                        assert got[key].dtype == array.dtype, key
                        assert got[key].tobytes() == array.tobytes(), (
                            f"{scenario} seed {seed} round {battle.round} team {team} {key}: "
                            f"first difference at {np.argwhere(got[key] != array)[:3].tolist()}")
            mask, places = layouts.mask(battle)
            if battle.is_over:
                assert mask.sum() == 1 and mask[0] == 1
            else:
                by_index = codec.legal_by_index(battle)
                assert mask.tobytes() == codec.mask_of(by_index).tobytes()
                legal = battle.legal_actions()
                assert {index: legal[place] for index, place in places.items()} == by_index
            compared += 1
    assert compared > 20


def burdened(battle: rules.Battle) -> None:
    """No shipped scenario starts anyone encumbered or tired, so the features that read
    encumbrance and fatigue (MOV, dodge, weapon skill, encumbered, fatigue) are compared
    on units made so through the mirror: every other unit's STR and SIZ 1 (its load over
    half its capacity, S19), fatigue levels 0, 1 and 2 in turn (S21)."""
    for number, unit in enumerate(battle.combatants.values()):
        if number % 2 == 0:
            unit.characteristics.update(str=1, siz=1)
        unit.fatigue_level = number % 3


@pytest.mark.parametrize("scenario", ["skirmish", "casters", "cavalry"])
def test_observation_of_encumbered_and_tired_units_equals_the_python_encoder(
        scenario: str) -> None:
    probe = rules.Battle.from_scenario(scenario, 0, engine="native")
    builder = ObservationBuilder(probe)
    layouts = native.NativeLayouts(probe, ActionCodec(probe))
    encumbered = compared = 0
    for battle in recorded_states(scenario, 3, every=5, limit=150):
        burdened(battle)
        encumbered += sum(unit.encumbered for unit in battle.combatants.values())
        decision = battle.decision
        self_id = decision.actor if decision is not None else None
        for team in probe.scenario.teams:
            want = builder.build(battle, team, self_id, show_reachable=True)
            got = layouts.observe(battle, team, self_id, show_reachable=True)
            for key, array in want.items():
                assert got[key].tobytes() == array.tobytes(), (
                    f"{scenario} round {battle.round} team {team} {key}: first difference "
                    f"at {np.argwhere(got[key] != array)[:3].tolist()}")
            compared += 1
    assert compared > 10 and encumbered > 0


def _episode(engine: str, scenario: str, opponent: str, seed: int, damage_reward: float,
             steps: int = 300) -> list:
    import gymnasium

    import env  # noqa: F401  (registers the ids)

    made = gymnasium.make("fray/Skirmish-v0", scenario=scenario, opponent=opponent,
                          engine=engine, damage_reward=damage_reward).unwrapped
    rng = np.random.default_rng(seed)
    obs, info = made.reset(seed=seed)
    out = [({key: value.tobytes() for key, value in obs.items()}, info)]
    for _ in range(steps):
        legal = np.flatnonzero(made.action_masks())
        # now and then an index outside the mask: the penalty, the battle untouched
        index = int(rng.integers(made.action_space.n)) if rng.random() < 0.05 \
            else int(legal[rng.integers(len(legal))])
        obs, reward, terminated, truncated, info = made.step(index)
        out.append(({key: value.tobytes() for key, value in obs.items()}, reward, terminated,
                    truncated, info))
        if terminated or truncated:
            obs, info = made.reset()
            out.append(({key: value.tobytes() for key, value in obs.items()}, info))
    return out, made._core is not None


@pytest.mark.parametrize(("scenario", "opponent"), [("skirmish", "berserker"),
                                                    ("duel", "random"), ("ambush", "berserker")])
def test_native_env_steps_equal_the_python_env(scenario: str, opponent: str) -> None:
    python, python_native = _episode("python", scenario, opponent, 5, 0.5)
    steps, stepped_natively = _episode("native", scenario, opponent, 5, 0.5)
    assert stepped_natively and not python_native
    assert len(steps) == len(python)
    for got, want in zip(steps, python, strict=True):
        assert got == want
