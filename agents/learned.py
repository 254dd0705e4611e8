"""``agents.make("learned:PATH")``: a trained policy playing its team.

``PATH`` is a model in fray's format (``NAME.json`` beside its weights ``NAME.pt``:
``agents/model_file.py``, docs/models.md), as ``fray train`` writes one beside every
checkpoint, or the name of a shipped model in ``agents/models`` (``learned:duel``,
``learned:skirmish``). Loading one runs no code from the files: the network is built
from the JSON with fray's own classes and the weights are tensors only.

A file that only unpickling can read (a stable-baselines3 ``.zip``, an RLlib checkpoint)
would run whatever code its author put in it, so it is refused in one line, unless the
spec says the file is trusted: ``learned:PATH.zip(trust_pickle=true)`` loads an sb3 zip
with ``MaskablePPO.load`` (RLlib checkpoints are never played).

The agent plays any decision of whichever team it commands: it builds the observation
and the exact action mask of the current decision with the env's own encoding
(:class:`env.core.ScenarioSetup`: the observation builder and the action codec), asks
the policy for masked action probabilities and decodes the chosen index back to a
:class:`rules.Action`. Deterministic (the most probable legal action) by default; with
``deterministic=False`` it samples from the masked distribution with its own seeded
generator, so a seed fixes its play.

A selector model (``fray train --options``, ``agents/options.py``) picks one of its
scripted options instead, and that option plays the decision; a residual model (``fray
train --advice``, ``agents/advice.py``) is shown its advisor's action.

A model fits a scenario when the scenario's observation shapes and action count equal
the ones it was trained on (same map size and unit count); otherwise ``act`` raises a
one-line :class:`rules.FrayError` naming both.

torch and stable-baselines3 are imported only when a learned agent is made, never at
``import agents`` time.
"""

from __future__ import annotations

import functools
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

import rules
from agents.base import SeededAgent, decision_of
from agents.model_file import (
    LearnedModelError,
    SavedPolicy,
    load_model_file,
    observation_shapes,
)
from agents.shipped import MODELS_DIR, SUFFIX, shipped_models
from agents.spec import Option
from rules import Action, Battle

__all__ = ["MODELS_DIR", "SUFFIX", "LearnedAgent", "LearnedModelError", "load_model",
           "make_learned", "resolve_model", "shipped_models"]


def resolve_model(spec: str | Path) -> Path:
    """The file of ``learned:spec``: a shipped model's name, or a path to a model's JSON
    (the suffix may be left off), an sb3 ``.zip`` or an RLlib checkpoint folder."""
    text = str(spec)
    if not text:
        raise LearnedModelError("learned: expected a shipped model name "
                                f"({', '.join(shipped_models()) or 'none'}) or a path")
    shipped = MODELS_DIR / f"{text}{SUFFIX}"
    if "/" not in text and shipped.is_file():
        return shipped
    path = Path(text).expanduser()
    if path.is_file() or path.is_dir():
        return path
    for suffix in (SUFFIX, ".zip"):
        if path.with_suffix(suffix).is_file():
            return path.with_suffix(suffix)
    raise LearnedModelError(f"learned:{text}: no such model file (shipped models: "
                            f"{', '.join(shipped_models()) or 'none'})")


def _refuse_pickled(path: Path, trust_pickle: bool) -> None:
    """A one-line refusal of files that need unpickling (unless trusted, for sb3 zips)."""
    if path.is_dir():
        raise LearnedModelError(
            f"learned:{path}: a folder (an RLlib checkpoint?) is pickled state, which "
            f"learned: never loads; learned: plays fray model files (NAME.json + NAME.pt, "
            f"docs/models.md)")
    if path.suffix == ".pt":
        raise LearnedModelError(f"learned:{path}: weights alone; give the model's JSON beside "
                                f"them ({path.with_suffix(SUFFIX).name}), which describes the "
                                f"network they fill")
    if zipfile.is_zipfile(path) and not trust_pickle:
        beside = path.with_suffix(SUFFIX)
        safe = (f"play the fray model beside it ({beside.name}, tensors only)"
                if beside.is_file() else "ask its author for the fray model (NAME.json + "
                "NAME.pt, tensors only)")
        raise LearnedModelError(
            f"learned:{path}: a stable-baselines3 zip is unpickled when loaded, which can "
            f"run any code its author put in it; {safe}, or, if you trust this file, "
            f"learned:{path}(trust_pickle=true) (docs/models.md)")
    if path.suffix != SUFFIX and not zipfile.is_zipfile(path):
        raise LearnedModelError(f"learned:{path}: not a fray model (expected NAME.json "
                                f"beside its weights NAME.pt, docs/models.md)")


