"""A small policy/value network over the env's observation, saved in the safe format.

:class:`PolicyValueNet` is plain torch (no stable-baselines3): one forward pass gives
the logits over the scenario's whole action index space (``env.spaces.ActionCodec``'s
layout; the caller masks them with the exact mask) and a value for the deciding team (the return
it expects: about +1 won, -1 lost). It is the network of the batched PPO learner
(``experiments/train/batched_ppo.py``) and of the ``az`` search (``agents/az.py``).
Built to be cheap per sample (docs/training.md, "A learner that keeps up"):

- ``planes`` (C x H x W): two 3x3 convolutions, both with stride 2 (a quarter of the
  squares each), then an adaptive max-pool to at most 4 x 4 cells;
- ``units`` (N x F): one shared linear encoder per row, kept in slot order (targets
  are slots) and max-pooled;
- ``decision``: an embedding per component (its kind, its deciding slot); ``globals`` as
  they are;
- one hidden layer mixing everything, a second one, then the policy and value heads.

Files (``NAME.json`` beside ``NAME.pt``) are the learned models' format in spirit: the
JSON describes the network (``format: fray-network``), the observation layout it was
trained on (:func:`agents.model_file.current_layout`), the scenario and team, and the
SHA-256 of the weights; the weights are a ``state_dict`` of tensors read with
``torch.load(weights_only=True)`` by :mod:`agents.model_file`'s own reader. Nothing in
the files is executed; any mismatch is a one-line :class:`LearnedModelError`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents import model_file
from agents.model_file import LearnedModelError, SavedPolicy

FORMAT = "fray-network"
FORMAT_VERSION = 1
KIND = "policy-value"


@dataclass(frozen=True)
class NetworkShape:
    """What a :class:`PolicyValueNet` is built from: the observation's shapes, the action
    count and the layer sizes."""

    planes: tuple[int, int, int]
    units: tuple[int, int]
    decision: tuple[int, ...]
    globals: int
    actions: int
    channels: int = 16
    unit_dim: int = 32
    hidden: int = 128

    @classmethod
    def of_scenario(cls, scenario: str, **sizes: int) -> NetworkShape:
        """The shape for a scenario's observation and action layout."""
        from env.core import ScenarioSetup

        setup = ScenarioSetup(scenario)
        space = setup.builder.spaces()
        return cls(planes=tuple(space["planes"].shape), units=tuple(space["units"].shape),
                   decision=tuple(int(v) for v in space["decision"].nvec),
                   globals=int(space["globals"].shape[0]), actions=int(setup.n), **sizes)

    def to_json(self) -> dict[str, Any]:
        return {key: list(value) if isinstance(value, tuple) else value
                for key, value in asdict(self).items()}

    @classmethod
    def from_json(cls, data: Any, where: str) -> NetworkShape:
        if not isinstance(data, dict):
            raise LearnedModelError(f"{where}: network: expected an object, found "
                                    f"{data!r:.60}")
        fields = {"planes": 3, "units": 2, "decision": None, "globals": 0, "actions": 0,
                  "channels": 0, "unit_dim": 0, "hidden": 0}
        values: dict[str, Any] = {}
        for key, length in fields.items():
            value = data.get(key)
            if length == 0:
                ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
            else:
                ok = (isinstance(value, list) and value
                      and all(isinstance(v, int) and v > 0 for v in value)
                      and (length is None or len(value) == length))
            if not ok:
                what = "a positive integer" if length == 0 else (
                    f"a list of {length or 'some'} positive integers")
                raise LearnedModelError(f"{where}: network.{key}: expected {what}, found "
                                        f"{value!r:.60}")
            values[key] = tuple(value) if isinstance(value, list) else value
        return cls(**values)


