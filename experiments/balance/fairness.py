"""The measured balance of the shipped scenarios: tactician against tactician, sides as
shipped, the party's score rate (a draw counts half) with its Wilson 95% interval.

``fray scenarios --measure`` plays it and stores the table in ``scenario_balance.json``
beside this module; ``fray scenarios`` shows the stored figures (it does not replay them).
Battle ``i`` of scenario NAME has the seed ``battle_seed(seed, "scenarios:NAME",
"tactician", "tactician", i)``; docs/balance.md pre-registers the seed, the battles and
the bar of the fair scenarios.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from experiments.balance.battles import BatchTask, Tally, measure, play_batch, setting_files
from experiments.comparison.runner import AgentSpec, TaskPool
from experiments.comparison.tournament import battle_seed
from rules.content import DATA_DIR
from rules.scenario import resolve_scenario

TABLE_FILE = Path(__file__).with_name("scenario_balance.json")
AGENT = "tactician"
BATCH = 200


def measure_scenarios(names: list[str], battles: int, seed: int, backend: str = "local",
                      workers: int | None = None) -> dict[str, Any]:
    """Play ``battles`` tactician-against-tactician battles of each scenario; the table."""
    agent = AgentSpec(AGENT)
    tasks, owners = [], []
    for name in names:
        files = setting_files(str(DATA_DIR), str(resolve_scenario(name)))
        seeds = [battle_seed(seed, f"scenarios:{name}", AGENT, AGENT, i)
                 for i in range(battles)]
        for start in range(0, battles, BATCH):
            tasks.append(BatchTask(files, agent, agent, tuple(seeds[start:start + BATCH])))
            owners.append(name)
    results: dict[int, Tally] = {}
    with TaskPool(backend, workers) as pool:
        for index, tally in pool.map(play_batch, tasks):
            results[index] = tally
    tallies = {name: Tally() for name in names}
    for index, name in enumerate(owners):
        tallies[name] = tallies[name].add(results[index])
    rows = {}
    for name, tally in tallies.items():
        value, (low, high) = measure(tally, "party_win")
        rows[name] = {"party_win": value, "low": low, "high": high,
                      "battles": tally.battles, "draws": tally.draws}
    return {"agents": f"{AGENT} v {AGENT}", "seed": seed, "battles": battles,
            "metric": "party_win (a draw counts half), Wilson 95% interval",
            "scenarios": rows}


def stored_table() -> dict[str, Any]:
    """The stored table (empty scenarios when it was never measured)."""
    if not TABLE_FILE.exists():
        return {"scenarios": {}}
    return json.loads(TABLE_FILE.read_text(encoding="utf-8"))


def store_table(table: dict[str, Any]) -> Path:
    TABLE_FILE.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    return TABLE_FILE


def balance_column(name: str, table: dict[str, Any]) -> str:
    """``0.48 [0.46-0.49]`` for a measured scenario, ``-`` otherwise."""
    row = table["scenarios"].get(name)
    if row is None:
        return "-"
    return f"{row['party_win']:.2f} [{row['low']:.2f}-{row['high']:.2f}]"