class _TrustedZip(SavedPolicy):
    """A MaskablePPO zip the user trusts, seen as a :class:`SavedPolicy`."""

    def __init__(self, model: Any) -> None:
        extractor = model.policy.features_extractor
        super().__init__(model.policy, {
            "advisor": getattr(extractor, "advisor", None),
            "options": getattr(extractor, "options", None),
            "option_hold": getattr(extractor, "option_hold", "decision")})
        self.model = model


@functools.lru_cache(maxsize=16)
def _load(path: str, version: tuple[int, ...], trust_pickle: bool) -> SavedPolicy:
    """A model loaded once per file version (``version``: the files' mtimes)."""
    file = Path(path)
    _refuse_pickled(file, trust_pickle)
    if file.suffix == SUFFIX:
        from agents.policy_value import is_network_file, load_policy

        if is_network_file(file):  # fray train --backend batched's (agents/policy_value.py)
            return load_policy(file)
        return load_model_file(file)
    from sb3_contrib import MaskablePPO

    try:
        return _TrustedZip(MaskablePPO.load(path, device="cpu"))
    except (ValueError, KeyError, OSError, RuntimeError) as exc:
        raise LearnedModelError(f"learned:{path}: not a MaskablePPO checkpoint "
                                f"({str(exc).splitlines()[0] if str(exc) else exc!r})") from exc


def _version(path: Path) -> tuple[int, ...]:
    files = [path]
    if path.suffix == SUFFIX:
        files.append(path.with_suffix(".pt"))
    return tuple(f.stat().st_mtime_ns if f.exists() else 0 for f in files)


def load_model(spec: str | Path, trust_pickle: bool = False) -> SavedPolicy:
    """The policy of ``learned:spec`` (cached while its files are unchanged); an sb3 zip
    only with ``trust_pickle``."""
    path = resolve_model(spec)
    return _load(str(path.resolve()), _version(path), bool(trust_pickle))


_SETUPS: dict[tuple[str, str, str | None], Any] = {}


def native_env_available() -> bool:
    """Whether the engine's observation and mask encoders are built (env/native.py)."""
    from env import native

    return native.available()


def _setup(scenario: rules.Scenario, content_dir: str | None) -> Any:
    """The env's encoding of a scenario, built once per scenario text and content."""
    from env.core import ScenarioSetup

    key = (scenario.name, scenario.text, content_dir)
    if key not in _SETUPS:
        _SETUPS[key] = ScenarioSetup(scenario, content_dir)
    return _SETUPS[key]


