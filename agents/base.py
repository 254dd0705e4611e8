"""The agent protocol (DESIGN.md "Public API"): ``agent.act(battle)`` returns a legal action
for ``battle.decision.actor``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from rules import Action, Battle, Decision, engine


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(battle) -> rules.Action``, legal for the current decision."""

    def act(self, battle: Battle) -> Action: ...


class SeededAgent:
    """Base class for agents that draw random numbers: one ``numpy`` generator, seeded.

    Draw a small integer with :meth:`below` (or :meth:`choose`), not
    ``self.rng.integers(n)``: ``below`` keeps its own copy of the generator's 32-bit buffer
    (see there); ``self.rng``'s 64-bit draws (``random()``, ``integers(2**63)``,
    ``choice(..., p=...)``) mix with it freely."""

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng: np.random.Generator | None = None  # made at first use (see rng)
        self._halves_of: np.random.Generator | None = None  # whose 32-bit half is held
        self._half: int | None = None
        self._raw: Callable[[], int] | None = None  # its next 64-bit word (PCG64 only)

    @property
    def rng(self) -> np.random.Generator:
        """``numpy.random.default_rng(seed)``, made at first use: an agent that never
        draws (or hands its decisions to a native twin, which starts from the seed) never
        pays for seeding one (about 15 µs, a tenth of an env's reset)."""
        rng = self._rng
        if rng is None:
            rng = self._rng = np.random.default_rng(self.seed)
        return rng

    @rng.setter
    def rng(self, rng: np.random.Generator) -> None:
        self._rng = rng

    def act(self, battle: Battle) -> Action:  # pragma: no cover - abstract
        raise NotImplementedError

    #: the name of the native agent (rules/native/agents_*.cpp) that decides exactly as
    #: this class does, set by the classes that have one (never inherited: a subclass
    #: decides its own way)
    native_name: str | None = None

    def native_agent_name(self) -> str | None:
        """The native agent's registry name for this agent and its options (its agent spec:
        ``"tactician(step_back=true)"``), or None when its class has no native form."""
        return self.native_name if "native_name" in type(self).__dict__ else None

    def native_twin(self) -> Any | None:
        """A native agent (``rules._native.NativeAgent``) that decides from here on exactly
        as this one would, or None: when the class has no native form (``native_name``
        set on the class itself), the native engine is not built, or the generator has
        been drawn from already (the twin starts from the seed)."""
        name = self.native_agent_name()
        if name is None:
            return None
        if self.seed is None or self._halves_of is not None or not engine.native_available():
            return None
        if self._rng is not None and (self._rng.bit_generator.state
                                      != np.random.default_rng(self.seed).bit_generator.state):
            return None
        return engine.native_module().NativeAgent(name, self.seed)

    def choose(self, options: list[Action]) -> Action:
        """One of ``options``, uniformly at random."""
        return options[self.below(len(options))]

    def below(self, count: int) -> int:
        """``int(self.rng.integers(count))``: the same number from the same stream, without
        numpy's per-call overhead (about a third of the time).

        numpy (``random_bounded_uint64_fill``) draws a count up to 2**32 as Lemire's
        bounded integer over the bit generator's next 32-bit word, and PCG64 makes 32-bit
        words by halves of a 64-bit one, low half first, holding the high half for the next
        32-bit draw (its ``has_uint32`` buffer; 64-bit draws pass it by). This does the same
        in Python over ``random_raw()`` (the next 64-bit word), holding the high half here;
        it takes over the generator's held half when it first meets the generator.
        tests/agents/test_seeded.py checks it against ``Generator.integers``."""
        if self.rng is not self._halves_of:
            self._adopt(self.rng)
        raw = self._raw
        if raw is None or not 1 < count <= 2**32:
            # a range of one draws nothing; above 2**32 numpy draws 64-bit words; another
            # bit generator makes 32-bit words its own way
            return 0 if count == 1 else int(self.rng.integers(count))
        threshold = -1
        while True:
            word = self._half
            if word is None:
                word = raw()
                self._half = word >> 32
                word &= 0xFFFFFFFF
            else:
                self._half = None
            product = word * count
            low = product & 0xFFFFFFFF
            if low >= count:
                return product >> 32
            if threshold < 0:
                threshold = (2**32 - count) % count
            if low >= threshold:
                return product >> 32

    def _adopt(self, rng: np.random.Generator) -> None:
        """Take over ``rng``'s held 32-bit half (emptying its buffer), so that ``below``'s
        stream continues ``rng.integers``'s exactly."""
        bits = rng.bit_generator
        self._halves_of, self._half, self._raw = rng, None, None
        if type(bits) is not np.random.PCG64:
            return
        self._raw = bits.random_raw
        state = bits.state
        if state["has_uint32"]:
            self._half = int(state["uinteger"])
            state["has_uint32"], state["uinteger"] = 0, 0
            bits.state = state


def decision_of(battle: Battle) -> Decision:
    """The pending decision; raises if the battle has none (it is over)."""
    if battle.decision is None:
        raise ValueError("the battle is over: there is no decision to act on")
    return battle.decision


def legal_for(battle: Battle) -> list[Action]:
    """The legal actions now; raises if the battle has no pending decision."""
    decision_of(battle)
    return battle.legal_actions()
