"""Several machines: a Ray head started as `ray start --head` (a local one here, 2 CPUs,
its own temp dir), joined by `--address`, then stopped (only the processes it started)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from experiments import cli

ray = pytest.importorskip("ray")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_fray_balance_joins_a_cluster_by_address(tmp_path: Path) -> None:
    executable = shutil.which("ray")
    if executable is None:
        pytest.skip("the ray command line is not installed")
    port = free_port()
    temp = tempfile.mkdtemp(prefix="rc", dir="/tmp")   # short: Ray's socket paths
    # a test cluster on loopback: no token authentication (docs/balance.md says how a
    # real cluster shares its token)
    environment = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    head = subprocess.Popen(
        [executable, "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
         f"--temp-dir={temp}", "--include-dashboard=false", "--disable-usage-stats"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env=environment)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or head.poll() is not None:
                    pytest.fail("the Ray head did not start")
                time.sleep(0.5)
        out = tmp_path / "run"
        assert cli.main(["balance", "duel", "--knob", "creatures.orc.skills.axe=40..60:10",
                         "--target", "party_win=0.4..0.6", "--party", "tactician",
                         "--monsters", "tactician", "--budget", "400", "--out", str(out),
                         "--backend", "ray", "--address", f"127.0.0.1:{port}",
                         "--quiet"]) == 0
        assert not ray.is_initialized(), "the command leaves the cluster it joined"
        local = tmp_path / "local"
        assert cli.main(["balance", "duel", "--knob", "creatures.orc.skills.axe=40..60:10",
                         "--target", "party_win=0.4..0.6", "--party", "tactician",
                         "--monsters", "tactician", "--budget", "400", "--out", str(local),
                         "--workers", "1", "--quiet"]) == 0
        assert json.loads((out / "balance.json").read_text()) == \
            json.loads((local / "balance.json").read_text())
    finally:
        os.killpg(head.pid, signal.SIGTERM)   # the head and what it started, nothing else
        head.wait(timeout=60)
        shutil.rmtree(temp, ignore_errors=True)
