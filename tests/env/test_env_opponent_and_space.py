"""The env's opponent is an agent or a factory (names are resolved by the registered ids,
at construction), and an action outside the action space is an error (issue 22, parts 2
and 4)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import agents
import env
from agents.environments import NamedAgent
from env import SkirmishEnv
from rules import IllegalActionError

OUTSIDE = [10**6, -1, 2.5, "3", np.array([1, 2]), np.int64(-3), None]


def _first_masked_out(obs: dict) -> int:
    return int(np.flatnonzero(obs["action_mask"] == 0)[0])


def _play(game: gym.Env, seed: int, steps: int = 30) -> list[bytes]:
    obs, _ = game.reset(seed=seed)
    trace = []
    for _ in range(steps):
        obs, _, terminated, truncated, _ = game.step(int(np.flatnonzero(obs["action_mask"])[0]))
        trace.append(obs["units"].tobytes())
        if terminated or truncated:
            break
    return trace


# ---------------------------------------------------------------- opponents
def test_an_unknown_opponent_fails_at_construction_in_one_line() -> None:
    with pytest.raises(ValueError) as raised:
        gym.make("fray/Duel-v0", opponent="nosuch")
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("opponent: unknown agent 'nosuch'")
    for name in ("berserker", "random", "tactician", "mcts", "learned"):
        assert name in message
    with pytest.raises(ValueError, match="opponent: unknown agent 'nosuch'"):
        gym.make("env:fray/Skirmish-v0", opponent="nosuch")


def test_the_env_itself_takes_no_names_and_needs_an_opponent() -> None:
    with pytest.raises(TypeError, match="the env takes an agent or a factory"):
        SkirmishEnv("duel", "berserker")
    with pytest.raises(TypeError, match="needs an opponent"):
        SkirmishEnv("duel")
    with pytest.raises(TypeError, match="must be an agent"):
        SkirmishEnv("duel", 3)


def test_a_name_an_agent_a_factory_and_a_class_play_the_same_battle() -> None:
    """The factory gets the seed the env drew, as ``agents.make(name, seed)`` did."""
    by_name = _play(gym.make("fray/Duel-v0", opponent="berserker").unwrapped, seed=5)
    factory = _play(SkirmishEnv("duel", lambda seed: agents.make("berserker", seed=seed)), 5)
    by_class = _play(SkirmishEnv("duel", agents.Berserker), seed=5)
    named = _play(SkirmishEnv("duel", NamedAgent("berserker")), seed=5)
    assert by_name == factory == by_class == named and len(by_name) > 3
    # an agent object plays as given (one agent for every episode)
    agent = agents.make("berserker", seed=1)
    game = gym.make("fray/Duel-v0", opponent=agent)
    game.reset(seed=0)
    assert game.unwrapped.opponent is agent
    game.reset(seed=1)
    assert game.unwrapped.opponent is agent


def test_a_factory_that_returns_no_agent_is_a_clear_error() -> None:
    game = SkirmishEnv("duel", lambda seed: None)
    with pytest.raises(TypeError, match="returned None, which has no act"):
        game.reset(seed=0)


# ---------------------------------------------------------------- the action space
@pytest.mark.parametrize("mode", ["penalty", "raise"])
def test_an_action_outside_the_space_is_an_error_naming_it_and_the_space(mode: str) -> None:
    game = gym.make("fray/Duel-v0", opponent="random", illegal_action=mode).unwrapped
    game.reset(seed=0)
    before = game.battle.to_json()
    for action in OUTSIDE:
        with pytest.raises(ValueError) as raised:
            game.step(action)
        message = str(raised.value)
        assert message == (f"action {action!r} is not in the action space "
                           f"Discrete({game.action_space.n})")
        assert action not in game.action_space
    assert game.battle.to_json() == before


def test_an_in_range_masked_out_index_keeps_the_documented_behaviour() -> None:
    game = gym.make("fray/Duel-v0", opponent="random").unwrapped
    obs, _ = game.reset(seed=0)
    bad = _first_masked_out(obs)
    before = game.battle.to_json()
    _, reward, terminated, truncated, info = game.step(bad)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-0.1, False, False, True)
    assert game.battle.to_json() == before
    strict = gym.make("fray/Duel-v0", opponent="random", illegal_action="raise").unwrapped
    obs, _ = strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match=f"action index {_first_masked_out(obs)} "):
        strict.step(_first_masked_out(obs))


def test_the_aec_env_rejects_actions_outside_the_space_too() -> None:
    game = env.aec_env(scenario="duel")
    game.reset(seed=0)
    agent = game.agent_selection
    before = game.unwrapped.battle.to_json()
    rewards = dict(game.unwrapped._cumulative_rewards)
    for action in (10**6, -1):
        with pytest.raises(ValueError, match=f"action {action} is not in the action space "
                                             f"Discrete"):
            game.step(action)
    assert game.unwrapped.battle.to_json() == before
    assert game.agent_selection == agent
    assert dict(game.unwrapped._cumulative_rewards) == rewards
    mask = game.observe(agent)["action_mask"]
    game.step(int(np.flatnonzero(mask == 0)[0]))  # in the space, masked out: a penalty
    assert game.unwrapped.rewards[agent] == pytest.approx(-0.1)
