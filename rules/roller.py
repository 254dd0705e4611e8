"""The battle's dice roller: one seeded ``numpy.random.Generator`` plus a test hook.

Forcing dice lets scripted tests set up exact outcomes without relying on luck: queued
faces are what the next rolls return (any die, in the order the engine rolls them)
instead of random ones. Forcing is scoped, so a face a test forced but the engine never
rolled is an error instead of being silently consumed by some later roll:

- ``with battle.dice.forcing(10, 3, 2): battle.apply(...)`` queues the faces for the
  block; when the block ends, any face left unused raises :class:`ForcedDiceError`
  (and is dropped, so nothing leaks into later rolls).
- ``Battle(..., force=faces)`` / ``from_scenario(..., force=...)`` /
  ``from_toml(..., force=...)`` force the rolls made before the first decision
  (initiative, rolled characteristics); faces left once the battle is built raise
  :class:`ForcedDiceError`.
- ``battle.dice.force(*faces)`` is the unscoped queue underneath, kept for the existing
  scripted tests, which check ``battle.dice.forced == []`` themselves; new tests use
  ``forcing``.

A forced face must fit the die it is used for (a 7 cannot be a d6), or the roll raises
:class:`ForcedDiceError`.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from rules.dice import Dice
from rules.errors import ForcedDiceError

#: Seeds the throw-away initial state of a generator whose real state is set next.
_PLACEHOLDER_SEEDS = np.random.SeedSequence(0)


class Roller:
    """One seeded generator per battle, and the queue of forced faces.

    A copy (:meth:`copy`, what ``Battle.clone`` uses) keeps only the generator's state
    and builds its own generator on the first roll: building one costs more than the
    rest of a clone, and a search that re-seeds its clone never needs it."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng: np.random.Generator | None = np.random.default_rng(seed)
        self._pending: dict[str, Any] | None = None  # the state of a generator not built
        self.forced: list[int] = []

    @property
    def rng(self) -> np.random.Generator:
        """The numpy generator (built on first use in a copy)."""
        rng = self._rng
        if rng is None:
            rng = np.random.Generator(np.random.PCG64(_PLACEHOLDER_SEEDS))
            rng.bit_generator.state = self._pending
            self._rng, self._pending = rng, None
        return rng

    @rng.setter
    def rng(self, rng: np.random.Generator) -> None:
        self._rng, self._pending = rng, None

    def force(self, *faces: int) -> None:
        """Queue die faces for the next rolls (any die: d100, d6, d12, ...); unscoped."""
        for face in faces:
            if isinstance(face, bool) or not isinstance(face, numbers.Integral):
                raise ForcedDiceError(f"a forced face is an integer, got {face!r}")
        self.forced.extend(int(f) for f in faces)

    @contextmanager
    def forcing(self, *faces: int) -> Iterator[None]:
        """Force the next rolls inside a ``with`` block; faces still unused when it ends
        raise ForcedDiceError."""
        self.force(*faces)
        try:
            yield
        except BaseException:
            self.forced.clear()
            raise
        self.expect_used("the `with dice.forcing(...)` block")

    def expect_used(self, scope: str) -> None:
        """Raise ForcedDiceError (dropping them) if forced faces are left at the end of
        ``scope``."""
        if self.forced:
            left, self.forced = self.forced, []
            raise ForcedDiceError(
                f"{len(left)} forced die face(s) left unused at the end of {scope}: {left}")

    def die(self, sides: int) -> int:
        """One die with ``sides`` faces: the next forced face, else a random one."""
        if self.forced:
            face = self.forced.pop(0)
            if not 1 <= face <= sides:
                raise ForcedDiceError(f"forced face {face} does not fit a d{sides}")
            return face
        return int(self.rng.integers(1, sides + 1))

    def d100(self) -> int:
        """One percentile roll, 1..100."""
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

    def _generator_state(self) -> dict[str, Any]:
        """A fresh dict of the generator's state (the numpy ``bit_generator.state``)."""
        if self._rng is not None:
            return self._rng.bit_generator.state
        pending = dict(self._pending or {})
        if isinstance(pending.get("state"), dict):
            pending["state"] = dict(pending["state"])
        return pending

    def state(self) -> dict[str, Any]:
        """The generator's state and the forced queue, JSON-able."""
        return {"bit_generator": self._generator_state(), "forced": list(self.forced)}

    def copy(self) -> Roller:
        """An independent roller that rolls exactly what this one would next."""
        new = Roller.__new__(Roller)
        new._rng = None
        # a live generator's state is a fresh dict; a pending one is never mutated
        new._pending = self._pending if self._rng is None else self._rng.bit_generator.state
        new.forced = list(self.forced)
        return new

    def set_state(self, state: dict[str, Any]) -> None:
        """Become, in place, the roller whose ``state()`` this was (the generator is
        built on the next roll)."""
        self._rng, self._pending = None, state["bit_generator"]
        self.forced = list(state["forced"])

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Roller:
        """The roller whose ``state()`` this was."""
        roller = cls.__new__(cls)
        roller.set_state(state)
        roller.rng  # noqa: B018  # built now, so a malformed state fails here
        return roller
