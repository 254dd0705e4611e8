"""Benchmarks of the headless rules core: whole battles played by agents, decision latency
in a big battle, and what a battle costs to copy, serialise and keep in memory.

Both teams are played by the same registered agent (``agents.make(name, seed=...)``);
a decision is one ``agent.act(battle)`` and one ``battle.apply``. Run ``fray bench`` for
every figure, or ``python -m experiments.benchmarks.decisions`` for the headless rates.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Iterator

import numpy as np

import agents
import rules
from experiments.benchmarks import maps
from experiments.benchmarks.measure import Figure, per_call_us, unavailable
from experiments.heap import freeze_shared

SCENARIOS = ("duel", "skirmish", "horde")


def play(battle: rules.Battle, agent: agents.Agent, limit: int | None = None) -> int:
    """Play ``battle`` with ``agent`` for both teams to the end (or ``limit`` decisions);
    the number of decisions made."""
    done = 0
    while not battle.is_over and (limit is None or done < limit):
        battle.apply(agent.act(battle))
        done += 1
    return done


def headless(scenario: str, agent: str, battles: int, repeats: int) -> list[Figure]:
    """Decisions/s and battles/s of ``battles`` whole battles per repeat (new seeds each)."""
    rates = Figure(f"headless.{agent}.{scenario}.decisions_per_s",
                   f"headless {agent} {scenario}: decisions/s", "/s")
    whole = Figure(f"headless.{agent}.{scenario}.battles_per_s",
                   f"headless {agent} {scenario}: battles/s", "/s")
    # per second of this process's CPU time: what a quiet core would do on a busy box
    cpu = Figure(f"headless.{agent}.{scenario}.battles_per_cpu_s",
                 f"headless {agent} {scenario}: battles per CPU-second", "/s")
    if agent not in agents.names():
        why = "n/a (not registered)"
        return [unavailable(f.key, f.label, f.unit, why) for f in (rates, whole, cpu)]
    for r in range(repeats):
        decisions = 0
        start, start_cpu = time.perf_counter(), time.process_time()
        for i in range(battles):
            seed = r * battles + i
            battle = rules.Battle.from_scenario(scenario, seed=seed)
            decisions += play(battle, agents.make(agent, seed=seed))
        seconds = time.perf_counter() - start
        rates.values.append(decisions / seconds)
        whole.values.append(battles / seconds)
        cpu.values.append(battles / max(1e-9, time.process_time() - start_cpu))
    return [rates, whole, cpu]


def freeze_gain(scenario: str, battles: int, repeats: int) -> Figure:
    """CPU time of the same ``battles`` random battles with the shared heap unfrozen over
    the time with it frozen (``gc.freeze()``, experiments/heap.py), alternating which goes
    first, in this run; > 1 means freezing helps."""
    out = Figure(f"gc_freeze.{scenario}", f"headless random {scenario}: CPU time without "
                 "gc.freeze / with", "x")

    def cpu_seconds() -> float:
        start = time.process_time()
        for seed in range(battles):
            play(rules.Battle.from_scenario(scenario, seed=seed), agents.make("random", seed=seed))
        return time.process_time() - start

    for r in range(repeats):
        runs = {}
        for frozen in ((False, True) if r % 2 == 0 else (True, False)):
            gc.unfreeze()
            gc.collect()
            if frozen:
                gc.freeze()
            runs[frozen] = cpu_seconds()
        out.values.append(runs[False] / runs[True])
    gc.collect()
    gc.freeze()
    return out


def unit_count(scenario: str) -> int:
    """How many combatants the scenario fields."""
    return len(rules.Battle.from_scenario(scenario, seed=0).combatants)


def mid_battle(scenario: str, decisions: int = 60, seed: int = 1) -> rules.Battle:
    """A battle of ``scenario`` after ``decisions`` random decisions (or its end)."""
    battle = rules.Battle.from_scenario(scenario, seed=seed)
    play(battle, agents.make("random", seed=seed), decisions)
    return battle


def state_costs(scenario: str, calls: int, repeats: int) -> list[Figure]:
    """µs per ``clone()`` (wall clock and CPU time) and per JSON round trip
    (``from_json(to_json())``) mid-battle."""
    battle = mid_battle(scenario)
    return [
        Figure(f"clone.{scenario}", f"clone() {scenario}", "µs",
               per_call_us(battle.clone, calls, repeats)),
        Figure(f"clone_cpu.{scenario}", f"clone() {scenario}, CPU time", "µs",
               per_call_us(battle.clone, calls * 5, repeats, clock=time.process_time)),
        Figure(f"json.{scenario}", f"JSON round trip {scenario}", "µs",
               per_call_us(lambda: rules.Battle.from_json(battle.to_json()),
                           max(1, calls // 20), repeats)),
    ]


def memory_per_battle(scenario: str, count: int, repeats: int) -> Figure:
    """KiB held by one battle at its first decision (tracemalloc, ``count`` kept alive)."""
    rules.Battle.from_scenario(scenario, seed=0).legal_actions()  # load content and caches
    out = Figure(f"memory.battle.{scenario}", f"memory per battle {scenario}", "KiB")
    for r in range(repeats):
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        kept = []
        for i in range(count):
            battle = rules.Battle.from_scenario(scenario, seed=r * count + i)
            battle.legal_actions()
            kept.append(battle)
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        out.values.append((after - before) / count / 1024)
        del kept
    return out


def first_decision(size: int, repeats: int) -> list[Figure]:
    """Seconds from parsing a generated ``size`` x ``size`` open map to its first
    ``legal_actions()``, and the MiB that grows memory (tracemalloc peak, separate run)."""
    rules.default_content()
    seconds = Figure(f"map{size}.first_decision_s",
                     f"first decision {size}x{size} open map", "s")
    memory = Figure(f"map{size}.first_decision_mib",
                    f"first decision {size}x{size} open map: memory", "MiB")
    for r in range(repeats):
        # a new map variant per run: what is cached per map (the reach graph, threat
        # zones) must be built again, as on a fresh map
        text = maps.open_map(size, variant=1 + 2 * r)
        start = time.perf_counter()
        rules.Battle.from_toml(text, seed=r).legal_actions()
        seconds.values.append(time.perf_counter() - start)
        text = maps.open_map(size, variant=2 + 2 * r)
        tracemalloc.start()
        rules.Battle.from_toml(text, seed=r).legal_actions()
        memory.values.append(tracemalloc.get_traced_memory()[1] / 2**20)
        tracemalloc.stop()
    return [seconds, memory]


def crowd_latency(per_team: int, size: int, decisions: int, repeats: int) -> list[Figure]:
    """p50 and p99 ms per decision (random agent act + apply) over the first
    ``decisions`` decisions of a generated ``per_team`` vs ``per_team`` battle."""
    label = f"{per_team}v{per_team} on {size}x{size}"
    p50 = Figure("crowd.p50_ms", f"decision p50 {label}", "ms")
    p99 = Figure("crowd.p99_ms", f"decision p99 {label}", "ms")
    # this process's CPU time per decision: a busy machine's preemptions left out
    cpu99 = Figure("crowd.p99_cpu_ms", f"decision p99 {label}, CPU time", "ms")
    text = maps.crowd(size, per_team)
    for r in range(repeats):
        battle = rules.Battle.from_toml(text, seed=r)
        agent = agents.make("random", seed=r)
        battle.legal_actions()  # the map's graph and first caches are not a decision's cost
        times, cpu_times = [], []
        while not battle.is_over and len(times) < decisions:
            start, start_cpu = time.perf_counter(), time.process_time()
            battle.apply(agent.act(battle))
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - start_cpu)
        p50.values.append(float(np.percentile(times, 50)) * 1e3)
        p99.values.append(float(np.percentile(times, 99)) * 1e3)
        cpu99.values.append(float(np.percentile(cpu_times, 99)) * 1e3)
    return [p50, p99, cpu99]


def figures(quick: bool) -> Iterator[Figure]:
    """Every headless figure, quick or full sizes (the shared heap frozen first, as fray's
    own programs do)."""
    freeze_shared(SCENARIOS)
    repeats = 3 if quick else 5
    battles = {"duel": 3, "skirmish": 1, "horde": 1} if quick else {
        "duel": 20, "skirmish": 4, "horde": 2}
    for scenario in SCENARIOS:
        yield from headless(scenario, "random", battles[scenario], repeats)
    for scenario in SCENARIOS:  # a searching agent is far slower: one battle per repeat
        yield from headless(scenario, "tactician", 1, 1 if quick else 3)
    for scenario in ("skirmish", "horde"):
        yield from state_costs(scenario, 200 if quick else 1000, repeats)
        yield memory_per_battle(scenario, 5 if quick else 20, repeats)
    yield from first_decision(300, repeats)
    yield from crowd_latency(20, 40, 300 if quick else 2000, repeats)
    yield freeze_gain("skirmish", 2 if quick else 4, repeats)


def main() -> None:
    freeze_shared(SCENARIOS)
    for scenario in SCENARIOS:
        for fig in headless(scenario, "random", 5, 3):
            print(f"{fig.label:<44} {fig.median:>10.1f} (min {fig.low:.1f}, max {fig.high:.1f})")


if __name__ == "__main__":
    main()
