"""Rule sweeps: the same tournament under variants of ``ruleset.toml``.

``--set burden.heavy.skill_factor=0.1,0.2,0.5`` names a value of ``ruleset.toml`` by its
dotted path and the values to try; several ``--set`` make a grid (every combination). Each
variant is a content folder ``OUT/variant-NN/content/``: a copy of the base content
(``--content-dir`` or the shipped ``rules/data``) whose ``ruleset.toml`` is rewritten from
the parsed TOML with the changed values (checked by loading it). Every variant replays the
same tournament seeds (common random numbers), so differences between variants come from
the rules, not the dice draw. :func:`sweep_rows` reports per variant and subject (each
agent, and the scenario's first team) the win rate with its Wilson interval and a
two-proportion test against the first variant, and the mean rounds with a t interval.
"""

from __future__ import annotations

import difflib
import itertools
import json
import math
import re
import shutil
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rules
from experiments.comparison.stats import mean_interval, two_proportion_test, wilson_interval
from experiments.comparison.summary import seats
from experiments.replay import DATA_DIR

RULESET = "ruleset.toml"


class SweepError(rules.FrayError):
    """A bad ``--set`` or a variant whose content does not load."""


@dataclass(frozen=True)
class Setting:
    """One swept key of ``ruleset.toml`` and the values to try."""

    key: str
    values: tuple[Any, ...]


# ---------------------------------------------------------------- keys and values


def leaves(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every dotted key of a parsed TOML table that holds a value (not a table)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out.update(leaves(value, path))
        else:
            out[path] = value
    return out


def _convert(text: str, original: Any, key: str) -> Any:
    """``text`` as a value of the type of ``original`` (an int is fine for a float)."""
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = text  # a bare word: a string value such as con_siz_half
    if isinstance(original, bool) or isinstance(value, bool):
        ok = isinstance(original, bool) and isinstance(value, bool)
    elif isinstance(original, float):
        ok = isinstance(value, int | float)
        value = float(value) if ok else value
    else:
        ok = type(value) is type(original)
    if not ok:
        raise SweepError(f"--set {key}: expected a {type(original).__name__} value (like "
                         f"{original!r}), got {text!r}")
    return value


def parse_setting(text: str, ruleset: dict[str, Any]) -> Setting:
    """``KEY=V1,V2,...`` checked against the parsed ``ruleset.toml``."""
    key, sep, values = text.partition("=")
    key = key.strip()
    if not sep or not key or not values.strip():
        raise SweepError(f"--set {text!r}: expected KEY=V1,V2,... (e.g. "
                         f"burden.heavy.skill_factor=0.1,0.2)")
    known = leaves(ruleset)
    if key not in known:
        tables = sorted(k for k in known if k.startswith(key + "."))
        if tables:
            raise SweepError(f"--set {key}: is a table of {RULESET}; set one of its keys: "
                             f"{', '.join(tables[:6])}")
        close = difflib.get_close_matches(key, list(known), n=5, cutoff=0.6)
        hint = (f"close keys: {', '.join(close)}" if close else
                f"its tables: {', '.join(sorted(ruleset))}")
        raise SweepError(f"--set {key}: no such key in {RULESET}; {hint}")
    original = known[key]
    if isinstance(original, list | dict):
        raise SweepError(f"--set {key}: expected a key holding one value, found a "
                         f"{type(original).__name__} ({str(original)[:40]})")
    parsed = tuple(_convert(v.strip(), original, key) for v in values.split(","))
    if len(set(parsed)) != len(parsed):
        raise SweepError(f"--set {key}: expected distinct values, got {values!r}")
    return Setting(key, parsed)


def variants(settings: Sequence[Setting]) -> list[dict[str, Any]]:
    """Every combination of the settings' values (the first setting varies slowest)."""
    keys = [s.key for s in settings]
    if len(set(keys)) != len(keys):
        raise SweepError(f"--set: expected each key once, got {', '.join(keys)}")
    return [dict(zip(keys, combo, strict=True))
            for combo in itertools.product(*(s.values for s in settings))]


def variant_label(changes: dict[str, Any]) -> str:
    """``burden.heavy.skill_factor=0.2 misc.torch_radius=3``."""
    return " ".join(f"{key}={value}" for key, value in changes.items())


# ---------------------------------------------------------------- TOML writing


def _toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes, plus DEL, which TOML wants escaped)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_string(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") \
            if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}"
                                for k, v in value.items()) + " }"
    raise SweepError(f"cannot write a {type(value).__name__} value as TOML: {value!r}")


def toml_text(data: dict[str, Any], header: str = "") -> str:
    """TOML text of a parsed table (values first, then sub-tables); it parses back
    to ``data``."""
    lines = [f"# {line}" for line in header.splitlines()]

    def table(node: dict[str, Any], path: list[str]) -> None:
        values = [(k, v) for k, v in node.items() if not isinstance(v, dict)]
        subs = [(k, v) for k, v in node.items() if isinstance(v, dict)]
        if path and (values or not subs):
            lines.append(f"\n[{'.'.join(_toml_key(p) for p in path)}]")
        lines.extend(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in values)
        for key, sub in subs:
            table(sub, [*path, key])

    table(data, [])
    text = "\n".join(lines) + "\n"
    if tomllib.loads(text) != data:
        raise SweepError("internal: the TOML writer did not round-trip the ruleset")
    return text


