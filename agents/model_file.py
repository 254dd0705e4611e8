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
does not have is a one-line :class:`LearnedModelError`. The file is data: the agents it
names (``options``, ``advisor``) must load no file and ask for no trust
(:func:`agents.spec.check_file_spec`), and the network and spaces it describes are
bounded (``rules/limits.py``) before anything is built. docs/models.md describes the
format and the ``trust_pickle`` option for stable-baselines3 zips, which only the user
gives.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import rules
from rules.limits import (
    MAX_NESTING,
    MAX_NETWORK_WIDTH,
    MAX_SPACE_SIZE,
    nesting_depth,
    within,
)

FORMAT = "fray-model"
FORMAT_VERSION = 1
KINDS = ("fray", "fray-spatial", "mlp")
#: the element types a model's spaces may have
DTYPES = ("float32", "float64", "int8", "int16", "int32", "int64", "uint8")
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
    # bounds that do not fit the dtype: an error, not a warning printed on stderr
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        return _space(data, where, spaces)


def _space(data: dict[str, Any], where: str, spaces: Any) -> Any:
    try:
        if "dict" in data:
            return spaces.Dict({key: space_from_json(part, f"{where}.{key}")
                                for key, part in dict(data["dict"]).items()})
        if "box" in data:
            shape = data["box"]
            if not (isinstance(shape, list) and all(within(v, MAX_SPACE_SIZE, 0) for v in shape)
                    and int(np.prod(shape, dtype=object)) <= MAX_SPACE_SIZE):
                raise LearnedModelError(f"{where}: malformed space (box: expected a shape of "
                                        f"at most {MAX_SPACE_SIZE} numbers, found "
                                        f"{shape!r:.60})")
            if data["dtype"] not in DTYPES:
                raise LearnedModelError(f"{where}: dtype: expected one of {', '.join(DTYPES)}, "
                                        f"found {data['dtype']!r:.60}")
            dtype = np.dtype(data["dtype"])
            bounds = [np.full(tuple(int(v) for v in data["box"]), data[side], dtype=dtype)
                      if isinstance(data[side], int | float) else np.asarray(data[side], dtype)
                      for side in ("low", "high")]
            return spaces.Box(bounds[0], bounds[1], dtype=dtype)
        if "discrete" in data:
            if not within(data["discrete"], MAX_SPACE_SIZE, 1):
                raise LearnedModelError(f"{where}: discrete: expected an integer from 1 to "
                                        f"{MAX_SPACE_SIZE}, found {data['discrete']!r:.60}")
            return spaces.Discrete(int(data["discrete"]))
        if "multi_discrete" in data:
            counts = data["multi_discrete"]
            if not (isinstance(counts, list) and len(counts) <= MAX_SPACE_SIZE
                    and all(within(v, MAX_SPACE_SIZE, 1) for v in counts)):
                raise LearnedModelError(f"{where}: multi_discrete: expected integers from 1 to "
                                        f"{MAX_SPACE_SIZE}, found {counts!r:.60}")
            return spaces.MultiDiscrete([int(v) for v in counts])
    except (KeyError, TypeError, ValueError, FloatingPointError, Warning) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise LearnedModelError(f"{where}: malformed space ({first})") from None
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
        _check_windows(extractor.get("square_windows", []), int(action_space.n), where)
        kwargs["features_extractor_kwargs"] = extractor
    try:
        return policy_class(observation_space, action_space, lambda _: 0.0, **kwargs)
    except (TypeError, ValueError, KeyError, IndexError, RuntimeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LearnedModelError(f"{where}: cannot build a {kind} policy from its settings "
                                f"({first})") from None


def _check_windows(windows: Any, actions: int, where: str) -> None:
    """A spatial policy's square windows, ``(offset, rx, ry)`` each, cover at most the
    action space's indices (so a file cannot ask for a huge head)."""
    field = f"{where}: policy.features_extractor.square_windows"
    if not (isinstance(windows, list) and all(
            isinstance(window, list) and len(window) == 3
            and all(within(v, actions, 0) for v in window) for window in windows)):
        raise LearnedModelError(f"{field}: expected [offset, rx, ry] lists of integers from "
                                f"0 to {actions}, found {windows!r:.60}")
    squares = sum((2 * rx + 1) * (2 * ry + 1) for _, rx, ry in windows)
    if squares > actions:
        raise LearnedModelError(f"{field}: expected windows of at most the {actions} "
                                f"actions in all, found {squares}")


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

    def fit_shapes(self) -> tuple[dict[str, tuple[int, ...]], int]:
        """The observation shapes and the action count the policy was trained on."""
        return observation_shapes(self.observation_space), int(self.action_space.n)

    def probabilities(self, observation: dict[str, Any], mask: Any) -> Any:
        """The policy's masked action probabilities (float64) for one observation."""
        import numpy as np
        import torch

        tensors, _ = self.policy.obs_to_tensor(observation)
        with torch.no_grad():
            dist = self.policy.get_distribution(tensors, action_masks=mask.astype(bool)[None])
            return dist.distribution.probs[0].cpu().numpy().astype(np.float64)


def observation_shapes(space: Any) -> dict[str, tuple[int, ...]]:
    """The shapes of an env observation space's parts (``decision``: its sizes)."""
    parts = {key: tuple(space[key].shape) for key in ("planes", "units", "globals")}
    parts["decision"] = tuple(int(v) for v in space["decision"].nvec)
    return parts


def _read_description(path: Path) -> dict[str, Any]:
    nested = f"JSON nested at most {MAX_NESTING} deep"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise LearnedModelError(f"{path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise LearnedModelError(f"{path}: not JSON ({exc})") from None
    except RecursionError:
        raise LearnedModelError(f"{path}: expected {nested}, got deeper than Python can "
                                f"read") from None
    if nesting_depth(data) > MAX_NESTING:
        raise LearnedModelError(f"{path}: expected {nested}, got deeper")
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
    _check_agent_specs(path, data)
    _check_policy_settings(path, data["policy"])
    return data


def _check_agent_specs(path: Path, data: dict[str, Any]) -> None:
    """The agents a model names (a selector's ``options``, a residual model's
    ``advisor``, and their copies in ``policy.features_extractor``) are data: registered
    agents that load no file and ask for no trust (``agents.spec.check_file_spec``)."""
    from agents.options import HOLDS
    from agents.spec import check_file_spec

    extractor = data["policy"].get("features_extractor")
    places = [("", data)] + ([("policy.features_extractor.", extractor)]
                             if isinstance(extractor, dict) else [])
    for prefix, where in places:
        options, advisor = where.get("options"), where.get("advisor")
        if options is not None and not (isinstance(options, list) and options
                                        and all(isinstance(o, str) for o in options)):
            raise LearnedModelError(f"{path}: {prefix}options: expected a list of agent "
                                    f"specs or null, found {options!r:.60}")
        if advisor is not None and not isinstance(advisor, str):
            raise LearnedModelError(f"{path}: {prefix}advisor: expected an agent spec or "
                                    f"null, found {advisor!r:.60}")
        named = [(f"{prefix}options[{index}]", spec)
                 for index, spec in enumerate(options or [])]
        for field, spec in [*named, (f"{prefix}advisor", advisor)]:
            if spec is None:
                continue
            try:
                check_file_spec(spec)
            except ValueError as exc:
                raise LearnedModelError(f"{path}: {field}: {exc}") from None
        hold = where.get("option_hold", "decision")
        if hold is not None and hold not in HOLDS:
            raise LearnedModelError(f"{path}: {prefix}option_hold: expected one of "
                                    f"{', '.join(HOLDS)}, found {hold!r:.60}")


#: the extractor settings that are a layer's width (rules.limits.MAX_NETWORK_WIDTH)
WIDTHS = ("cnn_channels", "unit_dim", "features_dim", "first_channels", "head_channels",
          "context_channels", "pointer_heads")


def _check_policy_settings(path: Path, settings: dict[str, Any]) -> None:
    """The network a model describes is bounded (rules/limits.py) before it is built:
    each layer at most MAX_NETWORK_WIDTH wide, at most 16 layers."""
    arch = settings.get("net_arch")
    stacks = ([arch.get("pi"), arch.get("vf")] if isinstance(arch, dict) else [arch])
    if not all(isinstance(stack, list) and len(stack) <= 16
               and all(within(width, MAX_NETWORK_WIDTH, 1) for width in stack)
               for stack in stacks):
        raise LearnedModelError(f"{path}: policy.net_arch: expected a list (or pi/vf lists) "
                                f"of at most 16 layer widths from 1 to {MAX_NETWORK_WIDTH}, "
                                f"found {arch!r:.60}")
    extractor = settings.get("features_extractor")
    for key in WIDTHS:
        if isinstance(extractor, dict) and key in extractor and not within(
                extractor[key], MAX_NETWORK_WIDTH, 1):
            raise LearnedModelError(f"{path}: policy.features_extractor.{key}: expected an "
                                    f"integer from 1 to {MAX_NETWORK_WIDTH}, found "
                                    f"{extractor[key]!r:.60}")


def _check_layout(path: Path, layout: dict[str, Any]) -> None:
    """The model's encoding must be this fray's: same version, same names in order."""
    now = current_layout()
    for key, value in now.items():
        if layout.get(key) != value:
            found = layout.get(key)
            if isinstance(value, list) and isinstance(found, list):
                extra = [str(n) for n in found if n not in value][:3]
                missing = [str(n) for n in value if n not in found][:3]
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
    if len(raw) > 9 and raw[8:9] == b"{" and int.from_bytes(raw[:8], "little") < len(raw):
        raise LearnedModelError(f"{weights}: expected weights written by torch.save (fray's "
                                f"format, docs/models.md), found a safetensors file")
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
