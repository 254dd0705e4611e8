"""The ``fray-spatial`` policy's square head scores the square each index names.

The head's output map is replaced by one that is high on a single square; the policy's
most probable legal action must then be the move to that very square (decoded by the
env's own codec), for every legal move of random battle states. A window cut the wrong
way round (x for y, or the codec's other order) fails this.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

import agents
import rules
from agents.environments import skirmish_env
from env.core import ScenarioSetup
from experiments.train.sb3 import policy_spec

SQUARE_KINDS = (rules.ActionKind.MOVE, rules.ActionKind.FULL_MOVE, rules.ActionKind.DISENGAGE)


class _OneSquare(torch.nn.Module):
    """A stand-in head: logit 50 on square ``(x, y)`` of map ``k``, 0 elsewhere."""

    def __init__(self, k: int, x: int, y: int, maps: int) -> None:
        super().__init__()
        self.k, self.x, self.y, self.maps = k, x, y, maps

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        out = torch.zeros(inputs.shape[0], self.maps, inputs.shape[2], inputs.shape[3])
        out[:, self.k, self.y, self.x] = 50.0
        return out


def _policy(scenario: str) -> MaskablePPO:
    torch.set_num_threads(1)
    name, kwargs = policy_spec("fray-spatial", scenario)
    model = MaskablePPO(name, skirmish_env(scenario=scenario), policy_kwargs=kwargs,
                        n_steps=64, batch_size=32, seed=0, device="cpu")
    torch.nn.init.zeros_(model.policy.action_net.linear.weight)
    return model


@pytest.mark.parametrize("scenario", ["skirmish", "duel"])
def test_square_head_scores_the_square_the_index_names(scenario: str) -> None:
    model = _policy(scenario)
    policy = model.policy
    extractor = policy.features_extractor
    setup = ScenarioSetup(scenario)
    windows = setup.codec.square_windows()
    assert [tuple(w) for w in extractor.windows] == list(windows)
    offsets = [offset for offset, _, _ in windows]
    kinds = [setup.codec.blocks[kind].offset for kind in SQUARE_KINDS]
    checked = 0
    for seed in range(3):
        battle = setup.new_battle(seed)
        walker = agents.make("random", seed=seed)
        for _ in range(60):
            if battle.is_over:
                break
            decision = battle.decision
            team = battle.combatants[decision.actor].team
            legal = setup.codec.legal_by_index(battle)
            moves = [(i, a) for i, a in legal.items() if a.kind in SQUARE_KINDS]
            for index, action in moves[:4]:
                k = offsets.index(setup.codec.blocks[action.kind].offset)
                x, y = action.square
                original = extractor.square_head
                extractor.square_head = _OneSquare(k, x, y, len(windows))
                try:
                    obs = setup.builder.build(battle, team, decision.actor)
                    mask = setup.codec.mask(battle)
                    obs["action_mask"] = mask
                    tensors, _ = policy.obs_to_tensor(obs)
                    with torch.no_grad():
                        probs = policy.get_distribution(
                            tensors, action_masks=mask.astype(bool)[None]).distribution.probs
                finally:
                    extractor.square_head = original
                best = int(np.argmax(probs[0].numpy()))
                assert best == index, (action, setup.codec.describe(best))
                checked += 1
            battle.apply(walker.act(battle))
    assert checked >= 20
    assert sorted(kinds) == sorted(offsets)


def test_spatial_policy_needs_the_scenario() -> None:
    with pytest.raises(ValueError, match="needs the scenario"):
        policy_spec("fray-spatial")
