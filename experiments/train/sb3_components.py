"""What a ``fray train`` run's MaskablePPO is made of, from its
:class:`experiments.train.sb3.TrainConfig`:

- its policy network: :func:`policy_spec` (``--policy``: ``fray``, ``fray-spatial`` or
  ``mlp``) and the Adam options every one of them trains with (:func:`adam_options`);
- the vector env it collects on: :func:`make_vec_env`, the batched native vector env
  when it can run the run's opponents and options (:func:`batched_vec_env`), else
  Gymnasium envs (in subprocesses that ignore SIGTERM when more than one).

:mod:`experiments.train.sb3` runs the training and re-exports these names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from experiments.train.opponents import SELF, OpponentPool, OpponentPoolWrapper
from experiments.workers import ignore_interrupts

if TYPE_CHECKING:
    from experiments.train.sb3 import TrainConfig

POLICIES = ("fray", "fray-spatial", "mlp")


def policy_spec(name: str, scenario: str | None = None, advisor: str | None = None,
                options: list[str] | None = None,
                option_hold: str = "decision") -> tuple[Any, dict[str, Any]]:
    """The sb3 policy and its kwargs: ``fray`` (CNN + per-unit encoder), ``fray-spatial``
    (the same plus a square-by-square head for moves, which needs the ``scenario`` for
    its action layout; ``agents/spatial.py``) or ``mlp``. ``advisor``: the scripted agent
    whose action the env's ``advice`` key names (``fray-spatial`` only). ``options``: the
    scripted agents a selector's actions name (``agents/options.py``; ``fray`` only, whose
    extractor keeps their names and ``option_hold`` in the checkpoint)."""
    if advisor is not None and name != "fray-spatial":
        raise ValueError(f"--advice: needs --policy fray-spatial, got --policy {name}")
    if options and name != "fray":
        raise ValueError(f"--options: needs --policy fray, got --policy {name}")
    fray_kwargs: dict[str, Any] = {"first_channels": 16, "downsample": True}
    if name == "fray":
        from agents.features import FrayExtractor

        if options:
            fray_kwargs["options"] = list(options)
            fray_kwargs["option_hold"] = option_hold
        return "MultiInputPolicy", {"features_extractor_class": FrayExtractor,
                                    "features_extractor_kwargs": fray_kwargs,
                                    "net_arch": [128, 128],
                                    "optimizer_kwargs": adam_options()}
    if name == "fray-spatial":
        from agents.spatial import FraySpatialPolicy, SpatialFrayExtractor
        from env.core import ScenarioSetup
        from env.observation import PLANES, UNIT_FEATURES

        if scenario is None:
            raise ValueError("--policy fray-spatial needs the scenario (its action layout)")
        windows = [list(w) for w in ScenarioSetup(scenario).codec.square_windows()]
        return FraySpatialPolicy, {
            "features_extractor_class": SpatialFrayExtractor,
            "features_extractor_kwargs": {
                **fray_kwargs, "square_windows": windows,
                "decider_plane": PLANES.index("decider"),
                "unit_xy": [UNIT_FEATURES.index("x"), UNIT_FEATURES.index("y")],
                "advisor": advisor},
            "net_arch": [128, 128], "optimizer_kwargs": adam_options()}
    if name == "mlp":
        return "MultiInputPolicy", {"net_arch": [128, 128], "optimizer_kwargs": adam_options()}
    raise ValueError(f"--policy: expected one of {', '.join(POLICIES)}, got {name!r}")


def adam_options() -> dict[str, Any]:
    """PPO's Adam options: the fused update where this torch has it for the CPU (one
    kernel over every parameter instead of a loop of small tensor operations; on
    ``fray/Skirmish-v0``'s 7,839-value observation the optimizer step was a sixth of
    the learner's time), else torch's default."""
    import torch

    try:
        torch.optim.Adam([torch.zeros(1, requires_grad=True)], fused=True)
    except (RuntimeError, TypeError):  # an older torch: no fused Adam on the CPU
        return {}
    return {"fused": True}


def _make_env(config: TrainConfig, rank: int) -> Any:
    """A factory for env ``rank`` (picklable for SubprocVecEnv)."""

    def build() -> Any:
        import gymnasium as gym
        import torch
        from stable_baselines3.common.monitor import Monitor

        import env  # noqa: F401  (registers the ids)
        from experiments.heap import freeze_shared

        torch.set_num_threads(1)
        base = gym.make("fray/Skirmish-v0", scenario=config.scenario, team=config.team,
                        opponent="random", damage_reward=config.damage_reward)
        if config.advice:
            from agents.advice import AdviceWrapper

            base = AdviceWrapper(base, config.advice, seed=config.seed * 1000 + rank)
        if config.options:
            from agents.options import OptionsWrapper

            base = OptionsWrapper(base, config.options, seed=config.seed * 1000 + rank,
                                  hold=config.option_hold)
        pool = OpponentPool(config.opponents, config.checkpoint_dir,
                            seed=config.seed * 1000 + rank)
        wrapped = OpponentPoolWrapper(base, pool)
        wrapped.reset(seed=config.seed * 1000 + rank)
        freeze_shared()  # content and map graph built: out of the collector's way
        return Monitor(wrapped, info_keywords=("opponent",))

    return build


def make_vec_env(config: TrainConfig) -> Any:
    """``config.envs`` envs: the batched native vector env (``config.envs`` battles stepped
    in one native call in this process, :func:`batched_vec_env`) when it can run them,
    else Gymnasium envs, in subprocesses when more than one."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    batched = None if config.subprocesses else batched_vec_env(config)
    if batched is not None:
        return batched
    factories = [_make_env(config, rank) for rank in range(config.envs)]
    if config.envs > 1:
        return SubprocVecEnv([_ignoring_terminate(f) for f in factories],
                             start_method="forkserver")
    return DummyVecEnv(factories)


