"""fray's model format: a JSON description beside a file of tensors, never pickle.

A model is two files side by side, ``NAME.json`` and its weights ``NAME.pt`` (rename
both together):

- the JSON says how to rebuild the policy network (its ``kind``: ``fray``,
  ``fray-spatial`` or ``mlp``, and their settings), the observation and action spaces,
  the layout of the env's encoding it was trained on (version and feature names), the
  scenario and team, what the agent needs to play (a residual model's ``advisor``, a
  selector's ``options`` and ``option_hold``) and where it came from (``trained``);
- the weights are the policy's ``state_dict``, written by ``torch.save`` and read with
  ``torch.load(..., weights_only=True)``, which refuses anything but tensors and plain
  containers; their SHA-256 is in the JSON.

:func:`load_model_file` builds the network from the JSON with fray's own classes and
loads the weights into it; nothing in the files is executed. A field that is missing or
malformed, weights that do not fit the network (names or shapes), or a layout this fray
does not have is a one-line :class:`LearnedModelError`. docs/models.md describes the
format and the ``trust_pickle`` option for stable-baselines3 zips.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import rules

FORMAT = "fray-model"
FORMAT_VERSION = 1
KINDS = ("fray", "fray-spatial", "mlp")
ACTIVATIONS = ("tanh", "relu")


class LearnedModelError(rules.FrayError):
    """A learned model that cannot be found, loaded, or does not fit the battle."""


def current_layout() -> dict[str, Any]:
    """The env encoding this fray builds: its version and the names of every part."""
    from env.core import LAYOUT_VERSION
    from env.observation import DECISION_KINDS, GLOBAL_FEATURES, PLANES, UNIT_FEATURES

    return {"version": LAYOUT_VERSION, "planes": list(PLANES),
            "units": list(UNIT_FEATURES), "globals": list(GLOBAL_FEATURES),
            "decision": [kind.name for kind in DECISION_KINDS],
            "action_kinds": [kind.name for kind in rules.ActionKind]}


# ------------------------------------------------------------------ spaces as JSON
def space_to_json(space: Any) -> dict[str, Any]:
    """A Gymnasium space (Dict, Box, Discrete, MultiDiscrete) as plain JSON data."""
    from gymnasium import spaces

    if isinstance(space, spaces.Dict):
        return {"dict": {key: space_to_json(part) for key, part in space.spaces.items()}}
    if isinstance(space, spaces.Box):
        low, high = np.unique(space.low), np.unique(space.high)
        return {"box": list(space.shape), "dtype": str(space.dtype),
                "low": low.item() if low.size == 1 else space.low.tolist(),
                "high": high.item() if high.size == 1 else space.high.tolist()}
    if isinstance(space, spaces.Discrete):
        return {"discrete": int(space.n)}
    if isinstance(space, spaces.MultiDiscrete):
        return {"multi_discrete": [int(v) for v in space.nvec]}
    raise LearnedModelError(f"cannot describe a {type(space).__name__} space")


def space_from_json(data: Any, where: str) -> Any:
    """The space :func:`space_to_json` wrote; ``where`` names the field for errors."""
    from gymnasium import spaces

    if not isinstance(data, dict):
        raise LearnedModelError(f"{where}: expected a space object, found {data!r:.60}")
    try:
        if "dict" in data:
            return spaces.Dict({key: space_from_json(part, f"{where}.{key}")
                                for key, part in dict(data["dict"]).items()})
        if "box" in data:
            dtype = np.dtype(data["dtype"])
            bounds = [np.full(tuple(int(v) for v in data["box"]), data[side], dtype=dtype)
                      if isinstance(data[side], int | float) else np.asarray(data[side], dtype)
                      for side in ("low", "high")]
            return spaces.Box(bounds[0], bounds[1], dtype=dtype)
        if "discrete" in data:
            return spaces.Discrete(int(data["discrete"]))
        if "multi_discrete" in data:
            return spaces.MultiDiscrete([int(v) for v in data["multi_discrete"]])
    except (KeyError, TypeError, ValueError) as exc:
        raise LearnedModelError(f"{where}: malformed space ({exc})") from None
    raise LearnedModelError(f"{where}: expected one of dict, box, discrete, multi_discrete; "
                            f"found keys {sorted(data)}")


# ------------------------------------------------------------------ policies
def policy_kind(policy: Any) -> str:
    """Which of :data:`KINDS` an sb3 policy is (by its extractor's class)."""
    from agents.features import FrayExtractor
    from agents.spatial import SpatialFrayExtractor

    extractor = type(policy.features_extractor)
    if extractor is SpatialFrayExtractor:
        return "fray-spatial"
    if extractor is FrayExtractor:
        return "fray"
    if extractor.__name__ == "CombinedExtractor":
        return "mlp"
    raise LearnedModelError(f"a policy with a {extractor.__name__} is not one fray can "
                            f"describe (kinds: {', '.join(KINDS)})")


def policy_settings(policy: Any) -> dict[str, Any]:
    """The JSON ``policy`` field of an sb3 policy: its kind and how to rebuild it."""
    activation = policy.activation_fn.__name__.lower()
    if activation not in ACTIVATIONS:
        raise LearnedModelError(f"activation {activation!r} is not one of {ACTIVATIONS}")
    kind = policy_kind(policy)
    return {"kind": kind, "net_arch": policy.net_arch, "activation": activation,
            "share_features_extractor": bool(policy.share_features_extractor),
            "normalize_images": bool(policy.normalize_images),
            "features_extractor": json.loads(json.dumps(policy.features_extractor_kwargs))
            if kind != "mlp" else {}}


def build_policy(settings: dict[str, Any], observation_space: Any, action_space: Any,
                 where: str) -> Any:
    """A fresh policy network of ``settings`` (the JSON ``policy`` field)."""
    from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
    from torch import nn

    from agents.features import FrayExtractor

    kind = settings.get("kind")
    if kind not in KINDS:
        raise LearnedModelError(f"{where}: policy.kind: expected one of {', '.join(KINDS)}, "
                                f"found {kind!r}")
    activation = settings.get("activation")
    if activation not in ACTIVATIONS:
        raise LearnedModelError(f"{where}: policy.activation: expected one of "
                                f"{', '.join(ACTIVATIONS)}, found {activation!r}")
    kwargs: dict[str, Any] = {
        "net_arch": settings.get("net_arch"),
        "activation_fn": {"tanh": nn.Tanh, "relu": nn.ReLU}[activation],
        "share_features_extractor": bool(settings.get("share_features_extractor", True)),
        "normalize_images": bool(settings.get("normalize_images", True)),
        "ortho_init": False,  # the weights are loaded next
    }
    policy_class: Any = MaskableMultiInputActorCriticPolicy
    if kind == "fray":
        kwargs["features_extractor_class"] = FrayExtractor
    elif kind == "fray-spatial":
        from agents.spatial import FraySpatialPolicy, SpatialFrayExtractor

        policy_class = FraySpatialPolicy
        kwargs["features_extractor_class"] = SpatialFrayExtractor
    if kind != "mlp":
        extractor = settings.get("features_extractor")
        if not isinstance(extractor, dict):
            raise LearnedModelError(f"{where}: policy.features_extractor: expected an "
                                    f"object, found {extractor!r:.60}")
        kwargs["features_extractor_kwargs"] = extractor
    try:
        return policy_class(observation_space, action_space, lambda _: 0.0, **kwargs)
    except (TypeError, ValueError, KeyError, IndexError, RuntimeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LearnedModelError(f"{where}: cannot build a {kind} policy from its settings "
                                f"({first})") from None


# ------------------------------------------------------------------ files
def weights_path(path: str | Path) -> Path:
    """The weights file beside a model's JSON: ``NAME.json`` -> ``NAME.pt``."""
    return Path(path).with_suffix(".pt")


def save_model_file(policy: Any, path: str | Path, *, scenario: str, team: str,
                    trained: dict[str, Any] | None = None) -> Path:
    """Write ``policy`` (an sb3 policy of one of :data:`KINDS`) as ``PATH`` (``.json``)
    and its weights beside it; returns the JSON's path."""
    import torch

    path = Path(path).with_suffix(".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    weights = weights_path(path)
    state = {key: value.detach().cpu().contiguous()
             for key, value in policy.state_dict().items()}
    torch.save(state, weights)
    extractor = policy.features_extractor
    description = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "weights_sha256": hashlib.sha256(weights.read_bytes()).hexdigest(),
        "policy": policy_settings(policy),
        "observation_space": space_to_json(policy.observation_space),
        "action_space": space_to_json(policy.action_space),
        "layout": current_layout(),
        "scenario": str(scenario), "team": str(team),
        "advisor": getattr(extractor, "advisor", None),
        "options": getattr(extractor, "options", None),
        "option_hold": getattr(extractor, "option_hold", "decision"),
        "trained": dict(trained or {}),
    }
    path.write_text(json.dumps(description, indent=1) + "\n", encoding="utf-8")
    return path


@dataclass
class SavedPolicy:
    """A policy network rebuilt from a model file, with what the agent needs to play."""

    policy: Any
    description: dict[str, Any]

    @property
    def observation_space(self) -> Any:
        return self.policy.observation_space

    @property
    def action_space(self) -> Any:
        return self.policy.action_space

    @property
    def advisor(self) -> str | None:
        return self.description.get("advisor")

    @property
    def options(self) -> list[str] | None:
        return self.description.get("options")

    @property
    def option_hold(self) -> str:
        return self.description.get("option_hold") or "decision"


def _read_description(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise LearnedModelError(f"{path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise LearnedModelError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise LearnedModelError(f"{path}: format: expected {FORMAT!r}, found {found!r}")
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise LearnedModelError(f"{path}: format_version: expected {FORMAT_VERSION}, found "
                                f"{version!r} (written by another fray version)")
    for key, kind in (("weights_sha256", str), ("policy", dict),
                      ("observation_space", dict), ("action_space", dict),
                      ("layout", dict)):
        if not isinstance(data.get(key), kind):
            raise LearnedModelError(f"{path}: {key}: expected a {kind.__name__}, found "
                                    f"{data.get(key)!r:.60}")
    options = data.get("options")
    if options is not None and not (isinstance(options, list)
                                    and all(isinstance(o, str) for o in options)):
        raise LearnedModelError(f"{path}: options: expected a list of agent specs or null, "
                                f"found {options!r:.60}")
    return data


def _check_layout(path: Path, layout: dict[str, Any]) -> None:
    """The model's encoding must be this fray's: same version, same names in order."""
    now = current_layout()
    for key, value in now.items():
        if layout.get(key) != value:
            found = layout.get(key)
            if isinstance(value, list) and isinstance(found, list):
                extra = [n for n in found if n not in value][:3]
                missing = [n for n in value if n not in found][:3]
                detail = (f"{len(found)} names, this fray {len(value)}"
                          f"{'; model only: ' + ', '.join(extra) if extra else ''}"
                          f"{'; this fray only: ' + ', '.join(missing) if missing else ''}")
            else:
                detail = f"{found!r}, this fray {value!r}"
            raise LearnedModelError(f"{path}: layout.{key}: the model was trained on another "
                                    f"observation/action layout (model {detail}); retrain "
                                    f"it with this fray")


def _read_weights(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    import pickle

    import torch

    weights = weights_path(path)
    try:
        raw = weights.read_bytes()
    except OSError as exc:
        raise LearnedModelError(f"{path}: cannot read its weights {weights.name} "
                                f"({exc.strerror or exc})") from None
    if hashlib.sha256(raw).hexdigest() != data["weights_sha256"]:
        raise LearnedModelError(f"{path}: weights_sha256: {weights.name} is not the file "
                                f"this description was written with")
    try:
        state = torch.load(weights, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise LearnedModelError(f"{weights}: not a tensors-only weights file "
                                f"(refused by torch.load(weights_only=True): {first})") from None
    if not isinstance(state, dict) or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        raise LearnedModelError(f"{weights}: expected a mapping of names to tensors")
    return state


def _check_weights(path: Path, state: dict[str, Any], policy: Any) -> None:
    expected = {key: tuple(value.shape) for key, value in policy.state_dict().items()}
    found = {key: tuple(value.shape) for key, value in state.items()}
    missing = sorted(set(expected) - set(found))
    extra = sorted(set(found) - set(expected))
    if missing or extra:
        raise LearnedModelError(
            f"{path}: the weights do not fit the described {policy_kind(policy)} policy "
            f"(missing: {', '.join(missing[:3]) or 'none'}; unexpected: "
            f"{', '.join(extra[:3]) or 'none'})")
    for key, shape in expected.items():
        if found[key] != shape:
            raise LearnedModelError(f"{path}: weight {key} has shape {found[key]}, the "
                                    f"described policy needs {shape}")


def load_model_file(path: str | Path) -> SavedPolicy:
    """Rebuild the policy that ``path`` (a model's JSON) describes and load its weights."""
    path = Path(path)
    data = _read_description(path)
    _check_layout(path, data["layout"])
    observation_space = space_from_json(data["observation_space"], f"{path}: observation_space")
    action_space = space_from_json(data["action_space"], f"{path}: action_space")
    state = _read_weights(path, data)
    policy = build_policy(data["policy"], observation_space, action_space, str(path))
    _check_weights(path, state, policy)
    policy.load_state_dict(state, strict=True)
    policy.set_training_mode(False)
    return SavedPolicy(policy, data)


def convert_sb3_zip(source: str | Path, destination: str | Path, *, scenario: str,
                    team: str) -> Path:
    """Write a MaskablePPO zip's policy in fray's format (``destination``'s ``.json`` and
    ``.pt``). Reading the zip unpickles it: convert only files you trust (your own
    checkpoints); the result is safe to share."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(source, device="cpu")
    return save_model_file(model.policy, destination, scenario=scenario, team=team,
                           trained={"algorithm": "MaskablePPO",
                                    "steps": int(model.num_timesteps),
                                    "converted_from": Path(source).name})
