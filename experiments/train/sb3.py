"""``fray train`` with stable-baselines3: MaskablePPO on the fray env.

The output folder holds everything a run writes, as it goes:

- ``config.json``: the run's settings (a resumed run keeps the first ones);
- ``checkpoints/step_<N>.json`` and ``.pt``: the policy in fray's model format
  (``agents/model_file.py``, docs/models.md: tensors and a JSON description, no pickle)
  every ``checkpoint_every`` steps and at the end; ``agents.make("learned:DIR/
  checkpoints/step_N.json")`` plays it, and they are the frozen policies ``self`` draws
  from in an opponent pool;
- ``checkpoints/step_<N>.zip``: the trainer's state beside it (MaskablePPO's zip, with
  the optimizer), which ``--resume`` reads: a pickle, so resume only runs you trust;
- ``eval.csv``: evaluation rows (win rate and Wilson interval per opponent);
- ``tb/``: TensorBoard logs, when tensorboard is installed.

``resume=True`` loads the newest checkpoint and continues its step count up to
``steps`` in total. A SIGTERM (``timeout``, a batch scheduler) or a SIGINT (Ctrl-C) during
PPO stops a run cleanly within a step or two and returns the checkpoint it saves, so
``--resume`` continues from it (issue 50):

- while the envs collect a rollout: the checkpoint at the next step (the policy as it
  stands; the rollout collected so far is dropped, its steps stay counted);
- during a PPO update (tens of seconds on a loaded machine): the update is abandoned at
  once and the policy and optimizer are put back as they were before it (a copy taken at
  every rollout's end), so the checkpoint is the policy that collected that rollout, never
  a half-updated one; the rollout is dropped, its steps stay counted;
- outside PPO (the warm start, an evaluation): a SIGTERM saves at the next step after it
  (after cloning, when it arrives during a warm start); a SIGINT stops at once as a
  Ctrl-C does, keeping the checkpoints already written.

Env subprocesses ignore both signals and are closed by the run.

The run's policy network and vector env are built in :mod:`experiments.train.sb3_components`
(``policy_spec``, ``make_vec_env``, ... are re-exported here).
"""

from __future__ import annotations

import copy
import csv
import importlib.util
import json
import os
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from experiments.train.evaluation import TRAIN_LOG
from experiments.train.opponents import SELF, SELF_FALLBACK
from experiments.train.sb3_components import POLICIES as POLICIES
from experiments.train.sb3_components import PoolOpponents as PoolOpponents
from experiments.train.sb3_components import adam_options as adam_options
from experiments.train.sb3_components import batched_vec_env as batched_vec_env
from experiments.train.sb3_components import make_vec_env as make_vec_env
from experiments.train.sb3_components import policy_spec as policy_spec
from experiments.train.stages import TRAINED_SHARE, Stages, imitation_stages
from experiments.train.stopping import (
    COLLECTING,
    STOPPING,
    UPDATING,
    StopRequest,
    UpdateStopped,
    stop_on_terminate,
)


@dataclass
class TrainConfig:
    """Settings of one training run (the ``fray train`` options)."""

    scenario: str
    out: str
    team: str = "monsters"
    opponents: list[str] = field(default_factory=lambda: ["berserker"])
    steps: int = 100_000
    envs: int = 1
    #: one subprocess per env (Gymnasium envs) instead of the batched native vector env
    subprocesses: bool = False
    eval_every: int = 0
    eval_battles: int = 100
    checkpoint_every: int = 10_000
    seed: int = 0
    policy: str = "fray"
    damage_reward: float = 0.5
    n_steps: int = 512
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    ent_coef: float = 0.01
    clip_range: float = 0.2
    gamma: float = 0.99
    imitate: list[str] = field(default_factory=list)
    imitate_battles: int = 200
    imitate_epochs: int = 8
    imitate_rounds: int = 0
    imitate_data: str | None = None
    imitate_keep: int = 0
    imitate_keep_steps: int = 0
    init: str | None = None
    advice: str | None = None
    options: list[str] = field(default_factory=list)
    option_prior: float = 3.0
    option_hold: str = "decision"
    #: battles a party of the final evaluation (experiments/train/final_evaluation.py;
    #: ``fray train`` defaults to 200, 0: none)
    final_eval_battles: int = 0
    progress: bool = True

    @property
    def checkpoint_dir(self) -> Path:
        return Path(self.out) / "checkpoints"


