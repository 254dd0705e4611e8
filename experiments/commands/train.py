"""``fray train SCENARIO``: train a team's policy (MaskablePPO, or RLlib PPO on Ray)."""

from __future__ import annotations

import argparse

EXAMPLE = """example:
  fray train duel --team monsters --opponent berserker,self --steps 200000 --out runs/duel \\
      --envs 2 --eval-every 50000 --eval-battles 200 --checkpoint-every 20000
  fray train duel --out runs/duel --steps 300000 --resume      # continue to 300k steps
  agents.make("learned:runs/duel/checkpoints/step_0000200000.zip") plays the result
  fray train duel --backend rllib --steps 4000 --out runs/duel-rllib [--address ray://HOST:10001]
"""


def _positive(name: str, value: int, minimum: int = 1) -> None:
    from experiments.cli import UsageError

    if value < minimum:
        raise UsageError(f"{name}: expected a whole number >= {minimum}, got {value}")


def run(args: argparse.Namespace) -> int:
    import rules
    from experiments.cli import UsageError
    from experiments.train.opponents import parse_pool

    _positive("--steps", args.steps)
    _positive("--envs", args.envs)
    _positive("--eval-battles", args.eval_battles)
    _positive("--eval-every", args.eval_every, 0)
    _positive("--checkpoint-every", args.checkpoint_every, 0)
    _positive("--seed", args.seed, 0)
    scenario = rules.load_scenario(args.scenario, rules.default_content())
    if args.team not in scenario.teams:
        raise UsageError(f"--team: {args.team!r} is not a team of {scenario.name!r} "
                         f"(teams: {', '.join(scenario.teams)})")
    try:
        opponents = parse_pool(args.opponent)
    except ValueError as exc:
        raise UsageError(f"--opponent: {exc}") from None
    if args.backend == "rllib":
        from experiments.train.rllib import RllibConfig, train_rllib

        run = train_rllib(RllibConfig(scenario=args.scenario, out=args.out, team=args.team,
                                      steps=args.steps, seed=args.seed,
                                      address=args.address, envs=args.envs,
                                      opponents=opponents))
        print(f"checkpoint: {run.checkpoint} ({run.steps} env steps, {run.iterations} "
              f"iterations; trained modules: {', '.join(run.trained)})")
        return 0
    from experiments.train.sb3 import TrainConfig, latest_checkpoint, train

    if args.resume and latest_checkpoint(args.out) is None:
        raise UsageError(f"--resume: no checkpoint in {args.out}/checkpoints")
    config = TrainConfig(scenario=args.scenario, out=args.out, team=args.team,
                         opponents=opponents, steps=args.steps, envs=args.envs,
                         eval_every=args.eval_every, eval_battles=args.eval_battles,
                         checkpoint_every=args.checkpoint_every, seed=args.seed,
                         policy=args.policy, damage_reward=args.damage_reward)
    final = train(config, resume=args.resume)
    print(f"checkpoint: {final}\nplay it with agents.make('learned:{final}')")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("train", help="train a team's policy with MaskablePPO or RLlib",
                            description=__doc__, epilog=EXAMPLE,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", help="a shipped scenario name or a TOML path")
    parser.add_argument("--team", default="monsters", help="the team to train (monsters)")
    parser.add_argument("--opponent", default="berserker",
                        help="comma-separated pool: agent names and 'self' (frozen own "
                             "checkpoints), one drawn per episode (berserker)")
    parser.add_argument("--steps", type=int, default=100_000, help="total env steps")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--envs", type=int, default=1, help="parallel envs (subprocesses)")
    parser.add_argument("--eval-every", type=int, default=0,
                        help="evaluate every K steps (0 = never)")
    parser.add_argument("--eval-battles", type=int, default=100,
                        help="battles per opponent per evaluation")
    parser.add_argument("--checkpoint-every", type=int, default=10_000,
                        help="checkpoint every K steps (0 = only at the end)")
    parser.add_argument("--resume", action="store_true",
                        help="continue from the newest checkpoint in --out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policy", choices=("fray", "mlp"), default="fray",
                        help="fray: CNN + per-unit encoder; mlp: sb3's MultiInputPolicy")
    parser.add_argument("--damage-reward", type=float, default=0.5,
                        help="weight of the env's damage shaping (0 = outcome only)")
    parser.add_argument("--backend", choices=("sb3", "rllib"), default="sb3")
    parser.add_argument("--address", default=None,
                        help="rllib: address of a running Ray cluster (default: local)")
    parser.set_defaults(func=run)
