"""Keeping Python's cyclic garbage collector off what every battle shares.

The rules content (tables, dice, specs) and each map's reach graph are tens of thousands
of objects that live as long as the process. CPython's cyclic collector walks every one
of them at each full (oldest-generation) collection: about a fifth of headless time and
pauses of 50-110 ms in the middle of a battle. :func:`freeze_shared` builds them, collects
once and moves everything then alive to the permanent generation (``gc.freeze()``), which
later collections skip; battles made after it are collected as before.

``gc.freeze()`` is process-wide, so it is the program's decision, not a library's:
``rules`` stays pure and the envs do not call it (a user's program embedding them keeps
its own collector settings). fray's own programs call it where a process starts its
work: the battle runner (each local worker and the single-process path), ``fray bench``
and the training env factories. docs/performance.md has the figures.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from pathlib import Path

import rules


def freeze_shared(scenarios: Iterable[str] = (), content_dir: str | Path | None = None
                  ) -> int:
    """Load the content and each of ``scenarios``'s map graph (its first decision), collect
    the garbage, then freeze every object alive; the number of objects frozen in all."""
    names = list(scenarios)
    if names:
        folder = None if content_dir is None else str(content_dir)
        for name in names:
            rules.Battle.from_scenario(name, seed=0, content_dir=folder).legal_actions()
    elif content_dir is None:
        rules.default_content()
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
