"""The rules' run-time invariants: the one place the fuzzer, the Hypothesis stateful test
and the simulation tests take them from (re-exported by :mod:`experiments.fuzzing.fuzz`).

- :func:`check_state` after every applied action: the round budget (S2), nobody in a
  wall (H13), one body per square except a rider on its mount (:func:`check_bodies`,
  H13, H22: a move under way may be passing an ally; the fuzzer runs it after every
  event too), HP and power points
  within bounds (H5), out-of-action combatants are prone or dead, the decider is in
  action, legal actions are non-empty and distinct until the end and empty after it, the
  round limit (H25), each voluntary FREE action at most ``misc.free_actions_per_turn``
  times a turn (H25), ready items
  within two hands (H21), and at a DODGE decision the dodge choices of H10/S10
  (:func:`check_dodge_choices`);
- :class:`EventLimits` over the events as they come: one Free Attack per character per
  round (S5), one parry per round plus Fight Defensively's extra (S8, S10), one Shift a
  round (a SHIFT or a dodge-shift) and never in a round with a MOVE, FULL_MOVE or
  DISENGAGE (S7, H10);
- :class:`MaskCheck`: the env's action codec agrees with ``legal_actions()`` (sampled
  indices at every decision, every index every ``sweep_every`` decisions);
- :func:`state_key` (a battle's state without its log, to compare copies) and
  :func:`check_replay` (same seed and actions, same events).

A failed check raises :class:`InvariantViolation` naming the invariant.
"""

from __future__ import annotations

import collections
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

import rules
from experiments.replay import Replay, first_mismatch
from rules import ActionKind as K
from rules import Battle, DecisionKind
from rules.actions import WALKING_KINDS
from rules.budget import ROUND_BUDGETS
from rules.content.schema import HANDS  # H21: what legal READY_WEAPON / PICK_UP assume
from rules.errors import InvariantViolation
from rules.events import ActionTaken, AttackRolled, DodgeRolled, ParryRolled
from rules.grid import chebyshev
from rules.invariants import check_bodies as check_bodies
from rules.invariants import check_moved as check_moved

#: S2: what a combatant may have spent in one round (rules.budget's, the validator's too).
ALLOWED_BUDGETS = ROUND_BUDGETS
#: The names (as ActionTaken writes them) of the kinds that walk a path (S7).
_WALKING_NAMES = frozenset(kind.name for kind in WALKING_KINDS)


def need(condition: bool, name: str, message: str) -> None:
    """Raise :class:`InvariantViolation` ``name`` unless ``condition`` holds."""
    if not condition:
        raise InvariantViolation(name, message)


# ---------------------------------------------------------------- state invariants
def check_state(battle: Battle) -> None:
    """Every invariant of one battle state (see the module docstring).

    Messages are built only on failure: this runs after every action of a fuzz run."""
    grid = battle.grid
    threshold = battle.content.ruleset.hit_points.out_of_action_at
    free_per_turn = battle.content.ruleset.misc.free_actions_per_turn
    decision = battle.decision
    check_bodies(battle)
    for c in battle.combatants.values():
        if c.actions_used not in ALLOWED_BUDGETS:
            raise InvariantViolation("budget", f"{c.id} spent {c.actions_used} this round"
                                               " (S2)")
        if grid.blocks_movement(c.position):
            raise InvariantViolation("floor", f"{c.id} stands on {c.position}, not a floor"
                                              " square")
        if c.hp > c.max_hp:
            raise InvariantViolation("hp", f"{c.id} has {c.hp} HP of {c.max_hp}")
        if c.power_points < 0:
            raise InvariantViolation("power-points",
                                     f"{c.id} has {c.power_points} power points")
        if c.status == "active":
            if c.hp <= threshold:
                raise InvariantViolation("hp", f"{c.id} is in action at {c.hp} HP (H5)")
        elif not (c.prone or c.dead):
            raise InvariantViolation("out-of-action", f"{c.id} is {c.status} but standing")
        if c.riding is not None:
            mount = battle.combatants[c.riding]
            if mount.ridden_by != c.id or mount.position != c.position:
                raise InvariantViolation("mount", f"{c.id} rides {mount.id} (ridden_by="
                                         f"{mount.ridden_by}) at {c.position} vs "
                                         f"{mount.position} (H22)")
        if c.hands_used() > HANDS:
            raise InvariantViolation("hands", f"{c.id} holds ready items needing "
                                              f"{c.hands_used()} hands (H21)")
        if c.free_used and max(map(c.free_used.count, c.free_used)) > free_per_turn:
            raise InvariantViolation("free-actions", f"{c.id} used {c.free_used} this turn"
                                                     f" (H25: each {free_per_turn} times)")
    acts = battle.legal_actions()
    if battle.is_over:
        need(decision is None and acts == [], "over",
             f"the battle is over but decision={decision}, {len(acts)} legal actions")
        return
    if decision is None:
        raise InvariantViolation("decision", "the battle is running with no decision")
    if not battle.combatants[decision.actor].in_action:
        raise InvariantViolation("actor-in-action", f"{decision.actor} decides "
                                 f"{decision.kind.name} while out of action (H5)")
    if not acts:
        raise InvariantViolation("legal-non-empty", f"no legal action for {decision}")
    if len(set(acts)) != len(acts):
        raise InvariantViolation("legal-distinct", f"duplicate legal actions: {acts}")
    if battle.round > battle.scenario.max_rounds:
        raise InvariantViolation("round-limit", f"round {battle.round} past the limit "
                                 f"{battle.scenario.max_rounds} (H25)")
    if decision.kind is DecisionKind.TURN and decision.actor != battle.current_actor:
        raise InvariantViolation("turn-owner", f"{decision.actor} decides a turn of "
                                 f"{battle.current_actor}")
    if decision.kind is DecisionKind.DODGE and decision.source is not None:
        check_dodge_choices(battle, battle.combatants[decision.actor],
                            battle.combatants[decision.source], acts)


