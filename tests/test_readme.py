"""The README never lies: its two set-up commands come first and CI runs the test one, and
the Python blocks of its tour run and print what their comments promise."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import rules

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.DOTALL)
    assert block is not None, "README has no bash block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_opens_with_two_setup_commands() -> None:
    cmds = readme_commands()
    assert len(cmds) == 2
    assert cmds[0].startswith("pip install") and cmds[0].endswith("fray demo")
    assert "pytest" in cmds[1] and cmds[1].startswith("pip install")


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert readme_commands()[1] in ci
    assert "ruff check ." in ci


def test_ci_requires_the_browser_tests_the_readme_says_how_to_run() -> None:
    """The browser tests skip without Chromium, except in CI, which requires them (set
    before the test command); the README says how to run them."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    required = ci.index("export FRAY_REQUIRE_BROWSER=1")
    assert required < ci.index(readme_commands()[1])
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "apt-get install chromium" in text
    assert "FRAY_REQUIRE_BROWSER=1 python -m pytest -q tests/viewer" in text


def tour_blocks() -> list[str]:
    """The ```python blocks of the README's "A short tour" section, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"## A short tour\n(.*?)\n## ", text, re.DOTALL)
    assert section is not None, "README has no 'A short tour' section"
    return re.findall(r"```python\n(.*?)```", section.group(1), re.DOTALL)


def run_block(code: str) -> tuple[dict[str, Any], list[str]]:
    """Execute one README block; its namespace and the lines it printed."""
    namespace: dict[str, Any] = {"__name__": "readme_tour"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), namespace)  # our own README's code
    return namespace, out.getvalue().splitlines()


def test_the_tour_has_the_rules_and_the_env_blocks() -> None:
    blocks = tour_blocks()
    assert len(blocks) == 2
    assert "agents.make(" in blocks[0] and "acts[0]" not in blocks[0]
    assert "gymnasium.make(" in blocks[1]


def test_the_rules_tour_plays_two_agents_to_the_end_and_prints_it() -> None:
    """Real agents fight: attacks are rolled and the battle ends; it prints the winner and
    the last round, then the last five log lines, the battle's end last."""
    namespace, printed = run_block(tour_blocks()[0])
    battle = namespace["battle"]
    assert battle.is_over and battle.decision is None
    assert any(isinstance(e, rules.AttackRolled) for e in battle.events)
    actors = {e.actor for e in battle.events if isinstance(e, rules.ActionTaken)}
    assert {"hero", "orc_1"} <= actors  # both agents played
    assert printed == [f"{battle.winner} {battle.round}"] + [str(e) for e in battle.events[-5:]]
    assert isinstance(battle.events[-1], rules.BattleEnded)


def test_the_env_tour_takes_a_legal_step() -> None:
    namespace, printed = run_block(tour_blocks()[1])
    assert printed == []
    assert namespace["info"]["illegal_action"] is False
    assert isinstance(namespace["reward"], float)
    namespace["env"].close()


def test_the_plain_sb3_block_trains_with_fray_trains_settings() -> None:
    """The README's plain-sb3 block runs (on 64 steps here: one rollout and its update)
    and gives MaskablePPO the network and batch settings ``fray train`` uses, so its
    figure stays the one ``fray train`` gets."""
    from experiments.train.sb3 import TrainConfig, policy_spec

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(code for code in re.findall(r"```python\n(.*?)```", text, re.DOTALL)
                 if "MaskablePPO(" in code)
    assert "model.learn(total_timesteps=5_000)" in block
    namespace, printed = run_block(block.replace("total_timesteps=5_000",
                                                 "total_timesteps=64"))
    model, defaults = namespace["model"], TrainConfig(scenario="skirmish", out="")
    assert printed == [] and model.num_timesteps == defaults.n_steps
    assert (model.n_steps, model.batch_size, model.n_epochs) == (
        defaults.n_steps, defaults.batch_size, defaults.n_epochs)
    assert model.policy_kwargs == policy_spec("fray")[1]
    namespace["env"].close()


def test_every_gymnasium_make_the_readme_quotes_runs() -> None:
    """Issue 50: `gymnasium.make_vec("fray/Skirmish-v0", num_envs=64)` failed with
    NamespaceNotFound (nothing had imported fray's env package). Each call quoted inline
    runs as written in a fresh interpreter that imported only gymnasium."""
    import os
    import subprocess
    import sys

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    calls = re.findall(r"`(gymnasium\.make(?:_vec)?\(.*?\))`", text, re.DOTALL)
    assert any("make_vec" in call for call in calls)
    for call in calls:
        code = f"import gymnasium\nmade = {' '.join(call.split())}\nmade.reset(seed=0)\n" \
               "made.close()"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                              timeout=300)
        assert done.returncode == 0, (call, done.stderr.splitlines()[-1:])
