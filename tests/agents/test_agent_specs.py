"""Agent specs and option tables (issue 22 part 4): every agent in ``agents.make`` declares
its options (agents/spec.py reads the table); a bad spec is one line naming the option,
what was expected and the options the agent takes."""

from __future__ import annotations

import inspect

import pytest

import agents
from agents.spec import Option, check_options, parse_spec
from experiments import cli

MCTS_OPTIONS = ("mcts options: confidence, exploration, iterations, plan, prior, "
                "prior_bonus, rollout, rollout_depth, seconds, step_back, tree")
REGISTERED = ("registered: az, berserker, defender, learned, mcts, pack, per_unit, random, "
              "skirmisher, tactician")

BAD_SPECS = [
    ("mcts(iterations=abc)",
     f"agent 'mcts(iterations=abc)': iterations expects an integer from 1 to 1000000, got 'abc'; "
     f"{MCTS_OPTIONS}"),
    ("mcts(foo=1)", f"agent 'mcts(foo=1)': no option 'foo'; {MCTS_OPTIONS}"),
    ("mcts(iterations=4",
     "agent 'mcts(iterations=4': unbalanced parentheses; expected NAME or NAME(key=value,...)"),
    ("mcts(iterations=2.5)",
     f"agent 'mcts(iterations=2.5)': iterations expects an integer from 1 to 1000000, got 2.5; "
     f"{MCTS_OPTIONS}"),
    ("mcts(iterations=0)",
     f"agent 'mcts(iterations=0)': iterations expects an integer from 1 to 1000000, got 0; "
     f"{MCTS_OPTIONS}"),
    ("mcts(iterations=1000000000000)",
     f"agent 'mcts(iterations=1000000000000)': iterations expects an integer from 1 to "
     f"1000000, got 1000000000000; {MCTS_OPTIONS}"),
    ("mcts(seconds=0)",
     f"agent 'mcts(seconds=0)': seconds expects a number > 0 and <= 3600, got 0; {MCTS_OPTIONS}"),
    ("mcts(rollout_depth=-1)",
     f"agent 'mcts(rollout_depth=-1)': rollout_depth expects an integer >= 0, got -1; "
     f"{MCTS_OPTIONS}"),
    ("mcts(exploration=nan)",
     f"agent 'mcts(exploration=nan)': exploration expects a number >= 0, got nan; "
     f"{MCTS_OPTIONS}"),
    ("mcts(tree=yes)",
     f"agent 'mcts(tree=yes)': tree expects true or false, got 'yes'; {MCTS_OPTIONS}"),
    ("mcts(rollout=nobody)",
     f"agent 'mcts(rollout=nobody)': rollout expects an agent spec ({REGISTERED}), got "
     f"'nobody'; {MCTS_OPTIONS}"),
    ("mcts(prior=3)",
     f"agent 'mcts(prior=3)': prior expects an agent spec or none ({REGISTERED}), got 3; "
     f"{MCTS_OPTIONS}"),
    ("mcts(iterations=2,iterations=3)",
     "agent 'mcts(iterations=2,iterations=3)': option iterations is given twice"),
    ("mcts(iterations=4,seconds=1)", "mcts: give iterations or seconds, not both"),
    ("mcts)", "agent 'mcts)': unbalanced parentheses; expected NAME or NAME(key=value,...)"),
    ("mcts(iterations)", "agent 'mcts(iterations)': expected key=value inside (), got "
                         "'iterations'"),
    ("random(seed=1)", "agent 'random(seed=1)': no option 'seed'; random takes no options"),
    ("berserker(rage=1)",
     "agent 'berserker(rage=1)': no option 'rage'; berserker takes no options"),
    ("defender(x=1)", "agent 'defender(x=1)': no option 'x'; defender takes no options"),
    ("pack(x=1)", "agent 'pack(x=1)': no option 'x'; pack takes no options"),
    ("tactician(step_back=1)",
     "agent 'tactician(step_back=1)': step_back expects true or false, got 1; tactician "
     "options: step_back"),
    ("skirmisher(range=3)",
     "agent 'skirmisher(range=3)': no option 'range'; skirmisher options: step_back"),
    ("per_unit(wolf_1=3)",
     f"agent 'per_unit(wolf_1=3)': wolf_1 expects an agent spec ({REGISTERED}), got 3; "
     "per_unit options: default, UNIT=agent"),
    ("per_unit(default=nobody)",
     f"agent 'per_unit(default=nobody)': default expects an agent spec ({REGISTERED}), got "
     "'nobody'; per_unit options: default, UNIT=agent"),
    ("learned:duel(deterministic=maybe)",
     "agent 'learned:duel(deterministic=maybe)': deterministic expects true or false, got "
     "'maybe'; learned options: deterministic, trust_pickle"),
    ("learned:duel(temperature=1)",
     "agent 'learned:duel(temperature=1)': no option 'temperature'; learned options: "
     "deterministic, trust_pickle"),
    ("nobody(x=1)", f"unknown agent 'nobody'; {REGISTERED}"),
]


