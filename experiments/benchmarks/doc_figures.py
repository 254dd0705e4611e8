"""Re-measure the figures the README and docs/ quote, with the date and the machine.

    python -m experiments.benchmarks.doc_figures            # every figure but the long ones
    python -m experiments.benchmarks.doc_figures demo cli    # some of them
    python -m experiments.benchmarks.doc_figures --long      # with the hour-long ones

Issue 50: figures typed into the docs drifted silently (the demo's "wall 49.9 s" ran in
3.6 s on the native engine, the plain-sb3 "76 steps/s" ran 311). Each figure here is the
command (or code) the docs name, timed as they quote it; the docs give this script's
output with its header line (date, machine, load), so a reader can re-run it and compare.
Where the docs' figure is a wall time, the load average matters: the header says it.

Figures (name: where the docs quote it):

- ``cli``: ``fray --version``, ``--help``, ``tournament --help`` and a usage error
  (``tournament --bogus``) against ``python -c pass`` (docs/experiments.md, "Start")
- ``demo``: ``fray demo`` wall and CPU time (docs/experiments.md, "fray demo")
- ``mcts``: the CPU time of a demo battle with mcts against one of the tactician
  (``fray demo``'s "about Nx", docs/experiments.md)
- ``sweep``: ``fray sweep --set defence.parries_per_round=0,1,2`` on duel, the rounds per
  variant (docs/experiments.md, "fray sweep")
- ``ppo``: the README's MaskablePPO block, 5,120 steps (README, "Training with plain sb3")
- ``sb3-defaults``: the same env with sb3-contrib's defaults, 2,048 steps (README)
- ``imitate`` (long, about half an hour on 2 cores): the README's ``fray train skirmish
  --imitate tactician --imitate-rounds 1 --policy fray-spatial --steps 1``
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def machine_line() -> str:
    """The header: date (UTC), CPU model, cores, load average, Python."""
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M")
    return (f"{now} UTC, {model}, {os.cpu_count()} cores, load average {load}, "
            f"Python {platform.python_version()}")


def _fray(*arguments: str) -> tuple[float, float]:
    """Run ``fray ARGUMENTS`` (this checkout's); (wall seconds, CPU seconds of it and its
    workers)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "experiments.cli", *arguments], check=True,
                   cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def cli() -> str:
    def best(command: list[str], exit_code: int = 0) -> float:
        times = []
        for _ in range(5):
            start = time.monotonic()
            done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL,
                                  env=dict(os.environ, PYTHONPATH=str(ROOT)))
            times.append(time.monotonic() - start)
            if done.returncode != exit_code:
                raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}, "
                                   f"expected {exit_code}")
        return min(times)

    fray = [sys.executable, "-m", "experiments.cli"]
    bare = best([sys.executable, "-c", "pass"])
    version = best([*fray, "--version"])
    usage = best([*fray, "--help"])
    command_help = best([*fray, "tournament", "--help"])
    command_error = best([*fray, "tournament", "--bogus"], exit_code=2)
    return (f"fray --version {version:.3f} s, fray --help {usage:.3f} s, fray tournament "
            f"--help {command_help:.3f} s, fray tournament --bogus {command_error:.3f} s, "
            f"python -c pass {bare:.3f} s (best of 5)")


def demo() -> str:
    with tempfile.TemporaryDirectory() as folder:
        wall, cpu = _fray("demo", "--out", str(Path(folder) / "demo"))
    return f"fray demo: 252 battles, wall {wall:.1f} s, {cpu:.1f} s of CPU"


def mcts() -> str:
    from agents.spec import spec_label
    from experiments.commands.demo import MCTS_OPTIONS

    mcts_spec = spec_label("mcts", MCTS_OPTIONS.items())

    with tempfile.TemporaryDirectory() as folder:
        _, with_mcts = _fray("tournament", "--agents", f"{mcts_spec},berserker",
                             "--scenarios", "skirmish", "--battles", "4", "--workers", "1",
                             "--out", str(Path(folder) / "m"))
        _, tactician = _fray("tournament", "--agents", "tactician,berserker",
                             "--scenarios", "skirmish", "--battles", "20", "--workers", "1",
                             "--out", str(Path(folder) / "t"))
        _, startup = _fray("tournament", "--agents", "random,berserker", "--scenarios",
                           "skirmish", "--battles", "1", "--workers", "1", "--out",
                           str(Path(folder) / "s"))
    per_mcts = (with_mcts - startup) / 8
    per_tactician = (tactician - startup) / 40
    return (f"skirmish, CPU a battle: {mcts_spec} against berserker {per_mcts:.2f} s, "
            f"tactician against berserker {per_tactician:.3f} s: "
            f"{per_mcts / per_tactician:.0f}x (startup {startup:.1f} s subtracted)")


