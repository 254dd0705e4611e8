"""``fray sweep --set KEY=V1,V2 ...``: one tournament per rules variant, same seeds."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from experiments.commands.tournament import add_run_options, check_run_options, run_options
from experiments.paths import output_folder

EXAMPLE = """example:
  fray sweep --set burden.moderate.skill_factor=0.25,0.5,1.0 --agents berserker \\
      --scenario skirmish --battles 20 --out runs/moderate  # skirmish wears moderate armour
  fray sweep --set defence.parries_per_round=1,2 --set misc.bleed_per_round=0,1 ...  # a grid

KEY is a dotted path into rules/data/ruleset.toml (or --content-dir's). Writes
DIR/sweep.json (the variants), DIR/variant-NN/ (content/, battles.jsonl, replays/),
DIR/sweep.csv and DIR/sweep.png."""


def check_same_sweep(out: Path, settings: dict[str, object]) -> None:
    """Refuse to rewrite the variants of a folder swept with other ``--set`` values."""
    import json

    from experiments.commands import UsageError

    path = out / "sweep.json"
    if path.exists():
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored != settings:
            raise UsageError(f"{path}: this folder was swept with {stored['variants']} "
                             f"from {stored['base']}; use the same --set values or a new --out")
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from experiments.comparison import plots
    from experiments.comparison.runner import parse_agents
    from experiments.comparison.stats import mean_interval
    from experiments.comparison.sweep import (
        base_folder,
        parse_setting,
        read_ruleset,
        sweep_rows,
        sweep_table,
        variant_label,
        variants,
        write_variant,
    )
    from experiments.comparison.tournament import (
        config_from,
        parse_scenarios,
        run_tournament,
        schedule,
    )

    check_run_options(args)
    base = base_folder(args.content_dir)
    ruleset = read_ruleset(base)
    changes = variants([parse_setting(text, ruleset) for text in args.set])
    agents = parse_agents(args.agents)
    scenarios = parse_scenarios(args.scenario)
    config_from(agents, scenarios, args.battles, args.seed, args.content_dir)  # checks
    out = Path(args.out)
    labels = [variant_label(change) for change in changes]
    folders = [out / f"variant-{i:02d}" for i in range(len(changes))]
    check_same_sweep(out, {"variants": labels, "base": str(base)})
    for folder, change in zip(folders, changes, strict=True):
        write_variant(base, folder / "content", change)
    records_by_variant = []
    configs = [config_from(agents, scenarios, args.battles, args.seed, str(folder / "content"))
               for folder in folders]
    # one bar (and ETA) for the whole sweep, the variant playing in its description
    with tqdm(total=sum(len(schedule(config)) for config in configs), unit="battle",
              dynamic_ncols=True) as bar:
        for number, (folder, label, config) in enumerate(
                zip(folders, labels, configs, strict=True), start=1):
            records_by_variant.append(run_tournament(
                config, folder, resume=args.resume, label=f"{number}/{len(labels)} {label}",
                bar=bar, **run_options(args)))
    names = [agent.label for agent in agents]
    rows = sweep_rows(labels, changes, records_by_variant, names)
    with (out / "sweep.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({k: round(v, 4) if isinstance(v, float) else v
                          for k, v in row.items()} for row in rows)
    series: dict[str, list[tuple[float, float, float]]] = {}
    for row in rows:
        if len(names) > 1 or row["subject"].startswith("team:"):
            series.setdefault(row["subject"], []).append(
                (row["win_rate"], row["win_low"], row["win_high"]))
    rounds = []
    for records in records_by_variant:
        mean, (low, high) = mean_interval([r["rounds"] for r in records])
        rounds.append((mean, low, high))
    plots.sweep_plot(labels, series, rounds, out / "sweep.png",
                     title=f"Rule sweep on {', '.join(scenarios)}: {', '.join(names)}")
    print(sweep_table(rows))
    print(f"\n{len(labels)} variants in {out}/ (sweep.csv, sweep.png, variant-NN/)")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("sweep", description="Vary values of ruleset.toml (one --set, or a grid of "
                       "several) and rerun the same tournament per variant on the same "
                       "seeds (common random numbers).",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("--set", action="append", required=True, metavar="KEY=V1,V2,...",
                   help="a ruleset.toml key and the values to try (repeat for a grid)")
    s.add_argument("--agents", required=True, help="comma list of agent specs")
    s.add_argument("--scenario", required=True, help="scenario name or path (comma list ok)")
    s.add_argument("--battles", type=int, required=True, help="battles per pairing and side")
    s.add_argument("--out", type=output_folder, required=True, help="output folder")
    s.add_argument("--resume", action="store_true", help="continue the sweep in --out")
    add_run_options(s)
    s.set_defaults(func=run)