def latest_checkpoint(out: str | Path) -> Path | None:
    """The newest ``checkpoints/step_*.zip`` of a run, or None."""
    found = sorted((Path(out) / "checkpoints").glob("step_*.zip"))
    return found[-1] if found else None


def checkpoint_path(config: TrainConfig, steps: int) -> Path:
    """Where the checkpoint at ``steps`` goes (zero-padded: names sort by step)."""
    return config.checkpoint_dir / f"step_{steps:010d}.zip"


def write_checkpoint(model: Any, config: TrainConfig) -> Path:
    """The checkpoint at the model's step: the trainer's zip (for ``--resume``) and the
    policy in fray's model format beside it; returns the model's ``.json``."""
    from agents.model_file import save_model_file

    path = checkpoint_path(config, model.num_timesteps)
    model.save(path)
    return save_model_file(model.policy, path.with_suffix(".json"), scenario=config.scenario,
                           team=config.team, trained={"algorithm": "MaskablePPO",
                                                      "steps": int(model.num_timesteps),
                                                      "policy": config.policy,
                                                      "opponents": config.opponents})


def quiet_logger() -> Any:
    """A logger that writes nowhere, for a model with no tensorboard folder: without one,
    stable-baselines3 makes a new empty ``/tmp/SB3-<time>`` folder at every ``learn``."""
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


