"""--backend ray: a real local Ray session gives the local results for the same seeds
(tournament, balance, ladder, fuzz, headroom, the training evaluation), and a Ray worker
that dies in the middle of a task has the task retried, the results unchanged (tournament,
balance, fuzz, headroom, the training evaluation)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from experiments import cli
from experiments.comparison.runner import RAY_TEMP_DIR_LENGTH, AgentSpec, ray_temp_dir
from experiments.comparison.tournament import config_from, run_tournament

ray = pytest.importorskip("ray")


def dying_agent_hook(flag: Path) -> Callable[[], None]:
    """A Ray worker setup hook registering an agent whose process dies on its first act."""

    def hook() -> None:
        import agents
        from agents.random_agent import RandomAgent

        class DiesOnce(RandomAgent):
            def act(self, battle):  # type: ignore[no-untyped-def]
                if not flag.exists():
                    flag.write_text("died")
                    os._exit(1)
                return super().act(battle)

        agents.register("test_dies_once", DiesOnce, replace=True)

    return hook


@pytest.fixture(scope="module")
def ray_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Ray started once for the module on 2 CPUs, its temp dir short (AF_UNIX socket paths
    are limited to ~107 characters); yields the dying agent's flag file."""
    tmp_path = tmp_path_factory.mktemp("session")
    from ray import cloudpickle  # the pickler Ray uses

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # tests is no package
    flag = tmp_path / "died"
    with ray_temp_dir(tmp_path) as temp_dir:
        ray.init(num_cpus=2, _temp_dir=temp_dir, include_dashboard=False, log_to_driver=False,
                 runtime_env={"worker_process_setup_hook": dying_agent_hook(flag)})
        try:
            yield flag
        finally:
            ray.shutdown()
            cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_ray_temp_dir_is_the_run_folders_when_short_else_a_removed_one_under_tmp(
        tmp_path: Path) -> None:
    short = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))
    try:
        with ray_temp_dir(short) as inside:
            assert inside == str(short.resolve() / "ray") and Path(inside).is_dir()
    finally:
        shutil.rmtree(short)
    long = tmp_path / ("x" * RAY_TEMP_DIR_LENGTH)
    with ray_temp_dir(long) as temp:
        assert temp.startswith("/tmp/ray") and len(temp) <= RAY_TEMP_DIR_LENGTH
        assert Path(temp).is_dir()
    assert not Path(temp).exists()  # nothing left behind
    assert not long.exists()


def test_ray_and_local_workers_give_byte_identical_results(
        tmp_path: Path, ray_session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament", "--agents", "random,berserker", "--scenarios", "duel",
            "--battles", "4", "--seed", "11"]
    assert cli.main([*args, "--out", str(tmp_path / "ray"), "--backend", "ray"]) == 0
    assert ray.is_initialized(), "the command leaves a session it did not start running"
    config = config_from([AgentSpec("random"), AgentSpec("berserker")], ["duel"], 4, 11, None)
    run_tournament(config, tmp_path / "local", workers=2, progress=False)
    ray_lines = (tmp_path / "ray" / "battles.jsonl").read_text().splitlines()
    local_lines = (tmp_path / "local" / "battles.jsonl").read_text().splitlines()
    assert len(ray_lines) == 8
    assert sorted(ray_lines) == sorted(local_lines)
    ray_replays = sorted((tmp_path / "ray" / "replays").iterdir())
    assert [p.name for p in ray_replays] == sorted(
        p.name for p in (tmp_path / "local" / "replays").iterdir())
    for path in ray_replays:
        assert path.read_bytes() == (tmp_path / "local" / "replays" / path.name).read_bytes()


def test_a_dead_ray_worker_has_its_battle_retried(tmp_path: Path, ray_session: Path) -> None:
    dying_agent_hook(tmp_path / "local-flag")()   # the same agent here, already past dying
    (tmp_path / "local-flag").write_text("died")
    config = config_from([AgentSpec("test_dies_once"), AgentSpec("berserker")], ["duel"],
                         2, 0, None)
    on_ray = run_tournament(config, tmp_path / "ray", backend="ray", progress=False)
    assert ray_session.exists(), "no worker died"
    local = run_tournament(config, tmp_path / "local", workers=1, progress=False)
    assert on_ray == local and len(on_ray) == 4


BALANCE = ["balance", "duel", "--knob", "creatures.orc.skills.axe=30..80:10",
           "--target", "party_win=0.40..0.60", "--monsters", "tactician", "--budget", "600",
           "--seed", "5", "--quiet"]


