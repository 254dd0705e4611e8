"""Stopping a parallel run (issue 50): ``fray tournament`` with 2 workers stops within
seconds on SIGINT to its main process alone, on SIGINT to its whole process group (what
Ctrl-C sends) and on SIGTERM; its workers are gone, it prints one line, keeps the battles
that finished, and ``--resume`` completes the run.

Before issue 50 a SIGINT to the main process alone printed a traceback under "Exception
ignored in threading" and hung for ever; Ctrl-C left both workers playing the whole queue.
The bound below (15 s) detects a hang; it is not a timing assertion (a stop takes well
under a second: the workers are killed, not waited for).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HANG = 15.0  # seconds: far above a stop's real time; only a hang reaches it
# a duel battle of about half a second on one core, and 16 of them: the run is still going
# when the first has finished, however idle the machine (at 64 iterations and 6 battles an
# idle machine finished the whole run before the test could signal it)
AGENTS = "random,mcts(iterations=2000)"
BATTLES = 8  # per pairing and side: 16 battles


def _command(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "experiments.cli", "tournament", "--agents", AGENTS,
            "--scenarios", "duel", "--battles", str(BATTLES), "--workers", "2",
            "--out", str(out), *extra]


def _finished(out: Path) -> int:
    path = out / "battles.jsonl"
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines() if line.strip())


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        children = task / "children"
        if children.exists():
            found.update(int(word) for word in children.read_text().split())
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _interrupt(out: Path, send: str, resume: bool) -> tuple[int, str, int]:
    """Start the run, wait for one more finished battle, signal it; (exit code, stderr,
    battles finished)."""
    before = _finished(out)
    process = subprocess.Popen(_command(out, *(["--resume"] if resume else [])), cwd=ROOT,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while _finished(out) == before and process.poll() is None:
            assert time.monotonic() < deadline, "no battle finished"
            time.sleep(0.05)
        workers = _children(process.pid)
        assert process.poll() is None and len(workers) >= 2, "the run ended too soon"
        if send == "main":
            os.kill(process.pid, signal.SIGINT)
        elif send == "group":
            os.killpg(process.pid, signal.SIGINT)
        else:
            os.kill(process.pid, signal.SIGTERM)
        _, stderr = process.communicate(timeout=HANG)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    deadline = time.monotonic() + HANG
    while any(_alive(worker) for worker in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [worker for worker in workers if _alive(worker)], "a worker was left running"
    return process.returncode, stderr, _finished(out)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_interrupts_stop_the_workers_at_once_and_resume_completes_the_run(tmp_path):
    out = tmp_path / "run"
    finished = 0
    for send, code in (("main", 130), ("group", 130), ("terminate", 143)):
        returncode, stderr, now = _interrupt(out, send, resume=finished > 0)
        assert returncode == code, (send, stderr)
        assert stderr.strip().splitlines()[-1] == "fray: interrupted", (send, stderr)
        assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
        assert finished < now < 2 * BATTLES, (send, finished, now)  # kept, not all played
        finished = now
    done = subprocess.run(_command(out, "--resume"), cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (out / "battles.jsonl").read_text().splitlines()]
    identifiers = [record["id"] for record in records]
    assert len(identifiers) == len(set(identifiers)) == 2 * BATTLES
