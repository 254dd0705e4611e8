"""``fray fuzz`` and its invariants: the checks catch broken states, the generator covers
every map glyph, and the command runs, writes as it goes and fails clearly on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rules
from experiments import cli
from experiments.fuzzing import fuzz, generate
from experiments.fuzzing.invariants import (
    EventLimits,
    InvariantViolation,
    MaskCheck,
    check_dodge_choices,
    check_state,
)
from experiments.fuzzing.reproduce import reproduce
from rules.content import default_content
from rules.events import ActionTaken, AttackRolled, DodgeRolled, ParryRolled
from rules.grid import LEGEND
from rules.scenario import resolve_scenario


def _played(scenario: str, seed: int, steps: int) -> rules.Battle:
    b = rules.Battle.from_scenario(scenario, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if b.is_over:
            break
        acts = b.legal_actions()
        b.apply(acts[int(rng.integers(len(acts)))])
    return b


@pytest.mark.parametrize(("field", "value", "name"), [
    ("hp", 99, "hp"), ("actions_used", ["full", "move"], "budget"),
    ("position", (0, 0), "floor"), ("power_points", -1, "power-points"),
    ("free_used", ["shift", "shift"], "free-actions"),
])
def test_check_state_catches_a_broken_state(field: str, value: object, name: str) -> None:
    """Each state invariant fails on a state broken in that one way ((0, 0) is a wall)."""
    b = _played("skirmish", 1, 5)
    check_state(b)
    victim = next(iter(b.combatants.values()))
    setattr(victim, field, value)
    with pytest.raises(InvariantViolation) as caught:
        check_state(b)
    assert caught.value.name == name


def test_two_bodies_on_one_square_are_caught_at_a_turn_decision() -> None:
    b = _played("duel", 2, 0)
    assert b.decision is not None and b.decision.kind is rules.DecisionKind.TURN
    first, second = list(b.combatants.values())[:2]
    second.position = first.position
    with pytest.raises(InvariantViolation, match="one-body-per-square"):
        check_state(b)


def test_mask_check_passes_on_real_play_and_catches_a_stale_codec() -> None:
    """The env's mask equals the legal set through a battle; a codec built for another
    scenario does not."""
    b = rules.Battle.from_scenario("duel", seed=4)
    check = MaskCheck(b.clone())
    rng = np.random.default_rng(0)
    while not b.is_over:
        check.check(b)
        acts = b.legal_actions()
        b.apply(acts[int(rng.integers(len(acts)))])
    other = MaskCheck(rules.Battle.from_scenario("duel", seed=4))
    crypt = rules.Battle.from_scenario("crypt", seed=4)
    with pytest.raises((InvariantViolation, KeyError)):
        other.check(crypt)


def test_a_checked_run_replays_identically_from_its_choices() -> None:
    text = rules.scenario.resolve_scenario("skirmish").read_text(encoding="utf-8")
    case = fuzz.Case(text, "skirmish.toml", 5)
    checks = fuzz.Checks(clone_every=7, json_every=60)
    first = fuzz.run(case, fuzz.agent_chooser(case.battle(), {"party": "berserker"}, 5),
                     checks)
    assert first.failure is None and first.battle.is_over
    again = fuzz.run_choices(case, first.choices, checks)
    assert again.failure is None
    assert again.battle.events == first.battle.events
    assert reproduce(first.replay).battle.events == first.battle.events


@pytest.mark.parametrize("engine", ["python", "native"])
def test_cases_of_one_text_share_its_parse_and_start_as_from_toml(engine: str) -> None:
    if engine == "native" and not rules.engine.native_available():
        pytest.skip("the native engine is not built")
    text = resolve_scenario("skirmish").read_text(encoding="utf-8")
    first = fuzz.Case(text, "skirmish.toml", 11).battle(engine=engine)
    second = fuzz.Case(text, "skirmish.toml", 12).battle(engine=engine)
    assert first.scenario is second.scenario  # parsed once
    content = default_content()
    for battle, seed in ((first, 11), (second, 12)):  # as from a parse of its own
        fresh = rules.parse_scenario(text, source="skirmish.toml", content=content)
        assert fresh is not battle.scenario
        assert battle.engine == engine
        assert battle.to_dict() == rules.Battle(fresh, seed, content, None,
                                                engine=engine).to_dict()
    broken = fuzz.Case(text.replace("[[units]]", "[[unit]]", 1), "broken.toml", 1)
    for _ in range(2):  # a text that does not parse raises every time
        with pytest.raises(rules.ScenarioError):
            broken.battle()


def test_generated_scenarios_parse_and_cover_every_glyph() -> None:
    """Every generated map holds every glyph, except the crowded rooms and the cavalry
    corridors."""
    content = rules.default_content()
    rng = np.random.default_rng(3)
    kinds = set()
    for i in range(30):
        data = generate.random_scenario(rng, content, name=f"g{i}")
        text = generate.scenario_toml(data)
        assert generate.scenario_data(text) == data  # the TOML writer round-trips
        scenario = rules.parse_scenario(text, source=f"g{i}", content=content)
        map_text = "".join(generate.map_rows(data))
        kind = data["description"].removeprefix("randomly generated ")
        assert kind != "(every map glyph)" or set(LEGEND) <= set(map_text)
        assert len(scenario.teams) >= 2
        kinds.add(kind)
    assert kinds == {"(every map glyph)", "(a crowded room)", "(a cavalry corridor)"}


def test_cavalry_corridors_put_riders_behind_allies_beside_enemies() -> None:
    """H13/H22: each corridor has a rider on its mount at the near end, allies on foot
    in the corridor ahead of it, and an enemy next to an ally's square, so a mounted
    move passes an ally's square under a Free Attack."""
    content = rules.default_content()
    rng = np.random.default_rng(5)
    for i in range(10):
        data = generate.corridor_scenario(rng, content, name=f"c{i}")
        units = data["units"]
        riders = [u for u in units if "riding" in u and u["team"] == "party"]
        walkers = [u for u in units if u["team"] == "party" and "riding" not in u
                   and not content.creatures[u["creature"]].mount]
        enemies = [u for u in units if u["team"] == "monsters"]
        assert riders and walkers and enemies
        assert all(r["at"][0] < w["at"][0] for r in riders for w in walkers)
        assert any(max(abs(e["at"][0] - w["at"][0]), abs(e["at"][1] - w["at"][1])) == 1
                   for e in enemies for w in walkers)


