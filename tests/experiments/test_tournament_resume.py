"""Nothing is lost: a tournament killed with SIGKILL resumes to the battles of an
uninterrupted run, and a local worker that dies has its battles played again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import agents
from agents.random_agent import RandomAgent
from experiments.comparison.runner import AgentSpec
from experiments.comparison.tournament import config_from, load_records, run_tournament

ARGS = ["--agents", "random,berserker", "--scenarios", "duel", "--battles", "20",
        "--seed", "5", "--workers", "1"]


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "replays").glob("*.json"))}


def test_a_killed_run_resumes_to_the_battles_of_an_uninterrupted_run(tmp_path: Path) -> None:
    killed = tmp_path / "killed"
    command = [sys.executable, "-m", "experiments.cli", "tournament", *ARGS,
               "--out", str(killed)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    battles = killed / "battles.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if battles.exists() and battles.read_bytes().count(b"\n") >= 8:
            break
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, "the run ended before it was killed"
    config = config_from([AgentSpec("random"), AgentSpec("berserker")], ["duel"], 20, 5, None)
    partial = load_records(killed)
    assert 8 <= len(partial) < 40
    resumed = run_tournament(config, killed, resume=True, workers=1, progress=False)
    whole = run_tournament(config, tmp_path / "whole", workers=1, progress=False)
    assert resumed == whole
    assert sorted((killed / "battles.jsonl").read_text().splitlines()) == sorted(
        (tmp_path / "whole" / "battles.jsonl").read_text().splitlines())
    assert files_of(killed) == files_of(tmp_path / "whole")


class DiesOnce(RandomAgent):
    """A random agent whose worker process dies the first time it acts anywhere."""

    flag: Path

    def act(self, battle):  # type: ignore[no-untyped-def]
        if not self.flag.exists():
            self.flag.write_text("died")
            os._exit(1)
        return super().act(battle)


def test_a_dead_local_worker_has_its_battles_played_again(tmp_path: Path) -> None:
    DiesOnce.flag = tmp_path / "flag"
    agents.register("test_dies_once", DiesOnce, replace=True)
    config = config_from([AgentSpec("test_dies_once"), AgentSpec("berserker")], ["duel"],
                         4, 0, None)
    survived = run_tournament(config, tmp_path / "crash", workers=2, progress=False)
    assert DiesOnce.flag.exists()
    calm = run_tournament(config, tmp_path / "calm", workers=1, progress=False)
    assert survived == calm
    assert len(survived) == 8
