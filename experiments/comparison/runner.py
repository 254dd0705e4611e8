"""Playing many battles: agent specs, one battle as a task, local workers and Ray.

A battle to play is a :class:`BattleSpec` (scenario, the agent of each team, the battle
seed, the content folder). :func:`play_one` plays it in whatever process it lands in and
returns a :class:`BattleResult`: a compact record for ``battles.jsonl`` (winner, rounds,
damage, Free Attacks provoked, read from the events) and the compact replay (the events
dropped; the actions and seed re-simulate them). The result depends only on the spec, so
local workers and Ray tasks give byte-identical results for the same seeds.

:func:`run_battles` yields results as battles finish, with

- ``backend="local"``: ``workers`` processes (``concurrent.futures``; one worker plays
  in this process). A worker that dies breaks the pool; the unfinished battles are
  resubmitted to a new pool, so none is lost. An interrupt kills the workers at once
  (:mod:`experiments.workers`); the results yielded before it are kept.
- ``backend="ray"``: one Ray task per batch of battles (:func:`ray_batches`;
  ``max_retries``: Ray re-runs the task of a worker that died). Uses the running Ray
  session, or starts one (``address`` for an existing cluster) and shuts it down after.

:func:`map_tasks` does the same for batches of any work (``fray balance``'s batches of
battles): one task per batch, not per battle.

An agent spec is a registered name with optional keyword arguments for its factory:
``berserker``, ``mcts(iterations=20)``, ``mcts(iterations=20,rollout=berserker)`` (in a
comma list the commas inside parentheses stay with their agent).
"""

from __future__ import annotations

import shutil
import socket
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import rules
from agents.spec import parse_spec, spec_label
from agents.spec import split_specs as split_list
from experiments.heap import freeze_shared
from experiments.replay import play
from experiments.workers import default_workers, ignore_interrupts, process_pool, stop_pool
from rules import events as ev

RAY_MAX_RETRIES = 3
LOCAL_MAX_POOL_RESTARTS = 5

T = TypeVar("T")
R = TypeVar("R")


class RunnerError(rules.FrayError):
    """A bad agent spec, or battles that could not be played."""


# ---------------------------------------------------------------- agent specs


@dataclass(frozen=True)
class AgentSpec:
    """A registered agent name plus keyword arguments for its factory."""

    name: str
    kwargs: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        """The spec as written: ``mcts(iterations=20)``."""
        return spec_label(self.name, self.kwargs)

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """``name`` or ``name(key=value,key=value)`` (:func:`agents.spec.parse_spec`)."""
        try:
            name, kwargs = parse_spec(text)
        except ValueError as exc:
            raise RunnerError(str(exc)) from None
        return cls(name, kwargs)

    def make(self, seed: int | None = None) -> Any:
        """A new agent (``agents.make``); an unknown name or a bad option is a RunnerError
        (``agents.make``'s one line, which names the spec and the agent's options)."""
        import agents

        try:
            return agents.make(self.name, seed=seed, **dict(self.kwargs))
        except ValueError as exc:
            raise RunnerError(str(exc)) from None


def parse_agents(text: str) -> list[AgentSpec]:
    """Agent specs from a comma list, each checked by building it once."""
    specs = [AgentSpec.parse(item) for item in split_list(text)]
    if not specs:
        raise RunnerError(f"--agents: expected at least one agent name, got {text!r}")
    for spec in specs:
        spec.make(seed=0)
    return specs


# ---------------------------------------------------------------- one battle


@dataclass(frozen=True)
class BattleSpec:
    """One battle to play; ``id`` names it in ``battles.jsonl`` and ``replays/``."""

    id: str
    scenario: str
    agents: tuple[tuple[str, AgentSpec], ...]   # (team, agent) in team order
    seed: int
    content_dir: str | None = None
    meta: tuple[tuple[str, Any], ...] = ()       # copied into the record (pairing...)


@dataclass
class BattleResult:
    """What :func:`play_one` returns: the record and the compact replay (as dicts)."""

    id: str
    record: dict[str, Any]
    replay: dict[str, Any] = field(repr=False)


def team_tallies(battle: rules.Battle) -> dict[str, dict[str, int]]:
    """Per team, from the events: damage dealt and taken, Free Attacks provoked."""
    team_of = {cid: c.team for cid, c in battle.combatants.items()}
    tallies = {team: {"damage_dealt": 0, "damage_taken": 0, "free_attacks_provoked": 0}
               for team in battle.scenario.teams}
    for event in battle.events:
        if isinstance(event, ev.DamageDealt):
            if event.attacker in team_of:
                tallies[team_of[event.attacker]]["damage_dealt"] += event.damage
            if event.target in team_of:
                tallies[team_of[event.target]]["damage_taken"] += event.damage
        elif isinstance(event, ev.Provoked) and event.actor in team_of:
            tallies[team_of[event.actor]]["free_attacks_provoked"] += 1
    return tallies


#: (scenario, content folder) pairs whose content and map graph this process has frozen
_FROZEN: set[tuple[str, str | None]] = set()


