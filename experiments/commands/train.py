"""``fray train SCENARIO``: train a team's policy (MaskablePPO, or RLlib PPO on Ray)."""

from __future__ import annotations

import argparse
from pathlib import Path

from experiments.paths import output_folder

EXAMPLE = """example:
  fray train duel --team monsters --opponent berserker,self --steps 200000 --out runs/duel \\
      --envs 2 --eval-every 50000 --eval-battles 200 --checkpoint-every 20000
  fray train duel --out runs/duel --steps 300000 --resume      # continue to 300k steps
  fray train skirmish --opponent tactician,berserker --imitate tactician \\
      --imitate-battles 400 --imitate-epochs 12 --imitate-keep 4 --imitate-keep-steps 30000 \\
      --steps 40000 --n-steps 1024 --learning-rate 1e-4 --clip-range 0.1 --ent-coef 0 \\
      --out runs/sk        # behaviour cloning of the tactician, then PPO (learned:skirmish)
  agents.make("learned:runs/duel/checkpoints/step_0000200000.json") plays the result
  (fray's model format, docs/models.md; the .zip beside it is the trainer's state)
  fray train skirmish --backend batched --envs 64 --n-steps 32 --opponent tactician,berserker \
      --options "tactician,tactician(step_back=true),defender,skirmisher" --out runs/fast
  fray train duel_fair --backend batched --imitate tactician --envs 64 --n-steps 32 \\
      --opponent tactician,berserker,defender --steps 2000000 --out runs/duel-fair
  fray train duel --backend rllib --steps 4000 --out runs/duel-rllib [--address ray://HOST:10001]
"""


def _positive(name: str, value: int, minimum: int = 1) -> None:
    from experiments.commands import UsageError

    if value < minimum:
        raise UsageError(f"{name}: expected a whole number >= {minimum}, got {value}")