@pytest.mark.parametrize("every_event", [True, False])
def test_every_event_check_sees_two_bodies_on_one_square_inside_an_action(
        every_event: bool) -> None:
    """Checks.every_event runs check_bodies after each event: a state that is right again
    by the end of the action is still caught in the middle of it. (The Python engine's
    event hook; on the native engine the engine checks, the next test.)"""
    from rules.events import StatusChanged

    battle = rules.Battle.from_scenario("duel", seed=1, engine="python")
    checker = fuzz.Checker(battle, fuzz.Checks(mask=False, clone_every=0, json_every=0,
                                               every_event=every_event))
    checker.start(battle)
    first, second = list(battle.combatants.values())[:2]
    home = first.position
    first.position = second.position  # what a rule bug would do, then undo
    if every_event:
        with pytest.raises(InvariantViolation, match="one-body-per-square"):
            battle.emit(StatusChanged, actor=first.id, status="here", cause="test")
    else:
        battle.emit(StatusChanged, actor=first.id, status="here", cause="test")
    first.position = home
    battle.emit(StatusChanged, actor=first.id, status="back", cause="test")
    assert [e.status for e in battle.events[-2:]] == ["here", "back"]


@pytest.mark.skipif(not rules.engine.native_available(),
                    reason="the native engine (rules._native) is not built")
def test_the_native_engine_checks_the_bodies_after_every_event() -> None:
    """On a native battle the checker has the engine check the bodies after every event
    of a step (rules/native/core/invariants.cpp): the first event of the next step sees them."""
    battle = rules.Battle.from_scenario("duel", seed=1, engine="native")
    fuzz.Checker(battle, fuzz.Checks(mask=False, clone_every=0, json_every=0)).start(battle)
    first, second = list(battle.combatants.values())[:2]
    first.position = second.position  # what a rule bug would do
    with pytest.raises(InvariantViolation, match="one-body-per-square"):
        battle.apply(battle.legal_actions()[0])


