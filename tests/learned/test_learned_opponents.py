"""Opponent pools: every named opponent is drawn, ``self`` draws frozen checkpoints."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agents.environments import NamedAgent, skirmish_env
from agents.learned import LearnedAgent
from experiments.train.opponents import (
    SELF_FALLBACK,
    OpponentPool,
    OpponentPoolWrapper,
    parse_pool,
)


def test_parse_pool_accepts_any_registered_name_and_self() -> None:
    assert parse_pool("random, berserker,self") == ["random", "berserker", "self"]
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        parse_pool("random,nobody")
    with pytest.raises(ValueError, match="expected agent names"):
        parse_pool(" , ")
    assert parse_pool("tactician(step_back=true),mcts(iterations=4,rollout=berserker)") == [
        "tactician(step_back=true)", "mcts(iterations=4,rollout=berserker)"]
    with pytest.raises(ValueError, match="bogus"):
        parse_pool("tactician(bogus=1)")


def test_self_is_random_until_a_checkpoint_exists(tmp_path: Path) -> None:
    pool = OpponentPool(["self"], tmp_path, seed=0)
    assert pool.sample() == ("self", NamedAgent(SELF_FALLBACK))


def test_the_wrapper_plays_every_named_opponent_and_frozen_checkpoints(
        tmp_path: Path, untrained_models: dict[str, Path]) -> None:
    league = tmp_path / "checkpoints"
    league.mkdir()
    for step in (100, 200):
        for suffix in (".json", ".pt"):
            shutil.copy(untrained_models["duel"].with_suffix(suffix),
                        league / f"step_{step:010d}{suffix}")
    pool = OpponentPool(["random", "berserker", "self"], league, seed=4)
    game = OpponentPoolWrapper(skirmish_env(scenario="duel"), pool)
    seen: dict[str, set[str]] = {}
    frozen = set()
    for episode in range(24):
        _, info = game.reset(seed=episode)
        spec = game.unwrapped.opponent_source
        if info["opponent"] == "self":
            assert isinstance(spec, LearnedAgent)
            frozen.add(spec.label)
        else:
            assert spec == NamedAgent(info["opponent"])
        seen.setdefault(info["opponent"], set()).add(type(game.unwrapped.opponent).__name__)
        mask = game.action_masks()
        _, _, _, _, step_info = game.step(int(mask.nonzero()[0][0]))
        assert step_info["opponent"] == info["opponent"]
    assert set(seen) == {"random", "berserker", "self"}
    assert seen["self"] == {"LearnedAgent"}
    assert len(frozen) == 2  # both snapshots of the league were drawn
    assert sum(pool.counts.values()) == 24