def play_one(spec: BattleSpec) -> BattleResult:
    """Play one battle to the end; the record and compact replay depend only on ``spec``.

    The first battle of a scenario in a process first freezes the content and the map's
    graph out of the garbage collector's way (:func:`experiments.heap.freeze_shared`)."""
    if (spec.scenario, spec.content_dir) not in _FROZEN:
        freeze_shared([spec.scenario], spec.content_dir)
        _FROZEN.add((spec.scenario, spec.content_dir))
    teams = dict(spec.agents)
    battle, replay = play(spec.scenario, spec.seed,
                          {team: agent.name for team, agent in teams.items()},
                          content_dir=spec.content_dir,
                          agent_kwargs={team: dict(agent.kwargs)
                                        for team, agent in teams.items()},
                          events=False)  # compact: the seed and actions re-simulate them
    replay.agents = {team: agent.label for team, agent in teams.items()}
    record: dict[str, Any] = {
        "id": spec.id, "scenario": spec.scenario, "seed": spec.seed,
        "agents": dict(replay.agents), **dict(spec.meta),
        "winner": battle.winner, "rounds": battle.round, "decisions": len(replay.actions),
        "teams": team_tallies(battle),
    }
    return BattleResult(spec.id, record, replay.to_dict())


# ---------------------------------------------------------------- many battles


def run_battles(specs: Iterable[BattleSpec], *, backend: str = "local",
                workers: int | None = None, address: str | None = None,
                ) -> Iterator[BattleResult]:
    """Play every spec; yield each result as its battle finishes (any order)."""
    specs = list(specs)
    if not specs:
        return
    if backend == "local":
        yield from _run_local(specs, workers or default_workers())
    elif backend == "ray":
        yield from _run_ray(specs, workers, address)
    else:
        raise RunnerError(f"--backend: expected 'local' or 'ray', got {backend!r}")


def _run_local(specs: list[BattleSpec], workers: int) -> Iterator[BattleResult]:
    if workers <= 1:
        for spec in specs:
            yield play_one(spec)
        return
    pending = {spec.id: spec for spec in specs}
    restarts = 0
    while pending:
        # an interrupt, or a caller that stops reading, kills the workers (process_pool)
        with process_pool(min(workers, len(pending))) as pool:
            futures: dict[Future[BattleResult], BattleSpec] = {
                pool.submit(play_one, spec): spec for spec in pending.values()}
            try:
                while futures:
                    done, _ = wait(futures, return_when=FIRST_COMPLETED)
                    for future in done:
                        spec = futures.pop(future)
                        result = future.result()
                        del pending[spec.id]
                        yield result
            except BrokenProcessPool:
                restarts += 1
                if restarts > LOCAL_MAX_POOL_RESTARTS:
                    raise RunnerError(f"a worker died {restarts} times; {len(pending)} "
                                      f"battles not played (first: {next(iter(pending))})"
                                      ) from None


def check_address(address: str, timeout: float = 3.0) -> None:
    """Fail fast (one line) when nothing listens at a Ray ``HOST:PORT`` (``ray://HOST:PORT``
    too; ``auto`` is left to Ray), instead of Ray's long connection retries."""
    if address == "auto":
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise RunnerError(f"--address: expected HOST:PORT (or ray://HOST:PORT, auto), "
                          f"got {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise RunnerError(f"--address {address}: no Ray cluster reachable there "
                          f"({exc.strerror or exc})") from None


#: the longest temp dir Ray is given: its session's sockets go some 70 characters below
#: it, and a Unix socket's path is limited to 107
RAY_TEMP_DIR_LENGTH = 36


@contextmanager
def ray_temp_dir(folder: Path) -> Iterator[str]:
    """A temp dir for a local Ray session: ``folder/ray`` when that path is short enough
    for Ray's sockets, else a fresh one under ``/tmp``, removed when the block ends (so a
    run leaves nothing behind outside its folder)."""
    inside = Path(folder).resolve() / "ray"
    if len(str(inside)) <= RAY_TEMP_DIR_LENGTH:
        inside.mkdir(parents=True, exist_ok=True)
        yield str(inside)
        return
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    try:
        yield temp
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def start_ray(address: str | None, num_cpus: int | None, *, worker_output: bool = True,
              **options: Any) -> bool:
    """Join the Ray cluster at ``address``, or start a local one with ``num_cpus``, unless
    Ray is already running; True when this call started it (the caller shuts it down).
    ``worker_output``: whether the workers' output is copied to this process's terminal
    (the tournaments' and the ladder's workers play silently); ``options`` go to
    ``ray.init``.

    A Ray that cannot start or be joined is a one-line ``RunnerError``."""
    import ray

    if ray.is_initialized():
        return False
    options = {"include_dashboard": False, **options}
    if not worker_output:
        # Ray's own keyword: Ray calls the process that starts it its driver (nothing
        # to do with a battle's engine; tests/test_architecture.py allows this word)
        options["log_to_driver"] = False
    if address:
        options["address"] = address
    elif num_cpus:
        options["num_cpus"] = num_cpus
    try:
        ray.init(**options)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        where = f"--address {address}" if address else "--backend ray"
        raise RunnerError(f"{where}: cannot start or join Ray: "
                          f"{exc}".splitlines()[0]) from None
    return True


