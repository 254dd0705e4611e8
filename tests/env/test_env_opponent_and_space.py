"""The env's opponent is an agent or a factory (names are resolved by the registered ids,
at construction) (issue 22, parts 2 and 4)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import agents
import env  # noqa: F401  (registers the ids)
from agents.environments import NamedAgent
from env import SkirmishEnv


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
