"""The ``fray`` policy architecture: a features extractor that fits the observation.

The env's observation (``env/observation.py``) has three kinds of parts, and each gets
the network that suits it instead of one flat MLP over everything:

- ``planes`` ``(C, H, W)``: a small CNN (two 3x3 convolutions, the second with stride
  2 when ``downsample``, which quarters its cost on big maps), then an adaptive max-pool
  to at most 4 x 4 cells, so one network serves every map size;
- ``units`` ``(N, F)``: one shared per-unit encoder (an MLP applied to every row alike);
  the encoded rows are kept in slot order (action targets are slots) and also pooled
  (mean and max over units) for an order-free summary;
- ``decision`` (one-hot, as stable-baselines3 preprocesses a ``MultiDiscrete``) and
  ``globals``: passed through.

The parts are concatenated and mixed by one linear layer. ``action_mask`` is ignored here
(MaskablePPO applies it to the logits). A selector policy (``fray train --options``)
uses the same network; its extractor also records the option names.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class FrayExtractor(BaseFeaturesExtractor):
    """CNN over ``planes`` + shared per-unit encoder over ``units`` + decision/globals."""

    def __init__(self, observation_space: gym.spaces.Dict, cnn_channels: int = 32,
                 unit_dim: int = 64, features_dim: int = 256,
                 first_channels: int | None = None, downsample: bool = False,
                 options: list[str] | None = None, option_hold: str = "decision") -> None:
        super().__init__(observation_space, features_dim)
        #: a selector policy's options (``agents/options.py``): the agent specs its actions
        #: name, kept here so that the checkpoint carries them to ``learned:PATH``
        self.options = list(options) if options else None
        self.option_hold = option_hold
        channels, height, width = observation_space["planes"].shape
        n_units, n_features = observation_space["units"].shape
        first = first_channels or cnn_channels
        stride = 2 if downsample else 1
        pooled = (min(-(-height // stride), 4), min(-(-width // stride), 4))
        self.cnn = nn.Sequential(
            nn.Conv2d(channels, first, 3, padding=1), nn.ReLU(),
            nn.Conv2d(first, cnn_channels, 3, stride=stride, padding=1), nn.ReLU(),
            nn.AdaptiveMaxPool2d(pooled), nn.Flatten(),
            nn.Linear(cnn_channels * pooled[0] * pooled[1], 128), nn.ReLU(),
        )
        self.unit_encoder = nn.Sequential(
            nn.Linear(n_features, unit_dim), nn.ReLU(),
            nn.Linear(unit_dim, unit_dim), nn.ReLU(),
        )
        decision_size = int(sum(observation_space["decision"].nvec))
        globals_size = int(observation_space["globals"].shape[0])
        mixed = 128 + unit_dim * (n_units + 2) + decision_size + globals_size
        self.mix = nn.Sequential(nn.Linear(mixed, features_dim), nn.ReLU())

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        """Features of a batch of (preprocessed) observations."""
        return self.encode(observations)[0]

    def encode(self, observations: dict[str, torch.Tensor]) -> tuple[torch.Tensor,
                                                                    torch.Tensor]:
        """The mixed features ``(batch, features_dim)`` and the encoded unit rows
        ``(batch, N, unit_dim)``."""
        spatial = self.cnn(observations["planes"])
        units = self.unit_encoder(observations["units"])  # (batch, N, unit_dim)
        summary = torch.cat([units.flatten(1), units.mean(1), units.amax(1)], dim=1)
        mixed = self.mix(torch.cat([spatial, summary, observations["decision"].float(),
                                    observations["globals"]], dim=1))
        return mixed, units
