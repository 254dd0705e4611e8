"""``--backend rllib``: Ray really starts locally and PPO trains two iterations."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from experiments.train.rllib import FrayTeamsEnv, RllibConfig, train_rllib


def test_teams_env_offers_only_the_deciding_team_with_an_exact_mask() -> None:
    game = FrayTeamsEnv({"scenario": "duel", "opponents": ["self"], "seed": 3})
    obs, _ = game.reset(seed=3)
    steps = 0
    done = False
    while not done:
        (team, part), = obs.items()
        battle = game.aec.battle
        assert battle.combatants[battle.decision.actor].team == team
        legal = np.flatnonzero(part["action_mask"])
        assert len(legal) == len(battle.legal_actions())
        obs, rewards, terminated, truncated, _ = game.step({team: int(legal[0])})
        done = terminated["__all__"] or truncated["__all__"]
        steps += 1
    assert set(obs) == {"party", "monsters"}  # every learned team sees the end
    winner = game.aec.battle.winner
    expected = {t: 0.0 if winner is None else (1.0 if t == winner else -1.0) for t in obs}
    assert rewards == expected  # outcome only (no damage shaping configured)
    assert steps > 0


def test_scripted_opponent_leaves_only_the_learner_team() -> None:
    game = FrayTeamsEnv({"scenario": "duel", "opponents": ["berserker"], "seed": 1})
    obs, _ = game.reset(seed=1)
    while True:
        assert set(obs) == {"monsters"}
        legal = np.flatnonzero(obs["monsters"]["action_mask"])
        obs, _, terminated, truncated, _ = game.step({"monsters": int(legal[-1])})
        if terminated["__all__"] or truncated["__all__"]:
            break


def test_ray_starts_locally_and_ppo_trains_two_iterations(tmp_path: Path) -> None:
    import ray  # a hard import: the `ray` extra is part of the test install

    config = RllibConfig(scenario="duel", out=str(tmp_path / "run"), opponents=["self"],
                         batch_size=64, minibatch_size=32, epochs=1, hidden=(16,), num_cpus=2)
    try:
        run = train_rllib(config, iterations=2)  # starts Ray on 2 CPUs, and shuts it down
        assert not ray.is_initialized()
    finally:
        ray.shutdown()
    assert run.iterations == 2 and run.steps >= 128
    assert run.trained == ["monsters", "party"]  # team self-play: both modules learn
    assert any(run.checkpoint.iterdir())
