"""Two ladder runs compared battle by battle (``fray ladder --paired A B``).

Two runs that played the same scenario, side and seed against the same fixed opponent
played the same battle up to the agent under test: the ladder's seeds are common random
numbers. Pairing them removes the seed's own luck from the comparison. For each
(scenario, side) and for both sides pooled, the table gives each run's wins with the
Wilson 95% interval, how many paired battles only one of the two won, and the exact sign
test on those (:func:`experiments.comparison.stats.sign_test`). This is how docs/agents.md
compares mcts with the tactician's own battles on the same seeds.

    from experiments.comparison.paired import load_run, paired_rows, paired_table
    rows = paired_rows(load_run("runs/mcts2000-skirmish"),
                       load_run("runs/tactician-skirmish850"), seeds=range(350, 700))
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from pathlib import Path

from experiments.comparison.ladder import SIDES, records_by_id
from experiments.comparison.stats import sign_test, wilson_interval
from experiments.comparison.tournament import BATTLES_FILE

# (scenario, side, seed) -> (agent label, opponent label, the agent won)
Outcomes = dict[tuple[str, str, int], tuple[str, str, bool]]


@dataclass(frozen=True)
class PairedRow:
    """One (scenario, side) of two runs on their common seeds; side "both" pools them."""

    scenario: str
    side: str
    first_agent: str
    second_agent: str
    pairs: int
    first_wins: int
    second_wins: int
    only_first: int
    only_second: int

    @property
    def p_value(self) -> float:
        return sign_test(self.only_first, self.only_second)


def load_run(spec: str) -> Outcomes:
    """The outcomes of a ladder folder's battles, one agent per (scenario, side).

    ``spec`` is a folder, or ``FOLDER#AGENT`` to pick one agent of a ladder that played
    several. Raises ValueError naming the file and what was found."""
    folder, _, agent = spec.partition("#")
    path = Path(folder) / BATTLES_FILE
    if not path.is_file():
        raise ValueError(f"{path}: expected a ladder's battle records (fray ladder --out "
                         f"{folder}), found no such file")
    out: Outcomes = {}
    agents: dict[tuple[str, str], set[str]] = {}
    for battle_id, record in records_by_id(Path(folder)).items():
        parts = battle_id.split("/")
        if len(parts) < 4 or parts[1] not in SIDES:
            raise ValueError(f"{path}: expected ids SCENARIO/SIDE/AGENT/SEED, "
                             f"found {battle_id!r}")
        side = parts[1]
        other = "party" if side == "monsters" else "monsters"
        label = record["agents"][side]
        if agent and label != agent:
            continue
        key = (record["scenario"], side, int(record["seed"]))
        agents.setdefault(key[:2], set()).add(label)
        out[key] = (label, record["agents"][other], record["winner"] == side)
    for (scenario, side), labels in agents.items():
        if len(labels) > 1:
            raise ValueError(f"{path}: {scenario} as {side} holds agents "
                             f"{', '.join(sorted(labels))}: name one as {folder}#AGENT")
    if not out:
        raise ValueError(f"{path}: expected battles of agent {agent!r}, found none"
                         if agent else f"{path}: expected battle records, found none")
    return out


def paired_rows(first: Outcomes, second: Outcomes,
                seeds: Container[int] | None = None) -> list[PairedRow]:
    """A row per (scenario, side) on the seeds both runs played (within ``seeds`` when
    given), then a "both" row per scenario pooling its sides. Raises ValueError when the
    two runs share no battle or met different fixed opponents on one."""
    common = sorted(k for k in first.keys() & second.keys()
                    if seeds is None or k[2] in seeds)
    if not common:
        raise ValueError("expected battles both runs played (same scenario, side and "
                         "seed), found none")
    groups: dict[tuple[str, str], list[tuple[str, str, int]]] = {}
    for key in common:
        if first[key][1] != second[key][1]:
            raise ValueError(f"{key[0]} as {key[1]}: the runs met different opponents "
                             f"({first[key][1]} and {second[key][1]}); battles pair only "
                             f"against the same fixed agent")
        groups.setdefault(key[:2], []).append(key)
    rows: list[PairedRow] = []
    for scenario in sorted({k[0] for k in common}):
        sides = [_row(first, second, scenario, side, groups[(scenario, side)])
                 for side in SIDES if (scenario, side) in groups]
        rows.extend(sides)
        if len(sides) > 1:
            pooled = [k for side in SIDES for k in groups.get((scenario, side), [])]
            rows.append(_row(first, second, scenario, "both", pooled))
    return rows


def _row(first: Outcomes, second: Outcomes, scenario: str, side: str,
         keys: Sequence[tuple[str, str, int]]) -> PairedRow:
    a = [first[k][2] for k in keys]
    b = [second[k][2] for k in keys]
    return PairedRow(scenario, side, first[keys[0]][0], second[keys[0]][0], len(keys),
                     sum(a), sum(b), sum(x and not y for x, y in zip(a, b, strict=True)),
                     sum(y and not x for x, y in zip(a, b, strict=True)))


def paired_table(rows: Sequence[PairedRow]) -> str:
    """The rows as a Markdown table."""
    lines = ["| scenario | side | pairs | first | won | Wilson 95% | second | won | "
             "Wilson 95% | only first | only second | sign test p |",
             "|---|---|---:|---|---:|---|---|---:|---|---:|---:|---:|"]
    for r in rows:
        a_low, a_high = wilson_interval(r.first_wins, r.pairs)
        b_low, b_high = wilson_interval(r.second_wins, r.pairs)
        lines.append(f"| {r.scenario} | {r.side} | {r.pairs} | {r.first_agent} | "
                     f"{r.first_wins} | [{a_low:.3f}, {a_high:.3f}] | {r.second_agent} | "
                     f"{r.second_wins} | [{b_low:.3f}, {b_high:.3f}] | {r.only_first} | "
                     f"{r.only_second} | {r.p_value:.3g} |")
    return "\n".join(lines)
