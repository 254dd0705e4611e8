"""Dice expressions and d100 success levels (S4, H2).

Every roll takes the battle's own ``numpy.random.Generator``: this module never touches a
global random state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from rules.limits import MAX_DICE_CONSTANT, MAX_DICE_COUNT, MAX_DICE_OUTCOMES, MAX_DICE_SIDES

if TYPE_CHECKING:
    from rules.content.schema import SuccessRules

#: what a dice expression may be, in words (rules/limits.py)
BOUNDED = (f"dice like '1d8+1' with at most {MAX_DICE_COUNT} dice of at most "
           f"{MAX_DICE_SIDES} sides a term, {MAX_DICE_OUTCOMES} faces in all and a constant "
           f"from -{MAX_DICE_CONSTANT} to {MAX_DICE_CONSTANT}")


class DiceBoundsError(ValueError):
    """A well-formed dice expression past the bounds of rules/limits.py."""


_TERM = re.compile(r"([+-]?)(?:(\d*)d(\d+)|(\d+))")


@dataclass(frozen=True)
class Dice:
    """A sum of dice terms and a constant, e.g. ``1d8+1``, ``2d6``, ``-1d4``, ``0``.

    ``terms`` holds ``(sign, count, sides)``; ``constant`` the flat part.
    """

    terms: tuple[tuple[int, int, int], ...] = ()
    constant: int = 0

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Parse a dice expression; raise ``ValueError`` naming what was wrong."""
        if not isinstance(text, str):
            raise ValueError(f"expected dice like '1d8+1', got {text!r}")
        compact = text.strip()
        if compact == "":
            return cls()
        if " " in compact:
            raise ValueError(f"expected dice like '1d8+1', got {text!r}")
        pos = 0
        terms: list[tuple[int, int, int]] = []
        constant = 0
        while pos < len(compact):
            m = _TERM.match(compact, pos)
            if m is None or m.end() == pos or (pos > 0 and m.group(1) == ""):
                raise ValueError(f"expected dice like '1d8+1', got {text!r}")
            sign = -1 if m.group(1) == "-" else 1
            if m.group(3) is not None:
                count = int(m.group(2)) if m.group(2) else 1
                sides = int(m.group(3))
                if count < 1 or sides < 1:
                    raise ValueError(f"expected dice like '1d8+1', got {text!r}")
                terms.append((sign, count, sides))
            else:
                constant += sign * int(m.group(4))
            pos = m.end()
        faces = sum(count * sides for _, count, sides in terms)
        if (any(count > MAX_DICE_COUNT or sides > MAX_DICE_SIDES for _, count, sides in terms)
                or faces > MAX_DICE_OUTCOMES or abs(constant) > MAX_DICE_CONSTANT):
            raise DiceBoundsError(f"expected {BOUNDED}, got {text!r}")
        return cls(tuple(terms), constant)

    def roll(self, rng: np.random.Generator) -> int:
        """Roll every die with ``rng`` and add the constant."""
        total = self.constant
        for sign, count, sides in self.terms:
            total += sign * int(rng.integers(1, sides + 1, size=count).sum())
        return total

    def rolls(self, rng: np.random.Generator) -> tuple[int, tuple[int, ...]]:
        """Roll and also return each die's face, in order (for event records)."""
        faces: list[int] = []
        total = self.constant
        for sign, count, sides in self.terms:
            got = [int(v) for v in rng.integers(1, sides + 1, size=count)]
            faces.extend(got)
            total += sign * sum(got)
        return total, tuple(faces)

    @property
    def maximum(self) -> int:
        """Largest possible total."""
        return self.constant + sum(
            (count * sides if sign > 0 else -count) for sign, count, sides in self.terms
        )

    @property
    def minimum(self) -> int:
        """Smallest possible total."""
        return self.constant + sum(
            (count if sign > 0 else -count * sides) for sign, count, sides in self.terms
        )

    def __str__(self) -> str:
        parts = []
        for sign, count, sides in self.terms:
            parts.append(f"{'-' if sign < 0 else '+'}{count}d{sides}")
        if self.constant or not parts:
            parts.append(f"{self.constant:+d}")
        text = "".join(parts)
        return text[1:] if text.startswith("+") else text


def d100(rng: np.random.Generator) -> int:
    """One percentile roll, 1..100 (00 reads as 100)."""
    return int(rng.integers(1, 101))


class SuccessLevel(IntEnum):
    """H2 success levels, ordered worst to best."""

    FUMBLE = 0
    FAILURE = 1
    SUCCESS = 2
    SPECIAL = 3
    CRITICAL = 4

    @property
    def succeeded(self) -> bool:
        return self >= SuccessLevel.SUCCESS


def _round_half_up(num: int, den: int) -> int:
    """``num / den`` rounded half up, exactly, for integers (den > 0)."""
    return (2 * num + den) // (2 * den)


#: The shipped ruleset's H2 numbers, asked for when a caller gives none: rules.content
#: sets it when imported (as ``import rules`` does), so this module imports no content.
shipped_success_rules: Callable[[], SuccessRules] | None = None


def _default_success_rules() -> SuccessRules:
    if shipped_success_rules is None:
        raise RuntimeError("the shipped success rules are unknown until rules.content is "
                           "imported (import rules)")
    return shipped_success_rules()


def success_level(
    roll: int,
    skill: int,
    rules: SuccessRules | None = None,
    extra_fumble: int = 0,
) -> SuccessLevel:
    """H2: the success level of a d100 ``roll`` (1..100) against ``skill``.

    ``extra_fumble`` widens the fumble range by that many numbers (the magic-fumble
    percentage of armour burden, S20/H18). A widened fumble range overrides a plain
    success but never a special, a critical or an automatic success (01-05).
    """
    if not 1 <= roll <= 100:
        raise ValueError(f"a d100 roll is 1..100, got {roll}")
    r = rules if rules is not None else _default_success_rules()
    critical = max(1, _round_half_up(skill, r.critical_divisor))
    special = max(1, _round_half_up(skill, r.special_divisor))
    success = max(min(skill, r.success_cap), r.auto_success_max)
    fumble_count = max(1, _round_half_up(100 - skill, r.fumble_divisor)) + extra_fumble
    fumble = roll > 100 - fumble_count and roll > r.auto_success_max
    if roll >= r.auto_fail_min:
        return SuccessLevel.FUMBLE if fumble else SuccessLevel.FAILURE
    if roll <= critical:
        return SuccessLevel.CRITICAL
    if roll <= special:
        return SuccessLevel.SPECIAL
    if fumble:
        return SuccessLevel.FUMBLE
    if roll <= success:
        return SuccessLevel.SUCCESS
    return SuccessLevel.FAILURE


def level_probabilities(
    skill: int, rules: SuccessRules | None = None, extra_fumble: int = 0
) -> dict[SuccessLevel, Fraction]:
    """Exact probability of each success level for ``skill`` (H2), as Fractions."""
    counts = dict.fromkeys(SuccessLevel, 0)
    for roll in range(1, 101):
        counts[success_level(roll, skill, rules, extra_fumble)] += 1
    return {level: Fraction(n, 100) for level, n in counts.items()}


def resistance_chance(active: int, passive: int, base: int = 50, step: int = 5) -> int:
    """H8: active vs passive resistance chance in percent (a d100 roll-under)."""
    return base + step * (active - passive)
