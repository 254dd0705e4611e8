"""The bounds on what a file or a caller may ask of fray (issue 46): one home for each.

Every number that comes from outside (a save, a replay, a scenario, a content folder, a
model file, an agent spec, a command line) is checked against these before either engine
sees it, with one line naming the file, the field, what was expected and what was found.
They are far above every real use (the shipped scenarios use a few percent of each) and
low enough that the native engine's 32-bit arithmetic cannot overflow with them and no
single battle or command can exhaust the machine's memory. docs/architecture.md
"Limits" lists them with their reasons.
"""

from __future__ import annotations

from typing import Any

#: A battle's rounds (``max_rounds`` of a scenario, ``round`` of a save).
MAX_ROUNDS = 10_000
#: A map's squares (width x height) and each side's length.
MAX_MAP_SIDE = 4_096
MAX_MAP_SQUARES = 4_000_000
#: Combatants in one battle.
MAX_UNITS = 1_024
#: A characteristic (STR, CON, ...), a skill percentage, hit or power points, a count of
#: items, armour points: every small integer of the content and of a combatant.
MAX_STAT = 10_000
#: A characteristic (STR, SIZ, ...): STR+SIZ sets the damage bonus, +1d6 each 16 past
#: 56 (H6), so this bounds those dice too (about 120 at the bound).
MAX_CHARACTERISTIC = 1_000
#: Dice in one term (the N of NdS), faces of one die, and the faces of a whole
#: expression (the sum of N x S over its terms: the largest total it can roll; ``fray
#: odds`` convolves them, in time growing with its square: about 2 s at this bound).
#: The shipped content's largest is 1d100.
MAX_DICE_COUNT = 100
MAX_DICE_SIDES = 500
MAX_DICE_OUTCOMES = 500
#: The flat part of a dice expression (the +K of NdS+K; a race's characteristic roll too).
MAX_DICE_CONSTANT = MAX_CHARACTERISTIC
#: Nesting of JSON/TOML data and of agent specs.
MAX_NESTING = 64
#: A number of the content that is not an integer (a weight, a factor): its magnitude.
MAX_CONTENT_NUMBER = float(MAX_STAT)
#: Search iterations of one decision (mcts; the docs' largest is 2,000) and its time
#: budget in seconds.
MAX_SEARCH_ITERATIONS = 1_000_000
MAX_SEARCH_SECONDS = 3_600.0
#: Battles stepped by one vector env (each holds its observation arrays: a 40x40 map's
#: are about 100 KB; training uses 8 to 64).
MAX_NUM_ENVS = 4_096
#: A seed: numpy's SeedSequence takes any non-negative int; fray's files keep it in 63 bits.
MAX_SEED = 2**63 - 1
#: Units of one network layer a model file may describe (``net_arch``, the extractor's
#: channels), and the numbers of one observation or action space (the shipped models':
#: 256 and about 12,000).
MAX_NETWORK_WIDTH = 4_096
MAX_SPACE_SIZE = 1_000_000

#: Values of one ``fray balance --knob`` (a range or a choice list).
MAX_KNOB_VALUES = 10_000
#: Battles of one ``fray balance`` or ``fray knobs`` run (``--budget``, ``--battles``).
MAX_BALANCE_BATTLES = 100_000_000

def nesting_depth(value: Any, limit: int = MAX_NESTING) -> int:
    """How deeply lists and dicts nest in ``value`` (a scalar: 0), counted without
    recursion and stopping once past ``limit`` (so a hostile value costs little)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list | tuple):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return deepest


def within(value: Any, maximum: float, minimum: float | None = None) -> bool:
    """Whether ``value`` is an int (not a bool) from ``minimum`` (default ``-maximum``)
    to ``maximum``."""
    low = -maximum if minimum is None else minimum
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= maximum
