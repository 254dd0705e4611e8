"""The ``fray-spatial`` policy: the ``fray`` network plus a spatial head for square actions.

The action blocks of MOVE, FULL_MOVE and DISENGAGE name a destination square relative
to the mover, in a window of radius ``r`` around it (``env/spaces.py``). A clone of the
tactician with the ``fray`` network got the kind of move right ~90% of the time but the
square only 37-47% (docs/notes/training.md, item 5): its CNN max-pools the map to 4 x 4 cells,
and one linear layer from pooled features cannot say which square next to a target is
the reachable one with the fewest Free Attacks. This head scores every square instead:

- a fully convolutional net over the map at full resolution reads the observation planes,
  two planes of the square's offset from the decider (found by the ``decider`` plane),
  the mixed features broadcast to every square (the "what am I doing" context), and
  ``pointer_heads`` *pointer planes*: each head attends over the units (a softmax of a
  score of each unit's encoding and the context) and paints the attended units'
  closeness ``2 ** -chebyshev`` on the map, so "next to the unit I focus" is local;
- one output map per square block is cut out as the window around the decider (the
  codec's own window and order, from :meth:`env.spaces.ActionCodec.square_windows`) and
  added to those blocks' logits from the usual linear action head.

It plugs into stable-baselines3 without changing how anything calls the policy: the
features extractor returns ``[mixed features, square logits]``, the MLP extractor passes
the square logits through to the actor latent, and the action net adds them in place.
So behaviour cloning (``experiments/train/imitation.py``), MaskablePPO and
``learned:PATH`` use it unchanged.

With an ``advice`` key in the observation (``agents/advice.py``, ``fray train --advice``) it
is a *residual* policy: a learned weight (initially ``advice_weight``) times the one-hot
of a scripted advisor's action is added to the logits too, so the untrained policy plays
as the advisor does and PPO learns where to deviate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import torch
from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn
from torch.nn import functional

from agents.advice import ADVICE_KEY
from agents.features import FrayExtractor

#: (block offset, window x radius, window y radius) of one square block.
SquareWindow = tuple[int, int, int]


class SpatialFrayExtractor(FrayExtractor):
    """:class:`FrayExtractor` features, then one logit per square of each square block.

    ``square_windows``: the codec's square blocks, ``(offset, rx, ry)`` each;
    ``decider_plane``: the index of the ``decider`` plane in ``planes``;
    ``unit_xy``: the columns of a unit's normalised x and y in ``units``;
    ``advisor`` and ``advice_weight``: the residual policy's advisor and initial weight
    (used only when the observation has an ``advice`` key).
    """

    def __init__(self, observation_space: gym.spaces.Dict,
                 square_windows: Sequence[SquareWindow] = (),
                 decider_plane: int = 9, unit_xy: tuple[int, int] = (10, 11),
                 head_channels: int = 32, context_channels: int = 16,
                 pointer_heads: int = 4, advisor: str | None = None,
                 advice_weight: float = 6.0, **kwargs: Any) -> None:
        super().__init__(observation_space, **kwargs)
        channels, height, width = observation_space["planes"].shape
        self.height, self.width = height, width
        self.base_dim = self._features_dim
        self.windows = tuple(tuple(int(v) for v in w) for w in square_windows)
        sizes = [(2 * rx + 1) * (2 * ry + 1) for _, rx, ry in self.windows]
        self.square_dim = sum(sizes)
        positions = [offset + i for (offset, _, _), size in zip(self.windows, sizes, strict=True)
                     for i in range(size)]
        self.register_buffer("square_positions", torch.tensor(positions, dtype=torch.long),
                             persistent=False)
        self.decider_plane = decider_plane
        self.unit_xy = unit_xy
        unit_dim = self.unit_encoder[-2].out_features
        self.context = nn.Linear(self.base_dim, context_channels)
        self.pointer = nn.Linear(unit_dim + self.base_dim, pointer_heads)
        in_channels = channels + 2 + context_channels + pointer_heads
        self.square_head = nn.Sequential(
            nn.Conv2d(in_channels, head_channels, 3, padding=1), nn.ReLU(),
            nn.Conv2d(head_channels, head_channels, 3, padding=1), nn.ReLU(),
            nn.Conv2d(head_channels, head_channels, 3, padding=2, dilation=2), nn.ReLU(),
            nn.Conv2d(head_channels, max(1, len(self.windows)), 1),
        )
        #: residual policy (``agents/advice.py``): the advisor's name (``learned:PATH``
        #: makes it) and a learned weight on the one-hot of its action, added to the logits
        self.advisor = advisor
        self.advice_dim = 0
        if ADVICE_KEY in observation_space.spaces:
            if advisor is None:
                raise ValueError(f"an observation with {ADVICE_KEY!r} needs the advisor's name")
            self.advice_dim = int(observation_space[ADVICE_KEY].n) - 1
            self.advice_weight = nn.Parameter(torch.tensor(float(advice_weight)))
        self._features_dim = self.base_dim + self.square_dim + self.advice_dim

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        """``[mixed features, square logits]`` of a batch of observations."""
        mixed, units = self.encode(observations)
        advice = ([observations[ADVICE_KEY].flatten(1)[:, :self.advice_dim] * self.advice_weight]
                  if self.advice_dim else [])
        if not self.windows:
            return torch.cat([mixed, *advice], 1)
        planes = observations["planes"]
        batch, height, width = planes.shape[0], self.height, self.width
        where = planes[:, self.decider_plane].flatten(1).argmax(1)
        ay, ax = where // width, where % width
        ys = torch.arange(height, device=planes.device)
        xs = torch.arange(width, device=planes.device)
        scale = float(max(height, width))
        rel_x = ((xs[None, None, :] - ax[:, None, None]).float() / scale).expand(
            batch, height, width)
        rel_y = ((ys[None, :, None] - ay[:, None, None]).float() / scale).expand(
            batch, height, width)
        # pointer planes: attention over the units, painted as closeness on the map
        raw = observations["units"]
        ux = torch.round(raw[:, :, self.unit_xy[0]] * max(1, width - 1)).long()
        uy = torch.round(raw[:, :, self.unit_xy[1]] * max(1, height - 1)).long()
        chebyshev = torch.maximum(
            (xs[None, None, None, :] - ux[:, :, None, None]).abs(),
            (ys[None, None, :, None] - uy[:, :, None, None]).abs())
        closeness = torch.pow(2.0, -chebyshev.float())            # (B, N, H, W)
        context = mixed[:, None, :].expand(-1, units.shape[1], -1)
        attention = torch.softmax(self.pointer(torch.cat([units, context], 2)), dim=1)
        pointers = torch.einsum("bnk,bnhw->bkhw", attention, closeness)
        broadcast = self.context(mixed)[:, :, None, None].expand(-1, -1, height, width)
        maps = self.square_head(torch.cat(
            [planes, rel_x[:, None], rel_y[:, None], broadcast, pointers], 1))
        rows_of_batch = torch.arange(batch, device=planes.device)[:, None, None]
        windows = []
        for k, (_, rx, ry) in enumerate(self.windows):
            padded = functional.pad(maps[:, k], (rx, rx, ry, ry))
            rows = ay[:, None] + torch.arange(2 * ry + 1, device=planes.device)
            cols = ax[:, None] + torch.arange(2 * rx + 1, device=planes.device)
            windows.append(padded[rows_of_batch, rows[:, :, None], cols[:, None, :]]
                           .flatten(1))
        return torch.cat([mixed, *windows, *advice], 1)


class _SplitMlpExtractor(nn.Module):
    """sb3's :class:`MlpExtractor` over the mixed features; the square (and advice)
    logits pass through to the end of the actor latent."""

    def __init__(self, base_dim: int, square_dim: int, net_arch: Any,
                 activation_fn: type[nn.Module], device: Any) -> None:
        super().__init__()
        self.base_dim = base_dim
        self.mlp = MlpExtractor(base_dim, net_arch=net_arch, activation_fn=activation_fn,
                                device=device)
        self.policy_dim = self.mlp.latent_dim_pi
        self.latent_dim_pi = self.mlp.latent_dim_pi + square_dim
        self.latent_dim_vf = self.mlp.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.mlp.forward_actor(features[:, :self.base_dim]),
                          features[:, self.base_dim:]], 1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.mlp.forward_critic(features[:, :self.base_dim])


class _SquareActionNet(nn.Module):
    """The linear action head, plus the square logits added at their blocks' indices,
    plus the advice logits (one per action) when there are any."""

    def __init__(self, policy_dim: int, n_actions: int, positions: torch.Tensor) -> None:
        super().__init__()
        self.policy_dim = policy_dim
        self.square_end = policy_dim + int(positions.numel())
        self.linear = nn.Linear(policy_dim, n_actions)
        self.register_buffer("positions", positions.clone(), persistent=False)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        logits = self.linear(latent[:, :self.policy_dim]).index_add(
            1, self.positions, latent[:, self.policy_dim:self.square_end])
        if latent.shape[1] > self.square_end:
            logits = logits + latent[:, self.square_end:]
        return logits


class FraySpatialPolicy(MaskableMultiInputActorCriticPolicy):
    """MaskablePPO's multi-input policy with :class:`SpatialFrayExtractor`'s square head
    (pass ``features_extractor_class=SpatialFrayExtractor`` and its ``square_windows``)."""

    def _build_mlp_extractor(self) -> None:
        extractor = self.features_extractor
        self.mlp_extractor = _SplitMlpExtractor(
            extractor.base_dim, extractor.square_dim + extractor.advice_dim, self.net_arch,
            self.activation_fn, self.device)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        extractor = self.features_extractor
        self.action_net = _SquareActionNet(self.mlp_extractor.policy_dim,
                                           int(self.action_space.n),
                                           extractor.square_positions)
        nn.init.orthogonal_(self.action_net.linear.weight, gain=0.01)
        nn.init.zeros_(self.action_net.linear.bias)
        last = extractor.square_head[-1]
        nn.init.orthogonal_(last.weight, gain=0.01)
        nn.init.zeros_(last.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)