def check_dodge_choices(battle: Battle, defender: rules.Combatant, attacker: rules.Combatant,
                        acts: Sequence[rules.Action]) -> None:
    """H10/S10: each DODGE square is a free neighbour not closer to the attacker, offered
    only with the Shift unspent (standing, not moved this round, no free dodge pending);
    DODGE without a square (a fall, or Fight Defensively's free dodge) at most once and
    only while standing unless waived; DECLINE last; something to dodge with."""
    squares = [a.square for a in acts if a.kind is K.DODGE and a.square is not None]
    falls = sum(1 for a in acts if a.kind is K.DODGE and a.square is None)
    if acts[-1].kind is not K.DECLINE or falls > 1 or not (squares or falls):
        raise InvariantViolation("dodge-choices", f"{defender.id} is offered "
                                 f"{[str(a) for a in acts]} (H10)")
    if squares and (defender.dodge_waived or defender.prone or defender.shifted_this_round
                    or defender.moved_this_round):
        raise InvariantViolation("dodge-choices", f"{defender.id} may dodge-shift without "
                                 "an unspent Shift (H10, S7)")
    if falls and not defender.dodge_waived and defender.prone:
        raise InvariantViolation("dodge-choices", f"{defender.id} may fall prone while "
                                                  "prone (H10)")
    taken = {c.position for c in battle.combatants.values()
             if not c.dead and c.id not in (defender.id, defender.riding)}
    here = chebyshev(defender.position, attacker.position)
    for sq in squares:
        if (chebyshev(sq, defender.position) != 1 or sq in taken
                or chebyshev(sq, attacker.position) < here):
            raise InvariantViolation("dodge-choices", f"{defender.id} may dodge to {sq}: "
                                     "not a free neighbour no closer to the attacker (H10)")


def pays_shift(event: DodgeRolled) -> bool:
    """H10: whether a dodge was paid with the Shift (not a fall, a throw from the saddle,
    or Fight Defensively's free dodge)."""
    return event.disadvantage == "shift"


class EventLimits:
    """Per-round limits counted over the events as they come (one instance per battle):
    S5 Free Attacks, S8/S10 parries, S7/H10 the Shift."""

    def __init__(self, battle: Battle) -> None:
        self.defence = battle.content.ruleset.defence
        self.free: collections.Counter[tuple[int, str]] = collections.Counter()
        self.parries: collections.Counter[tuple[int, str]] = collections.Counter()
        self.defensive: set[tuple[int, str]] = set()
        self.shifts: collections.Counter[tuple[int, str]] = collections.Counter()
        self.moved: set[tuple[int, str]] = set()

    def feed(self, events: Sequence[rules.Event]) -> None:
        """Count new events; raise :class:`InvariantViolation` past a limit."""
        for e in events:
            if isinstance(e, AttackRolled) and e.mode == "free":
                key = (e.round, e.attacker)
                self.free[key] += 1
                if self.free[key] > 1:
                    raise InvariantViolation("free-attack-limit", f"{e.attacker} made "
                                             f"{self.free[key]} Free Attacks in round "
                                             f"{e.round} (S5)")
            elif isinstance(e, ActionTaken):
                self._action(e)
            elif isinstance(e, ParryRolled):
                key = (e.round, e.defender)
                self.parries[key] += 1
                limit = self.defence.parries_per_round + (
                    self.defence.fight_defensively_extra_parries if key in self.defensive
                    else 0)
                if self.parries[key] > limit:
                    raise InvariantViolation("parry-limit", f"{e.defender} parried "
                                             f"{self.parries[key]} times in round {e.round}"
                                             f" (limit {limit}, S8/S10)")
            elif isinstance(e, DodgeRolled) and pays_shift(e):
                self._shift((e.round, e.defender), "dodge-shifts")  # H10: uses the Shift

    def _action(self, event: ActionTaken) -> None:
        kind = event.action.split(" ", 1)[0]
        key = (event.round, event.actor)
        if kind == "FIGHT_DEFENSIVELY":
            # S10: the extra parry lasts until the fighter's next turn
            self.defensive.add(key)
            self.defensive.add((event.round + 1, event.actor))
        elif kind == K.SHIFT.name:
            self._shift(key, "shifts")
        elif kind in _WALKING_NAMES:
            self.moved.add(key)
            if self.shifts[key]:
                raise InvariantViolation("shift", f"{event.actor} moves ({kind}) after a Shift "
                                         f"in round {event.round} (S7)")

    def _shift(self, key: tuple[int, str], what: str) -> None:
        self.shifts[key] += 1
        if self.shifts[key] > 1 or key in self.moved:
            raise InvariantViolation("shift", f"{key[1]} {what} in round {key[0]} after "
                                     f"{'moving' if key in self.moved else 'a Shift'} (S7, "
                                     "H10: one Shift a round, not with a move)")