class PolicyValueNet(nn.Module):
    """Logits over every action index and a value (module docstring)."""

    def __init__(self, shape: NetworkShape) -> None:
        super().__init__()
        self.shape = shape
        channels, height, width = shape.planes
        n_units, n_features = shape.units
        pooled = (min(-(-height // 4), 4), min(-(-width // 4), 4))
        self.cnn = nn.Sequential(
            nn.Conv2d(channels, shape.channels, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(shape.channels, shape.channels, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveMaxPool2d(pooled), nn.Flatten())
        self.unit_encoder = nn.Sequential(nn.Linear(n_features, shape.unit_dim), nn.ReLU())
        self.decision = nn.ModuleList(nn.Embedding(size, 16) for size in shape.decision)
        mixed = (shape.channels * pooled[0] * pooled[1] + shape.unit_dim * (n_units + 1)
                 + 16 * len(shape.decision) + shape.globals)
        self.body = nn.Sequential(nn.Linear(mixed, shape.hidden), nn.ReLU(),
                                  nn.Linear(shape.hidden, shape.hidden), nn.ReLU())
        self.policy = nn.Linear(shape.hidden, shape.actions)
        self.value = nn.Linear(shape.hidden, 1)

    def forward(self, planes: torch.Tensor, units: torch.Tensor, decision: torch.Tensor,
                globals_: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (B, actions), value (B,))`` of a batch (``decision``: int64 (B, k))."""
        spatial = self.cnn(planes)
        encoded = self.unit_encoder(units)
        parts = [spatial, encoded.flatten(1), encoded.amax(1), globals_]
        parts += [embedding(decision[:, i]) for i, embedding in enumerate(self.decision)]
        hidden = self.body(torch.cat(parts, dim=1))
        return self.policy(hidden), self.value(hidden).squeeze(1)

    def evaluate(self, observation: dict[str, np.ndarray]) -> tuple[torch.Tensor,
                                                                     torch.Tensor]:
        """``forward`` of a batch of numpy observations (the env's arrays)."""
        return self(*tensors(observation))

    def flops_per_sample(self) -> int:
        """Floating-point operations of one forward pass (2 per multiply-add, the
        convolutions and linear layers; activations and pooling left out)."""
        total = 0
        _, height, width = self.shape.planes
        for layer in self.cnn:
            if isinstance(layer, nn.Conv2d):
                height, width = -(-height // 2), -(-width // 2)
                total += 2 * height * width * layer.out_channels * layer.in_channels * 9
        n_units = self.shape.units[0]
        for layer in self.unit_encoder:
            if isinstance(layer, nn.Linear):
                total += 2 * n_units * layer.in_features * layer.out_features
        for layer in [*self.body, self.policy, self.value]:
            if isinstance(layer, nn.Linear):
                total += 2 * layer.in_features * layer.out_features
        return total


def tensors(observation: dict[str, np.ndarray]) -> tuple[torch.Tensor, ...]:
    """The network's inputs from a batch of the env's observation arrays (no copies
    where the dtype already fits)."""
    return (torch.as_tensor(observation["planes"], dtype=torch.float32),
            torch.as_tensor(observation["units"], dtype=torch.float32),
            torch.as_tensor(observation["decision"], dtype=torch.int64),
            torch.as_tensor(observation["globals"], dtype=torch.float32))


def masked_log_probabilities(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over the legal indices (``mask`` true), -inf elsewhere."""
    return torch.log_softmax(logits.masked_fill(~mask, float("-inf")), dim=-1)


# ------------------------------------------------------------------ files
def save_network(net: PolicyValueNet, path: str | Path, *, scenario: str, team: str,
                 trained: dict[str, Any] | None = None) -> Path:
    """Write ``net`` as ``PATH`` (``.json``) and its weights beside it (``.pt``)."""
    path = Path(path).with_suffix(".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    weights = model_file.weights_path(path)
    torch.save({key: value.detach().cpu().contiguous()
                for key, value in net.state_dict().items()}, weights)
    description = {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": KIND,
                   "weights_sha256": hashlib.sha256(weights.read_bytes()).hexdigest(),
                   "network": net.shape.to_json(), "layout": model_file.current_layout(),
                   "scenario": str(scenario), "team": str(team),
                   "trained": dict(trained or {})}
    path.write_text(json.dumps(description, indent=1) + "\n", encoding="utf-8")
    return path


def load_network(path: str | Path) -> tuple[PolicyValueNet, dict[str, Any]]:
    """The network ``path`` (its JSON) describes, with its weights, and the description."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise LearnedModelError(f"{path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise LearnedModelError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise LearnedModelError(f"{path}: format: expected {FORMAT!r}, found {found!r}")
    if data.get("format_version") != FORMAT_VERSION:
        raise LearnedModelError(f"{path}: format_version: expected {FORMAT_VERSION}, found "
                                f"{data.get('format_version')!r}")
    if data.get("kind") != KIND:
        raise LearnedModelError(f"{path}: kind: expected {KIND!r}, found "
                                f"{data.get('kind')!r}")
    for key in ("weights_sha256", "scenario", "team"):
        if not isinstance(data.get(key), str):
            raise LearnedModelError(f"{path}: {key}: expected a string, found "
                                    f"{data.get(key)!r:.60}")
    if not isinstance(data.get("layout"), dict):
        raise LearnedModelError(f"{path}: layout: expected an object, found "
                                f"{data.get('layout')!r:.60}")
    model_file._check_layout(path, data["layout"])
    shape = NetworkShape.from_json(data.get("network"), str(path))
    state = model_file._read_weights(path, data)
    net = PolicyValueNet(shape)
    expected = {key: tuple(value.shape) for key, value in net.state_dict().items()}
    found = {key: tuple(value.shape) for key, value in state.items()}
    if expected != found:
        wrong = sorted(set(expected) ^ set(found)) or sorted(
            key for key in expected if expected[key] != found[key])
        raise LearnedModelError(f"{path}: the weights do not fit the described network "
                                f"(first differences: {', '.join(wrong[:3])})")
    net.load_state_dict(state, strict=True)
    net.eval()
    return net, data


def is_network_file(path: str | Path) -> bool:
    """Whether ``path`` is a JSON description in this format (any other file, readable
    or not, is left to :func:`agents.model_file.load_model_file` to load or refuse)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


class NetworkPolicy(SavedPolicy):
    """A network file played by ``learned:PATH`` (:class:`agents.learned.LearnedAgent`):
    the network's masked action probabilities; a selector's (``trained.options``: the
    batched learner's ``--options``) over its options."""

    @property
    def advisor(self) -> str | None:
        return None

    @property
    def options(self) -> list[str] | None:
        return self.description.get("trained", {}).get("options") or None

    def fit_shapes(self) -> tuple[dict[str, tuple[int, ...]], int]:
        shape = self.policy.shape
        return ({"planes": shape.planes, "units": shape.units, "globals": (shape.globals,),
                 "decision": shape.decision}, shape.actions)

    def probabilities(self, observation: dict[str, Any], mask: Any) -> Any:
        batch = {key: np.asarray(observation[key])[None]
                 for key in ("planes", "units", "decision", "globals")}
        with torch.no_grad():
            logits, _ = self.policy.evaluate(batch)
            log_probs = masked_log_probabilities(
                logits, torch.as_tensor(np.asarray(mask, dtype=bool))[None])
        return log_probs.exp()[0].numpy().astype(np.float64)


def load_policy(path: str | Path) -> NetworkPolicy:
    """A network file as a ``learned:`` model (:class:`NetworkPolicy`); its options, if
    any, must be agent specs."""
    net, description = load_network(path)
    trained = description.get("trained")
    if not isinstance(trained, dict):
        raise LearnedModelError(f"{path}: trained: expected an object, found "
                                f"{trained!r:.60}")
    options = trained.get("options")
    if not (options is None or (isinstance(options, list)
                                and all(isinstance(o, str) for o in options))):
        raise LearnedModelError(f"{path}: trained.options: expected a list of agent specs, "
                                f"found {options!r:.60}")
    return NetworkPolicy(net, description)
