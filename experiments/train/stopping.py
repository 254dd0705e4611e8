"""How ``fray train`` (:mod:`experiments.train.sb3`) stops on SIGTERM or SIGINT (issue 50).

:func:`stop_on_terminate` routes both signals to a :class:`StopRequest` for the run. The
run's callback tells the request which phase it is in: while the envs collect a rollout
the request is only recorded and the callback saves at the next step; during a PPO update
the handler raises :class:`UpdateStopped` in the main thread at once, and the run puts the
policy back as it was before the update and saves it (an update takes tens of seconds on a
loaded machine; waiting for it was issue 50's complaint).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class UpdateStopped(KeyboardInterrupt):
    """A SIGINT or SIGTERM during a PPO update: raised in the main thread to abandon it."""


#: the phases of a run a stop request tells apart (STOPPING: saving after a signal, when a
#: second one only waits)
COLLECTING, UPDATING, STOPPING = "collecting", "updating", "stopping"


class StopRequest:
    """Records a SIGTERM or SIGINT during :func:`train` (its number in ``signal``).

    While the envs collect a rollout, the callback saves at the next step and stops;
    during a PPO update the handler raises :class:`UpdateStopped` at once; otherwise a
    SIGTERM waits for the next step and a SIGINT is a plain ``KeyboardInterrupt``."""

    def __init__(self) -> None:
        self.signal: int | None = None
        self.phase: str | None = None

    def __call__(self, signum: int, frame: Any) -> None:
        if self.phase is None and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.signal = signum
        if self.phase == UPDATING:
            raise UpdateStopped


@contextmanager
def stop_on_terminate() -> Iterator[StopRequest]:
    """SIGTERM and SIGINT go to the yielded request instead of stopping the process at once
    (main thread only: elsewhere the request is never set)."""
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return
    previous = {number: signal.signal(number, request)
                for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield request
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
