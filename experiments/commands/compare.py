"""``fray compare A B --scenario S``: play pairs of battles until an SPRT decides.

Pair ``i`` is one seed played twice, A on the first team and then on the second, so the
side advantage cancels within the pair (the pentanomial model of chess engines' test
frameworks). With ``--margin M`` (default) two SPRTs run side by side, H0: Elo 0 against
H1: Elo +M ("better") and against H1: Elo -M ("worse"); A is better or worse when one
accepts its H1, equal within M when both accept H0. ``--elo0/--elo1`` run the one test
of fishtest instead. Pairs are played in batches on the workers and counted in order, so
the verdict and the number of battles depend only on the seeds.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.commands.tournament import add_run_options, check_run_options, run_options
from experiments.paths import output_folder

if TYPE_CHECKING:
    from experiments.comparison.runner import AgentSpec, BattleSpec
    from experiments.comparison.stats import Sprt

EXAMPLE = """example:
  fray compare berserker random --scenario duel              # margin 50 Elo
  fray compare tactician berserker --scenario skirmish --margin 20 --max-battles 4000
  fray compare A B --scenario duel --elo0 0 --elo1 30 --alpha 0.05 --beta 0.05 --out runs/c1"""


@dataclass
class Comparison:
    """The state of a comparison: the tests, the battles counted, A's W/D/L."""

    tests: dict[str, Sprt]
    battles: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    decided: dict[str, str] = field(default_factory=dict)

    def add_pair(self, scores: tuple[float, float]) -> None:
        """Count one pair (A's score in each battle) in every test still undecided."""
        for score in scores:
            self.battles += 1
            self.wins += score == 1.0
            self.draws += score == 0.5
            self.losses += score == 0.0
        for name, test in self.tests.items():
            if name not in self.decided:
                test.add_pair(sum(scores))
                if test.state != "continue":
                    self.decided[name] = test.state

    @property
    def verdict(self) -> str | None:
        """``better``, ``worse``, ``equal`` (margin mode) / ``H1``, ``H0``; None: go on."""
        if set(self.tests) == {"sprt"}:
            return self.decided.get("sprt")
        if self.decided.get("better") == "H1":
            return "better"
        if self.decided.get("worse") == "H1":
            return "worse"
        if self.decided.get("better") == "H0" and self.decided.get("worse") == "H0":
            return "equal"
        return None


    def expected_battles(self, max_battles: int) -> int:
        """Where the comparison is expected to stop, for the progress bar (issue 50: its
        total was ``--max-battles``, the worst case): each undecided test's LLR carried on
        at its mean drift per pair so far (an SPRT's LLR moves linearly in expectation) to
        the bound it heads for, combined by the verdict's rule; ``max_battles`` until the
        drift is known, and never more."""
        heading: list[tuple[float, str]] = []
        for name, test in self.tests.items():
            if name in self.decided:
                heading.append((test.pairs, self.decided[name]))
                continue
            if test.pairs == 0 or test.llr == 0:
                return max_battles
            drift = test.llr / test.pairs
            lower, upper = test.bounds
            heading.append((upper / drift, "H1") if drift > 0 else (lower / drift, "H0"))
        towards_h1 = [pairs for pairs, bound in heading if bound == "H1"]
        if len(self.tests) > 1 and towards_h1:  # margin mode: one H1 decides alone
            pairs = min(towards_h1)
        else:
            pairs = max(pairs for pairs, _ in heading)
        return min(max_battles, max(self.battles, 2 * math.ceil(pairs)))


def pair_specs(agent: AgentSpec, opponent: AgentSpec, scenario: str, index: int, seed: int,
               content_dir: str | None) -> tuple[BattleSpec, BattleSpec]:
    """Pair ``index``: one seed, A on the first team and then on the second."""
    from experiments.comparison.runner import BattleSpec
    from experiments.comparison.tournament import battle_seed, scenario_teams, slug

    first, second = scenario_teams(scenario, content_dir)
    battle = battle_seed(seed, scenario, agent.label, opponent.label, index)
    meta = (("pairing", [agent.label, opponent.label]), ("index", index))
    return tuple(  # type: ignore[return-value]
        BattleSpec(f"{slug(scenario)}.{slug(one.label)}-v-{slug(two.label)}.{index:04d}",
                   scenario, ((first, one), (second, two)), battle, content_dir, meta)
        for one, two in ((agent, opponent), (opponent, agent)))


def score_of(record: dict[str, Any], agent: str) -> float:
    """The score of ``agent`` (its label) in a battle record."""
    from experiments.comparison.summary import seats

    return next(score for name, _, score in seats(record) if name == agent)


def make_tests(args: argparse.Namespace) -> dict[str, Sprt]:
    """The SPRTs the options ask for (margin mode unless --elo0/--elo1 are given)."""
    from experiments.commands import UsageError
    from experiments.comparison.stats import Sprt

    for name in ("alpha", "beta"):
        value = getattr(args, name)
        if not 0 < value < 0.5:
            raise UsageError(f"--{name}: expected a probability in (0, 0.5), got {value}")
    if (args.elo0 is None) != (args.elo1 is None):
        raise UsageError("--elo0 and --elo1: expected both or neither")
    if args.elo0 is not None:
        if args.elo0 == args.elo1:
            raise UsageError(f"--elo1: expected a value other than --elo0 ({args.elo0})")
        return {"sprt": Sprt(args.elo0, args.elo1, args.alpha, args.beta)}
    if args.margin <= 0:
        raise UsageError(f"--margin: expected Elo > 0, got {args.margin}")
    return {"better": Sprt(0, args.margin, args.alpha, args.beta),
            "worse": Sprt(0, -args.margin, args.alpha, args.beta)}


