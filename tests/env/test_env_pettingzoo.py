"""The PettingZoo envs: the official API, seed, max_cycles and render tests, plus the AEC
conventions of issue 4 (agent per combatant, reactions out of turn, team rewards)."""

from __future__ import annotations

import functools
import types
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, render_test, seed_test

import env
import rules
from env import native
from rules import DecisionKind

SCENARIOS = rules.shipped_scenarios()


@pytest.fixture(autouse=True)
def _quiet_advice() -> None:
    """api_test warns about style choices (dict observations, unit ids as agent names)."""
    warnings.filterwarnings("ignore", category=UserWarning, module="pettingzoo.test")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_api_test(scenario: str) -> None:
    made = env.aec_env(scenario=scenario)
    # the native path whenever it is built (observation and mask from the engine)
    assert (made.unwrapped.game.setup.engine == "native") == native.available()
    api_test(made, num_cycles=60)


def test_api_test_unwrapped_full_battles() -> None:
    api_test(env.raw_env(scenario="duel"), num_cycles=1000)


def test_seed_test() -> None:
    seed_test(functools.partial(env.aec_env, scenario="skirmish"
                                if "skirmish" in SCENARIOS else "duel"), num_cycles=100)


@pytest.mark.parametrize("scenario", ["duel", "skirmish"])
def test_max_cycles_test(scenario: str) -> None:
    """max_cycles_test samples actions without the mask: run it with the penalty option."""
    assert scenario in SCENARIOS
    mod = types.SimpleNamespace(
        env=functools.partial(env.aec_env, scenario=scenario, illegal_action="penalty"),
        parallel_env=functools.partial(env.parallel_env, scenario=scenario,
                                       illegal_action="penalty"),
    )
    max_cycles_test(mod)


def test_render_test() -> None:
    render_test(functools.partial(env.aec_env, scenario="duel"))


def test_parallel_api_test() -> None:
    parallel_api_test(env.parallel_env(scenario="duel", illegal_action="penalty"),
                      num_cycles=200)


def test_module_level_names() -> None:
    assert env.env is env.aec_env
    raw = env.raw_env(scenario="duel")
    assert isinstance(raw, env.FrayAECEnv)
    assert env.aec_env(scenario="duel").unwrapped.__class__ is env.FrayAECEnv


# ---------------------------------------------------------------- AEC conventions
def _play(aec, seed: int, rng: np.random.Generator, check) -> None:
    aec.reset(seed=seed)
    for agent in aec.agent_iter(10_000):
        obs, _reward, term, trunc, _info = aec.last()
        check(aec, agent, obs, term or trunc)
        if term or trunc:
            aec.step(None)
        else:
            aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_selection_masks_and_reactions_out_of_turn() -> None:
    aec = env.raw_env(scenario="skirmish" if "skirmish" in SCENARIOS else "duel")
    rng = np.random.default_rng(0)
    seen: set[DecisionKind] = set()

    def check(e, agent, obs, done):
        b = e.battle
        if done:
            assert obs["action_mask"].sum() == 0
            return
        d = b.decision
        assert d is not None and d.actor == agent  # whoever decides now is selected
        seen.add(d.kind)
        assert obs["action_mask"].sum() == len(b.legal_actions()) > 0
        for other in e.agents:
            if other != agent:
                assert e.observe(other)["action_mask"].sum() == 0
        if d.kind is not DecisionKind.TURN and b.current_actor != agent:
            out_of_turn.append(agent)  # a reaction jumps the turn order

    out_of_turn: list[str] = []
    for seed in range(3):
        _play(aec, seed, rng, check)
    assert DecisionKind.TURN in seen and len(seen) > 1
    assert out_of_turn


def test_out_of_action_agents_leave_and_teams_share_the_reward() -> None:
    aec = env.raw_env(scenario="skirmish" if "skirmish" in SCENARIOS else "duel")
    rng = np.random.default_rng(3)
    finals: dict[str, float] = {}
    totals: dict[str, float] = {}

    def check(e, agent, obs, done):
        b = e.battle
        for a in e.agents:
            if not (e.terminations[a] or e.truncations[a]):
                assert b.combatants[a].in_action
        if done:
            finals[agent] = e._cumulative_rewards[agent]
            totals.setdefault("winner", b.winner)

    _play(aec, 5, rng, check)
    b = aec.battle
    assert b.is_over and not aec.agents
    teams = {u.id: u.team for u in b.scenario.units}
    for a, r in finals.items():
        if b.combatants[a].in_action:  # still standing at the end: the team result
            assert r == (0.0 if b.winner is None else 1.0 if teams[a] == b.winner else -1.0)
        else:
            assert r in (0.0, -1.0)


def test_illegal_action_in_aec() -> None:
    aec = env.raw_env(scenario="duel", illegal_action="raise")
    aec.reset(seed=0)
    obs = aec.observe(aec.agent_selection)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(rules.IllegalActionError, match="legal kinds"):
        aec.step(bad)
    for aec, penalty in ((env.raw_env(scenario="duel"), -0.1),
                         (env.raw_env(scenario="duel", illegal_penalty=-0.5), -0.5)):
        aec.reset(seed=0)
        agent = aec.agent_selection
        before = aec.battle.to_json()
        aec.step(bad)  # the default: a penalised no-op
        assert aec.battle.to_json() == before
        assert aec.agent_selection == agent and aec.rewards[agent] == penalty
    aec = env.raw_env(scenario="duel", illegal_action="penalty", illegal_penalty=-0.5)
    aec.reset(seed=0)
    agent = aec.agent_selection
    before = aec.battle.to_json()
    aec.step(bad)
    assert aec.battle.to_json() == before
    assert aec.agent_selection == agent and aec.rewards[agent] == -0.5


def test_max_cycles_truncates_each_agent() -> None:
    aec = env.raw_env(scenario="duel", max_cycles=3)
    rng = np.random.default_rng(0)
    counts: dict[str, int] = {}

    def check(e, agent, obs, done):
        if not done:
            counts[agent] = counts.get(agent, 0) + 1

    _play(aec, 1, rng, check)
    assert max(counts.values()) <= 3
    assert not aec.agents


def test_parallel_env_runs_to_the_end() -> None:
    par = env.parallel_env(scenario="duel")
    obs, _ = par.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(5000):
        if not par.agents:
            break
        actions = {}
        for a in par.agents:
            mask = obs[a]["action_mask"]
            actions[a] = int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0
        assert sum(obs[a]["action_mask"].any() for a in par.agents) == 1
        obs, _rewards, _terms, _truncs, _infos = par.step(actions)
    assert not par.agents and par.battle.is_over
