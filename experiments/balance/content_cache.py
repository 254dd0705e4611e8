"""Content a balance process has parsed, kept by the text of its files: the driver's check
of a setting and the batches played in the same process share one parse (and the native
engine its battle template). A leaf of experiments.balance: battles and knobs both read it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import rules

#: content this process has loaded, by the sha256 of its files' names and texts
_CONTENT: dict[str, rules.Content] = {}
_CONTENT_KEPT = 64


def loaded_content(folder: str) -> rules.Content:
    """``rules.load_content(folder)``, parsed once a process for the same files' texts
    wherever they lie (the driver's check of a setting and a batch played in the same
    process share it; the native engine then reuses its battle template too)."""
    digest = hashlib.sha256()
    for path in sorted(Path(folder).glob("*.toml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    key = digest.hexdigest()
    if key not in _CONTENT:
        if len(_CONTENT) >= _CONTENT_KEPT:
            _CONTENT.pop(next(iter(_CONTENT)))
        _CONTENT[key] = rules.load_content(folder)
    return _CONTENT[key]
