"""``fray balance``'s output: ``balance.json``, the figures and ``report.html`` (one page,
offline: the figures are embedded, and also written beside it as PNG files)."""

from __future__ import annotations

import base64
import html
import json
import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

RESULT_FILE = "balance.json"
REPORT_FILE = "report.html"
RECOMMENDED_PNG = "recommended.png"
EFFECTS_PNG = "effects.png"


def _save(figure: Any, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def _value(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def recommended_plot(result: dict[str, Any], path: Path) -> Path:
    """The final estimate with its interval against the band."""
    estimate, target = result["estimate"], result["target"]
    figure, axes = plt.subplots(figsize=(7, 1.9))
    axes.axvspan(target["low"], target["high"], color="tab:green", alpha=0.2,
                 label="target band")
    axes.errorbar([estimate["value"]], [0], xerr=[[estimate["value"] - estimate["low"]],
                                                 [estimate["high"] - estimate["value"]]],
                  fmt="o", color="black", capsize=6, label="final estimate, 95% interval")
    axes.set_yticks([])
    if target["metric"] != "rounds":
        axes.set_xlim(0, 1)
    axes.set_xlabel(target["metric"])
    verdict = "in band" if result["in_band"] else (
        "unreachable" if result["unreachable"] else "not shown in band")
    axes.set_title(f"recommended setting: {verdict} ({estimate['battles']} fresh battles)",
                   fontsize=10)
    axes.legend(loc="upper left", fontsize=7)
    return _save(figure, path)


def effects_plot(result: dict[str, Any], path: Path) -> Path:
    """Each knob's curve (the metric at each level, others as recommended)."""
    knobs = result["knobs"]
    target = result["target"]
    count = len(knobs)
    figure, axes_list = plt.subplots(count, 1, figsize=(7, 2.3 * count), squeeze=False)
    for axes, (key, effect) in zip(axes_list[:, 0], knobs.items(), strict=True):
        curve = effect["curve"]
        labels = [_value(point["value"]) for point in curve]
        values = [point["estimate"] for point in curve]
        errors = [[v - p["low"] for v, p in zip(values, curve, strict=True)],
                  [p["high"] - v for v, p in zip(values, curve, strict=True)]]
        axes.axhspan(target["low"], target["high"], color="tab:green", alpha=0.2)
        colours = ["tab:red" if point["value"] == result["recommended"][key] else "tab:blue"
                   for point in curve]
        for x, (value, low, high, colour) in enumerate(zip(values, errors[0], errors[1],
                                                            colours, strict=True)):
            axes.errorbar([x], [value], yerr=[[low], [high]], fmt="o", color=colour,
                          capsize=4)
        axes.plot(range(len(values)), values, color="tab:blue", alpha=0.4)
        axes.set_xticks(range(len(labels)), labels, fontsize=8)
        axes.set_ylabel(target["metric"], fontsize=8)
        flag = ("  [CHANGES NOTHING]" if effect["identical"] else
                "  [NO MEASURABLE EFFECT]" if effect["no_effect"] else "")
        axes.set_title(f"{key}: effect {effect['effect']:+.3g} "
                       f"[{effect['low']:+.3g}, {effect['high']:+.3g}]{flag}", fontsize=9,
                       color="tab:gray" if effect["no_effect"] else "black")
    return _save(figure, path)


def _embedded(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img alt="{html.escape(path.name)}" src="data:image/png;base64,{data}">'


def _table(head: list[str], rows: list[list[Any]]) -> str:
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_value(c))}</td>" for c in row)
                   + "</tr>" for row in rows)
    return f"<table><tr>{cells}</tr>{body}</table>"


def _edge(edge: dict[str, Any]) -> str:
    """``H1 after 409 battles`` (an SPRT edge's decision)."""
    if edge["decision"] == "continue":
        return f"undecided after {edge['battles']} battles"
    return f"{html.escape(str(edge['decision']))} after {edge['battles']} battles"


def _interval(low: float, high: float) -> str:
    return f"[{low:.3g}, {high:.3g}]"


