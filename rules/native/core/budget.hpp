// rules/budget.py in C++: what a turn may still spend (S2, S3, H18, H25), as the legal
// actions ask it. Paying for an action stays Python's until the frames' logic is ported.
#pragma once

#include "actions.hpp"
#include "combatant.hpp"
#include "content.hpp"

namespace fray::budget {

using actions::ActionKind;
using actions::Category;

// S2/S3: whether the budget left this turn allows an action of `category` (a MOVE after
// nothing, a MOVE or an ATTACK; an ATTACK after nothing or a MOVE; a FULL action only on
// a whole turn; FREE always).
bool can_spend(const combatant::Combatant& combatant, Category category);

// H25: each voluntary FREE action at most `per_turn` (misc.free_actions_per_turn) times a turn.
bool free_left(const combatant::Combatant& combatant, ActionKind kind, int per_turn);

// H18: a spell's budget category from its casting time (multi-round: full).
Category spell_category(const content::Content& tables, int spell);

}  // namespace fray::budget