class LearnedAgent(SeededAgent):
    """A trained policy (a :class:`agents.model_file.SavedPolicy`) playing its team."""

    name = "learned"
    #: the options of ``learned:PATH(...)`` (:func:`make_learned`'s keyword arguments)
    OPTIONS: tuple[Option, ...] = (
        Option("deterministic", bool, "Play the most probable legal action (false: sample "
               "from the masked distribution with the agent's seed)."),
        Option("trust_pickle", bool, "Load an sb3 zip, which runs its author's code when "
               "unpickled: only for a file you trust."),
    )

    def __init__(self, model: SavedPolicy, seed: int | None = None,
                 deterministic: bool = True, label: str = "learned") -> None:
        super().__init__(seed)
        self.model = model
        self.deterministic = bool(deterministic)
        self.label = label
        self._fits: dict[int, bool] = {}
        #: a residual model's advisor (``agents/advice.py``), made with this agent's seed
        self._advisor = None
        if model.advisor:
            from agents.advice import ADVICE_KEY
            from agents.factory import make

            if ADVICE_KEY in getattr(model.observation_space, "spaces", {}):
                self._advisor = make(model.advisor, seed=seed)
        #: a selector model's options (``agents/options.py``): its actions pick one of them
        self._options = None
        if model.options:
            from agents.options import OptionSelector

            self._options = OptionSelector(model.options, seed=seed, hold=model.option_hold)

    def _check_fits(self, setup: Any) -> None:
        key = id(setup)
        if key in self._fits:
            return
        want, n_model = self.model.fit_shapes()
        have = observation_shapes(setup.builder.spaces())
        n_scenario = len(self._options) if self._options is not None else int(setup.n)
        if want != have or n_model != n_scenario:
            raise LearnedModelError(
                f"{self.label} does not fit scenario {setup.scenario.name!r}: the model "
                f"expects {want} and {n_model} actions, the scenario has {have} and "
                f"{n_scenario} actions")
        self._fits[key] = True

    @property
    def options(self) -> list[str] | None:
        """A selector model's options (agent specs), or None for a model over actions."""
        return None if self._options is None else list(self._options.names)

    def probabilities(self, battle: Battle) -> tuple[np.ndarray, Any]:
        """The masked probabilities of the current decision's actions (of the options,
        for a selector model), and the setup."""
        decision = decision_of(battle)
        setup = _setup(battle.scenario, battle.content_dir)
        self._check_fits(setup)
        team = battle.combatants[decision.actor].team
        if battle.engine == "native" and native_env_available():  # the engine's encoders
            layouts = setup.native_layouts()
            obs = layouts.observe(battle, team, decision.actor)
            mask = layouts.mask(battle)[0]
        else:
            obs = setup.builder.build(battle, team, decision.actor)
            mask = setup.codec.mask(battle)
        obs["action_mask"] = mask
        if self._options is not None:
            mask = np.ones(len(self._options), dtype=np.int8)
        if self._advisor is not None:
            from agents.advice import ADVICE_KEY, advice_index

            obs[ADVICE_KEY] = advice_index(battle, setup.codec, self._advisor)
        probs = self.model.probabilities(obs, mask)
        probs = np.where(mask.astype(bool), probs, 0.0)
        return probs, setup

    def act(self, battle: Battle) -> Action:
        """The policy's action for ``battle.decision`` (always legal: the mask is exact);
        a selector model's chosen (or still held) option's action."""
        if self._options is not None:
            return self._options.act(battle, lambda: self._choice(battle)[0])
        index, setup = self._choice(battle)
        decision = battle.decision
        assert decision is not None
        action = setup.codec.decode(battle, decision.actor, index)
        if action is None:  # pragma: no cover - the mask only holds decodable indices
            raise LearnedModelError(f"{self.label} chose index {index}, which names nothing")
        return action

    def _choice(self, battle: Battle) -> tuple[int, Any]:
        """The chosen index (most probable, or sampled), and the setup."""
        probs, setup = self.probabilities(battle)
        if self.deterministic or probs.sum() <= 0:
            return int(np.argmax(probs)), setup
        return int(self.rng.choice(len(probs), p=probs / probs.sum())), setup

    def __repr__(self) -> str:
        return f"LearnedAgent({self.label!r}, deterministic={self.deterministic})"


def make_learned(spec: str, seed: int | None = None, deterministic: bool = True,
                 trust_pickle: bool = False) -> LearnedAgent:
    """The factory behind ``agents.make("learned:PATH")``; ``trust_pickle=True`` (written
    ``learned:PATH.zip(trust_pickle=true)``) is the user's word that an sb3 zip is safe to
    unpickle."""
    return LearnedAgent(load_model(spec, trust_pickle=trust_pickle), seed=seed,
                        deterministic=deterministic, label=f"learned:{spec}")
