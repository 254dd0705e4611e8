"""The Gymnasium env: registration, API checkers, rewards, endings, illegal actions,
rendering and vector envs (issue 4)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agents
import env
import rules
from agents.environments import NamedAgent, skirmish_env
from env import SkirmishEnv, native
from env.observation import DECISION_KINDS
from rules import ActionKind, IllegalActionError

ROOT = Path(__file__).resolve().parents[2]
K = ActionKind

#: duel with a one-round limit: nobody can be downed before it runs out
SHORT_DUEL = """
name = "short_duel"
max_rounds = 1
map = '''
##############
#............#
##############
'''
[[units]]
id = "hero"
team = "party"
creature = "human_warrior"
at = [1, 1]
[[units]]
id = "orc_1"
team = "monsters"
creature = "orc"
at = [12, 1]
"""


def random_masked(obs: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


# ---------------------------------------------------------------- registration
def test_every_shipped_scenario_has_an_id() -> None:
    ids = env.registered_ids()
    assert ids[0] == "fray/Skirmish-v0"
    for name in rules.shipped_scenarios():
        assert env.env_id(name) in ids
        assert env.env_id(name) in gym.registry
    assert env.env_id("snake_pit") == "fray/SnakePit-v0"
    assert gym.spec("fray/Duel-v0").kwargs["scenario"] == "duel"


def test_make_with_module_prefix_needs_no_import() -> None:
    code = ("import gymnasium\n"
            "e = gymnasium.make('env:fray/Skirmish-v0')\n"
            "obs, info = e.reset(seed=0)\n"
            "print(e.unwrapped.scenario_name, e.unwrapped.team, int(obs['action_mask'].sum()) > 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    default = "skirmish" if "skirmish" in rules.shipped_scenarios() else "duel"
    assert out.stdout.split() == [default, "monsters", "True"]


def test_kwargs_reach_the_env() -> None:
    e = gym.make("fray/Skirmish-v0", scenario="duel", opponent="random", team="party")
    u = e.unwrapped
    assert isinstance(u, SkirmishEnv)
    assert (u.scenario_name, u.team, u.opponent_source) == ("duel", "party",
                                                             NamedAgent("random"))
    with pytest.raises(ValueError, match="team"):
        skirmish_env(scenario="duel", team="elves")
    with pytest.raises(ValueError, match="illegal_action"):
        skirmish_env(scenario="duel", illegal_action="ignore")


# ---------------------------------------------------------------- API checkers
@pytest.mark.parametrize("env_id", env.registered_ids())
def test_gymnasium_check_env(env_id: str) -> None:
    """check_env with every warning an error, on default arguments. check_env steps
    ``action_space.sample()`` unmasked (sampled before its own reset), which the default
    ``illegal_action="penalty"`` turns into a penalised no-op."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = gym.make(env_id)
        check_env(e.unwrapped)
        # the default opponent (berserker) has a native twin: the native path was checked
        assert (e.unwrapped._core is not None) == native.available()
        e.close()


def test_check_env_fails_with_the_raise_option() -> None:
    """The opt-in debugging mode raises on the checker's unmasked samples."""
    e = gym.make("fray/Duel-v0", illegal_action="raise")
    e.unwrapped.action_space.seed(0)
    with pytest.raises(IllegalActionError):
        check_env(e.unwrapped)


def test_stable_baselines3_check_env() -> None:
    """Clean with ``flat_obs=True``; on the default layout SB3 only remarks that the
    (C, H, W) float planes and (N, F) unit rows are not flat vectors (deliberate: custom
    extractors can use the layout; SB3's MultiInputPolicy flattens them anyway)."""
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(gym.make("fray/Skirmish-v0", flat_obs=True).unwrapped)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(gym.make("fray/Duel-v0").unwrapped)
    for w in caught:
        text = str(w.message)
        assert "image" in text or "unconventional shape" in text, text


# ---------------------------------------------------------------- spaces and masks
@pytest.mark.parametrize("env_id", env.registered_ids())
def test_random_masked_rollouts_never_raise(env_id: str) -> None:
    """Any masked index steps cleanly, with the default berserker opponent in the loop."""
    e = gym.make(env_id)
    rng = np.random.default_rng(7)
    obs, _ = e.reset(seed=7)
    for _ in range(300):
        assert obs in e.observation_space and obs["action_mask"].any()
        obs, r, term, trunc, _ = e.step(random_masked(obs, rng))
        assert np.isfinite(r)
        if term or trunc:
            obs, _ = e.reset()
    e.close()


