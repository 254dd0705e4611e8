"""``fray az-train SCENARIO``: expert iteration for the ``az`` agent (search guided by a
policy/value network; experiments/train/expert_iteration.py)."""

from __future__ import annotations

import argparse

from experiments.paths import output_folder

EXAMPLE = """example:
  fray az-train duel --out runs/az-duel --iterations 6 --battles 24 --search 32
  fray az-train duel --out runs/az-duel --iterations 10 --resume   # 4 more iterations
  agents.make("az(path=runs/az-duel/checkpoints/iteration_0010.json)") plays the result
"""


def run(args: argparse.Namespace) -> int:
    import rules
    from experiments.commands import UsageError
    from experiments.train.expert_iteration import (
        AZConfig,
        latest_iteration,
        load_config,
        train_az,
    )

    for name in ("iterations", "battles", "search", "epochs", "batch_size", "replay",
                 "imitate_battles", "imitate_epochs"):
        value = getattr(args, name)
        minimum = 0 if name == "iterations" else 1
        if value < minimum:
            raise UsageError(f"--{name.replace('_', '-')}: expected a whole number >= "
                             f"{minimum}, got {value}")
    if args.explore < 0 or args.seed < 0:
        raise UsageError("--explore and --seed: expected whole numbers >= 0")
    if not args.learning_rate > 0:
        raise UsageError(f"--learning-rate: expected a number > 0, got {args.learning_rate}")
    if args.resume:
        if latest_iteration(args.out) is None:
            raise UsageError(f"--resume: no checkpoint in {args.out}/checkpoints")
        try:
            config = load_config(args.out)
        except ValueError as exc:
            raise UsageError(f"--resume: {exc}") from None
        config.iterations = args.iterations
        final = train_az(config, resume=True)
    else:
        try:
            rules.load_scenario(args.scenario, rules.default_content())
        except (rules.FrayError, OSError) as exc:
            raise UsageError(f"scenario {args.scenario!r}: {exc}") from None
        imitate = None if args.imitate in ("", "none") else args.imitate
        if imitate is not None:
            import agents

            try:
                agents.make(imitate, seed=0)
            except ValueError as exc:
                raise UsageError(f"--imitate: {exc}") from None
        config = AZConfig(scenario=args.scenario, out=args.out, iterations=args.iterations,
                          battles=args.battles, search=args.search, explore=args.explore,
                          epochs=args.epochs, batch_size=args.batch_size,
                          learning_rate=args.learning_rate, replay=args.replay,
                          seed=args.seed, imitate=imitate,
                          imitate_battles=args.imitate_battles,
                          imitate_epochs=args.imitate_epochs)
        final = train_az(config)
    print(f"network: {final}\nplay it with agents.make('az(path={final})')")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "az-train", description=__doc__, epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", help="a shipped scenario name or a TOML path")
    parser.add_argument("--out", required=True, type=output_folder, help="output folder")
    parser.add_argument("--iterations", type=int, default=4,
                        help="loop iterations in all (a resumed run goes on to this many)")
    parser.add_argument("--battles", type=int, default=16, help="self-play battles an iteration")
    parser.add_argument("--search", type=int, default=32,
                        help="az search iterations per decision in self-play")
    parser.add_argument("--explore", type=int, default=4,
                        help="a team's first decisions of a battle sampled by visit counts")
    parser.add_argument("--epochs", type=int, default=4, help="passes over the replay buffer")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--replay", type=int, default=4,
                        help="iterations of self-play samples trained on")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--imitate", default="tactician",
                        help="the agent the first network clones ('none': a random network)")
    parser.add_argument("--imitate-battles", type=int, default=100)
    parser.add_argument("--imitate-epochs", type=int, default=8)
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out (its saved settings)")
    parser.set_defaults(func=run)