def compare(agent: AgentSpec, opponent: AgentSpec, scenario: str, tests: dict[str, Sprt], *,
            max_battles: int, seed: int = 0, content_dir: str | None = None,
            out: Path | None = None, batch: int = 4, progress: bool = True,
            **run: Any) -> Comparison:
    """Play pairs until the tests decide or ``max_battles`` are counted."""
    from tqdm import tqdm

    from experiments.comparison.runner import run_battles
    from experiments.comparison.tournament import BATTLES_FILE, write_result

    state = Comparison(tests)
    handle = None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        handle = (out / BATTLES_FILE).open("w", encoding="utf-8")
    index = 0
    with tqdm(total=max_battles, desc=f"{agent.label} v {opponent.label}", unit="battle",
              disable=not progress, dynamic_ncols=True) as bar:
        while state.verdict is None and state.battles + 2 <= max_battles:
            count = min(batch, (max_battles - state.battles) // 2)
            specs = [s for i in range(index, index + count)
                     for s in pair_specs(agent, opponent, scenario, i, seed, content_dir)]
            index += count
            records = {}
            for result in run_battles(specs, **run):
                records[result.id] = (write_result(out, result, handle) if handle
                                      else result.record)
            for first, second in zip(specs[::2], specs[1::2], strict=True):
                if state.verdict is not None:
                    break
                state.add_pair((score_of(records[first.id], agent.label),
                                score_of(records[second.id], agent.label)))
                bar.total = state.expected_battles(max_battles)
                bar.set_postfix_str(f"expected stop {bar.total}, at most {max_battles}",
                                    refresh=False)
                bar.update(2)
    if handle is not None:
        handle.close()
    return state


def verdict_text(agent: str, opponent: str, state: Comparison, args: argparse.Namespace) -> str:
    """The result lines: the verdict, the battles it took, the Elo estimate, W/D/L."""
    test = next(iter(state.tests.values()))
    elo, (low, high) = test.elo_estimate()
    words = {
        "better": f"{agent} is BETTER than {opponent} (H1 +{args.margin:g} Elo accepted over H0 0)",
        "worse": f"{agent} is WORSE than {opponent} (H1 -{args.margin:g} Elo accepted over H0 0)",
        "equal": f"{agent} and {opponent} are EQUAL within {args.margin:g} Elo (both H0 accepted)",
        "H1": f"H1 accepted: {agent} is {args.elo1:g} Elo or more stronger than {opponent}"
        if args.elo1 is not None
        else "",
        "H0": f"H0 accepted: {agent} is at most {args.elo0:g} Elo stronger than {opponent}"
        if args.elo0 is not None
        else "",
    }
    verdict = state.verdict
    head = (words[verdict] if verdict else
            f"UNDECIDED after --max-battles {args.max_battles}: no test reached its bound")
    lower, upper = test.bounds
    llrs = ", ".join(f"{name} LLR {t.llr:+.2f}" for name, t in state.tests.items())
    return "\n".join([
        f"{head}",
        f"after {state.battles} battles ({state.battles // 2} pairs with sides swapped) "
        f"on {args.scenario}",
        f"{agent}: {state.wins} wins, {state.draws} draws, {state.losses} losses; Elo estimate "
        f"{elo:+.0f} [{low:+.0f}, {high:+.0f}] (95%)",
        f"{llrs}; bounds [{lower:.2f}, {upper:.2f}] (alpha {args.alpha}, beta {args.beta})",
    ])


def run(args: argparse.Namespace) -> int:
    from experiments.commands import UsageError
    from experiments.comparison.runner import parse_agents
    from experiments.comparison.tournament import config_from, scenario_teams
    from experiments.workers import default_workers

    check_run_options(args)
    if args.max_battles < 2:
        raise UsageError(f"--max-battles: expected a whole number >= 2, got {args.max_battles}")
    a, b = parse_agents(f"{args.a},{args.b}")
    if a.label == b.label:
        raise UsageError(f"A and B: expected two different agents, got {a.label!r} twice")
    config = config_from([a, b], [args.scenario], 1, args.seed, args.content_dir)
    tests = make_tests(args)
    scenario_teams(args.scenario, config.content_dir)   # a bad scenario fails before the bar
    workers = args.workers or default_workers()
    state = compare(a, b, args.scenario, tests, max_battles=args.max_battles,
                    seed=config.seed, content_dir=config.content_dir,
                    out=Path(args.out) if args.out else None,
                    batch=1 if workers == 1 else 4 * workers, **run_options(args))
    print(verdict_text(a.label, b.label, state, args))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("compare", description=__doc__, epilog=EXAMPLE,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("a", help="agent spec A")
    c.add_argument("b", help="agent spec B")
    c.add_argument("--scenario", required=True, help="scenario name or path")
    c.add_argument("--margin", type=float, default=50.0,
                   help="Elo margin of better/worse/equal (default 50)")
    c.add_argument("--elo0", type=float, default=None, help="H0 Elo (with --elo1)")
    c.add_argument("--elo1", type=float, default=None, help="H1 Elo (with --elo0)")
    c.add_argument("--alpha", type=float, default=0.05, help="false-H1 rate (default 0.05)")
    c.add_argument("--beta", type=float, default=0.05, help="false-H0 rate (default 0.05)")
    c.add_argument("--max-battles", type=int, default=2000,
                   help="stop undecided after this many battles (default 2000)")
    c.add_argument("--out", type=output_folder,
                   default=None, help="optional folder for battles.jsonl, replays/")
    add_run_options(c)
    c.set_defaults(func=run)
