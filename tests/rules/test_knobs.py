"""Every knob does something (issue 47): each number of rules/data/ruleset.toml, nudged one
step (tests/rules/knob_battles.py), changes the events of a seeded battle, identically on
both engines; a knob no battle shows is listed with its reason; a new knob with neither
fails. The battles were found offline (``python tests/rules/knob_battles.py``) and are
hard-coded here, so the test plays only them (a Showing of 1 decision may show at the
start already: initiative, the first bleeding)."""

from __future__ import annotations

from pathlib import Path

import pytest
from knob_battles import Showing, events_of, numeric_knobs, scenario_text, variant_folder

import rules.engine

#: knob -> the battle that shows it (found by knob_battles.py).
SHOWN: dict[str, Showing] = {
    "success.critical_divisor": Showing("cavalry", 0, 237),
    "success.special_divisor": Showing("horde", 0, 422),
    "success.fumble_divisor": Showing("crypt", 0, 472),
    "hit_points.out_of_action_at": Showing("ambush", 0, 264),
    "initiative.dex_bonus_base": Showing("ambush", 0, 1),
    "initiative.dex_bonus_divisor": Showing("ambush", 0, 1),
    "initiative.impaired_factor": Showing("generated:1", 0, 1),
    "movement.move_divisor": Showing("ambush", 0, 1),
    "movement.diagonal_costs": Showing("ambush", 0, 1),
    "movement.difficult_multiplier": Showing("ambush", 0, 1),
    "movement.min_mov": Showing("long_fight", 0, 53),
    "encumbrance.str_offset": Showing("generated:4", 0, 1, step=-1),
    "encumbrance.divisor": Showing("generated:4", 0, 1),
    "encumbrance.threshold_fraction": Showing("generated:4", 0, 1),
    "encumbrance.factor": Showing("generated:1", 0, 6),
    "burden.none.skill_factor": Showing("casters", 0, 182),
    "burden.none.mov_penalty": Showing("casters", 0, 1),
    "burden.none.magic_fumble": Showing("generated:0", 1, 49),
    "burden.light.skill_factor": Showing("ambush", 0, 53),
    "burden.light.mov_penalty": Showing("ambush", 0, 1),
    "burden.moderate.skill_factor": Showing("ambush", 0, 841),
    "burden.moderate.mov_penalty": Showing("ambush", 0, 9),
    "burden.moderate.magic_fumble": Showing("generated:12", 1, 17),
    "burden.heavy.skill_factor": Showing("generated:3", 0, 9),
    "burden.heavy.mov_penalty": Showing("generated:1", 0, 9),
    "fatigue.con_multiplier": Showing("long_fight", 0, 29),
    "fatigue.fatigued_factor": Showing("long_fight", 0, 1),
    "fatigue.exhausted_factor": Showing("long_fight", 0, 41),
    "damage_bonus.table": Showing("ambush", 1, 173, step=-1),
    "modifiers.prone_target_melee": Showing("ambush", 0, 264),
    "modifiers.prone_attacker_melee": Showing("ambush", 0, 264),
    "modifiers.prone_target_missile": Showing("ambush", 0, 534),
    "modifiers.long_range": Showing("horde", 1, 220),
    "modifiers.long_range_factor": Showing("cavalry", 0, 70),
    "modifiers.full_attack": Showing("ambush", 0, 53),
    "modifiers.dark_factor": Showing("crypt", 0, 178),
    "defence.parry_special_factor": Showing("duel", 0, 9, step=-1),
    "defence.dodge_success_reduction": Showing("crypt", 0, 635),
    "defence.parries_per_round": Showing("casters", 0, 181, step=-1),
    "resistance.base": Showing("ambush", 0, 261),
    "resistance.step": Showing("ambush", 0, 261),
    "poison.snake_con_multiplier": Showing("snake_pit", 1, 106),
    "falling.feet_per_die": Showing("snake_pit", 0, 1),
    "misc.bleed_per_round": Showing("long_fight", 0, 1),
    "misc.torch_radius": Showing("crypt", 0, 178),
    "misc.free_actions_per_turn": Showing("ambush", 0, 3),
    "misc.reach_squares.S": Showing("ambush", 0, 463),
    "misc.reach_squares.M": Showing("ambush", 0, 10),
    "misc.reach_squares.L": Showing("generated:14", 0, 1),
    "misc.default_drop_depth_ft": Showing("snake_pit", 0, 193),
    "misc.failed_cast_cost": Showing("casters", 0, 97),
    "skills.dagger.base": Showing("generated:11", 0, 104),
    "skills.sword.base": Showing("generated:12", 0, 8),
    "skills.mace.base": Showing("generated:5", 1, 33),
    "skills.hammer.base": Showing("generated:3", 0, 27),
    "skills.spear.base": Showing("ambush", 1, 841),
    "skills.brawl.base": Showing("casters", 0, 887),
    "skills.grapple.base": Showing("ambush", 0, 538),
    "skills.ride.base": Showing("generated:2", 0, 30),
    "skills.first_aid.base": Showing("ambush", 0, 280),
    "skills.jump.base": Showing("snake_pit", 0, 7),
    "skills.cast.base": Showing("generated:0", 1, 85),
}