def test_balance_on_ray_equals_local_and_survives_a_dying_worker(
        tmp_path: Path, ray_session: Path) -> None:
    """The party agent has no native twin, so its battles run in Python and its first act
    in a fresh Ray worker kills that worker: the batch is retried, the result unchanged."""
    dying_agent_hook(tmp_path / "local-flag")()   # registered here too, already past dying
    (tmp_path / "local-flag").write_text("died")
    ray_session.unlink(missing_ok=True)           # the next act on a Ray worker dies
    party = ["--party", "test_dies_once"]
    assert cli.main([*BALANCE, *party, "--out", str(tmp_path / "ray"),
                     "--backend", "ray"]) == 0
    assert ray_session.exists(), "no worker died"
    assert cli.main([*BALANCE, *party, "--out", str(tmp_path / "local"),
                     "--workers", "1"]) == 0
    assert (tmp_path / "ray" / "balance.json").read_text() == \
        (tmp_path / "local" / "balance.json").read_text()


def test_ladder_on_ray_equals_local(tmp_path: Path, ray_session: Path) -> None:
    args = ["ladder", "--agents", "random,berserker", "--scenarios", "duel",
            "--battles", "6"]
    assert cli.main([*args, "--out", str(tmp_path / "ray"), "--backend", "ray"]) == 0
    assert cli.main([*args, "--out", str(tmp_path / "local")]) == 0

    def outcomes(folder: Path) -> list[tuple[str, object, int]]:
        import json

        records = [json.loads(line) for line in (folder / "battles.jsonl").open()]
        return sorted((r["id"], r["winner"], r["rounds"]) for r in records)

    assert outcomes(tmp_path / "ray") == outcomes(tmp_path / "local")
    assert len(outcomes(tmp_path / "ray")) == 2 * 2 * 6


def arm_dying_agent(tmp_path: Path, ray_session: Path) -> None:
    """``test_dies_once`` registered here too (already past dying: the local run is the
    reference), and armed on Ray: the next act on a Ray worker kills it."""
    dying_agent_hook(tmp_path / "local-flag")()
    (tmp_path / "local-flag").write_text("died")
    ray_session.unlink(missing_ok=True)


def test_the_training_evaluation_on_ray_equals_local_and_survives_a_dying_worker(
        tmp_path: Path, ray_session: Path) -> None:
    from experiments.train.evaluation import evaluate

    arm_dying_agent(tmp_path, ray_session)
    on_ray = evaluate("duel", "monsters", "test_dies_once", "tactician", 30, seed=3,
                      backend="ray")
    assert ray_session.exists(), "no worker died"
    local = evaluate("duel", "monsters", "test_dies_once", "tactician", 30, seed=3,
                     workers=1)
    assert on_ray.winners == local.winners and len(local.winners) == 30


def test_a_fuzz_campaign_on_ray_equals_the_one_process_campaign_despite_a_dying_worker(
        tmp_path: Path, ray_session: Path) -> None:
    arm_dying_agent(tmp_path, ray_session)
    args = ["fuzz", "--seconds", "600", "--battles", "12", "--generated", "--seed", "4",
            "--agents", "test_dies_once,berserker"]
    assert cli.main([*args, "--out", str(tmp_path / "ray"), "--backend", "ray"]) == 0
    assert cli.main([*args, "--out", str(tmp_path / "local")]) == 0
    assert ray_session.exists(), "no worker died"
    ray_log = (tmp_path / "ray" / "battles.jsonl").read_text().splitlines()
    assert ray_log == (tmp_path / "local" / "battles.jsonl").read_text().splitlines()
    assert len(ray_log) == 12 and "test_dies_once" in "".join(ray_log)


def test_headroom_on_ray_equals_one_process_and_survives_a_dying_worker(
        tmp_path: Path, ray_session: Path) -> None:
    """The base agent plays the battle and every rollout in Python: its first act on a
    Ray worker kills the worker, and the battle is retried."""
    from experiments.comparison import headroom

    arm_dying_agent(tmp_path, ray_session)
    battles = [2]   # a short one (22 decisions): random rollouts in Python take long
    on_ray = headroom.run("duel", battles, "test_dies_once", screen=1, confirm=2, out=None,
                          backend="ray")
    assert ray_session.exists(), "no worker died"
    alone = headroom.run("duel", battles, "test_dies_once", screen=1, confirm=2, out=None)
    assert on_ray == alone and alone.decisions > 0
