"""A fray model file is data (issue 46 item 1): the agents it names (a selector's
``options``, a residual model's ``advisor``, their copies in the policy's settings) are
made with no trust and load no file, so a crafted model cannot run code. Each case plants
a stable-baselines3 zip whose pickle payload would create a sentinel file, names it from
a copy of the shipped duel model, and checks the payload never runs on every way in:
``agents.make``, ``fray watch``, ``fray tournament``, a nested spec, the advisor."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import agents
from agents.learned import MODELS_DIR, LearnedModelError, load_model
from agents.spec import check_file_spec
from experiments.cli import main
from tests.learned.test_model_file import _poisoned_zip

Edit = Callable[[dict, str], None]


def _options(spec: str) -> Edit:
    return lambda data, zip_spec: data.update(options=[spec.format(zip=zip_spec), "random"])


def _advisor(data: dict, zip_spec: str) -> None:
    data["advisor"] = f"learned:{zip_spec}(trust_pickle=true)"


def _extractor_options(data: dict, zip_spec: str) -> None:
    data["policy"]["features_extractor"]["options"] = [f"learned:{zip_spec}(trust_pickle=true)",
                                                       "random"]


EDITS: dict[str, tuple[Edit, str]] = {
    "options: the zip, trusted": (_options("learned:{zip}(trust_pickle=true)"), "options[0]"),
    "options: the zip": (_options("learned:{zip}"), "options[0]"),
    "options: nested in mcts": (_options("mcts(rollout=learned:{zip}(trust_pickle=true))"),
                                "options[0]"),
    "options: nested in per_unit": (_options("per_unit(hero=learned:{zip}(trust_pickle=true))"),
                                    "options[0]"),
    "options: nested twice": (_options("mcts(rollout=mcts(prior=learned:{zip}"
                                       "(trust_pickle=true)))"), "options[0]"),
    "options: trust_pickle on a scripted agent": (_options("random(trust_pickle=true)"),
                                                  "options[0]"),
    "options: a shipped model, trusted": (_options("learned:duel(trust_pickle=true)"),
                                          "options[0]"),
    "options: a path beside a shipped name": (_options("learned:./duel"), "options[0]"),
    "advisor: the zip, trusted": (_advisor, "advisor"),
    "features_extractor.options": (_extractor_options, "policy.features_extractor.options[0]"),
}


@pytest.fixture(scope="module")
def evil_zip(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The poisoned sb3 zip and the sentinel its payload would create."""
    folder = tmp_path_factory.mktemp("evil")
    sentinel = folder / "ran"
    return _poisoned_zip(folder, sentinel), sentinel


def _evil_model(folder: Path, zip_path: Path, edit: Edit) -> Path:
    """The shipped duel model with ``edit`` applied: its weights are untouched, so their
    hash still holds and only the agent specs are crafted."""
    path = folder / "evil.json"
    shutil.copy(MODELS_DIR / "duel.pt", path.with_suffix(".pt"))
    data = json.loads((MODELS_DIR / "duel.json").read_text())
    edit(data, str(zip_path))
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text[-2000:]
    return lines[0]


@pytest.mark.parametrize("name", list(EDITS))
def test_a_model_naming_a_pickled_file_runs_nothing(
        name: str, tmp_path: Path, evil_zip: tuple[Path, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    zip_path, sentinel = evil_zip
    edit, field = EDITS[name]
    model = _evil_model(tmp_path, zip_path, edit)
    with pytest.raises(LearnedModelError) as raised:
        agents.make(f"learned:{model}")
    message = _one_line(str(raised.value))
    assert message.startswith(f"{model}: ") and f": {field}: " in message, message
    assert not sentinel.exists()
    capsys.readouterr()
    assert main(["watch", "duel", "--party", "random", "--monsters", f"learned:{model}"]) == 2
    assert f"{field}: " in _one_line(capsys.readouterr().err)
    assert not sentinel.exists()


def test_a_tournament_with_a_crafted_model_runs_nothing(
        tmp_path: Path, evil_zip: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    zip_path, sentinel = evil_zip
    model = _evil_model(tmp_path, zip_path, _options("learned:{zip}(trust_pickle=true)"))
    capsys.readouterr()
    code = main(["tournament", "--agents", f"random,learned:{model}", "--scenarios", "duel",
                 "--battles", "1", "--workers", "1", "--out", str(tmp_path / "t")])
    assert code == 2
    assert "options[0]" in _one_line(capsys.readouterr().err)
    assert not sentinel.exists()


def test_a_model_may_name_scripted_agents_and_shipped_models() -> None:
    """What a file may name: registered agents that load no file, nested or not, and the
    models shipped with fray (``learned:duel``, data from fray itself)."""
    for spec in ("tactician(step_back=true)", "mcts(rollout=berserker,prior=none)",
                 "per_unit(hero=defender)", "learned:duel", "learned:skirmish",
                 "mcts(rollout=learned:duel)"):
        check_file_spec(spec)


def test_trust_given_by_the_user_still_loads_the_zip(evil_zip: tuple[Path, Path]) -> None:
    """The user's own word is the one way in: a selector that names scripted agents
    loads, and ``learned:ZIP(trust_pickle=true)`` typed by the user is not refused by
    the spec check (the payload itself is shown to run in tests/learned)."""
    assert load_model("skirmish").options == ["tactician", "tactician(step_back=true)",
                                              "defender", "skirmisher"]
    agent = agents.make("learned:skirmish", seed=1)
    assert agent.options == ["tactician", "tactician(step_back=true)", "defender",
                             "skirmisher"]


@pytest.mark.parametrize(("edit", "field"), [
    (lambda d: d.update(options=["nonexistent_agent", "random"]), "options[0]"),
    (lambda d: d.update(options="random"), "options"),
    (lambda d: d.update(advisor=5), "advisor"),
    (lambda d: d.update(option_hold="forever"), "option_hold"),
    (lambda d: d.update(options=["mcts(iterations=1000000000000)", "random"]), "iterations"),
    (lambda d: d.update(options=["mcts(" * 100 + ")" * 100, "random"]), "options[0]"),
])
def test_a_crafted_agent_spec_in_a_model_is_one_line(
        tmp_path: Path, edit: Callable[[dict], None], field: str) -> None:
    model = _evil_model(tmp_path, tmp_path / "none.zip", lambda data, _: edit(data))
    with pytest.raises((LearnedModelError, ValueError)) as raised:
        agents.make(f"learned:{model}")
    assert field in _one_line(str(raised.value))
