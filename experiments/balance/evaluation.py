"""Evaluating settings: batches of battles on common seeds, checkpointed to the run folder.

Batch ``k`` of the ``search`` stream plays the same seeds whatever the setting (common
random numbers): two settings differ by their rules, not by their dice, so a knob that
changes nothing gives exactly the same battles and a small effect shows in fewer battles.
The ``final`` stream's seeds are fresh (never played by the search), for an estimate the
search did not select on.

Every batch played is appended to ``DIR/batches.jsonl`` (flushed as it finishes;
:mod:`experiments.checkpoint`, the one mechanism of every ``--resume``). A run
is deterministic given its arguments, so ``--resume`` reruns it from the start and reads
the batches already played from that file instead of playing them: the same result as
a run never killed, whatever was in flight when it died.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

import rules
from experiments.balance.battles import BatchTask, Tally, play_batch, setting_files
from experiments.balance.knobs import KnobError, Setting, setting_id, write_setting
from experiments.checkpoint import append_record, check_arguments, read_records
from experiments.comparison.runner import AgentSpec, TaskPool
from experiments.comparison.tournament import battle_seed

BATCHES_FILE = "batches.jsonl"
SETTINGS_DIR = "settings"

#: a request: (setting, stream, batch index)
Request = tuple[Setting, str, int]


class BalanceError(rules.FrayError):
    """A run that cannot go on: a folder of another run, a setting the rules reject."""


@dataclass
class Evaluator:
    """Plays (or reads back) batches of battles for settings; counts the battles."""

    out: Path
    base: Path
    scenario: Path
    party: AgentSpec
    monsters: AgentSpec
    seed: int
    batch_size: int
    backend: str = "local"
    workers: int | None = None
    address: str | None = None
    progress: bool = True
    budget: int = 0

    def __post_init__(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        self._done: dict[tuple[str, str, int], Tally] = _read_batches(self.out / BATCHES_FILE)
        self._files: dict[str, tuple[tuple[str, str], ...]] = {}
        self._base = setting_files(str(self.base), str(self.scenario))
        self.used = 0
        self._pool = TaskPool(self.backend, self.workers, self.address)
        self._bar = tqdm(total=self.budget or None, desc="balance", unit="battle",
                         disable=not self.progress, dynamic_ncols=True, smoothing=0.1)

    def close(self) -> None:
        self._bar.total = max(self.used, self._bar.n)  # batches reused cost no battles
        self._bar.refresh()
        self._bar.close()
        self._pool.close()

    def seeds(self, stream: str, batch: int) -> tuple[int, ...]:
        """The battle seeds of batch ``batch`` of ``stream`` (the same for every setting)."""
        start = batch * self.batch_size
        return tuple(battle_seed(self.seed, f"balance:{stream}", self.party.label,
                                 self.monsters.label, start + i)
                     for i in range(self.batch_size))

    def files(self, setting: Setting) -> tuple[tuple[str, str], ...]:
        """The setting's content and scenario texts, written to ``DIR/settings/ID/`` and
        checked once here (``fray knobs``' check of each nudge, the recommended setting's
        files); the batches write and check their settings themselves (:func:`variant`)."""
        key = setting_id(setting)
        if key not in self._files:
            self._files[key] = setting_files(*write_setting(
                setting, self.base, self.scenario, self.out / SETTINGS_DIR / key))
        return self._files[key]

    def evaluate(self, requests: Sequence[Request]) -> list[Tally]:
        """The tally of each requested batch (played, or read from the checkpoint)."""
        keys = [(setting_id(s), stream, batch) for s, stream, batch in requests]
        tasks: dict[tuple[str, str, int], BatchTask] = {}
        for (setting, stream, batch), key in zip(requests, keys, strict=True):
            if key not in self._done and key not in tasks:
                tasks[key] = BatchTask(self._base, self.party, self.monsters,
                                       self.seeds(stream, batch),
                                       tuple(sorted(setting.items())))
        recovered = len(keys) - len(tasks)
        self._count(recovered * self.batch_size)
        order = list(tasks)
        if order:
            with (self.out / BATCHES_FILE).open("a", encoding="utf-8") as handle:
                for index, tally in self._pool.map(play_setting_batch,
                                                   [tasks[k] for k in order]):
                    key = order[index]
                    if isinstance(tally, str):
                        raise KnobError(tally)
                    self._done[key] = tally
                    append_record(handle, {"setting": key[0], "stream": key[1],
                                           "batch": key[2], "size": self.batch_size,
                                           **tally.to_dict()})
                    self._count(tally.battles)
        return [self._done[key] for key in keys]

    def pooled(self, setting: Setting, stream: str, batches: int) -> Tally:
        """Batches 0..batches-1 of ``stream`` for ``setting``, together."""
        total = Tally()
        for tally in self.evaluate([(setting, stream, b) for b in range(batches)]):
            total = total.add(tally)
        return total

    def _count(self, battles: int) -> None:
        self.used += battles
        self._bar.update(battles)


def play_setting_batch(task: BatchTask) -> Tally | str:
    """:func:`play_batch` (a worker's task), or the one line saying why the rules reject
    the task's setting (raised in the driver, whatever the backend)."""
    try:
        return play_batch(task)
    except KnobError as exc:
        return str(exc)


def _read_batches(path: Path) -> dict[tuple[str, str, int], Tally]:
    """The checkpointed batches (:func:`experiments.checkpoint.read_records`)."""
    done: dict[tuple[str, str, int], Tally] = {}
    for number, data in enumerate(read_records(path, BalanceError), start=1):
        try:
            done[(data["setting"], data["stream"], int(data["batch"]))] = Tally.from_dict(data)
        except (ValueError, KeyError, TypeError):
            raise BalanceError(f"{path}: line {number}: expected a batch record, got "
                               f"{json.dumps(data)[:60]!r}") from None
    return done


def check_run_folder(out: Path, arguments: Mapping[str, Any], resume: bool) -> None:
    """``DIR/run.json`` holds the run's arguments: a new run refuses a folder that holds
    batches; ``--resume`` refuses one played with other arguments
    (:func:`experiments.checkpoint.check_arguments`)."""
    check_arguments(out / "run.json", arguments, resume=resume, log=out / BATCHES_FILE,
                    error=BalanceError, refuse_new=True, what="balance run")
