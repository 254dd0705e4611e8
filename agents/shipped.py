"""Where the models shipped with fray live (``learned:NAME``), known without loading any:
a leaf module, so :mod:`agents.spec` can tell a shipped model from a stranger's file
without importing the loader (:mod:`agents.learned`), which imports the spec parser."""

from __future__ import annotations

from pathlib import Path

#: The folder of the shipped models (``agents/models/NAME.json`` + ``NAME.pt``).
MODELS_DIR = Path(__file__).resolve().parent / "models"
#: A model's description file; its weights sit beside it.
SUFFIX = ".json"


def shipped_models() -> list[str]:
    """Names of the models shipped in ``agents/models`` (``learned:NAME``)."""
    return sorted(path.stem for path in MODELS_DIR.glob(f"*{SUFFIX}"))
