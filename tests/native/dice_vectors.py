"""Writes numpy's dice draws as text for tests/native/dice_check.cpp (the sanitizer run,
tests/native/sanitized.sh): the C++ dice stream replays them under AddressSanitizer and
UndefinedBehaviorSanitizer and must draw the same numbers.

Lines: ``seed N WORD...`` (SeedSequence entropy words), ``state S_HI S_LO I_HI I_LO H U``
(the state numpy has now; also loaded into a second stream), ``int LOW HIGH VALUE``,
``random HEX`` (the double as float.hex). Usage: python tests/native/dice_vectors.py [N].
"""

from __future__ import annotations

import sys

import numpy as np

SIDES = [1, 2, 3, 4, 6, 8, 10, 12, 20, 100]
WIDE = [(0, 2**31 + 7), (0, 2**32 - 1), (0, 2**32), (-5, 2**32 + 9), (0, 2**40 + 3),
        (-(2**63), 2**63 - 1), (7, 8)]
MASK64 = 2**64 - 1


def words(seed: int) -> list[int]:
    out = [seed & 0xFFFFFFFF]
    seed >>= 32
    while seed:
        out.append(seed & 0xFFFFFFFF)
        seed >>= 32
    return out


def state_line(rng: np.random.Generator) -> str:
    state = rng.bit_generator.state
    value, inc = state["state"]["state"], state["state"]["inc"]
    return (f"state {value >> 64} {value & MASK64} {inc >> 64} {inc & MASK64} "
            f"{state['has_uint32']} {state['uinteger']}")


def main(draws: int) -> None:
    plan = np.random.default_rng(0)
    lines = []
    for seed in [0, 7, 2**32, 2**64 + 5, 3**90]:
        rng = np.random.default_rng(seed)
        lines += [f"seed {len(words(seed))} " + " ".join(map(str, words(seed))), state_line(rng)]
        for step in range(draws):
            choice = plan.random()
            if choice < 0.7:
                side = SIDES[int(plan.integers(0, len(SIDES)))]
                lines.append(f"int 1 {side + 1} {int(rng.integers(1, side + 1))}")
            elif choice < 0.85:
                low, high = WIDE[int(plan.integers(0, len(WIDE)))]
                lines.append(f"int {low} {high} {int(rng.integers(low, high))}")
            else:
                lines.append(f"random {float(rng.random()).hex()}")
            if step % 997 == 0:
                lines.append(state_line(rng))
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