def sweep() -> str:
    import csv

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "sweep"
        wall, _ = _fray("sweep", "--set", "defence.parries_per_round=0,1,2", "--agents",
                        "berserker,tactician", "--scenario", "duel", "--battles", "50",
                        "--out", str(out))
        with (out / "sweep.csv").open() as handle:
            rows = [row for row in csv.DictReader(handle) if row["subject"] == "team:party"]
    parts = [f"{row['variant'].split('=')[1]}: rounds {float(row['mean_rounds']):.1f} "
             f"[{float(row['rounds_low']):.1f}-{float(row['rounds_high']):.1f}], first team "
             f"wins {float(row['win_rate']):.0%}" for row in rows]
    return f"parries_per_round {'; '.join(parts)} (300 battles, {wall:.0f} s)"


def _readme_block() -> str:
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return next(code for code in re.findall(r"```python\n(.*?)```", text, re.DOTALL)
                if "MaskablePPO(" in code)


def ppo() -> str:
    block = _readme_block()
    namespace: dict[str, object] = {"__name__": "readme_block"}
    previous = tempfile.tempdir
    with tempfile.TemporaryDirectory() as folder:  # sb3 writes /tmp/SB3-<time>/ logs
        tempfile.tempdir = folder
        try:
            start = time.monotonic()
            exec(compile(block, "README.md", "exec"), namespace)  # our own README's code
            wall = time.monotonic() - start
        finally:
            tempfile.tempdir = previous
    model = namespace["model"]
    steps = model.num_timesteps  # type: ignore[attr-defined]
    parameters = sum(p.numel() for p in model.policy.parameters())  # type: ignore[attr-defined]
    namespace["env"].close()  # type: ignore[attr-defined]
    return (f"README MaskablePPO block: {steps:,} steps in {wall:.1f} s, "
            f"{steps / wall:.0f} steps/s, {parameters / 1000:.0f}k parameters")


def sb3_defaults() -> str:
    import gymnasium
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("env:fray/Skirmish-v0", opponent="berserker")
    from experiments.train.sb3 import quiet_logger

    model = MaskablePPO("MultiInputPolicy", env, device="cpu")
    model.set_logger(quiet_logger())  # no /tmp/SB3-<time> folder
    start = time.monotonic()
    model.learn(total_timesteps=2_048)
    wall = time.monotonic() - start
    parameters = sum(p.numel() for p in model.policy.parameters())
    env.close()
    return (f"sb3-contrib defaults: {model.num_timesteps:,} steps in {wall:.1f} s, "
            f"{model.num_timesteps / wall:.0f} steps/s, {parameters / 1e6:.1f}M parameters")


def imitate() -> str:
    with tempfile.TemporaryDirectory() as folder:
        wall, cpu = _fray("train", "skirmish", "--imitate", "tactician", "--imitate-rounds",
                          "1", "--policy", "fray-spatial", "--steps", "1", "--out",
                          str(Path(folder) / "sk"))
    return f"README imitate example: wall {wall / 60:.1f} min, {cpu / 60:.1f} min of CPU"


FIGURES: dict[str, tuple[Callable[[], str], bool]] = {  # name -> (measure, long)
    "cli": (cli, False),
    "demo": (demo, False),
    "mcts": (mcts, False),
    "sweep": (sweep, False),
    "ppo": (ppo, False),
    "sb3-defaults": (sb3_defaults, False),
    "imitate": (imitate, True),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help=f"figures ({', '.join(FIGURES)}); "
                        "default: all but the long ones")
    parser.add_argument("--long", action="store_true", help="also the long figures")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in FIGURES]
    if unknown:
        parser.error(f"unknown figure {unknown[0]!r}: expected one of {', '.join(FIGURES)}")
    names = args.names or [name for name, (_, long) in FIGURES.items()
                           if args.long or not long]
    print(f"doc figures, {machine_line()}", flush=True)
    for name in names:
        print(f"{name}: {FIGURES[name][0]()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