def write_report(out: Path, result: dict[str, Any], command: str) -> Path:
    """``balance.json``, the PNGs and ``report.html`` in ``out``; the page's path."""
    (out / RESULT_FILE).write_text(json.dumps(result, indent=1, sort_keys=False) + "\n",
                                   encoding="utf-8")
    recommended = recommended_plot(result, out / RECOMMENDED_PNG)
    effects = effects_plot(result, out / EFFECTS_PNG)
    estimate, target, sprt = result["estimate"], result["target"], result["sprt"]
    verdict = ("IN BAND" if result["in_band"] else
               "UNREACHABLE: no setting reached the band; the closest is shown"
               if result["unreachable"] else "NOT SHOWN IN BAND")
    setting_rows = [[key, value] for key, value in result["recommended"].items()]
    knob_rows = [[key, f"{e['effect']:+.3g}", _interval(e["low"], e["high"]),
                  f"{_value(e['from'])} -> {_value(e['to'])}",
                  "changes nothing" if e["identical"] else
                  "no measurable effect" if e["no_effect"] else "effect"]
                 for key, e in sorted(result["knobs"].items(),
                                      key=lambda item: -abs(item[1]["effect"]))]
    sensitivity_rows = [[row["knob"], f"{row['step']:+d}", row["value"],
                         f"{row['estimate']:.3g}", _interval(row["low"], row["high"]),
                         f"{row['difference']:+.3g}",
                         _interval(row["difference_low"], row["difference_high"]),
                         "yes" if row["in_band"] else "no"]
                        for row in result["sensitivity"]]
    alternative_rows = [[" ".join(f"{k}={_value(v)}" for k, v in row["setting"].items()),
                         row["steps"], f"{row['estimate']:.3g}",
                         _interval(row["low"], row["high"]), row["battles"]]
                        for row in result["alternatives"]]
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fray balance</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em}}
table{{border-collapse:collapse;margin:.5em 0}}td,th{{border:1px solid #ccc;
padding:2px 8px;text-align:left}}img{{max-width:100%}}code{{background:#eee}}</style>
</head><body>
<h1>fray balance: {html.escape(target['metric'])} in {target['low']:g}..{target['high']:g}</h1>
<p><code>{html.escape(command)}</code></p>
<h2>Recommended setting: {html.escape(verdict)}</h2>
{_table(["knob", "value"], setting_rows)}
<p>{html.escape(target['metric'])} = <b>{estimate['value']:.3g}</b>, 95% interval
{_interval(estimate['low'], estimate['high'])}, on {estimate['battles']} battles on fresh
seeds (never used to choose the setting). SPRT against the band:
{html.escape(str(sprt['verdict']))} (lower edge {_edge(sprt['lower_edge'])}, upper edge
{_edge(sprt['upper_edge'])}). {html.escape(result['draws'])}.
Battles used: {result['battles_used']}.</p>
{_embedded(recommended)}
<h2>What each knob does</h2>
<p>Each knob moved across its range with the others as recommended, on the same seeds;
effect = metric at the last level minus at the first, with a paired-bootstrap 95%
interval. Grey titles: no measurable effect.</p>
{_table(["knob", "effect", "95% interval", "levels", "verdict"], knob_rows)}
{_embedded(effects)}
<h2>One-step sensitivity</h2>
{_table(["knob", "step", "value", "estimate", "95% interval", "change", "change interval",
         "in band"], sensitivity_rows)}
<h2>Nearest alternatives also in band</h2>
{_table(["setting", "steps away", "estimate", "95% interval", "battles"], alternative_rows)
 if alternative_rows else "<p>None measured in band.</p>"}
<p>Method, noise handling and plan: docs/balance.md. Plan: {html.escape(json.dumps(
    result['plan']))}; optimiser {html.escape(result['optimiser'])}.</p>
</body></html>
"""
    path = out / REPORT_FILE
    path.write_text(page, encoding="utf-8")
    return path


def summary_text(result: dict[str, Any]) -> str:
    """What the command prints: the setting, the estimate and the verdict."""
    estimate, target = result["estimate"], result["target"]
    lines = ["recommended:"]
    lines += [f"  {key} = {_value(value)}" for key, value in result["recommended"].items()]
    verdict = ("in band" if result["in_band"] else
               "UNREACHABLE (closest setting shown)" if result["unreachable"]
               else "not shown in band")
    value = estimate["value"]
    lines.append(f"{target['metric']} = {value:.3f} [{estimate['low']:.3f}, "
                 f"{estimate['high']:.3f}] on {estimate['battles']} fresh battles: {verdict}"
                 f" (band {target['low']:g}..{target['high']:g}; SPRT "
                 f"{result['sprt']['verdict']})" if not math.isnan(value) else "no estimate")
    quiet = [key for key, effect in result["knobs"].items() if effect["no_effect"]]
    if quiet:
        lines.append(f"no measurable effect: {', '.join(quiet)}")
    lines.append(f"battles used: {result['battles_used']}")
    return "\n".join(lines)