def _agent_names(flag: str, text: str) -> list[str]:
    """The agent names (specs) of a comma list, each known; a bad one is a usage error
    naming ``flag``."""
    from experiments.commands import UsageError
    from experiments.train.opponents import parse_pool

    try:
        return parse_pool(text)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    import rules
    from experiments.commands import UsageError
    from experiments.train.opponents import SELF

    _positive("--steps", args.steps)
    _positive("--envs", args.envs)
    _positive("--eval-battles", args.eval_battles)
    _positive("--eval-every", args.eval_every, 0)
    _positive("--final-eval-battles", args.final_eval_battles, 0)
    _positive("--checkpoint-every", args.checkpoint_every, 0)
    _positive("--seed", args.seed, 0)
    _positive("--imitate-battles", args.imitate_battles)
    _positive("--imitate-epochs", args.imitate_epochs)
    _positive("--imitate-rounds", args.imitate_rounds, 0)
    _positive("--imitate-keep", args.imitate_keep, 0)
    _positive("--imitate-keep-steps", args.imitate_keep_steps, 0)
    _positive("--n-epochs", args.n_epochs)
    _positive("--n-steps", args.n_steps, 2)
    for name, value in (("--learning-rate", args.learning_rate),
                        ("--clip-range", args.clip_range)):
        if not value > 0:
            raise UsageError(f"{name}: expected a number > 0, got {value}")
    if args.ent_coef < 0:
        raise UsageError(f"--ent-coef: expected a number >= 0, got {args.ent_coef}")
    scenario = rules.load_scenario(args.scenario, rules.default_content())
    if args.team not in scenario.teams:
        raise UsageError(f"--team: {args.team!r} is not a team of {scenario.name!r} "
                         f"(teams: {', '.join(scenario.teams)})")
    opponents = _agent_names("--opponent", args.opponent)
    imitate: list[str] = []
    if args.imitate is not None:
        imitate = _agent_names("--imitate", args.imitate)
        if SELF in imitate:
            raise UsageError("--imitate: expected agent names to learn from, got 'self'")
    if args.backend == "rllib":
        sb3_only = [flag for flag, given in (
            ("--imitate", args.imitate is not None), ("--advice", args.advice is not None),
            ("--options", args.options is not None), ("--init", args.init is not None),
            ("--resume", args.resume)) if given]
        if sb3_only:
            raise UsageError(f"--backend rllib: {', '.join(sb3_only)} "
                             f"{'is' if len(sb3_only) == 1 else 'are'} sb3-only")
        from experiments.train.rllib import RllibConfig, train_rllib

        run = train_rllib(RllibConfig(scenario=args.scenario, out=args.out, team=args.team,
                                      steps=args.steps, seed=args.seed,
                                      address=args.address, envs=args.envs,
                                      opponents=opponents))
        print(f"checkpoint: {run.checkpoint} ({run.steps} env steps, {run.iterations} "
              f"iterations; trained modules: {', '.join(run.trained)})\n"
              f"it is RLlib's pickled state (Algorithm.from_checkpoint restores it); "
              f"learned: does not play it (docs/models.md)")
        return 0
    if args.backend == "batched":
        return _run_batched(args, opponents, imitate)
    from experiments.train.sb3 import InitMismatchError, TrainConfig, latest_checkpoint, train

    if args.resume and latest_checkpoint(args.out) is None:
        raise UsageError(f"--resume: no checkpoint in {args.out}/checkpoints")
    if args.init is not None:
        if args.resume:
            raise UsageError("--init: starts a new run from a saved policy, so it goes "
                             "without --resume")
        if not Path(args.init).is_file():
            raise UsageError(f"--init: no model file {args.init}")
    if args.advice is not None:
        if args.policy != "fray-spatial":
            raise UsageError(f"--advice: needs --policy fray-spatial, got --policy {args.policy}")
        if imitate:
            raise UsageError("--advice: goes without --imitate (the advised policy starts "
                             "as the advisor; demonstrations carry no advice)")
        advisors = _agent_names("--advice", args.advice)
        if advisors != [args.advice] or SELF in advisors:
            raise UsageError(f"--advice: expected one agent name, got {args.advice!r}")
    options: list[str] = []
    if args.options is not None:
        if args.policy != "fray":
            raise UsageError(f"--options: needs --policy fray, got --policy {args.policy}")
        if imitate or args.advice is not None:
            raise UsageError("--options: goes without --imitate and --advice (a selector "
                             "picks scripted agents; it starts at the first one)")
        options = _agent_names("--options", args.options)
        if SELF in options or len(options) < 2:
            raise UsageError(f"--options: expected two or more agent names, got "
                             f"{args.options!r}")
    if args.option_hold != "decision" and not options:
        raise UsageError("--option-hold: goes with --options")
    if args.imitate_keep and not (imitate or args.init):
        raise UsageError("--imitate-keep: needs --imitate, or --init with --imitate-data")
    if args.init is not None and not imitate and args.imitate_keep and not (
            args.imitate_data and Path(args.imitate_data).is_file()):
        raise UsageError("--imitate-keep with --init: --imitate-data must name the saved "
                         "demonstrations (FILE.npz)")
    config = TrainConfig(scenario=args.scenario, out=args.out, team=args.team,
                         opponents=opponents, steps=args.steps, envs=args.envs,
                         subprocesses=args.subprocesses,
                         eval_every=args.eval_every, eval_battles=args.eval_battles,
                         checkpoint_every=args.checkpoint_every, seed=args.seed,
                         policy=args.policy, damage_reward=args.damage_reward,
                         learning_rate=args.learning_rate, clip_range=args.clip_range,
                         ent_coef=args.ent_coef, n_epochs=args.n_epochs,
                         n_steps=args.n_steps, imitate=imitate,
                         imitate_battles=args.imitate_battles,
                         imitate_epochs=args.imitate_epochs,
                         imitate_rounds=args.imitate_rounds, imitate_data=args.imitate_data,
                         imitate_keep=args.imitate_keep,
                         imitate_keep_steps=args.imitate_keep_steps, init=args.init,
                         advice=args.advice, options=options,
                         option_prior=args.option_prior, option_hold=args.option_hold,
                         final_eval_battles=args.final_eval_battles)
    try:
        final = train(config, resume=args.resume)
    except InitMismatchError as exc:
        raise UsageError(str(exc)) from None
    print(f"model: {final}\nplay it with agents.make('learned:{final}')")
    return 0


