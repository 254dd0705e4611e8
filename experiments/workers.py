"""Worker processes that stop at once on Ctrl-C, SIGINT or SIGTERM (issue 50).

Every pool of worker processes fray starts (the battles of tournament, demo, ladder,
sweep, compare and exploits in :mod:`experiments.comparison.runner`, the evaluation's and
behaviour cloning's chunks) is a :func:`process_pool`:

- its workers ignore SIGINT and SIGTERM: a Ctrl-C (SIGINT to the whole process group),
  a SIGINT to the main process only and a SIGTERM all reach the main process alone, as a
  ``KeyboardInterrupt`` (``fray``'s main turns SIGTERM into one, :func:`interrupt_on_terminate`);
- when the block ends by an exception (that interrupt, or a consumer that stops reading),
  the queued tasks are cancelled and the workers are killed (SIGKILL: a battle holds
  nothing to flush) and joined, so no worker keeps running and nothing waits on them at
  exit. What finished was already handed to the caller (and written by it), so
  ``--resume`` plays only the rest.

``fray train``'s SubprocVecEnv envs ignore both signals too (their factories call
:func:`ignore_interrupts`): the run closes them. :func:`stop_children` is the CLI's last
line: any child process still alive when ``fray`` is interrupted is killed.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from types import FrameType

#: how long a stopped worker may take to exit after SIGKILL (seconds)
JOIN_SECONDS = 5.0


def default_workers() -> int:
    """All the cores this process may use (the default number of workers)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def ignore_interrupts() -> None:
    """A worker's initializer: SIGINT and SIGTERM are the main process's to act on."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def stop_processes(processes: Iterable[BaseProcess]) -> None:
    """Kill ``processes`` and wait for them (at most ``JOIN_SECONDS`` each)."""
    processes = [process for process in processes if process.is_alive()]
    for process in processes:
        process.kill()
    for process in processes:
        process.join(JOIN_SECONDS)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel ``pool``'s queued tasks and kill its workers."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    stop_processes(processes)


@contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A ``ProcessPoolExecutor`` of ``workers`` processes that ignore interrupts; stopped
    (tasks cancelled, workers killed) when the block raises, shut down cleanly otherwise."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=ignore_interrupts)
    try:
        yield pool
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def stop_children() -> None:
    """Kill every child process of this one still alive (the CLI's interrupt path)."""
    stop_processes(multiprocessing.active_children())


@contextmanager
def interrupt_on_terminate(received: list[int] | None = None) -> Iterator[None]:
    """SIGTERM raises ``KeyboardInterrupt`` in the main thread for the block (its number
    appended to ``received``), so a terminated command stops as an interrupted one does
    (``fray train`` sets its own handler inside: it saves a checkpoint, then stops)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        if received is not None:
            received.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
