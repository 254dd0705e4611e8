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
#: Dice in one expression (the N of NdS) and faces of one die.
MAX_DICE_COUNT = 1_000
MAX_DICE_SIDES = 10_000
#: Nesting of JSON/TOML data and of agent specs.
MAX_NESTING = 64
#: Search iterations of one decision (mcts, az).
MAX_SEARCH_ITERATIONS = 10_000_000
#: Battles stepped by one vector env.
MAX_NUM_ENVS = 65_536
#: A seed: numpy's SeedSequence takes any non-negative int; fray's files keep it in 63 bits.
MAX_SEED = 2**63 - 1
#: Values of one ``fray balance --knob`` (a range or a choice list).
MAX_KNOB_VALUES = 10_000
#: Battles of one ``fray balance`` or ``fray knobs`` run (``--budget``, ``--battles``).
MAX_BALANCE_BATTLES = 100_000_000
