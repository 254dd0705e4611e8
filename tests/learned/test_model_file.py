"""fray's model format (``agents/model_file.py``, docs/models.md): tensors and a JSON
description, never pickle; the shipped models converted to it play event for event as
before; files that need unpickling are refused in one line unless trusted."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import cloudpickle
import gymnasium as gym
import pytest
import torch

import agents
import env  # noqa: F401  (registers the ids)
import rules
from agents.learned import LearnedModelError, load_model, shipped_models
from agents.model_file import FORMAT_VERSION, load_model_file, save_model_file
from experiments.cli import main
from tests.learned.conftest import save_untrained, untrained_model
from tests.learned.shipped_battles import CASES, battle_lines, case_name, summary

ROOT = Path(__file__).resolve().parents[2]
RECORDED = json.loads((Path(__file__).parent / "shipped_battles.json").read_text())


class _Payload:
    """Unpickling this writes ``sentinel``: what an attacker's model would run."""

    def __init__(self, sentinel: Path) -> None:
        self.sentinel = sentinel

    def __reduce__(self) -> tuple:
        return (os.system, (f"touch {self.sentinel}",))


def _one_line(error: BaseException) -> str:
    text = str(error)
    assert text and "\n" not in text, text
    return text


# ---------------------------------------------------------------- the shipped models
def test_the_shipped_models_are_in_fray_format_only() -> None:
    folder = ROOT / "agents" / "models"
    assert shipped_models() == ["duel", "duel_fair", "skirmish"]
    assert sorted(p.name for p in folder.iterdir()) == [
        "duel.json", "duel.pt", "duel_fair.json", "duel_fair.pt", "skirmish.json",
        "skirmish.pt"]
    skirmish = load_model("skirmish")
    assert skirmish.options == ["tactician", "tactician(step_back=true)", "defender",
                                "skirmisher"]
    assert skirmish.description["policy"]["kind"] == "fray"
    assert skirmish.description["scenario"] == "skirmish"


@pytest.mark.parametrize("case", CASES, ids=case_name)
def test_the_shipped_models_play_event_for_event_as_the_sb3_zips_did(case: tuple) -> None:
    """``shipped_battles.json``: the duel model's battles were recorded with the sb3 zip
    and the old loader before the conversion (commit 495ccda), the skirmish model's when
    the retrained selector was shipped (issue 24, from its run's checkpoint in fray's
    format); the shipped files must play the same events."""
    assert summary(battle_lines(case)) == RECORDED[case_name(case)]


# ---------------------------------------------------------------- round trip
@pytest.mark.parametrize("policy", ["fray", "fray-spatial", "mlp"])
def test_a_saved_policy_loads_with_the_same_weights_and_probabilities(
        tmp_path: Path, policy: str) -> None:
    model = untrained_model("duel", policy)
    path = save_model_file(model.policy, tmp_path / f"{policy}.json", scenario="duel",
                           team="monsters", trained={"steps": 0})
    loaded = load_model_file(path)
    assert type(loaded.policy) is type(model.policy)
    mine, theirs = model.policy.state_dict(), loaded.policy.state_dict()
    assert mine.keys() == theirs.keys()
    assert all(torch.equal(mine[key], theirs[key]) for key in mine)
    battle = rules.Battle.from_scenario("duel", seed=3)
    trusted = tmp_path / "same.zip"
    model.save(trusted)
    sampled = [agents.make(spec, seed=7, deterministic=False)
               for spec in (f"learned:{path}", f"learned:{trusted}(trust_pickle=true)")]
    probabilities = [agent.probabilities(battle)[0] for agent in sampled]
    assert (probabilities[0] == probabilities[1]).all()
    for _ in range(30):
        if battle.is_over:
            break
        actions = [agent.act(battle) for agent in sampled]
        assert actions[0] == actions[1] and actions[0] in battle.legal_actions()
        battle.apply(actions[0])


# ---------------------------------------------------------------- refused files
def _poisoned_zip(tmp_path: Path, sentinel: Path) -> Path:
    """A copy of an sb3 zip whose ``data`` entry carries a cloudpickled payload."""
    plain = tmp_path / "plain.zip"
    untrained_model("duel").save(plain)
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(evil, "w") as target:
        for item in source.infolist():
            content = source.read(item.filename)
            if item.filename == "data":
                data = json.loads(content)
                data["policy_class"][":serialized:"] = base64.b64encode(
                    cloudpickle.dumps(_Payload(sentinel))).decode()
                content = json.dumps(data).encode()
            target.writestr(item, content)
    return evil


