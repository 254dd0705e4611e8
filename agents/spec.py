"""Agent specs: a registered name with keyword arguments, written ``name(key=value,...)``.

``berserker``, ``mcts(iterations=20)``, ``mcts(iterations=20,rollout=berserker)``,
``tactician(step_back=true)``. Values are numbers, booleans (``true``/``false``) or text.
:func:`agents.make` accepts a spec anywhere it accepts a name, so the ladder, tournaments,
``fray train --opponent/--advice/--imitate`` and the envs' opponents all read the same
syntax. In a comma list the commas inside parentheses stay with their agent
(:func:`split_specs`).

Each agent class declares the options it takes in a table, ``OPTIONS``, a tuple of
:class:`Option` (type, range, whether ``none`` is allowed, one line on what it does);
:func:`check_options` reads it, so a bad option is refused with one line naming the
option, what was expected and the options the agent takes::

    agent 'mcts(iterations=2.5)': iterations expects an integer >= 1, got 2.5; mcts
    options: confidence, exploration, ...
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.limits import MAX_NESTING

_SPEC = re.compile(r"^([A-Za-z0-9_:./-]+)(?:\((.*)\))?$")
#: the value kinds an option can have, as the error message words them
KINDS = {int: "an integer", float: "a number", bool: "true or false", "agent": "an agent spec"}


@dataclass(frozen=True)
class Option:
    """One option an agent takes: its name, kind (``int``, ``float``, ``bool`` or
    ``"agent"``: an agent spec), an inclusive ``minimum``/``maximum`` or an exclusive
    ``above``, whether ``none`` (Python ``None``) is allowed, and what it does. A
    ``name`` of ``"*"`` stands for any other name (``per_unit``'s unit ids)."""

    name: str
    kind: type | str
    about: str
    minimum: float | None = None
    maximum: float | None = None
    above: float | None = None
    none: bool = False

    def expected(self) -> str:
        """What a value must be, in words: ``an integer >= 1``."""
        words = [KINDS[self.kind]]
        if self.minimum is not None and self.maximum is not None:
            words = [f"{words[0]} from {_number(self.minimum)} to {_number(self.maximum)}"]
        elif self.minimum is not None:
            words.append(f">= {_number(self.minimum)}")
        if self.above is not None:
            words.append(f"> {_number(self.above)}")
        if self.maximum is not None and self.minimum is None:
            words.append(f"{'and ' if self.above is not None else ''}<= "
                         f"{_number(self.maximum)}")
        return " ".join(words) + (" or none" if self.none else "")

    def convert(self, value: Any, key: str | None = None) -> Any:
        """``value`` as this option's kind; ValueError naming ``key`` (default: this
        option's name) and what was expected if it is not."""
        if self.none and (value is None or (isinstance(value, str)
                                            and value.strip().lower() == "none")):
            return None
        if self.kind is bool:
            ok = isinstance(value, bool)
        elif self.kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif self.kind is float:
            ok = (isinstance(value, int | float) and not isinstance(value, bool)
                  and math.isfinite(value))
        else:
            ok = isinstance(value, str) and _known_agent(value)
        ok = ok and (self.minimum is None or value >= self.minimum)
        ok = ok and (self.maximum is None or value <= self.maximum)
        ok = ok and (self.above is None or value > self.above)
        if not ok:
            hint = ""
            if self.kind == "agent":
                from agents.registry import names

                hint = f" (registered: {', '.join(names())})"
            raise ValueError(f"{key or self.name} expects {self.expected()}{hint}, "
                             f"got {value!r}")
        return float(value) if self.kind is float else value


def _number(value: float) -> str:
    """A bound in words: ``10000000``, ``0.5``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _known_agent(text: str) -> bool:
    """Whether ``text`` names a registered agent (its options are checked when it is made)."""
    from agents.registry import names

    name = text.partition("(")[0].strip()
    return name in names() or name.partition(":")[0] in names()


def spec_label(name: str, options: Iterable[tuple[str, Any]]) -> str:
    """A name and its options written as a spec: ``mcts(iterations=20)``."""
    options = list(options)
    if not options:
        return name
    return f"{name}({','.join(f'{key}={value}' for key, value in options)})"


def check_options(name: str, table: Sequence[Option], given: Mapping[str, Any],
                  spec: str | None = None) -> dict[str, Any]:
    """``given`` checked against an agent's option table and converted to each option's
    kind. Raises ValueError, one line: the spec, the option, what was expected and the
    options ``name`` takes."""
    rows = {option.name: option for option in table}
    out: dict[str, Any] = {}
    for key, value in given.items():
        option = rows.get(key, rows.get("*"))
        try:
            if option is None:
                raise ValueError(f"no option {key!r}")
            out[key] = option.convert(value, key)
        except ValueError as exc:
            raise ValueError(f"agent {spec or spec_label(name, given.items())!r}: {exc}; "
                             f"{describe_options(name, table)}") from None
    return out


def describe_options(name: str, table: Sequence[Option]) -> str:
    """``mcts options: confidence, exploration, ...`` (``random takes no options``)."""
    if not table:
        return f"{name} takes no options"
    return f"{name} options: " + ", ".join(
        "UNIT=agent" if option.name == "*" else option.name
        for option in sorted(table, key=lambda option: (option.name == "*", option.name)))


OptionTable = Sequence[Option]
TableSource = OptionTable | Callable[[], OptionTable] | None


def parse_spec(text: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """``"mcts(iterations=20)"`` -> ``("mcts", (("iterations", 20),))``.

    Raises ValueError naming the spec and what was expected (specs nest at most
    ``rules.limits.MAX_NESTING`` deep)."""
    if not isinstance(text, str):
        raise ValueError(f"agent {text!r}: expected an agent spec, NAME or NAME(key=value,...)")
    if _depth(text) > MAX_NESTING:
        raise ValueError(f"agent {text[:40]!r}...: expected specs nested at most "
                         f"{MAX_NESTING} deep, got {_depth(text)}")
    if text.count("(") != text.count(")"):
        raise ValueError(f"agent {text!r}: unbalanced parentheses; expected NAME or "
                         "NAME(key=value,...)")
    match = _SPEC.match(text.strip())
    if not match:
        raise ValueError(f"agent {text!r}: expected NAME or NAME(key=value,...)")
    name, inner = match.group(1), match.group(2)
    kwargs: list[tuple[str, Any]] = []
    for part in split_specs((inner or "").replace(";", ",")):
        key, sep, value = part.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"agent {text!r}: expected key=value inside (), got {part!r}")
        if key.strip() in dict(kwargs):
            raise ValueError(f"agent {text!r}: option {key.strip()} is given twice")
        kwargs.append((key.strip(), scalar(value.strip())))
    return name, tuple(kwargs)


def _depth(text: str) -> int:
    """How deeply parentheses nest in ``text``."""
    depth = deepest = 0
    for char in text:
        if char in "()":
            depth += 1 if char == "(" else -1
            deepest = max(deepest, depth)
    return deepest


#: registered agents a file may not name: they load files (``learned:PATH``)
LOADS_FILES = ("learned",)


def _shipped_model(name: str) -> bool:
    """Whether ``name`` is ``learned:NAME`` of a model shipped with fray (agents/models)."""
    prefix, _, argument = name.partition(":")
    if prefix != "learned" or not argument:
        return False
    from agents.shipped import shipped_models

    return argument in shipped_models()


def check_file_spec(text: Any) -> None:
    """Raise ValueError unless ``text`` is an agent spec that a file (a model's
    ``options`` or ``advisor``) may name: a registered agent that loads no file (or a
    model shipped with fray, ``learned:duel``), with no ``trust_pickle`` and only such
    agents in its options, at any depth. What a file names is made with no trust: only the
    user's own command line or call grants it."""
    from agents.registry import names

    stack = [text]
    while stack:
        spec = stack.pop()
        name, options = parse_spec(spec)
        prefix = name.partition(":")[0]
        if (":" in name or prefix in LOADS_FILES) and not _shipped_model(name):
            raise ValueError(f"expected an agent spec that loads no file (a file may name "
                             f"only the shipped {', '.join(f'{n}:NAME' for n in LOADS_FILES)}"
                             f"), got {text!r}")
        if ":" not in name and name not in names():
            raise ValueError(f"expected a registered agent ({', '.join(names())}), "
                             f"got {text!r}")
        for key, value in options:
            if key == "trust_pickle":
                raise ValueError(f"expected no trust_pickle (trust comes only from the user), "
                                 f"got {text!r}")
            if isinstance(value, str) and value.strip().lower() != "none":
                stack.append(value)  # an agent option (every text option is one)


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