def update_thread_count() -> int:
    """Torch threads for PPO's update (and the kept cloning loss): every core this process
    may use, since the envs wait while the policy updates; rollouts use one."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


@contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Torch uses ``count`` threads inside the block, its previous count after."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def _callback(config: TrainConfig, total: int, cloning: Any = None,
              stop: StopRequest | None = None, stages: Stages | None = None) -> Any:
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    from experiments.train.evaluation import FIELDS, evaluate, row

    update_threads = update_thread_count()

    class FrayCallback(BaseCallback):
        """Progress bar, checkpoints and evaluations during ``learn``."""

        def _on_training_start(self) -> None:
            # smoothing=0: the rate over the whole run, PPO's updates included (a moving
            # rate shows only the collecting speed, between updates)
            self.bar = tqdm(total=total, initial=self.num_timesteps, unit="step",
                            desc=f"train {config.scenario}", disable=not config.progress,
                            dynamic_ncols=True, smoothing=0)
            self.episodes = 0
            self.wins = 0
            self.recent: deque[bool] = deque(maxlen=200)
            self.last_checkpoint = self.num_timesteps
            self.last_eval = self.num_timesteps
            self.first_step = self.num_timesteps
            self.advance = None if stages is None else stages.begin("PPO")

        def _on_rollout_start(self) -> None:
            torch.set_num_threads(1)          # the envs have the cores while collecting
            self.set_phase(COLLECTING)

        def _on_rollout_end(self) -> None:
            # the policy that collected this rollout, put back if a signal stops the update
            self.before_update = (copy.deepcopy(self.model.policy.state_dict()),
                                  copy.deepcopy(self.model.policy.optimizer.state_dict()))
            self.set_phase(UPDATING)
            if stop is not None and stop.signal is not None:  # came after the last step
                raise UpdateStopped
            torch.set_num_threads(update_threads)  # and wait while the policy updates
            if cloning is not None:
                cloning.update(self.num_timesteps - self.first_step)

        def set_phase(self, phase: str | None) -> None:
            if stop is not None:
                stop.phase = phase

        def update_stopped(self) -> Path:
            """After :class:`UpdateStopped`: the policy and optimizer as before the update,
            saved; the checkpoint's path."""
            self._on_training_end()
            self.set_phase(STOPPING)
            policy, optimizer = self.before_update
            self.model.policy.load_state_dict(policy)
            self.model.policy.optimizer.load_state_dict(optimizer)
            self.model.policy.set_training_mode(False)
            path = self.save()
            tqdm.write(f"signal {stop.signal if stop else '?'} during a PPO update: the "
                       f"update is dropped; saved {path} (the policy before it); stopping "
                       f"(--resume continues from it)")
            return path

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
                if done:
                    won = info.get("winner") == config.team
                    self.episodes += 1
                    self.wins += won
                    self.recent.append(won)
            if self.advance is not None:
                self.advance(self.num_timesteps - self.bar.n)
            self.bar.update(self.num_timesteps - self.bar.n)
            if self.episodes:
                self.bar.set_postfix(episodes=self.episodes,
                                     win=f"{self.wins / self.episodes:.2f}",
                                     recent=f"{sum(self.recent) / len(self.recent):.2f}",
                                     refresh=False)
            if (config.checkpoint_every
                    and self.num_timesteps - self.last_checkpoint >= config.checkpoint_every):
                self.save()
            if config.eval_every and self.num_timesteps - self.last_eval >= config.eval_every:
                self.set_phase(None)
                self.evaluate()
                self.set_phase(COLLECTING)
            if stop is not None and stop.signal is not None:
                self.set_phase(STOPPING)
                path = self.save()
                tqdm.write(f"signal {stop.signal}: saved {path}; stopping "
                           f"(--resume continues from it)")
                return False
            return True

        def save(self) -> Path:
            self.last_checkpoint = self.num_timesteps
            return write_checkpoint(self.model, config)

        def evaluate(self) -> None:
            self.last_eval = self.num_timesteps
            path = self.save()
            out = Path(config.out) / "eval.csv"
            for opponent in config.opponents:
                if opponent == SELF:
                    continue
                tally = evaluate(config.scenario, config.team, f"learned:{path}", opponent,
                                 config.eval_battles, seed=10**6, progress=config.progress,
                                 log=out.parent / TRAIN_LOG)
                self.logger.record(f"eval/win_rate_{opponent}", tally.rate)
                tqdm.write(f"step {self.num_timesteps}: vs {opponent} {tally.text()}")
                new = not out.exists()
                with out.open("a", newline="") as handle:
                    writer = csv.DictWriter(handle, ("step", *FIELDS))
                    if new:
                        writer.writeheader()
                    writer.writerow({"step": self.num_timesteps,
                                     **row(config.scenario, config.team, path.stem,
                                           opponent, 10**6, tally)})

        def _on_training_end(self) -> None:
            self.set_phase(None)
            torch.set_num_threads(1)
            self.bar.close()

    return FrayCallback()


def demonstration_seed(config: TrainConfig) -> int:
    """The first demonstration battle's seed: ``10**6 * seed + 1000`` (battle ``i`` of the
    set has ``+ i``; DAgger round ``r`` adds ``r * 10**5``)."""
    return 10**6 * config.seed + 1000


