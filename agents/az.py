"""``az``: search guided by a policy/value network (AlphaZero's PUCT on the forward model).

``agents.make("az")`` plays with the network shipped for the battle's scenario
(``agents/networks/<scenario>.json``); ``az(path=FILE.json, iterations=N)`` with another
(a :mod:`agents.policy_value` file: ``fray az-train`` and ``fray train --backend
batched`` write them). The search:

- **Open loop, determinized**, as :mod:`agents.mcts`: every iteration clones the battle
  and re-seeds the clone's dice (``clone.dice.reseed``) from the agent's own generator,
  so the search never sees the real battle's future dice; a node is a sequence of
  action indices, and whoever decides there (either team, reactions included) picks.
- **Priors over the exact legal actions**: at a node's first visit the network reads
  the decider's observation (the env's encoding, ``env.core.ScenarioSetup``) and its
  logits are softmaxed over the decision's exact mask (the action codec's indices). A
  later visit under other dice restricts the choice to what is legal in that
  determinization and renormalises the priors over it.
- **PUCT selection**: ``Q + c * P * sqrt(N) / (1 + n)``, Q from the decider's team's
  point of view (a child never visited counts as the parent's value, "first-play
  urgency"). The leaf is valued by the network's value head from the decider's side
  (clamped to [-1, 1]) and backed up with the sign of each node's team; a finished
  battle is worth +1 / -1 / 0.
- **Cost**: one network forward pass per iteration (one sample; the agent sets torch
  to one thread in its process, as evaluation workers do) and the clone's steps.
- **The pick**: the most visited root child (ties: the higher prior). With
  ``iterations=0`` no search runs: the network's most probable legal action.

:attr:`AZ.last_visits` keeps the last search's root visit counts by index, which expert
iteration (``experiments/train/expert_iteration.py``) trains the policy on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import SeededAgent, decision_of
from agents.spec import Option
from rules import Action, Battle, FrayError

NETWORKS_DIR = Path(__file__).resolve().parent / "networks"
DEFAULT_ITERATIONS = 64
EXPLORATION = 1.5


class AZError(FrayError):
    """An az network that cannot be found or does not fit the battle."""


@dataclass(frozen=True)
class PathOption(Option):
    """An option whose value is a file path (agents.spec's kinds have no text kind)."""

    def expected(self) -> str:
        return "a path to a network's JSON" + (" or none" if self.none else "")

    def convert(self, value: Any, key: str | None = None) -> Any:
        if self.none and (value is None or (isinstance(value, str)
                                            and value.strip().lower() == "none")):
            return None
        if not isinstance(value, str | Path) or not str(value).strip():
            raise ValueError(f"{key or self.name} expects {self.expected()}, got {value!r}")
        return str(value)


@dataclass
class Node:
    """One open-loop node: the priors of the decision seen first here, and statistics
    of each child index."""

    team: str
    priors: dict[int, float]
    value: float  # the network's value of this node from ``team``'s side
    visits: int = 0
    child_visits: dict[int, int] = field(default_factory=dict)
    child_values: dict[int, float] = field(default_factory=dict)  # sums, ``team``'s side
    children: dict[int, Node] = field(default_factory=dict)


def shipped_networks() -> list[str]:
    """The scenarios with a shipped az network."""
    return sorted(p.stem for p in NETWORKS_DIR.glob("*.json"))


class AZ(SeededAgent):
    """PUCT search guided by a policy/value network (the module docstring)."""

    name = "az"
    OPTIONS: tuple[Option, ...] = (
        PathOption("path", "path", "The network's JSON (default: the one shipped for the "
               "battle's scenario).", none=True),
        Option("iterations", int, f"Search iterations per decision (default "
               f"{DEFAULT_ITERATIONS}; 0: the network's most probable action).", minimum=0),
        Option("exploration", float, f"PUCT's constant (default {EXPLORATION}).", minimum=0),
    )

    def __init__(self, seed: int | None = None, path: str | None = None,
                 iterations: int = DEFAULT_ITERATIONS, exploration: float = EXPLORATION
                 ) -> None:
        super().__init__(seed)
        self.path = path
        self.iterations = int(iterations)
        self.exploration = float(exploration)
        self._network: Any = None  # a PolicyValueNet given directly (with_network)
        self._networks: dict[str, Any] = {}
        self.last_visits: dict[int, int] = {}
        self.last_root_mask: np.ndarray | None = None
        #: 0: play the most visited action; > 0: sample in proportion to visits ** (1 / T)
        #: (expert iteration's exploring moves; not an option of the spec)
        self.temperature = 0.0
        self.reason: str | None = None

    @classmethod
    def with_network(cls, network: Any, seed: int | None = None,
                     iterations: int = DEFAULT_ITERATIONS,
                     exploration: float = EXPLORATION) -> AZ:
        """An az searching with ``network`` (a PolicyValueNet in memory: expert
        iteration's self-play) for every scenario it fits."""
        agent = cls(seed=seed, iterations=iterations, exploration=exploration)
        agent._network = network
        return agent

    # ------------------------------------------------------------ the network
    def network_for(self, battle: Battle) -> Any:
        """The network for ``battle``'s scenario (loaded once), checked to fit it."""
        name = battle.scenario.name
        if self._network is not None:
            self._networks[name] = self._network
        if name not in self._networks:
            from agents.policy_value import load_network

            path = Path(self.path) if self.path else NETWORKS_DIR / f"{name}.json"
            if not path.is_file():
                where = (f"file {path}" if self.path
                         else f"shipped for scenario {name!r}")
                raise AZError(f"az: no network {where} (shipped: "
                              f"{', '.join(shipped_networks()) or 'none'}; give "
                              f"az(path=FILE.json))")
            net, _ = load_network(path)
            self._networks[name] = net
        net = self._networks[name]
        setup = _setup(battle)
        if net.shape.actions != setup.n:
            raise AZError(f"az: the network has {net.shape.actions} actions, scenario "
                          f"{name!r} has {setup.n}")
        return net

    def evaluate(self, battle: Battle, net: Any) -> tuple[str, np.ndarray, np.ndarray, float]:
        """The decider's team, the decision's mask, the network's probabilities over the
        legal indices and its value from the decider's side."""
        import torch

        from agents.policy_value import masked_log_probabilities, tensors

        team, observation, mask = observe(battle)
        if torch.get_num_threads() != 1:
            # one sample at a time: a second thread only waits (and spins under load)
            torch.set_num_threads(1)
        with torch.no_grad():
            logits, value = net(*(t[None] for t in tensors(observation)))
            log_probs = masked_log_probabilities(logits, torch.from_numpy(mask[None]))
        probs = log_probs.exp()[0].numpy().astype(np.float64)
        return team, mask, probs, float(max(-1.0, min(1.0, float(value[0]))))

    # ------------------------------------------------------------ acting
    def act(self, battle: Battle) -> Action:
        decision = decision_of(battle)
        setup = _setup(battle)
        net = self.network_for(battle)
        team, mask, probs, value = self.evaluate(battle, net)
        legal = np.flatnonzero(mask)
        self.last_root_mask = mask
        if self.iterations == 0 or len(legal) == 1:
            index = int(legal[np.argmax(probs[legal])])
            self.last_visits = {index: 1}
            self.reason = f"az: the network's choice (p {probs[index]:.2f}, value {value:+.2f})"
            return self._decode(setup, battle, decision.actor, index)
        root = Node(team, {int(i): float(probs[i]) for i in legal}, value)
        for _ in range(self.iterations):
            clone = battle.clone()
            clone.dice.reseed(int(self.rng.integers(2**63)))  # never the real future dice
            self._iterate(clone, root, net, setup)
        visits = root.child_visits
        index = max(visits, key=lambda action: (visits[action], root.priors.get(action, 0.0)))
        if self.temperature > 0:
            indices = sorted(visits)
            weights = np.array([visits[i] for i in indices], dtype=np.float64) ** (
                1.0 / self.temperature)
            index = int(indices[self.rng.choice(len(indices), p=weights / weights.sum())])
        self.last_visits = dict(visits)
        q = root.child_values[index] / visits[index]
        self.reason = (f"az: {visits[index]}/{self.iterations} visits, value {q:+.2f} for "
                       f"{team} (prior {root.priors[index]:.2f})")
        return self._decode(setup, battle, decision.actor, index)

    @staticmethod
    def _decode(setup: Any, battle: Battle, actor: str, index: int) -> Action:
        action = setup.codec.decode(battle, actor, index)
        if action is None:  # pragma: no cover - the mask only holds decodable indices
            raise AZError(f"az: index {index} names no action")
        return action

    def _iterate(self, battle: Battle, root: Node, net: Any, setup: Any) -> None:
        """One iteration from ``root`` on a re-seeded clone: select by PUCT among the
        indices legal here, expand the first node not in the tree, back the value up."""
        path: list[tuple[Node, int]] = []
        node = root
        while True:
            if battle.is_over:
                value_of = _outcome(battle)
                break
            mask = _mask(battle)
            actor = decision_of(battle).actor
            # open loop: under other dice another team may decide at this node
            sign = 1.0 if battle.combatants[actor].team == node.team else -1.0
            index = self._select(node, np.flatnonzero(mask), sign)
            path.append((node, index))
            battle.apply(self._decode(setup, battle, actor, index))
            child = node.children.get(index)
            if child is None:
                if battle.is_over:
                    value_of = _outcome(battle)
                    break
                team, child_mask, probs, value = self.evaluate(battle, net)
                legal = np.flatnonzero(child_mask)
                node.children[index] = Node(team, {int(i): float(probs[i]) for i in legal},
                                            value)
                value_of = _value_for(team, value)
                break
            node = child
        for each, index in path:
            value = value_of(each.team)
            each.visits += 1
            each.child_visits[index] = each.child_visits.get(index, 0) + 1
            each.child_values[index] = each.child_values.get(index, 0.0) + value

    def _select(self, node: Node, legal: np.ndarray, sign: float = 1.0) -> int:
        """PUCT over the indices legal in this determinization (priors renormalised),
        for the decider here: ``sign`` -1 when it is not of the node's team (the node's
        statistics are from its team's side)."""
        priors = np.array([node.priors.get(int(i), 0.0) for i in legal])
        total = priors.sum()
        priors = priors / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
        scale = self.exploration * math.sqrt(max(1, node.visits))
        best, best_score = int(legal[0]), -math.inf
        for index, prior in zip(legal, priors, strict=True):
            i = int(index)
            n = node.child_visits.get(i, 0)
            q = node.child_values[i] / n if n else node.value
            score = sign * q + scale * prior / (1 + n)
            if score > best_score:
                best, best_score = i, score
        return best


def _value_for(team: str, value: float) -> Any:
    """A function giving ``value`` (from ``team``'s side) from any team's side."""
    return lambda other: value if other == team else -value


def _outcome(battle: Battle) -> Any:
    winner = battle.winner
    return lambda team: 0.0 if winner is None else (1.0 if winner == team else -1.0)


_SETUPS: dict[tuple[str, str, str | None], Any] = {}


def _setup(battle: Battle) -> Any:
    """The env's encoding of the battle's scenario (made once per scenario text)."""
    from env.core import ScenarioSetup

    scenario = battle.scenario
    key = (scenario.name, scenario.text, battle.content_dir)
    if key not in _SETUPS:
        _SETUPS[key] = ScenarioSetup(scenario, battle.content_dir)
    return _SETUPS[key]


def _mask(battle: Battle) -> np.ndarray:
    setup = _setup(battle)
    if battle.engine == "native" and _native_env():
        return setup.native_layouts().mask(battle)[0].astype(bool)
    return setup.codec.mask(battle).astype(bool)


def observe(battle: Battle) -> tuple[str, dict[str, np.ndarray], np.ndarray]:
    """The decider's team, its observation (the env's arrays) and the exact mask."""
    decision = decision_of(battle)
    setup = _setup(battle)
    team = battle.combatants[decision.actor].team
    if battle.engine == "native" and _native_env():
        layouts = setup.native_layouts()
        observation = layouts.observe(battle, team, decision.actor)
        mask = layouts.mask(battle)[0]
    else:
        observation = setup.builder.build(battle, team, decision.actor)
        mask = setup.codec.mask(battle)
    return team, observation, mask.astype(bool)


def _native_env() -> bool:
    from env import native

    return native.available()
