"""``fray odds SCENARIO ATTACKER TARGET``: the exact attack odds table (rules.odds)."""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rules (and numpy) load when the command runs, not for --help
    import rules


def _pct(probability: Fraction) -> str:
    return f"{float(probability) * 100:5.1f}%"


def attack_options(battle: rules.Battle, attacker: str, target: str) -> list[rules.Action]:
    """Every attack ``attacker`` could make on ``target`` with what it holds ready: each
    ready weapon normally and as a Full Attack (H17), and unarmed (H19)."""
    from rules import Action
    from rules import ActionKind as K

    c = battle.combatants[attacker]
    out = []
    for inst, w in c.ready_weapons():
        plain = K.MISSILE_ATTACK if w.kind == "missile" else K.MELEE_ATTACK
        out += [Action(plain, target=target, item=inst.uid),
                Action(K.FULL_ATTACK, target=target, item=inst.uid)]
    out.append(Action(K.UNARMED_ATTACK, target=target))
    return out


def table(battle: rules.Battle, attacker: str, target: str, max_damage_columns: int = 12
          ) -> str:
    """A readable table of every attack option against every defence."""
    from rules import odds

    a, t = battle.combatants[attacker], battle.combatants[target]
    lines = [f"{attacker} ({a.name}) attacks {target} ({t.name}, {t.hp}/{t.max_hp} HP, "
             f"armour {t.armour_points} AP, CON {t.char('con')}) in round {battle.round}",
             "Exact probabilities by enumeration of the dice (H2, H6, H7, H9, H10, H5, S24).",
             ""]
    for action in attack_options(battle, attacker, target):
        name = action.kind.name.lower().replace("_", " ")
        weapon = a.item(action.item or "")
        label = f"{name} with {weapon.item}" if weapon is not None else name
        base = odds.attack_odds(battle, action, "none", attacker=attacker)
        lv = "  ".join(f"{level.name.lower()} {_pct(p).strip()}"
                       for level, p in sorted(base.levels.items(), reverse=True))
        lines.append(f"{label}: chance {base.chance}%  ({lv})")
        lines.append(f"  {'defence':<8}{'parry%':>7}{'dodge%':>7}{'E[dmg]':>8}{'wound':>8}"
                     f"{'drop':>8}{'kill':>8}{'bleed':>8}{'prone':>8}   HP lost: probability")
        for defence in odds.DEFENCES:
            o = odds.attack_odds(battle, action, defence, attacker=attacker)
            dist = ", ".join(f"{d}: {_pct(p).strip()}"
                             for d, p in list(o.damage.items())[:max_damage_columns])
            more = " ..." if len(o.damage) > max_damage_columns else ""
            lines.append(
                f"  {defence:<8}{o.parry_chance if o.parry_chance is not None else '-':>7}"
                f"{o.dodge_chance if o.dodge_chance is not None else '-':>7}"
                f"{float(o.expected_damage):>8.2f}{_pct(o.wounds):>8}{_pct(o.drops):>8}"
                f"{_pct(o.kills):>8}{_pct(o.bleeds):>8}{_pct(o.knocked_down):>8}   "
                f"{dist}{more}")
        lines.append("")
    lines.append("A defence the target cannot make now (no parry item, prone, spent) shows '-'.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    import rules
    from experiments.commands import UsageError

    if args.seed < 0:
        raise UsageError(f"--seed: expected a whole number >= 0, got {args.seed}")
    battle = rules.Battle.from_scenario(args.scenario, seed=args.seed,
                                        content_dir=args.content_dir)
    for role, cid in (("ATTACKER", args.attacker), ("TARGET", args.target)):
        if cid not in battle.combatants:
            raise UsageError(f"{role}: expected one of {', '.join(battle.combatants)}, "
                             f"got {cid!r}")
    if args.attacker == args.target:
        raise UsageError("TARGET: expected a combatant other than the attacker")
    print(table(battle, args.attacker, args.target))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("odds", description="Exact odds of every attack the attacker could make on "
                       "the target now, for each defence (none, parry, dodge, both). "
                       "Example: fray odds duel hero orc_1")
    p.add_argument("scenario", help="shipped scenario name or a .toml path")
    p.add_argument("attacker", help="combatant id of the attacker")
    p.add_argument("target", help="combatant id of the target")
    p.add_argument("--seed", type=int, default=1, help="battle seed (initiative, H1 rolls)")
    p.add_argument("--content-dir", default=None, help="a folder of content TOML")
    p.set_defaults(func=run)