def set_value(data: dict[str, Any], key: str, value: Any) -> None:
    *tables, last = key.split(".")
    node = data
    for name in tables:
        node = node[name]
    node[last] = value


def read_ruleset(base: Path) -> dict[str, Any]:
    """The parsed ``ruleset.toml`` of a content folder."""
    path = base / RULESET
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SweepError(f"{path}: expected the ruleset of the content folder, found "
                         f"no file") from None
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{path}: expected valid TOML, got {exc}") from None


def write_variant(base: Path, folder: Path, changes: dict[str, Any]) -> Path:
    """A content folder: ``base``'s TOML files with ``changes`` made to ruleset.toml."""
    return write_content_variant(base, folder, {RULESET: changes})


def write_content_variant(base: Path, folder: Path,
                          changes_by_file: dict[str, dict[str, Any]],
                          tool: str = "fray sweep", check: bool = True) -> Path:
    """A content folder: ``base``'s TOML files, each file named in ``changes_by_file``
    (``ruleset.toml``, ``creatures.toml``...) rewritten with its dotted keys set to the
    given values; checked by loading it unless ``check`` is False (a SweepError naming the
    change otherwise)."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(base.glob("*.toml")):
        if path.name not in changes_by_file:
            shutil.copyfile(path, folder / path.name)
    label = " ".join(variant_label(changes) for changes in changes_by_file.values())
    for name, changes in changes_by_file.items():
        data = read_ruleset(base) if name == RULESET else _read_toml(base / name)
        for key, value in changes.items():
            set_value(data, key, value)
        text = toml_text(data, f"generated by {tool} from {base / name}\nchanged: "
                               f"{variant_label(changes)}")
        target = folder / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    try:
        if check:
            rules.load_content(folder)
    except rules.ContentError as exc:
        raise SweepError(f"variant {label}: {exc}") from None
    return folder


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SweepError(f"{path}: expected a content file, found none") from None
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{path}: expected valid TOML, got {exc}") from None


def base_folder(content_dir: str | None) -> Path:
    """The content folder variants start from."""
    return Path(content_dir) if content_dir else DATA_DIR


# ---------------------------------------------------------------- report


def sweep_rows(labels: Sequence[str], changes: Sequence[dict[str, Any]],
               records_by_variant: Sequence[list[dict[str, Any]]],
               agents: Sequence[str]) -> list[dict[str, Any]]:
    """One row per variant and subject (each agent, then ``team:FIRST``)."""
    rows: list[dict[str, Any]] = []
    first_counts: dict[str, tuple[int, int]] = {}
    for label, change, records in zip(labels, changes, records_by_variant, strict=True):
        mean, (low, high) = mean_interval([r["rounds"] for r in records])
        tallies: dict[str, list[float]] = {agent: [] for agent in agents}
        for record in records:
            played = seats(record)
            for agent, _, score in played:
                tallies[agent].append(score)
            tallies.setdefault(f"team:{played[0][1]}", []).append(played[0][2])
        for subject, scores in tallies.items():
            wins = sum(1 for s in scores if s == 1.0)
            draws = sum(1 for s in scores if s == 0.5)
            n = len(scores)
            win_low, win_high = wilson_interval(wins, n)
            base_wins, base_n = first_counts.setdefault(subject, (wins, n))
            rows.append({"variant": label, **change, "subject": subject, "battles": n,
                         "wins": wins, "draws": draws, "losses": n - wins - draws,
                         "win_rate": wins / n if n else math.nan, "win_low": win_low,
                         "win_high": win_high,
                         "p_vs_first": two_proportion_test(wins, n, base_wins, base_n),
                         "mean_rounds": mean, "rounds_low": low, "rounds_high": high})
    return rows


def sweep_table(rows: Sequence[dict[str, Any]]) -> str:
    """The printed sweep table."""
    from experiments.comparison.summary import percent

    width = max(len("variant"), *(len(r["variant"]) for r in rows))
    subject_width = max(len("subject"), *(len(r["subject"]) for r in rows))
    head = (f"{'variant':<{width}}  {'subject':<{subject_width}}  {'battles':>7}  "
            f"{'win [95% CI]':<14} {'p vs first':>10}  {'rounds [95% CI]':<18}")
    lines = [head, "-" * len(head)]
    for r in rows:
        rounds = f"{r['mean_rounds']:5.1f} [{r['rounds_low']:.1f}-{r['rounds_high']:.1f}]"
        win = percent(r["win_rate"], r["win_low"], r["win_high"])
        lines.append(f"{r['variant']:<{width}}  {r['subject']:<{subject_width}}  "
                     f"{r['battles']:>7}  {win:<14} {r['p_vs_first']:>10.3f}  {rounds:<18}")
    lines.append("win: Wilson 95% interval; p vs first: two-proportion z-test against the "
                 "first variant (same seeds); rounds: mean with t 95% interval")
    return "\n".join(lines)
