"""MCTS on the forward model: determinized open-loop search over ``Battle.clone()``.

Every iteration clones the battle and re-seeds the clone's dice
(``clone.dice.reseed(iteration_seed)``), so the search never sees the real battle's future
dice: chance is sampled afresh each iteration and the search is *open loop* — a node is a
sequence of decisions, not a state. Each node is a decision of whoever decides there (turn
owners and reacting combatants of either team: reactions are decisions like any other);
values are always from the searching agent's team's point of view, maximised where that
team decides and minimised where the other does.

- Candidates (action grouping): reactions are searched in full except that dodges to
  squares are cut to the two extremes; on a turn, moves are cut to a few destinations per
  kind (into reach of each enemy, nearest to / farthest from the enemies), and actions
  without tactical value here (Speak, Drop, Fall Prone, Sheathe, Close Door, ...) are left
  out. A scripted *prior* agent's choice (the tactician by default) is always a
  candidate.
- Root: sequential halving with common random numbers. In each round every surviving
  root candidate is searched once under the *same* re-seeded dice, so candidates are
  compared on paired samples; after each of ceil(log2(candidates)) equal phases of the
  budget the worse half (by mean value) is dropped, except the prior's choice, which
  stays to the end.
- The pick: the best survivor replaces the prior's choice only when, over the last
  phase's fresh paired samples, it beats it by more than ``prior_bonus`` and by more than
  ``confidence`` standard errors of the paired difference (a one-sided test). Without
  it the search left the prior's choice on noise: the best of several noisy means beats
  the prior by chance (the winner's curse), and plain UCT or halving alone lost to the
  tactician (docs/agents.md).
- Below the root (``tree=True``): UCT with availability counts, as information-set MCTS
  does (chance changes what is legal from one iteration to the next, so a child's
  exploration term counts the iterations in which it was available). By default
  (``tree=False``) the search is flat: the root candidate is followed by the rollout
  at once. At this budget a tree below the root spends its few visits on follow-ups
  nobody would play (an attack followed by every other candidate in turn), while a
  rollout by the tactician answers each candidate the way a good player would: this
  is the rollout algorithm (policy improvement over the rollout policy), with the
  tactician as the base policy.
- Plans (``plan=N``, issue 24's deeper search): a tree over the searching team's own
  next decisions below each root candidate. The continuation after the root candidate is
  ``rollout_depth`` decisions long, as in the flat search; the other team's decisions in
  it are the rollout policy's (the tactician answers, as in the battle), and the
  searching team's first ``N`` decisions are chosen by UCT with availability counts among
  the prior's choice and the grouped candidates (the prior's choice tried first); an
  iteration that adds a node plays on with the rollout policy. The root keeps the flat
  search's halving and pick, so plan=0 is the flat search. On a native battle the tree
  lives in the engine (``rules._native.PlanSearch``), with the same values.
- Step back (``step_back=True``): search only the decisions where the prior ends its
  turn, between ending it and each Shift (S7) the actor may make; the prior's choice
  everywhere else. The plan search's deviations that paid were these (docs/agents.md,
  "Where the headroom is").
- Rollouts: a configurable policy (``"random"`` or any registered agent name; default the
  tactician, the opponent it is measured against) plays both teams for
  ``rollout_depth`` decisions; the leaf value is the HP balance: 0.5 + (share of own
  team's HP standing - share of the other's) / 2; a finished battle is worth 1 (won), 0
  (lost) or 0.5 (draw).
- Budget: ``iterations`` (default :data:`DEFAULT_ITERATIONS`) or ``seconds``; with
  iterations only, a seed fixes every decision (deterministic: the prior and rollout
  agents break exact ties with their own generators, seeded from the same seed). A
  decision with one candidate is taken without search.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field

from agents import factory as registry
from agents import tactics as t
from agents.base import SeededAgent, legal_for
from agents.spec import Option
from rules import Action, ActionKind, Battle, Combatant, DecisionKind, bridge
from rules import engine as rules_engine
from rules.actions import TURN_DESTINATION_KINDS
from rules.grid import chebyshev
from rules.limits import MAX_SEARCH_ITERATIONS, MAX_SEARCH_SECONDS
from rules.reach import threatened_squares

K = ActionKind
DEFAULT_ITERATIONS = 64
DEFAULT_ROLLOUT_DEPTH = 12
EXPLORATION = 0.7
PRIOR_BONUS = 0.05  # value credited to the prior agent's choice at the root
CONFIDENCE = 1.645  # standard errors by which a candidate must beat the prior (one-sided 95%)
SEARCHED_TURN_KINDS = frozenset({
    K.MELEE_ATTACK, K.MISSILE_ATTACK, K.FULL_ATTACK, K.FIGHT_DEFENSIVELY, K.COUP_DE_GRACE,
    K.FIRST_AID, K.CAST_SPELL, K.USE_ITEM, K.STAND_UP, K.READY_WEAPON, K.PICK_UP,
    K.NOCK_ARROW, K.LOAD_CROSSBOW, K.LIGHT_TORCH, K.OPEN_DOOR, K.END_TURN, K.TRIP,
    K.PREPARE_COMPONENTS, K.MOUNT, K.DISMOUNT})
MOVE_KINDS = TURN_DESTINATION_KINDS  # the turn actions whose square is a destination
#: both as positions in list(ActionKind), as the engine's grouping takes them
SEARCHED_KIND_NUMBERS = [list(ActionKind).index(kind) for kind in SEARCHED_TURN_KINDS]
MOVE_KIND_NUMBERS = [list(ActionKind).index(kind) for kind in MOVE_KINDS]


@dataclass
class Node:
    """One open-loop node: statistics of the decision sequence leading here."""

    visits: int = 0
    value: float = 0.0  # sum of values, from the searching team's point of view
    available: int = 0  # iterations in which this node's action was legal (ISMCTS)
    children: dict[Action, Node] = field(default_factory=dict)


def hp_balance(battle: Battle, team: str) -> float:
    """Leaf value for ``team``: 1 won, 0 lost, 0.5 drawn; else 0.5 + half the difference
    between the shares of max HP standing (in action) of ``team`` and of its enemies."""
    if battle.is_over:
        return 0.5 if battle.winner is None else (1.0 if battle.winner == team else 0.0)
    mine = theirs = mine_max = theirs_max = 0
    for c in battle.combatants.values():
        standing = max(0, c.hp) if c.in_action else 0
        if c.team == team:
            mine, mine_max = mine + standing, mine_max + c.max_hp
        else:
            theirs, theirs_max = theirs + standing, theirs_max + c.max_hp
    return 0.5 + 0.5 * (mine / max(1, mine_max) - theirs / max(1, theirs_max))


def candidates(battle: Battle, legal: list[Action]) -> list[Action]:
    """The actions searched at this decision (module docstring: action grouping)."""
    d = battle.decision
    assert d is not None
    if d.kind is not DecisionKind.TURN:
        if d.kind is not DecisionKind.DODGE:
            return legal
        squares = [a for a in legal if a.kind is K.DODGE and a.square is not None]
        rest = [a for a in legal if a.kind is not K.DODGE or a.square is None]
        if len(squares) <= 2 or d.source is None:
            return squares + rest
        src = battle.combatants[d.source].position
        far = max(squares, key=lambda action: chebyshev(action.square or src, src))
        return [squares[0], *([far] if far != squares[0] else []), *rest]
    me = battle.combatants[d.actor]
    out = [a for a in legal if a.kind in SEARCHED_TURN_KINDS]
    kinds = t.group(legal)
    foes = t.enemies_of(battle, me)
    for kind in MOVE_KINDS:
        out += _destinations(battle, me, kinds.get(kind, []), foes)
    return out or legal


def _destinations(battle: Battle, me: Combatant, moves: list[Action], foes: list[Combatant]
                  ) -> list[Action]:
    """A few destinations: into reach of each enemy (the nearest such square), and the
    squares nearest to and farthest from the enemies."""
    if not moves or not foes:
        return moves[:1]
    picked: list[Action] = []

    def gap(action: Action) -> int:
        sq = action.square or me.position
        return min(chebyshev(sq, e.position) for e in foes)

    reach = me.reach
    if reach > 0:
        for e in foes:
            zone = threatened_squares(battle.grid, e.position, reach)  # squares reaching e
            near = [a for a in moves if a.square in zone]
            if near:
                picked.append(min(near, key=lambda action: chebyshev(action.square or me.position,
                                                                me.position)))
    picked += [min(moves, key=gap), max(moves, key=gap)]
    unique: list[Action] = []
    for a in picked:
        if a not in unique:
            unique.append(a)
    return unique


class MCTS(SeededAgent):
    """Determinized open-loop UCT (see the module docstring)."""

    name = "mcts"
    #: the options of ``mcts(...)`` (agents/spec.py reads them)
    OPTIONS: tuple[Option, ...] = (
        Option("iterations", int, f"Search iterations per decision (default "
               f"{DEFAULT_ITERATIONS}).", minimum=1, maximum=MAX_SEARCH_ITERATIONS),
        Option("seconds", float, "A time budget per decision, instead of iterations.",
               above=0, maximum=MAX_SEARCH_SECONDS),
        Option("rollout", "agent", "The agent that plays both teams in rollouts."),
        Option("rollout_depth", int, "Decisions per rollout before the leaf value.",
               minimum=0),
        Option("prior", "agent", "The agent whose choice is always a candidate and kept "
               "unless clearly beaten.", none=True),
        Option("exploration", float, "UCT's exploration constant (tree=true).", minimum=0),
        Option("prior_bonus", float, "Value a candidate must beat the prior's choice by.",
               minimum=0),
        Option("tree", bool, "UCT below the root instead of a flat search."),
        Option("confidence", float, "Standard errors a candidate must beat the prior's "
               "choice by.", minimum=0),
        Option("step_back", bool, "Search only where the prior ends its turn: ending it "
               "against each Shift (the prior's choice elsewhere)."),
        Option("plan", int, "The searching team's next decisions chosen by a tree over "
               "the prior's choice and the grouped candidates (0: flat).", minimum=0),
    )

    def __init__(self, seed: int | None = None, iterations: int | None = None,
                 seconds: float | None = None, rollout: str = "tactician",
                 rollout_depth: int = DEFAULT_ROLLOUT_DEPTH, prior: str | None = "tactician",
                 exploration: float = EXPLORATION, prior_bonus: float = PRIOR_BONUS,
                 tree: bool = False, confidence: float = CONFIDENCE, plan: int = 0,
                 step_back: bool = False) -> None:
        """Ranges are checked by ``agents.make`` (:attr:`OPTIONS`); without either budget,
        :data:`DEFAULT_ITERATIONS` iterations."""
        super().__init__(seed)
        if iterations is not None and seconds is not None:
            raise ValueError("mcts: give iterations or seconds, not both")
        if seconds is None and iterations is None:
            iterations = DEFAULT_ITERATIONS
        if tree and plan:
            raise ValueError("mcts: give tree or plan, not both")
        if step_back and not prior:
            raise ValueError("mcts: step_back searches where the prior ends its turn; it "
                             "needs a prior")
        self.iterations = iterations
        self.seconds = seconds
        self.rollout_name = rollout
        self.rollout_depth = rollout_depth
        self.exploration = exploration
        self.prior_bonus = prior_bonus
        self.tree = tree
        self.confidence = confidence
        self.plan = plan
        self.step_back = step_back
        #: the plan search's tree below the root candidates on a native battle (one
        #: rules._native.PlanSearch per decision, made by act)
        self._plan_search = None
        self.rollout_policy = registry.make(rollout, seed=seed)
        #: the rollout policy's native twin (made at once, then used in place for every
        #: rollout, as the Python policy is): the flat search's rounds then run in the
        #: engine (rules/native/agents/agents_mcts.cpp) on native battles
        self._native_rollout = None if tree else bridge.twin_of(self.rollout_policy)
        self.prior = registry.make(prior, seed=seed) if prior else None
        #: the prior's native twin, asked instead of the prior on a native battle (made at
        #: once and used in place, so its generator runs on as the prior's would)
        self._native_prior = bridge.twin_of(self.prior)
        self.reason: str | None = None
        self.last_iterations = 0

    def act(self, battle: Battle) -> Action:
        """Search from ``battle`` and return the most visited root candidate."""
        legal = legal_for(battle)
        d = battle.decision
        assert d is not None
        team = battle.combatants[d.actor].team
        options = candidates(battle, legal)
        prior = self._prior(battle, legal)
        if prior is not None and prior not in options:
            options = [prior, *options]
        elif prior is not None:
            options = [prior, *[a for a in options if a != prior]]
        if self.step_back:
            if prior is None or prior.kind is not K.END_TURN:
                self.reason = "mcts: the prior's choice (step_back: not searched)"
                self.last_iterations = 0
                return prior if prior is not None else options[0]
            options = [prior, *[a for a in legal if a.kind is K.SHIFT]]
        if len(options) == 1:
            self.reason = "mcts: only one candidate"
            self.last_iterations = 0
            return options[0]
        root = Node()
        self._plan_search = self._new_plan_search(battle, team)
        start = time.perf_counter()
        done = 0
        alive = list(options)
        # the last phase's values per survivor, round by round (paired by the dice)
        last_phase: dict[Action, list[float]] = {}
        phases = max(1, math.ceil(math.log2(len(alive))))
        for phase in range(phases):
            rounds = 0
            while True:
                seed = int(self.rng.integers(2**63))  # one determinization for all
                for action, value in zip(alive, self._round(battle, root, team, alive, seed),
                                         strict=True):
                    if phase == phases - 1:
                        last_phase.setdefault(action, []).append(value)
                done += len(alive)
                rounds += 1
                if self._phase_over(phase, phases, len(alive), rounds, start):
                    break
            if len(alive) > 1 and phase < phases - 1:
                alive = self._halve(root, alive, prior)
        self.last_iterations = done
        best = self._pick(root, alive, options, prior, last_phase)
        child = root.children[best]
        self.reason = (f"mcts: {child.visits}/{done} iterations, value "
                       f"{self._mean(root, best):.2f} for {team}"
                       + (" (the prior's choice)" if best == prior else
                          f" (prior {self._mean(root, prior):.2f})" if prior in root.children
                          else ""))
        return best

    def _pick(self, root: Node, alive: list[Action], options: list[Action],
              prior: Action | None, last_phase: dict[Action, list[float]]) -> Action:
        """The best survivor by mean value; it replaces the prior's choice only when it
        beats it by more than ``prior_bonus`` and by more than ``confidence`` standard
        errors of the paired difference over the last phase's fresh samples (both were
        searched under the same dice there), so noise and the winner's curse of the
        earlier phases do not move the search off the prior."""
        best = max(alive, key=lambda action: (self._mean(root, action), -options.index(action)))
        if prior is None or best == prior or prior not in alive:
            return best
        diffs = [x - y for x, y in zip(last_phase[best], last_phase[prior], strict=True)]
        if len(diffs) < 2:
            return prior
        mean = statistics.fmean(diffs)
        error = statistics.stdev(diffs, mean) / math.sqrt(len(diffs))
        return best if mean > max(self.prior_bonus, self.confidence * error) else prior

    def _phase_over(self, phase: int, phases: int, alive: int, rounds: int, start: float
                    ) -> bool:
        """Each halving phase gets an equal share of the iterations (or of the time)."""
        if self.iterations is not None:
            return rounds * alive >= max(1, self.iterations // phases)
        assert self.seconds is not None
        return time.perf_counter() - start >= self.seconds * (phase + 1) / phases

    @staticmethod
    def _mean(root: Node, action: Action | None) -> float:
        child = root.children.get(action) if action is not None else None
        return child.value / child.visits if child and child.visits else 0.0

    def _halve(self, root: Node, alive: list[Action], prior: Action | None) -> list[Action]:
        """Sequential halving: keep the better half by mean value; the prior's choice
        always stays, so the final pick compares it on the same samples."""
        ranked = sorted(alive, key=lambda action: -(self._mean(root, action) + (
            self.prior_bonus if action == prior else 0.0)))
        keep = ranked[:max(1, len(ranked) // 2)]
        if prior in alive and prior not in keep:
            keep.append(prior)
        return [a for a in alive if a in keep]

    def _prior(self, battle: Battle, legal: list[Action]) -> Action | None:
        if self.prior is None:
            return None
        if self._native_prior is not None and battle.engine == "native":
            choice, _ = bridge.native_choice(battle, self._native_prior)
            return choice
        choice = self.prior.act(battle)
        return choice if choice in legal else None

    def _round(self, battle: Battle, root: Node, team: str, alive: list[Action], seed: int,
               ) -> list[float]:
        """One iteration per surviving root candidate under the dice of ``seed``: their
        values. On a native battle with a native rollout policy (a flat search) the engine
        runs the whole round in one call, with the same values and statistics as
        :meth:`_iterate` (tests/agents/test_mcts_native.py)."""
        if self._plan_search is not None:
            values = self._plan_search.round(*bridge.engine_parts(battle), alive, seed,
                                             self._native_rollout, self._native_prior)
        elif self.plan:
            values = [self._plan_iterate(battle, root, team, action, seed) for action in alive]
        elif self._native_rollout is None or battle.engine == "python":
            return [self._iterate(battle, root, team, [action], seed) for action in alive]
        else:
            values = bridge.search_round(battle, alive, seed, self._native_rollout,
                                         self.rollout_depth, team)
        for action, value in zip(alive, values, strict=True):
            child = root.children.get(action)
            if child is None:
                child = root.children[action] = Node(available=0)
            child.available += 1
            for node in (root, child):
                node.visits += 1
                node.value += value
        return values

    def _iterate(self, root_battle: Battle, root: Node, team: str, root_options: list[Action],
                 seed: int) -> float:
        b = root_battle.clone()
        b.dice.reseed(seed)  # never the real battle's future dice
        node, path = root, [root]
        options = root_options
        while not b.is_over and (self.tree or node is root):
            d = b.decision
            assert d is not None
            maximise = b.combatants[d.actor].team == team
            action, node, added = self._descend(node, options, maximise)
            b.apply(action)
            path.append(node)
            if added or b.is_over or not self.tree:  # a new node, or flat: the rollout
                break
            options = candidates(b, b.legal_actions())
        value = self._rollout(b, team)
        for n in path:
            n.visits += 1
            n.value += value
        return value

    def _new_plan_search(self, battle: Battle, team: str) -> object | None:
        """The engine's tree for this decision (plan > 0, a native battle, native rollout
        and prior agents), else None: the plan search then runs here (_plan_iterate)."""
        if not self.plan or battle.engine == "python" or self._native_rollout is None or (
                self.prior is not None and self._native_prior is None):
            return None
        return rules_engine.native_module().PlanSearch(
            bridge.engine_parts(battle)[0], SEARCHED_KIND_NUMBERS, MOVE_KIND_NUMBERS,
            self.plan, self.rollout_depth, team, self.exploration)

    def _plan_iterate(self, root_battle: Battle, root: Node, team: str, action: Action,
                      seed: int) -> float:
        """One plan-search iteration (``plan`` > 0; the root's statistics are _round's):
        after the root candidate, ``rollout_depth`` decisions, the other team's by the
        rollout policy and the searching team's first ``plan`` by UCT (availability
        counts) over the prior's choice and the grouped candidates, the prior's choice
        first; an iteration that adds a node plays on with the rollout policy. The
        engine's PlanSearch (rules/native/agents/agents_mcts.cpp) is the same loop."""
        b = root_battle.clone()
        b.dice.reseed(seed)  # never the real battle's future dice
        b.apply(action)
        node = root.children.setdefault(action, Node(available=0))
        path: list[Node] = []
        levels = 0
        for _ in range(self.rollout_depth):
            d = b.decision
            if b.is_over or d is None:
                break
            if levels >= self.plan or b.combatants[d.actor].team != team:
                b.apply(self.rollout_policy.act(b))
                continue
            legal = legal_for(b)
            options = candidates(b, legal)
            prior = self._prior(b, legal)
            if prior is not None:
                options = [prior, *[a for a in options if a != prior]]
            chosen, node, added = self._descend(node, options, True)
            levels = self.plan if added else levels + 1  # a new node: the rollout plays on
            path.append(node)
            b.apply(chosen)
        value = hp_balance(b, team)
        for each in path:
            each.visits += 1
            each.value += value
        return value

    def _descend(self, node: Node, options: list[Action], maximise: bool
                 ) -> tuple[Action, Node, bool]:
        """UCT's step at ``node`` among ``options``, with availability counts: the first
        option not tried yet, as a new child (True), else the child of the best upper
        bound (False)."""
        for option in options:
            if option in node.children:
                node.children[option].available += 1
        for option in options:
            if option not in node.children:
                child = node.children[option] = Node(available=1)
                return option, child, True
        chosen = max(options, key=lambda option: self._ucb(node.children[option], maximise))
        return chosen, node.children[chosen], False

    def _ucb(self, child: Node, maximise: bool) -> float:
        mean = child.value / child.visits
        if not maximise:
            mean = 1.0 - mean
        return mean + self.exploration * math.sqrt(math.log(max(1, child.available))
                                                   / child.visits)

    def _rollout(self, battle: Battle, team: str) -> float:
        for _ in range(self.rollout_depth):
            if battle.is_over:
                break
            battle.apply(self.rollout_policy.act(battle))
        return hp_balance(battle, team)