def _run_batched(args: argparse.Namespace, opponents: list[str], imitate: list[str]) -> int:
    """``--backend batched``: :mod:`experiments.train.batched_ppo`."""
    from experiments.commands import UsageError
    from experiments.train.batched_ppo import BatchedConfig, train_batched
    from experiments.train.opponents import SELF

    sb3_only = [flag for flag, given in (
        ("--advice", args.advice is not None),
        ("--resume", args.resume), ("--subprocesses", args.subprocesses),
        ("--eval-every", bool(args.eval_every)), ("--policy", args.policy != "fray"),
        ("--option-hold", args.option_hold != "decision"),
        ("--imitate-rounds", bool(args.imitate_rounds)),
        ("--imitate-keep", bool(args.imitate_keep or args.imitate_keep_steps)),
        ("--imitate-data", args.imitate_data is not None)) if given]
    if sb3_only:
        raise UsageError(f"--backend batched: {', '.join(sb3_only)} "
                         f"{'is' if len(sb3_only) == 1 else 'are'} sb3-only")
    if SELF in opponents:
        raise UsageError("--backend batched: every --opponent needs a native form ('self' "
                         "is sb3's league)")
    options = _agent_names("--options", args.options) if args.options else []
    if options and imitate:
        raise UsageError("--options: goes without --imitate (a selector picks scripted "
                         "agents; cloning is over actions)")
    if args.init is not None and not Path(args.init).is_file():
        raise UsageError(f"--init: no network file {args.init}")
    config = BatchedConfig(
        scenario=args.scenario, out=args.out, team=args.team, opponents=opponents,
        options=options, steps=args.steps, envs=args.envs, n_steps=args.n_steps,
        epochs=args.n_epochs, learning_rate=args.learning_rate, clip_range=args.clip_range,
        ent_coef=args.ent_coef, damage_reward=args.damage_reward, seed=args.seed,
        checkpoint_every=args.checkpoint_every, init=args.init, imitate=imitate,
        imitate_battles=args.imitate_battles, imitate_epochs=args.imitate_epochs,
        final_eval_battles=args.final_eval_battles)
    try:
        final, figures = train_batched(config)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"--backend batched: {exc}") from None
    print(f"network: {final} ({figures['steps']:,} steps, {figures['steps_per_s']:,.0f} "
          f"steps/s)\nplay it with agents.make('learned:{final}') (or "
          f"'az(path={final},iterations=0)')")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("train", description=__doc__, epilog=EXAMPLE,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", help="a shipped scenario name or a TOML path")
    parser.add_argument("--team", default="monsters", help="the team to train (monsters)")
    parser.add_argument("--opponent", default="berserker",
                        help="comma-separated pool: agent names and 'self' (frozen own "
                             "checkpoints), one drawn per episode (berserker)")
    parser.add_argument("--steps", type=int, default=100_000, help="total env steps")
    parser.add_argument("--out", type=output_folder, required=True, help="output folder")
    parser.add_argument("--envs", type=int, default=1,
                        help="battles collected at once: in one process, stepped together "
                             "by the native engine (env/vector.py) when it can; in "
                             "subprocesses with --subprocesses or when it cannot (1)")
    parser.add_argument("--subprocesses", action="store_true",
                        help="one subprocess per env (Gymnasium envs) instead of the "
                             "batched native vector env")
    parser.add_argument("--eval-every", type=int, default=0,
                        help="evaluate every K steps (0 = never)")
    parser.add_argument("--final-eval-battles", type=int, default=200,
                        help="battles a party of the evaluation the run ends with: the "
                             "model and the tactician on the same seeds against the "
                             "trained and the held-out parties (final_eval.csv, "
                             "learning_curves.png; 0: none)")
    parser.add_argument("--eval-battles", type=int, default=100,
                        help="battles per opponent per evaluation")
    parser.add_argument("--checkpoint-every", type=int, default=10_000,
                        help="checkpoint every K steps (0 = only at the end)")
    parser.add_argument("--advice", default=None, metavar="AGENT",
                        help="residual policy: observations name AGENT's action and the "
                             "fray-spatial policy starts by playing it (agents/advice.py)")
    parser.add_argument("--options", default=None, metavar="AGENT,AGENT[,...]",
                        help="selector policy: each action picks which of these scripted "
                             "agents plays the decision (agents/options.py; --policy fray)")
    parser.add_argument("--option-prior", type=float, default=3.0,
                        help="the first option's initial logit bonus (default 3)")
    parser.add_argument("--option-hold", choices=("decision", "turn", "battle"),
                        default="decision",
                        help="how long a selector's choice lasts for its unit: one "
                             "decision, the unit's turn (its reactions in that round "
                             "too), or the battle")
    parser.add_argument("--init", default=None, metavar="MODEL.json",
                        help="start from this model's weights (fray's model format, same "
                             "--policy), "
                             "with this run's settings: PPO from it (with --imitate-data "
                             "and --imitate-keep the cloning loss is kept on those "
                             "demonstrations), or with --imitate more cloning and DAgger "
                             "rounds from it")
    parser.add_argument("--resume", action="store_true",
                        help="continue from the newest checkpoint in --out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policy", choices=("fray", "fray-spatial", "mlp"), default="fray",
                        help="fray: CNN + per-unit encoder; fray-spatial: the same plus a "
                             "square-by-square move head; mlp: sb3's MultiInputPolicy")
    parser.add_argument("--damage-reward", type=float, default=0.5,
                        help="weight of the env's damage shaping (0 = outcome only)")
    parser.add_argument("--learning-rate", type=float, default=3e-4,
                        help="PPO's Adam learning rate (also the kept cloning loss's)")
    parser.add_argument("--clip-range", type=float, default=0.2, help="PPO's clip range")
    parser.add_argument("--ent-coef", type=float, default=0.01, help="PPO's entropy bonus")
    parser.add_argument("--n-epochs", type=int, default=4,
                        help="PPO epochs over each rollout")
    parser.add_argument("--n-steps", type=int, default=512,
                        help="PPO rollout length per env between updates")
    parser.add_argument("--imitate", default=None, metavar="AGENT[,AGENT]",
                        help="warm start: behaviour cloning of these agents playing --team "
                             "against the named --opponent agents, before PPO")
    parser.add_argument("--imitate-battles", type=int, default=200,
                        help="demonstration battles (cycling through demonstrators and "
                             "opponents)")
    parser.add_argument("--imitate-epochs", type=int, default=8,
                        help="behaviour cloning epochs over the demonstrations")
    parser.add_argument("--imitate-data", default=None, metavar="FILE.npz",
                        help="demonstrations cache: loaded when the file exists, else "
                             "collected and written there")
    parser.add_argument("--imitate-rounds", type=int, default=0,
                        help="DAgger rounds after cloning: the policy plays half as many "
                             "battles, the demonstrator labels its decisions (0 = none)")
    parser.add_argument("--imitate-keep", type=int, default=0,
                        help="cloning minibatches kept before each PPO update (0 = none)")
    parser.add_argument("--imitate-keep-steps", type=int, default=0,
                        help="PPO steps over which --imitate-keep decays to zero")
    parser.add_argument("--backend", choices=("sb3", "rllib", "batched"), default="sb3",
                        help="sb3 (MaskablePPO), rllib (Ray), or batched: the plain-torch "
                             "batched PPO on the native vector env (about 6x sb3's samples/s "
                             "for a selector; docs/training.md)")
    parser.add_argument("--address", default=None,
                        help="rllib: address of a running Ray cluster (default: local)")
    parser.set_defaults(func=run)