class PoolOpponents:
    """The vector env's opponent factory: each episode's opponent drawn from the pool (the
    agent made with the env's seed for it)."""

    def __init__(self, pool: OpponentPool) -> None:
        self.pool = pool

    def __call__(self, seed: int | None) -> Any:
        _, spec = self.pool.sample()
        return spec(seed)


def batched_vec_env(config: TrainConfig) -> Any:
    """sb3's VecEnv over the batched native vector env (env/vector.py, env/sb3.py) with
    ``config.envs`` battles, each episode's opponent drawn from the pool; None when it
    cannot run them: no native engine, an opponent or an option without a native form
    (``self``, a learned model), options held longer than a decision, or ``--advice``
    (a wrapper of single envs). Selector row ``i``'s options are seeded as the single
    env of rank ``i``'s."""
    import agents
    from env import native
    from rules import bridge

    if config.advice or not native.available():
        return None
    if config.options and (config.option_hold != "decision" or any(
            bridge.twin_of(agents.make(name, seed=0)) is None for name in config.options)):
        return None
    for name in config.opponents:
        if name == SELF or bridge.twin_of(agents.make(name, seed=0)) is None:
            return None
    from stable_baselines3.common.vec_env import VecMonitor

    from env.sb3 import FrayVecEnv
    from env.vector import SkirmishVectorEnv

    pool = OpponentPool(config.opponents, config.checkpoint_dir, seed=config.seed * 1000)
    options = None
    if config.options:
        from agents.options import option_twins

        options = option_twins(config.options, config.seed * 1000, config.envs)
    vector = SkirmishVectorEnv(config.envs, config.scenario, PoolOpponents(pool),
                               team=config.team, damage_reward=config.damage_reward,
                               options=options)
    vec = FrayVecEnv(vector)
    vec.seed(config.seed * 1000)
    return VecMonitor(vec, info_keywords=("opponent",))


def _ignoring_terminate(factory: Callable[[], Any]) -> Callable[[], Any]:
    """``factory`` run in an env subprocess that ignores SIGTERM and SIGINT: ``timeout``
    and Ctrl-C signal the whole process group, and the run, not the signal, closes its
    envs (a Ctrl-C killed each env with a KeyboardInterrupt traceback; issue 50)."""
    def make() -> Any:
        ignore_interrupts()
        return factory()
    return make