def test_every_event_check_sees_a_moved_event_whose_actor_stands_elsewhere() -> None:
    """True logs (issue 47): after a Moved event its actor stands on the event's last
    square; the event hook catches one that does not."""
    from rules.events import Moved

    battle = rules.Battle.from_scenario("duel", seed=1, engine="python")
    fuzz.Checker(battle, fuzz.Checks(mask=False, clone_every=0, json_every=0)).start(battle)
    first = next(iter(battle.combatants.values()))
    here = first.position
    battle.emit(Moved, actor=first.id, path=(here,), cost=0, complete=False)
    with pytest.raises(InvariantViolation, match="moved-where-it-stands"):
        battle.emit(Moved, actor=first.id, path=(here, (here[0] + 1, here[1])), cost=1,
                    complete=True)


@pytest.mark.parametrize("engine", rules.engine.ENGINES)
def test_the_cavalry_finding_logs_the_landing_and_the_way_back_truly(engine: str) -> None:
    """Issue 47: in tests/fuzz_findings/cavalry-overlap.json (action 335) horse_1 dodges
    prone under knight_1 and throws it; the landing is knight_1's Moved event, the way
    back horse_1's, and every Moved event's actor stands on its last square (the
    checker's every-event checks, on either engine)."""
    if engine == "native" and not rules.engine.native_available():
        pytest.skip("the native engine (rules._native) is not built")
    from experiments.replay import Replay
    from rules.events import Moved, StatusChanged

    replay = Replay.load(Path(__file__).parent.parent / "fuzz_findings" / "cavalry-overlap.json")
    case = fuzz.Case.of_replay(replay)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(rules.engine.ENVIRONMENT_VARIABLE, engine)
        outcome = fuzz.run(case, fuzz.action_chooser(replay.actions),
                           fuzz.Checks(mask=False, clone_every=0, json_every=0))
    assert outcome.failure is None and outcome.decisions == 335
    battle = outcome.battle
    assert (battle._driver is not None) == (engine == "native")
    tail = battle.events[-8:]
    assert isinstance(tail[1], StatusChanged) and tail[1].cause == "unseated"
    assert tail[2] == Moved(14, "knight_1", ((3, 6), (2, 5)), 0, True)  # the landing
    assert tail[-2:] == [Moved(14, "horse_1", ((4, 5),), 0, False),  # the way back
                         Moved(14, "knight_1", ((2, 5),), 0, False)]
    assert battle.combatants["knight_1"].position == (2, 5)
    assert battle.combatants["horse_1"].position == (4, 5)