def check_round_limits(battle: Battle) -> None:
    """:class:`EventLimits` over a whole battle's events (for tests that check at the
    end)."""
    EventLimits(battle).feed(battle.events)


class MaskCheck:
    """The env's action codec agrees with ``legal_actions()`` (mask == legal set)."""

    def __init__(self, fresh: Battle, samples: int = 3, seed: int = 0,
                 sweep_every: int = 200) -> None:
        from env.spaces import ActionCodec

        self.codec = ActionCodec(fresh)
        self.samples = samples
        self.rng = random.Random(seed)  # scalar draws: cheaper than numpy per decision
        self.sweep_every = sweep_every  # every so many checks, decode every index
        self.checks = 0

    def check(self, battle: Battle) -> None:
        """The mask has one 1 per legal action (raises for a missing or shared index);
        sampled legal actions decode back from their index, sampled masked-off indices
        decode to no legal action."""
        from env.spaces import EncodingError

        d = battle.decision
        if d is None:
            return
        acts = battle.legal_actions()
        try:
            mask = self.codec.mask(battle)
        except EncodingError as exc:
            raise InvariantViolation("mask", str(exc)) from None
        ones = int(np.count_nonzero(mask))
        if ones != len(acts):
            raise InvariantViolation("mask", f"mask has {ones} ones for {len(acts)} legal "
                                             "actions")
        codec, draw = self.codec, self.rng.randrange
        for _ in range(min(self.samples, len(acts))):
            a = acts[draw(len(acts))]
            i = codec.encode(battle, d.actor, a)
            back = None if i is None else codec.decode(battle, d.actor, i)
            if i is None or not mask[i] or back != a:
                raise InvariantViolation("mask", f"{a} has index {i} (mask "
                                         f"{None if i is None else mask[i]}), which decodes"
                                         f" to {back}")
        self.checks += 1
        if self.sweep_every and (self.checks - 1) % self.sweep_every == 0:
            self._sweep(battle, d.actor, mask, acts)
        legal: set[rules.Action] | None = None
        for _ in range(self.samples):
            i = draw(codec.n)
            if mask[i]:
                continue
            back = codec.decode(battle, d.actor, i)
            if back is None:
                continue
            legal = set(acts) if legal is None else legal
            if back in legal:
                raise InvariantViolation("mask", f"index {i} is masked off but decodes to "
                                         f"the legal {back}")


    def _sweep(self, battle: Battle, actor: str, mask: np.ndarray,
               acts: list[rules.Action]) -> None:
        """Decode every index: exactly the masked-on ones are legal actions, each once."""
        legal = set(acts)
        decoded = []
        for i in range(self.codec.n):
            back = self.codec.decode(battle, actor, i)
            if (back in legal) != bool(mask[i]):
                raise InvariantViolation("mask", f"index {i} decodes to {back}, legal="
                                         f"{back in legal}, mask={int(mask[i])}")
            if mask[i]:
                decoded.append(back)
        if len(set(decoded)) != len(acts):
            raise InvariantViolation("mask", f"the masked-on indices decode to "
                                     f"{len(set(decoded))} of {len(acts)} legal actions")


def state_key(battle: Battle) -> tuple[Any, ...]:
    """The battle's state without its event log (cheaper than ``to_json`` late in a
    battle; the events are compared as they come)."""
    return (
        battle.round,
        battle.current_actor,
        tuple(battle.initiative_order),
        battle.decision,
        battle.is_over,
        battle.winner,
        repr(battle.dice.state()),
        len(battle.events),
        battle.legal_actions(),
        [c.to_dict() for c in battle.combatants.values()],
        sorted(repr(vars(i)) for i in battle.ground),
        battle.grid,
    )


def check_replay(replay: Replay) -> None:
    """Replay determinism: re-simulating the recorded actions gives the same events."""
    from experiments.replay import ReplayError, rerun

    try:
        battle = rerun(replay)
    except ReplayError as exc:
        raise InvariantViolation("replay", str(exc)) from None
    mismatch = first_mismatch(replay, battle)
    need(mismatch is None, "replay", str(mismatch))
