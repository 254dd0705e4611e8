"""``agents.make("learned:PATH")``: a trained MaskablePPO policy playing its team.

``PATH`` is a checkpoint written by ``fray train`` (a stable-baselines3 ``.zip``) or the
name of a shipped model in ``agents/models`` (``learned:duel``, ``learned:skirmish``).
The agent plays any decision of whichever team it commands: it builds the observation
and the exact action mask of the current decision with the env's own encoding
(:class:`env.core.ScenarioSetup`: the observation builder and the action codec), asks
the policy for masked action probabilities and decodes the chosen index back to a
:class:`rules.Action`. Deterministic (the most probable legal action) by default; with
``deterministic=False`` it samples from the masked distribution with its own seeded
generator, so a seed fixes its play.

A selector model (``fray train --options``, ``agents/options.py``) picks one of its scripted
options instead, and that option plays the decision.

A model fits a scenario when the scenario's observation shapes and action count equal
the ones it was trained on (same map size and unit count); otherwise ``act`` raises a
one-line :class:`rules.FrayError` naming both.

torch and stable-baselines3 are imported only when a learned agent is made, never at
``import agents`` time.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

import rules
from agents.base import SeededAgent, decision_of
from rules import Action, Battle

MODELS_DIR = Path(__file__).resolve().parent / "models"


class LearnedModelError(rules.FrayError):
    """A learned model that cannot be found, loaded, or does not fit the battle."""


def shipped_models() -> list[str]:
    """Names of the models shipped in ``agents/models`` (``learned:NAME``)."""
    return sorted(p.stem for p in MODELS_DIR.glob("*.zip"))


def resolve_model(spec: str | Path) -> Path:
    """The file of ``learned:spec``: a shipped model's name or a path to a ``.zip``."""
    text = str(spec)
    if not text:
        raise LearnedModelError("learned: expected a shipped model name "
                                f"({', '.join(shipped_models()) or 'none'}) or a path")
    shipped = MODELS_DIR / f"{text}.zip"
    if "/" not in text and shipped.is_file():
        return shipped
    path = Path(text).expanduser()
    if path.is_file():
        return path
    if path.with_suffix(".zip").is_file():
        return path.with_suffix(".zip")
    raise LearnedModelError(f"learned:{text}: no such model file (shipped models: "
                            f"{', '.join(shipped_models()) or 'none'})")


@functools.lru_cache(maxsize=16)
def _load(path: str, mtime_ns: int) -> Any:
    """A MaskablePPO model loaded once per file version (``mtime_ns`` keys the cache)."""
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(path, device="cpu")
    except (ValueError, KeyError, OSError, RuntimeError) as exc:
        raise LearnedModelError(f"learned:{path}: not a MaskablePPO checkpoint ({exc})") from exc


def load_model(spec: str | Path) -> Any:
    """The MaskablePPO model of ``learned:spec`` (cached while the file is unchanged)."""
    path = resolve_model(spec)
    return _load(str(path.resolve()), path.stat().st_mtime_ns)


_SETUPS: dict[tuple[str, str, str | None], Any] = {}


def _setup(scenario: rules.Scenario, content_dir: str | None) -> Any:
    """The env's encoding of a scenario, built once per scenario text and content."""
    from env.core import ScenarioSetup

    key = (scenario.name, scenario.text, content_dir)
    if key not in _SETUPS:
        _SETUPS[key] = ScenarioSetup(scenario, content_dir)
    return _SETUPS[key]


def _shapes(space: Any) -> dict[str, tuple[int, ...]]:
    parts = {key: tuple(space[key].shape) for key in ("planes", "units", "globals")}
    parts["decision"] = tuple(int(v) for v in space["decision"].nvec)
    return parts


class LearnedAgent(SeededAgent):
    """A trained policy (a MaskablePPO model or a path to one) playing its team."""

    name = "learned"

    def __init__(self, model: Any, seed: int | None = None, deterministic: bool = True,
                 label: str = "learned") -> None:
        super().__init__(seed)
        self.model = model
        self.deterministic = bool(deterministic)
        self.label = label
        self._fits: dict[int, bool] = {}
        #: a residual model's advisor (``agents/advice.py``), made with this agent's seed
        self._advisor = None
        advisor = getattr(model.policy.features_extractor, "advisor", None)
        if advisor:
            from agents import make
            from agents.advice import ADVICE_KEY

            if ADVICE_KEY in getattr(model.observation_space, "spaces", {}):
                self._advisor = make(advisor, seed=seed)
        #: a selector model's options (``agents/options.py``): its actions pick one of them
        self._options = None
        options = getattr(model.policy.features_extractor, "options", None)
        if options:
            from agents.options import OptionSelector

            hold = getattr(model.policy.features_extractor, "option_hold", "decision")
            self._options = OptionSelector(options, seed=seed, hold=hold)

    def _check_fits(self, setup: Any) -> None:
        key = id(setup)
        if key in self._fits:
            return
        want = _shapes(self.model.observation_space)
        have = _shapes(setup.builder.spaces())
        n_model = int(self.model.action_space.n)
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
        import torch

        decision = decision_of(battle)
        setup = _setup(battle.scenario, battle.content_dir)
        self._check_fits(setup)
        team = battle.combatants[decision.actor].team
        obs = setup.builder.build(battle, team, decision.actor)
        mask = setup.codec.mask(battle)
        obs["action_mask"] = mask
        if self._options is not None:
            mask = np.ones(len(self._options), dtype=np.int8)
        if self._advisor is not None:
            from agents.advice import ADVICE_KEY, advice_index

            obs[ADVICE_KEY] = advice_index(battle, setup.codec, self._advisor)
        policy = self.model.policy
        tensors, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            dist = policy.get_distribution(tensors, action_masks=mask.astype(bool)[None])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
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


def make_learned(spec: str, seed: int | None = None, deterministic: bool = True) -> LearnedAgent:
    """The factory behind ``agents.make("learned:PATH")``."""
    return LearnedAgent(load_model(spec), seed=seed, deterministic=deterministic,
                        label=f"learned:{spec}")