def warm_start(model: Any, config: TrainConfig, stages: Stages | None = None) -> Any:
    """Behaviour cloning of ``config.imitate`` before PPO (``experiments.train.imitation``)
    on demonstrations collected here, or loaded from ``imitate_data`` when that file
    exists (written there after collecting otherwise),
    then ``imitate_rounds`` DAgger rounds (the policy plays ``imitate_battles // 2``
    battles, the demonstrator labels them, cloning goes on over everything for half the
    epochs); writes ``imitation.csv`` (one row per epoch) and the checkpoint at step 0;
    returns the cloning regulariser for PPO, or None without ``imitate_keep``.
    ``stages``: the run's overall bar (its stages from ``imitation_stages``)."""
    from experiments.train.imitation import (
        Demonstrations,
        collect,
        pretrain,
    )

    named = [name for name in config.opponents if name != SELF] or [SELF_FALLBACK]
    cached = Path(config.imitate_data) if config.imitate_data else None
    if cached is not None and cached.is_file():
        demos = Demonstrations.load(cached)
    else:
        demos = collect(config.scenario, config.team, config.imitate, named,
                        config.imitate_battles, seed=demonstration_seed(config),
                        damage_reward=config.damage_reward, gamma=config.gamma,
                        workers=config.envs, progress=config.progress,
                        advance=stages and stages.begin("demonstrations"))
        if cached is not None:
            demos.save(cached)
    tqdm.write(f"demonstrations: {config.imitate_battles} battles, {len(demos)} decisions, "
               f"the demonstrator won {demos.wins}")
    with torch_threads(update_thread_count()):
        history = pretrain(model.policy, demos, epochs=config.imitate_epochs,
                           batch_size=config.batch_size, seed=config.seed,
                           progress=config.progress,
                           advance=stages and stages.begin(
                               "behaviour cloning",
                               len(demos) * TRAINED_SHARE * config.imitate_epochs))
    for row in history:
        row["round"] = 0
    for round_number in range(1, config.imitate_rounds + 1):
        # DAgger: the policy plays, the demonstrator labels the states it reaches
        played = write_checkpoint(model, config)
        demos = demos + collect(
            config.scenario, config.team, config.imitate, named,
            max(1, config.imitate_battles // 2),
            seed=demonstration_seed(config) + round_number * 10**5,
            damage_reward=config.damage_reward, gamma=config.gamma, workers=config.envs,
            driver=f"learned:{played}", progress=config.progress,
            advance=stages and stages.begin(f"DAgger {round_number} demonstrations"))
        tqdm.write(f"DAgger round {round_number}: {len(demos)} decisions in all")
        with torch_threads(update_thread_count()):
            epochs = max(1, config.imitate_epochs // 2)
            more = pretrain(model.policy, demos, epochs=epochs,
                            batch_size=config.batch_size, seed=config.seed + round_number,
                            progress=config.progress,
                            advance=stages and stages.begin(
                                f"DAgger {round_number} cloning",
                                len(demos) * TRAINED_SHARE * epochs))
        history += [{**row, "round": round_number} for row in more]
    with (Path(config.out) / "imitation.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, ("round", "epoch", "loss", "train_accuracy",
                                         "held_out_accuracy"))
        writer.writeheader()
        writer.writerows(history)
    write_checkpoint(model, config)
    return kept_cloning(model, demos, config)


def kept_cloning(model: Any, demos: Any, config: TrainConfig) -> Any:
    """The cloning loss kept during PPO on ``demos`` (``imitate_keep`` minibatches per
    update, decaying over ``imitate_keep_steps``), or None without ``imitate_keep``."""
    from experiments.train.imitation import BehaviourCloning

    if not config.imitate_keep:
        return None
    return BehaviourCloning(model.policy, demos, config.imitate_keep,
                            config.imitate_keep_steps, batch_size=config.batch_size,
                            learning_rate=config.learning_rate, seed=config.seed)


def favour_first_option(model: Any, prior: float) -> None:
    """Start a selector at its first option: add ``prior`` to that option's logit (the
    action head's bias), so the untrained policy picks it with probability
    ``e**prior / (e**prior + K - 1)`` and PPO starts near the first option's level."""
    import torch

    with torch.no_grad():
        model.policy.action_net.bias[0] += float(prior)


class InitMismatchError(ValueError):
    """``--init`` names a checkpoint whose network is not this run's."""


def start_from(model: Any, config: TrainConfig) -> Any:
    """Load ``config.init``'s policy weights into ``model`` (the architectures must
    match) and save them as the checkpoint at step 0; with ``imitate_keep`` (and no
    ``imitate``, whose :func:`warm_start` follows and clones on from these weights),
    return the cloning regulariser on the demonstrations in ``imitate_data``."""
    from agents.learned import LearnedModelError, load_model
    from experiments.train.imitation import Demonstrations

    try:
        source = load_model(config.init)
    except LearnedModelError as exc:
        raise InitMismatchError(f"--init: {exc}") from None
    mine, theirs = model.policy.state_dict(), source.policy.state_dict()
    if {k: v.shape for k, v in mine.items()} != {k: v.shape for k, v in theirs.items()}:
        raise InitMismatchError(f"--init: {config.init} is not a --policy {config.policy} "
                                f"network for {config.scenario!r}")
    model.policy.load_state_dict(theirs)
    write_checkpoint(model, config)
    if not config.imitate_keep or config.imitate:  # with --imitate, warm_start follows
        return None
    return kept_cloning(model, Demonstrations.load(config.imitate_data), config)


def train(config: TrainConfig, resume: bool = False) -> Path:
    """Train (or resume) a run; returns the final model's path (its ``.json``)."""
    import torch

    torch.set_num_threads(1)
    out = Path(config.out)
    config.checkpoint_dir.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(config), indent=2) + "\n")
    vec = make_vec_env(config)
    tensorboard = str(out / "tb") if importlib.util.find_spec("tensorboard") else None
    start = latest_checkpoint(out) if resume else None
    if not resume:   # a new run: no evaluation chunks of an older one are read
        (out / TRAIN_LOG).unlink(missing_ok=True)
    with stop_on_terminate() as stop:
        try:
            final = _learn(config, vec, start, tensorboard, stop)
        finally:
            vec.close()
        if config.final_eval_battles and stop.signal is None:
            report(config, final)
    return final


