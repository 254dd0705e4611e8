"""The battle's dice roller: one seeded ``numpy.random.Generator`` plus a test hook.

``force(*faces)`` queues die faces that the next rolls return instead of random ones, so
scripted tests can set up exact outcomes without relying on luck. A forced face must fit
the die it is used for, or the roll raises ``ValueError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rules.dice import Dice


class Roller:
    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.forced: list[int] = []

    def force(self, *faces: int) -> None:
        """Queue die faces for the next rolls (any die: d100, d6, d12, ...)."""
        self.forced.extend(int(f) for f in faces)

    def die(self, sides: int) -> int:
        if self.forced:
            face = self.forced.pop(0)
            if not 1 <= face <= sides:
                raise ValueError(f"forced face {face} does not fit a d{sides}")
            return face
        return int(self.rng.integers(1, sides + 1))

    def d100(self) -> int:
        return self.die(100)

    def roll(self, dice: Dice) -> tuple[int, tuple[int, ...]]:
        """Roll ``dice``: (total, faces in order)."""
        total = dice.constant
        faces: list[int] = []
        for sign, count, sides in dice.terms:
            for _ in range(count):
                face = self.die(sides)
                faces.append(face)
                total += sign * face
        return total, tuple(faces)

    def reseed(self, seed: int) -> None:
        """Replace the generator by a fresh one seeded with ``seed`` (forced faces stay).

        Search agents call this on a clone so they never see the real battle's future
        dice (determinized search)."""
        self.rng = np.random.default_rng(seed)

    def uniform(self) -> float:
        """A seeded draw in [0, 1) for tie-breaks (never forced)."""
        return float(self.rng.random())

    def state(self) -> dict[str, Any]:
        return {"bit_generator": self.rng.bit_generator.state, "forced": list(self.forced)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Roller:
        roller = cls(0)
        roller.rng.bit_generator.state = state["bit_generator"]
        roller.forced = list(state["forced"])
        return roller