def test_observation_layout_and_mask() -> None:
    e = skirmish_env(scenario="duel")
    obs, info = e.reset(seed=3)
    assert obs in e.observation_space
    n = e.action_space.n
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (n,)
    assert info["legal_actions"] == int(obs["action_mask"].sum()) > 0
    assert np.array_equal(e.action_masks(), obs["action_mask"].astype(bool))
    b = e.battle
    assert b is not None and b.decision is not None
    assert b.combatants[b.decision.actor].team == "monsters"
    assert {e.decode(i) for i in np.flatnonzero(obs["action_mask"])} == set(b.legal_actions())
    for a in b.legal_actions():
        assert obs["action_mask"][e.encode(a)] == 1
    planes = obs["planes"]
    assert planes.shape == (15, b.grid.height, b.grid.width)
    assert planes[0].sum() == len(b.grid.walls)  # the wall plane
    assert obs["units"].shape == (2, 37)
    kind, slot = obs["decision"]
    assert DECISION_KINDS[kind] is b.decision.kind
    assert e.codec.unit_ids[slot] == b.decision.actor


def test_action_space_size_is_fixed_per_scenario() -> None:
    e = skirmish_env(scenario="duel", opponent="random", illegal_action="penalty")
    n = e.action_space.n
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, _ = e.reset(seed=seed)
        for _ in range(60):
            assert obs["action_mask"].shape == (n,)
            obs, _, term, trunc, _ = e.step(random_masked(obs, rng))
            if term or trunc:
                break


def test_learner_plays_every_decision_of_its_team_reactions_included() -> None:
    e = skirmish_env(scenario="duel", team="monsters", opponent="berserker")
    rng = np.random.default_rng(1)
    kinds = set()
    for seed in range(6):
        obs, _ = e.reset(seed=seed)
        done = False
        while not done:
            b = e.battle
            assert b is not None and b.decision is not None
            assert b.combatants[b.decision.actor].team == "monsters"
            kinds.add(b.decision.kind)
            obs, _, term, trunc, _ = e.step(random_masked(obs, rng))
            done = term or trunc
    assert rules.DecisionKind.TURN in kinds
    assert kinds & {rules.DecisionKind.PARRY, rules.DecisionKind.DODGE,
                    rules.DecisionKind.FREE_ATTACK}


def test_seeded_reset_is_deterministic() -> None:
    def rollout(seed: int) -> list:
        e = skirmish_env(scenario="duel", opponent="random")
        rng = np.random.default_rng(5)
        obs, _ = e.reset(seed=seed)
        trace = []
        for _ in range(40):
            a = random_masked(obs, rng)
            obs, r, term, trunc, _ = e.step(a)
            trace.append((a, r, term, trunc, obs["units"].tobytes()))
            if term or trunc:
                break
        return trace

    assert rollout(11) == rollout(11)
    assert rollout(11) != rollout(12)


# ---------------------------------------------------------------- rewards and endings
def test_win_and_loss_pay_plus_and_minus_one() -> None:
    outcomes = {}
    for team, opponent in (("party", "random"), ("monsters", "berserker")):
        e = skirmish_env(scenario="duel", team=team, opponent=opponent)
        rng = np.random.default_rng(2)
        for seed in range(15):
            obs, _ = e.reset(seed=seed)
            total, done = 0.0, False
            while not done:
                b = e.battle
                assert b is not None
                # the learner plays like a berserker through the mask
                a = e.encode(agents.make("berserker", seed=seed).act(b)) if team == "party" \
                    else random_masked(obs, rng)
                obs, r, term, trunc, info = e.step(a)
                total += r
                done = term or trunc
            assert obs["action_mask"].sum() == 1 and obs["action_mask"][0] == 1
            winner = info["winner"]
            expected = 0.0 if winner is None else (1.0 if winner == team else -1.0)
            assert total == expected
            outcomes.setdefault(team, set()).add(total)
    assert 1.0 in outcomes["party"]
    assert -1.0 in outcomes["monsters"]


def test_round_limit_truncates_as_a_draw(tmp_path: Path) -> None:
    path = tmp_path / "short_duel.toml"
    path.write_text(SHORT_DUEL, encoding="utf-8")
    e = skirmish_env(scenario=str(path), team="monsters", opponent="random")
    obs, _ = e.reset(seed=0)
    end = e.encode(rules.Action(K.END_TURN))
    term = trunc = False
    reward = None
    for _ in range(200):
        mask = obs["action_mask"]
        a = end if mask[end] else int(np.flatnonzero(mask)[-1])  # DECLINE is last
        obs, reward, term, trunc, info = e.step(a)
        if term or trunc:
            break
    assert trunc and not term
    assert reward == 0.0 and info["winner"] is None
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)