#: battles a Ray task plays at most (a native battle takes milliseconds: one task per
#: battle would spend more on scheduling than on playing)
RAY_BATCH = 32


def play_many(specs: Sequence[BattleSpec]) -> list[BattleResult]:
    """:func:`play_one` for each spec, in order (one Ray task's batch)."""
    return [play_one(spec) for spec in specs]


def ray_batches(specs: Sequence[BattleSpec], workers: int | None) -> list[list[BattleSpec]]:
    """The specs cut into batches: at most RAY_BATCH battles, and some 4 batches a worker
    at least, so the workers stay busy to the end."""
    size = max(1, min(RAY_BATCH, len(specs) // (4 * (workers or default_workers()))))
    return [list(specs[i:i + size]) for i in range(0, len(specs), size)]


def _run_ray(specs: list[BattleSpec], workers: int | None,
             address: str | None) -> Iterator[BattleResult]:
    with TaskPool("ray", workers, address) as pool:
        for _, results in pool.map(play_many, ray_batches(specs, workers)):
            yield from results


# ---------------------------------------------------------------- batches of any work


class TaskPool:
    """Where :func:`map_tasks` runs its tasks, kept for many calls (a balance search maps
    hundreds of small rounds of batches): local worker processes started once (rebuilt
    when a dying worker breaks the pool), or a Ray session joined or started once. Use as
    a context manager; ``function`` must be importable by name (a module-level function).
    """

    def __init__(self, backend: str = "local", workers: int | None = None,
                 address: str | None = None) -> None:
        if backend not in ("local", "ray"):
            raise RunnerError(f"--backend: expected 'local' or 'ray', got {backend!r}")
        self.backend = backend
        self.workers = workers or (default_workers() if backend == "local" else None)
        self.address = address
        self._pool: ProcessPoolExecutor | None = None
        self._ray_started = False
        self._remote: dict[Any, Any] = {}

    def __enter__(self) -> TaskPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        if self._ray_started:
            import ray

            ray.shutdown()
            self._ray_started = False

    def map(self, function: Callable[[T], R], tasks: Sequence[T]) -> Iterator[tuple[int, R]]:
        """``function(task)`` for each task: (index in ``tasks``, result) as each ends."""
        if not tasks:
            return
        if self.backend == "ray":
            yield from self._map_ray(function, tasks)
        elif (self.workers or 1) <= 1:
            for index, task in enumerate(tasks):
                yield index, function(task)
        else:
            yield from self._map_local(function, tasks)

    def _map_local(self, function: Callable[[T], R],
                   tasks: Sequence[T]) -> Iterator[tuple[int, R]]:
        pending = dict(enumerate(tasks))
        restarts = 0
        while pending:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(max_workers=self.workers,
                                                 initializer=ignore_interrupts)
            futures = {self._pool.submit(function, task): index
                       for index, task in pending.items()}
            try:
                while futures:
                    done, _ = wait(futures, return_when=FIRST_COMPLETED)
                    for future in done:
                        index = futures.pop(future)
                        result = future.result()
                        del pending[index]
                        yield index, result
            except BrokenProcessPool:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
                restarts += 1
                if restarts > LOCAL_MAX_POOL_RESTARTS:
                    raise RunnerError(f"a worker died {restarts} times; {len(pending)} "
                                      f"tasks not done") from None
            except BaseException:
                # an interrupt, or a caller that stops reading: kill the workers at once
                stop_pool(self._pool)
                self._pool = None
                raise

    def _map_ray(self, function: Callable[[T], R],
                 tasks: Sequence[T]) -> Iterator[tuple[int, R]]:
        try:
            import ray
        except ImportError:
            raise RunnerError("--backend ray: ray is not installed (pip install "
                              "'fray[ray]')") from None
        if not ray.is_initialized():
            self._ray_started = start_ray(self.address, self.workers, worker_output=False)
        if function not in self._remote:
            self._remote[function] = ray.remote(max_retries=RAY_MAX_RETRIES)(function)
        remote = self._remote[function]
        refs = {remote.remote(task): index for index, task in enumerate(tasks)}
        waiting = list(refs)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1)
            yield refs[done[0]], ray.get(done[0])


def map_tasks(function: Callable[[T], R], tasks: Sequence[T], *, backend: str = "local",
              workers: int | None = None, address: str | None = None,
              ) -> Iterator[tuple[int, R]]:
    """``function(task)`` for every task, yielded as (index in ``tasks``, result) as each
    finishes (any order), on a :class:`TaskPool` made for the call: a task is a batch of
    work (many battles, a fuzz slice), not one battle, so a native battle's milliseconds
    do not drown in scheduling. ``backend="ray"`` re-runs (``max_retries``) the task of a
    worker that died; a local pool broken by a dying worker is rebuilt."""
    with TaskPool(backend, workers, address) as pool:
        yield from pool.map(function, tasks)
