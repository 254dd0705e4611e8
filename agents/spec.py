"""Agent specs: a registered name with keyword arguments, written ``name(key=value,...)``.

``berserker``, ``mcts(iterations=20)``, ``mcts(iterations=20,rollout=berserker)``,
``tactician(step_back=true)``. Values are numbers, booleans (``true``/``false``) or text.
:func:`agents.make` accepts a spec anywhere it accepts a name, so the ladder, tournaments,
``fray train --opponent/--advice/--imitate`` and the envs' opponents all read the same
syntax. In a comma list the commas inside parentheses stay with their agent
(:func:`split_specs`).
"""

from __future__ import annotations

import re
from typing import Any

_SPEC = re.compile(r"^([A-Za-z0-9_:./-]+)(?:\((.*)\))?$")


def parse_spec(text: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """``"mcts(iterations=20)"`` -> ``("mcts", (("iterations", 20),))``.

    Raises ValueError naming the spec and what was expected."""
    match = _SPEC.match(text.strip())
    if not match:
        raise ValueError(f"agent {text!r}: expected NAME or NAME(key=value,...)")
    name, inner = match.group(1), match.group(2)
    kwargs: list[tuple[str, Any]] = []
    for part in filter(None, re.split(r"[;,]", inner or "")):
        key, sep, value = part.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"agent {text!r}: expected key=value inside (), got {part!r}")
        kwargs.append((key.strip(), scalar(value.strip())))
    return name, tuple(kwargs)


def scalar(text: str) -> Any:
    """``20`` -> 20, ``0.5`` -> 0.5, ``true`` -> True, anything else stays text."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            continue
    return text


def split_specs(text: str) -> list[str]:
    """Split ``a,b(x=1,y=2),c`` on the commas outside parentheses; no empty items."""
    items, depth, current = [], 0, ""
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += char
    items.append(current.strip())
    return [item for item in items if item]