def report(config: TrainConfig, final: Path) -> None:
    """The final evaluation (``final_eval.csv``) and ``learning_curves.png`` of a run."""
    from experiments.train.final_evaluation import report as final_report

    final_report(config.scenario, config.team, final, config.opponents,
                 config.final_eval_battles, config.out, progress=config.progress,
                 log=Path(config.out) / TRAIN_LOG)


def _learn(config: TrainConfig, vec: Any, start: Path | None, tensorboard: str | None,
           stop: StopRequest) -> Path:
    """:func:`train`'s model: loaded or built (with its warm start), then PPO."""
    from sb3_contrib import MaskablePPO

    cloning = None
    stages: Stages | None = None
    if start is not None:
        model = MaskablePPO.load(start, env=vec, device="cpu",
                                 tensorboard_log=tensorboard)
    else:
        policy, kwargs = policy_spec(config.policy, config.scenario, config.advice,
                                     config.options, config.option_hold)
        model = MaskablePPO(policy, vec, policy_kwargs=kwargs, n_steps=config.n_steps,
                            batch_size=config.batch_size, n_epochs=config.n_epochs,
                            learning_rate=config.learning_rate, ent_coef=config.ent_coef,
                            clip_range=config.clip_range, gamma=config.gamma,
                            seed=config.seed, device="cpu",
                            tensorboard_log=tensorboard, verbose=0)
        if config.options:
            favour_first_option(model, config.option_prior)
        if config.init:
            cloning = start_from(model, config)
        if config.imitate:
            # one overall bar over the stages (issue 50), each stage keeping its own
            cached = config.imitate_data and Path(config.imitate_data).is_file()
            stages = Stages(imitation_stages(config.imitate_battles, config.imitate_epochs,
                                             config.imitate_rounds, config.steps,
                                             demonstrations=not cached),
                            progress=config.progress)
            cloning = warm_start(model, config, stages)
    if tensorboard is None:
        model.set_logger(quiet_logger())
    remaining = config.steps - model.num_timesteps
    callback = _callback(config, config.steps, cloning, stop, stages)
    try:
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=callback,
                        reset_num_timesteps=start is None, tb_log_name="ppo")
    except UpdateStopped:
        return callback.update_stopped().with_suffix(".json")
    finally:
        if stages is not None:
            stages.close()
    final = checkpoint_path(config, model.num_timesteps)
    if not final.with_suffix(".json").exists():
        write_checkpoint(model, config)
    return final.with_suffix(".json")