#: the reasons two groups of skills share
OWN = ("every unit that uses it has its own value in creatures.toml (the base fills only "
       "a skill a creature lacks)")
NONE = "no rule of a battle rolls it"

#: knob -> why no battle of the search shows a one-step nudge (either way).
NOT_SHOWN: dict[str, str] = {
    "success.success_cap": (
        "one step up is masked (rolls of 96 and more fail by auto_fail_min), one step down "
        "differs only for a chance of 95% or more on a roll of 95: no searched battle rolls one"),
    "success.auto_success_max": "differs only for a chance below 6%: no searched battle rolls one",
    "success.auto_fail_min": (
        "one step up is masked (success_cap 95), one step down differs only for a chance of 95%"
        " or more: no searched battle rolls one"),
    "movement.square_feet": (
        "read by no rule on either engine (drops are given in feet, falling.feet_per_die): it "
        "documents the 5-ft square of S7 and S25"),
    "burden.light.magic_fumble": (
        "only a caster in light armour casting: no searched battle has one"),
    "burden.heavy.magic_fumble": (
        "only a caster in heavy armour casting: no searched battle has one"),
    "fatigue.rounds_per_check": (
        "the loader ties time.exploration_turn_seconds = rounds_per_check x seconds_per_round: "
        "one alone is refused"),
    "fatigue.rest_rounds_fatigued": (
        "read only by Battle.rest, after a battle (S21: 300 rounds of rest), never by a "
        "battle's events"),
    "fatigue.rest_rounds_exhausted": (
        "read only by Battle.rest, after a battle (S21: 2,400 rounds of rest), never by a "
        "battle's events"),
    "time.seconds_per_round": (
        "the loader ties time.exploration_turn_seconds = fatigue.rounds_per_check x "
        "seconds_per_round: one alone is refused"),
    "time.exploration_turn_seconds": (
        "the loader ties it to fatigue.rounds_per_check x seconds_per_round: one alone is "
        "refused"),
    "damage_bonus.step": "only beyond the table's last row (STR+SIZ over 56): no unit is that big",
    "defence.parry_wear": "only a parry the damage exceeds (ItemWorn): no searched battle has one",
    "defence.dodge_special_reduction": (
        "only a special dodge (a roll of a fifth of the chance) against damage it changes: no "
        "searched battle has one"),
    "defence.fight_defensively_extra_parries": (
        "only a second parry in a round after Fight Defensively: no searched battle has one"),
    "poison.con_multiplier": (
        "only a poison that is not a snake's: the content has none (snake_bite is a snake's)"),
    "skills.axe.base": OWN,
    "skills.bite.base": OWN,
    "skills.claw.base": OWN,
    "skills.kick.base": OWN,
    "skills.bow.base": OWN,
    "skills.crossbow.base": OWN,
    "skills.sling.base": OWN,
    "skills.throw.base": OWN,
    "skills.shield.base": OWN,
    "skills.dodge.base": OWN,
    "skills.sleight.base": ("rolled only to draw a hidden item (effects._ready): no searched "
                            "battle has one"),
    "skills.listen.base": NONE,
    "skills.spot.base": NONE,
    "skills.lockpicking.base": NONE,
    "skills.instrument.base": NONE,
    "skills.acrobatics.base": ("rolled in a fall only when it beats Jump (S23, the best of "
                               "falling.reduction_skills): no searched battle shows it"),
}


def test_every_numeric_knob_is_shown_by_a_battle_or_listed_with_a_reason() -> None:
    knobs = set(numeric_knobs())
    assert not set(SHOWN) & set(NOT_SHOWN)
    missing = sorted(knobs - set(SHOWN) - set(NOT_SHOWN))
    assert not missing, (f"knobs with neither a showing battle nor a reason: {missing} "
                         "(run python tests/rules/knob_battles.py KNOB)")
    gone = sorted((set(SHOWN) | set(NOT_SHOWN)) - knobs)
    assert not gone, f"listed knobs the ruleset no longer has: {gone}"


@pytest.mark.parametrize("knob", sorted(SHOWN))
def test_the_knob_changes_a_battle_alike_on_both_engines(knob: str,
                                                         tmp_path: Path) -> None:
    showing = SHOWN[knob]
    text = scenario_text(showing.scenario)
    folder = str(variant_folder(knob, tmp_path / "variant", showing.step))
    fast = "native" if rules.engine.native_available() else "python"
    nudged = {engine: events_of(text, showing.seed, showing.decisions, folder, engine)
              for engine in {"python", fast}}
    shipped = events_of(text, showing.seed, showing.decisions, None, fast)
    assert nudged["python"] != shipped, f"{knob} nudged changes nothing here"
    assert nudged[fast] == nudged["python"]  # identically on both engines
    if showing.decisions > 1:  # the fewest decisions: one fewer shows no change yet
        before = showing.decisions - 1
        assert (events_of(text, showing.seed, before, folder, fast)
                == events_of(text, showing.seed, before, None, fast))