@pytest.mark.parametrize(("spec", "message"), BAD_SPECS, ids=[spec for spec, _ in BAD_SPECS])
def test_a_bad_spec_is_one_line_naming_the_option_and_the_options(spec: str,
                                                                  message: str) -> None:
    with pytest.raises(ValueError) as caught:
        agents.make(spec, seed=0)
    assert str(caught.value) == message


def test_keyword_arguments_are_checked_like_a_spec() -> None:
    with pytest.raises(ValueError) as caught:
        agents.make("mcts", iterations=2.5)
    assert str(caught.value) == (f"agent 'mcts(iterations=2.5)': iterations expects an "
                                 f"integer from 1 to 1000000, got 2.5; {MCTS_OPTIONS}")


def test_good_specs_are_converted_to_each_options_kind() -> None:
    mcts = agents.make("mcts(iterations=8,exploration=1,prior=none,tree=true)", seed=1)
    assert (mcts.iterations, mcts.exploration, mcts.prior, mcts.tree) == (8, 1.0, None, True)
    assert isinstance(mcts.exploration, float)
    timed = agents.make("mcts(seconds=0.5)", seed=1)  # seconds alone: a time budget
    assert (timed.iterations, timed.seconds) == (None, 0.5)
    assert agents.make("mcts", seed=1).iterations == 64
    nested = agents.make("per_unit(wolf_1=mcts(iterations=2,rollout=random),default=pack)")
    assert nested.units == {"wolf_1": "mcts(iterations=2,rollout=random)"}
    assert nested.agent_for("wolf_1").iterations == 2
    assert type(nested.agent_for("orc_1")).__name__ == "Pack"


def _factory_parameters(name: str) -> set[str]:
    """The keyword options the factory behind ``name`` takes (seed and the
    ``learned:PATH`` argument left out)."""
    if name == "mcts":
        from agents.mcts import MCTS as factory
    elif name == "learned":
        from agents.learned import make_learned as factory
    else:
        factory = agents._REGISTRY[name]
    parameters = inspect.signature(factory).parameters.values()
    return {p.name if p.kind is not p.VAR_KEYWORD else "*" for p in parameters} - {
        "seed", "spec", "self"}


@pytest.mark.parametrize("name", ["random", "berserker", "tactician", "skirmisher", "defender",
                                  "pack", "mcts", "per_unit", "learned"])
def test_every_agent_declares_exactly_the_options_its_factory_takes(name: str) -> None:
    table = agents.option_table(name)
    assert table is not None, f"{name} declares no option table"
    assert {option.name for option in table} == _factory_parameters(name)
    for option in table:
        assert option.about.endswith(".") and option.expected()


def test_an_option_table_reads_ranges_kinds_and_none() -> None:
    table = (Option("depth", int, "How deep.", minimum=1, maximum=9),
             Option("rate", float, "How fast.", above=0, none=True))
    assert check_options("toy", table, {"depth": 9, "rate": "none"}) == {"depth": 9,
                                                                       "rate": None}
    assert check_options("toy", table, {"rate": 2}) == {"rate": 2.0}
    with pytest.raises(ValueError) as caught:
        check_options("toy", table, {"depth": 10})
    assert str(caught.value) == ("agent 'toy(depth=10)': depth expects an integer from 1 to "
                                 "9, got 10; toy options: depth, rate")
    assert parse_spec("toy(a=x(b=1,c=2);d=true)") == ("toy", (("a", "x(b=1,c=2)"), ("d", True)))


def test_an_agent_without_a_table_still_gets_a_one_line_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agents.registry, "_REGISTRY", dict(agents._REGISTRY))
    monkeypatch.setattr(agents.registry, "_OPTIONS", dict(agents._OPTIONS))
    agents.register("test_plain", lambda seed=None: agents.RandomAgent(seed))
    with pytest.raises(ValueError, match=r"^agent 'test_plain\(x=1\)': .*'x'"):
        agents.make("test_plain(x=1)")


@pytest.mark.parametrize("command", ["ladder", "tournament"])
@pytest.mark.parametrize(("spec", "message"), [BAD_SPECS[1], BAD_SPECS[2], BAD_SPECS[0]])
def test_the_cli_prints_one_line_and_exits_2(command: str, spec: str, message: str,
                                             tmp_path, capsys: pytest.CaptureFixture[str]
                                             ) -> None:
    code = cli.main([command, "--agents", spec, "--scenarios", "duel", "--battles", "1",
                     "--out", str(tmp_path / command)])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"fray: error: {message}\n"