def test_a_poisoned_sb3_zip_runs_nothing_and_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sentinel = tmp_path / "ran"
    evil = _poisoned_zip(tmp_path, sentinel)
    with pytest.raises(LearnedModelError) as raised:
        agents.make(f"learned:{evil}")
    assert "trust_pickle=true" in _one_line(raised.value)
    with pytest.raises(ValueError) as raised:
        gym.make("fray/Duel-v0", opponent=f"learned:{evil}")
    assert _one_line(raised.value).startswith(f"opponent: learned:{evil}: a stable-baselines3")
    assert main(["watch", "duel", "--party", f"learned:{evil}", "--monsters", "random"]) == 2
    assert "trust_pickle" in _one_line(RuntimeError(capsys.readouterr().err.strip()))
    assert not sentinel.exists()
    # the payload is real: a user who says they trust the file runs it (in a subprocess)
    code = f"import agents; agents.make('learned:{evil}(trust_pickle=true)')"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert sentinel.exists()


def test_poisoned_weights_are_refused_by_the_tensors_only_loader(tmp_path: Path) -> None:
    sentinel = tmp_path / "ran"
    path = save_untrained("duel", tmp_path / "model.json")
    weights = path.with_suffix(".pt")
    torch.save({"x": _Payload(sentinel)}, weights, pickle_module=cloudpickle)
    description = json.loads(path.read_text())
    description["weights_sha256"] = hashlib.sha256(weights.read_bytes()).hexdigest()
    path.write_text(json.dumps(description))
    with pytest.raises(LearnedModelError) as raised:
        load_model_file(path)
    assert "refused by torch.load(weights_only=True)" in _one_line(raised.value)
    assert not sentinel.exists()


def test_weights_that_are_not_the_described_ones_are_refused(tmp_path: Path) -> None:
    path = save_untrained("duel", tmp_path / "model.json")
    other = save_untrained("skirmish", tmp_path / "other.json")
    shutil.copy(other.with_suffix(".pt"), path.with_suffix(".pt"))
    with pytest.raises(LearnedModelError, match=r"weights_sha256: model\.pt is not the file"):
        load_model_file(path)


def _edited(tmp_path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    path = save_untrained("duel", tmp_path / "model.json")
    description = json.loads(path.read_text())
    edit(description)
    path.write_text(json.dumps(description))
    return path


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(format_version=FORMAT_VERSION + 1), "format_version: expected 1"),
    (lambda d: d.update(format="sb3"), "format: expected 'fray-model', found 'sb3'"),
    (lambda d: d.pop("policy"), "policy: expected a dict"),
    (lambda d: d["policy"].update(kind="transformer"), "policy.kind: expected one of"),
    (lambda d: d["layout"].update(version=0), "layout.version: the model was trained on"),
    (lambda d: d["layout"]["units"].append("wings"), "model only: wings"),
    (lambda d: d["policy"].update(net_arch=[64, 64]), "has shape (128, 256), the described"),
    (lambda d: d["observation_space"]["dict"]["units"].update(box="x"), "malformed space"),
])
def test_a_bad_description_is_a_one_line_error_naming_the_field(
        tmp_path: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LearnedModelError) as raised:
        load_model_file(_edited(tmp_path, edit))
    text = _one_line(raised.value)
    assert message in text and str(tmp_path / "model.json") in text


def test_other_files_are_refused_in_one_line(tmp_path: Path) -> None:
    rllib = tmp_path / "rllib_checkpoint"
    rllib.mkdir()
    (rllib / "rllib_checkpoint.json").write_text("{}")
    path = save_untrained("duel", tmp_path / "model.json")
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    for spec, message in ((rllib, "learned: never loads"),
                          (path.with_suffix(".pt"), "weights alone; give the model's JSON"),
                          (text, "not a fray model")):
        with pytest.raises(LearnedModelError) as raised:
            agents.make(f"learned:{spec}")
        assert message in _one_line(raised.value)


def test_a_model_plays_without_its_suffix_and_renamed_with_its_weights(
        tmp_path: Path) -> None:
    """A model plays by its name with the suffix left off, renamed with its weights."""
    path = save_untrained("duel", tmp_path / "model.json")
    for suffix in (".json", ".pt"):
        shutil.copy(path.with_suffix(suffix), tmp_path / f"renamed{suffix}")
    agent = agents.make(f"learned:{tmp_path / 'renamed'}")
    battle = rules.Battle.from_scenario("duel", seed=1)
    assert agent.act(battle) in battle.legal_actions()