def test_fuzz_command_runs_and_writes_every_battle(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fuzz"
    code = cli.main(["fuzz", "--seconds", "120", "--battles", "4", "--generated",
                     "--seed", "2", "--out", str(out)])
    printed = capsys.readouterr().out
    lines = [json.loads(x) for x in (out / "battles.jsonl").read_text().splitlines()]
    assert len(lines) == 4
    assert any(x["scenario"].startswith("<generated") for x in lines)
    assert "decisions/s" in printed
    assert code == (1 if any(x["failure"] for x in lines) else 0)


@pytest.mark.parametrize(("argv", "message"), [
    (["--seconds", "0"], "--seconds: expected a positive number"),
    (["--seed", "-1"], "--seed: expected a whole number >= 0"),
    (["--battles", "0"], "--battles: expected a positive whole number"),
    (["--agents", "nobody"], "unknown agent 'nobody'"),
    (["--content-dir", "/no/such/dir"], "--content-dir: expected a folder"),
])
def test_fuzz_bad_arguments_are_one_line(argv: list[str], message: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["fuzz", *argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_more_than_two_hands_of_ready_items_are_caught() -> None:
    b = _played("skirmish", 1, 0)
    check_state(b)
    victim = max(b.combatants.values(), key=lambda c: sum(
        b.content.hands_of(i.item) for i in c.inventory))
    for inst in victim.inventory:
        inst.state = "ready"
    assert victim.hands_used() > 2
    with pytest.raises(InvariantViolation, match="hands"):
        check_state(b)


def test_a_generated_scenario_rejected_for_its_seed_is_a_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the battle (not the parser) rejects a generated scenario, the campaign
    writes the scenario as a finding and goes on."""
    from experiments.fuzzing import fuzz_campaign

    real = fuzz.Case.battle

    def seed_dependent(case: fuzz.Case) -> rules.Battle:
        if case.source.startswith("<generated"):
            raise rules.ScenarioError(case.source, "units[0] (a).power_points",
                                      "an integer up to the rolled POW", 13)
        return real(case)

    monkeypatch.setattr(fuzz.Case, "battle", seed_dependent)
    summary = fuzz_campaign.campaign(tmp_path, seconds=300, battles=4, generated=True,
                                     agent_pool=["random"])
    assert summary.battles == 4
    assert [f.failure.signature for f in summary.found] == [("scenario", "power_points", "")]
    written = summary.found[0].path.read_text()
    assert written.startswith("# fray fuzz: parse_scenario accepts")
    assert "[[units]]" in written


def _dodge(round_: int, who: str, disadvantage: str) -> DodgeRolled:
    square = None if disadvantage in ("prone", "none") else (1, 1)
    return DodgeRolled(round=round_, defender=who, chance=40, roll=10, level="success",
                       square=square, disadvantage=disadvantage)


@pytest.mark.parametrize(("events", "name"), [
    ([ActionTaken(round=1, actor="a", action="SHIFT square=(1, 1)"),
      ActionTaken(round=1, actor="a", action="SHIFT square=(2, 1)")], "shift"),
    ([ActionTaken(round=2, actor="a", action="MOVE square=(4, 1)"),
      ActionTaken(round=2, actor="a", action="SHIFT square=(5, 1)")], "shift"),
    ([_dodge(3, "a", "shift"),
      ActionTaken(round=3, actor="a", action="FULL_MOVE square=(6, 1)")], "shift"),
    ([AttackRolled(round=1, attacker="b", target="a", weapon="spear", mode="free",
                   chance=50, roll=3, level="success"),
      AttackRolled(round=1, attacker="b", target="c", weapon="spear", mode="free",
                   chance=50, roll=3, level="success")], "free-attack-limit"),
    ([ParryRolled(round=4, defender="a", item="a.shield", chance=50, roll=9,
                  level="success"),
      ParryRolled(round=4, defender="a", item="a.shield", chance=50, roll=9,
                  level="success")], "parry-limit"),
])
def test_event_limits_catch_a_second_use_in_one_round(events: list[rules.Event],
                                                      name: str) -> None:
    limits = EventLimits(rules.Battle.from_scenario("duel", seed=1))
    limits.feed(events[:1])
    with pytest.raises(InvariantViolation) as caught:
        limits.feed(events[1:])
    assert caught.value.name == name


def test_event_limits_allow_what_the_rules_allow() -> None:
    """Shifts in two rounds, a fall-prone dodge after a Shift, a second parry after
    Fight Defensively, a move after a saddle throw."""
    limits = EventLimits(rules.Battle.from_scenario("duel", seed=1))
    limits.feed([
        ActionTaken(round=1, actor="a", action="SHIFT square=(1, 1)"),
        _dodge(1, "a", "prone"),
        ActionTaken(round=2, actor="a", action="SHIFT square=(2, 1)"),
        ActionTaken(round=2, actor="b", action="FIGHT_DEFENSIVELY"),
        ParryRolled(round=2, defender="b", item="b.shield", chance=50, roll=9,
                    level="success"),
        ParryRolled(round=2, defender="b", item="b.shield", chance=50, roll=9,
                    level="success"),
        _dodge(3, "c", "saddle"),
        ActionTaken(round=3, actor="c", action="MOVE square=(3, 3)"),
    ])


def test_dodge_choices_must_be_free_neighbours_no_closer_to_the_attacker() -> None:
    b = rules.Battle.from_scenario("duel", seed=1)
    defender, attacker = list(b.combatants.values())[:2]
    x, y = defender.position
    away = (x + (1 if attacker.position[0] < x else -1), y)
    dodge, decline = rules.ActionKind.DODGE, rules.ActionKind.DECLINE
    ok = [rules.Action(dodge, square=away), rules.Action(dodge), rules.Action(decline)]
    if b.grid.blocks_movement(away):
        ok = ok[1:]
    check_dodge_choices(b, defender, attacker, ok)
    for bad in ([rules.Action(dodge, square=(x + 3, y)), rules.Action(decline)],
                [rules.Action(dodge), rules.Action(dodge), rules.Action(decline)],
                [rules.Action(dodge)]):
        with pytest.raises(InvariantViolation, match="dodge-choices"):
            check_dodge_choices(b, defender, attacker, bad)


def test_fuzz_plays_with_a_content_dir(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """--content-dir: the battles load that folder (a copy of the shipped content) and
    pass every check."""
    import shutil

    content = tmp_path / "content"
    shutil.copytree(Path(rules.__file__).parent / "data", content)
    out = tmp_path / "fuzz"
    code = cli.main(["fuzz", "--battles", "1", "--seconds", "300", "--agents", "random",
                     "--content-dir", str(content), "--out", str(out)])
    assert code == 0, capsys.readouterr().out
    line = json.loads((out / "battles.jsonl").read_text().splitlines()[0])
    assert line["failure"] is None and line["decisions"] > 0


def test_the_mask_sweep_catches_a_mask_with_one_index_moved(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A mask with as many ones as legal actions, but one in the wrong place."""
    b = rules.Battle.from_scenario("duel", seed=4)
    check = MaskCheck(b.clone(), samples=0, sweep_every=1)
    check.check(b)
    real = check.codec.mask(b)
    moved = real.copy()
    on, off = int(np.flatnonzero(real)[0]), int(np.flatnonzero(real == 0)[0])
    moved[on], moved[off] = 0, 1
    monkeypatch.setattr(check.codec, "mask", lambda battle: moved)
    with pytest.raises(InvariantViolation, match="mask"):
        check.check(b)


def test_a_killed_campaign_resumes_to_the_same_battles(tmp_path: Path) -> None:
    """A campaign killed after 4 battles (a half-written fifth line) and resumed with
    --resume logs the same battles as one never killed; other settings are refused."""
    from experiments import cli

    args = ["fuzz", "--seconds", "600", "--battles", "10", "--generated", "--seed", "6"]
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    assert cli.main([*args, "--workers", "2", "--out", str(whole)]) == 0
    lines = (whole / "battles.jsonl").read_text().splitlines(keepends=True)
    killed.mkdir()
    (killed / "battles.jsonl").write_text("".join(lines[:4]) + lines[4][:20])
    (killed / "campaign.json").write_text((whole / "campaign.json").read_text())
    assert cli.main([*args[:-1], "7", "--resume", "--out", str(killed)]) == 2
    assert cli.main([*args, "--resume", "--out", str(killed)]) == 0
    assert (killed / "battles.jsonl").read_text().splitlines(keepends=True) == lines


def test_a_campaign_on_workers_reports_progress_per_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The battles of a batch are logged (and the progress callback called) as soon as
    the batch is in, not when the whole round is: here the first battles are reported
    before the round's second batch is played, and the log is the one-process log."""
    from experiments.fuzzing import fuzz_distributed

    events: list[str] = []
    check_batch = fuzz_distributed.check_batch
    monkeypatch.setattr(fuzz_distributed, "check_batch",
                        lambda batch: events.append("batch") or check_batch(batch))
    summary = fuzz_distributed.campaign(
        tmp_path / "batched", seconds=600, battles=2 * fuzz_distributed.BATCH, seed=4,
        workers=1, on_battle=lambda summary: events.append("battle"))
    assert events[0] == "batch" and events.count("batch") == 2
    assert events.index("battle") < events.index("batch", 1)
    assert events.count("battle") == summary.battles == 2 * fuzz_distributed.BATCH
    from experiments.fuzzing.fuzz_campaign import campaign

    campaign(tmp_path / "one", seconds=600, battles=summary.battles, seed=4)
    assert (tmp_path / "batched" / "battles.jsonl").read_text() == \
        (tmp_path / "one" / "battles.jsonl").read_text()