def test_damage_shaping_is_documented_and_bounded() -> None:
    assert "damage_reward" in SkirmishEnv.__doc__
    e = skirmish_env(scenario="duel", team="party", opponent="random", damage_reward=0.5)
    e.reset(seed=4)
    rewards, done = [], False
    while not done:
        assert e.battle is not None
        a = e.encode(agents.make("berserker", seed=0).act(e.battle))
        _obs, r, term, trunc, _info = e.step(a)
        rewards.append(r)
        done = term or trunc
    shaped = sum(rewards[:-1])
    assert any(r != 0 for r in rewards[:-1])
    assert -0.5 - 1e-9 <= shaped <= 0.5 + 1e-9


# ---------------------------------------------------------------- illegal actions
def test_illegal_action_raise_option_names_the_action_and_legal_kinds() -> None:
    e = skirmish_env(scenario="duel", illegal_action="raise")
    obs, _ = e.reset(seed=0)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = e.battle.to_json()
    kinds = ", ".join(sorted({a.kind.name for a in e.battle.legal_actions()}))
    with pytest.raises(IllegalActionError, match=f"legal kinds: {kinds}") as exc:
        e.step(bad)
    assert f"action index {bad} ({e.decode(bad)})" in str(exc.value)
    assert e.battle.to_json() == before


def test_illegal_action_is_a_penalised_no_op_by_default() -> None:
    e = skirmish_env(scenario="duel")
    obs, _ = e.reset(seed=0)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = e.battle.to_json()
    _, r, term, trunc, info = e.step(bad)
    assert (r, term, trunc, info["illegal_action"]) == (-0.1, False, False, True)
    assert e.battle.to_json() == before
    e = skirmish_env(scenario="duel", illegal_penalty=-0.25)
    obs, _ = e.reset(seed=0)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = e.battle.to_json()
    obs2, r, term, trunc, info = e.step(bad)
    assert (r, term, trunc, info["illegal_action"]) == (-0.25, False, False, True)
    assert e.battle.to_json() == before
    for key in obs:
        assert np.array_equal(obs[key], obs2[key])
    _, _, _, _, info = e.step(int(np.flatnonzero(obs2["action_mask"])[0]))
    assert info["illegal_action"] is False


def test_numpy_actions_are_accepted() -> None:
    """A numpy integer or a one-element array steps exactly as the plain int does."""
    e = skirmish_env(scenario="duel")
    obs, _ = e.reset(seed=0)
    i = int(np.flatnonzero(obs["action_mask"])[0])
    expected_obs, expected_reward, *_, expected_info = e.step(i)
    assert not expected_info["illegal_action"]
    for action in (np.int64(i), np.array([i])):
        e.reset(seed=0)
        obs, reward, *_, info = e.step(action)
        assert not info["illegal_action"] and reward == expected_reward
        assert all(np.array_equal(obs[key], expected_obs[key]) for key in expected_obs)


# ---------------------------------------------------------------- rendering
def test_render_ansi_and_rgb() -> None:
    e = skirmish_env(scenario="duel", render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str)
    assert "#########" in text and "hero" in text and "orc_1" in text and "HP" in text
    assert "round 1/30" in text
    e = skirmish_env(scenario="duel", render_mode="rgb_array")
    e.reset(seed=0)
    img = e.render()
    b = e.battle
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8
    assert img.shape == (b.grid.height * 24, b.grid.width * 24, 3)  # render_rgb's cell
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 4
    assert skirmish_env(scenario="duel").render() is None
    with pytest.raises(ValueError, match="render_mode"):
        skirmish_env(scenario="duel", render_mode="human")


# ---------------------------------------------------------------- vector envs
def _vector_rollout(vec: gym.vector.VectorEnv, steps: int) -> None:
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in obs["action_mask"]])
        obs, rewards, _term, _trunc, _ = vec.step(actions)
        assert rewards.shape == (vec.num_envs,)
        assert all(m.sum() > 0 for m in obs["action_mask"])
    vec.close()


def test_sync_vector_env() -> None:
    """Default NEXT_STEP autoreset: the terminal observation's mask holds index 0, which
    the next step (a reset) ignores."""
    vec = gym.vector.SyncVectorEnv(
        [lambda: gym.make("fray/Duel-v0", opponent="random") for _ in range(3)])
    _vector_rollout(vec, 150)


def test_async_vector_env() -> None:
    vec = gym.vector.AsyncVectorEnv(
        [lambda: gym.make("env:fray/Duel-v0", opponent="random") for _ in range(2)],
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    _vector_rollout(vec, 60)
