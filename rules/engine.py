"""Which engine runs fray's rules: the native one (``rules._native``, C++) or Python's.

Issue 23. The C++ sources live in ``rules/native/`` (one file per Python rules module) and
are built into the extension module ``rules._native`` by ``pip install -e .`` when the
machine has a C++20 compiler; without one the install still succeeds and the Python core,
which is the reference for the native one, runs everything (docs/architecture.md "Native
engine").

``resolve`` is the one place that picks an engine: the name asked for, else
``FRAY_ENGINE`` from the environment, else native when it is built. Asking for the
native engine (by name or by default) on a machine where it is not built logs one
warning line, once per process, saying why and how to build it, and answers "python".
Importing ``rules`` never warns: only a caller that would use the native engine does.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import logging
import os
from pathlib import Path
from types import ModuleType

ENGINES = ("native", "python")
#: The environment variable that picks the engine when the caller names none.
ENVIRONMENT_VARIABLE = "FRAY_ENGINE"
#: The extension module built from rules/native/.
NATIVE_MODULE = "rules._native"

_log = logging.getLogger("fray.engine")
_loaded: dict[str, ModuleType | None] = {}
_missing_reason: dict[str, str] = {}
_warned: list[bool] = []


def native_file() -> Path | None:
    """The built extension module's file next to this one, or None."""
    folder = Path(__file__).parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if (folder / f"_native{suffix}").is_file():
            return folder / f"_native{suffix}"
    return None


def native_module() -> ModuleType | None:
    """The compiled engine module, or None when it was not built (never warns)."""
    if NATIVE_MODULE not in _loaded:
        try:
            _loaded[NATIVE_MODULE] = importlib.import_module(NATIVE_MODULE)
        except ImportError as error:
            _loaded[NATIVE_MODULE] = None
            _missing_reason[NATIVE_MODULE] = f"{type(error).__name__}: {error}"
    return _loaded[NATIVE_MODULE]


def native_available() -> bool:
    """Whether the native engine is built and importable here."""
    if __name__ != "rules.engine":
        # This file loaded on its own (``fray --version`` by experiments.cli.engine_module,
        # without the rules package and its numpy, which the extension imports): built
        # means its file is here.
        return native_file() is not None
    return native_module() is not None


def rebuild_advice() -> str:
    """How to build the native engine again here: in a checkout (an editable install: its
    C++ sources are next to this file) `pip install -e .`; an installed copy has no
    sources, so fray is reinstalled from its source folder."""
    if (Path(__file__).parent / "native").is_dir():
        return "run `pip install -e .` again in the checkout"
    return ("reinstall fray from its source folder (`pip install --force-reinstall "
            "--no-deps PATH-TO-FRAY`)")


def fallback_message() -> str:
    """The one line logged when the native engine is asked for but not built."""
    reason = _missing_reason.get(NATIVE_MODULE, "it was not built")
    return (f"fray: the native engine is not available ({reason}), so the Python engine "
            "runs (same rules, slower); to build it, install a C++20 compiler (g++ 10 or "
            f"newer, e.g. `apt-get install g++`) and {rebuild_advice()}")


def resolve(engine: str | None = None) -> str:
    """The engine to run: ``engine`` if given, else ``$FRAY_ENGINE``, else "native".

    Raises ValueError for a name that is not an engine. "native" where it is not built
    falls back to "python" with one warning line per process (``fallback_message``).
    """
    source = "engine"
    if engine is None:
        engine = os.environ.get(ENVIRONMENT_VARIABLE) or None
        source = ENVIRONMENT_VARIABLE
    if engine is None:
        engine = "native"
    if engine not in ENGINES:
        raise ValueError(f"{source}: expected 'native' or 'python', got {engine!r}")
    if engine == "native" and not native_available():
        if not _warned:
            _warned.append(True)
            _log.warning(fallback_message())
        return "python"
    return engine


def missing_native(feature: str, what: str) -> str | None:
    """Why the native ``what`` cannot run here (one line), or None when it can: the module
    is not built, or was built before ``what`` existed (it lacks ``feature``)."""
    module = native_module()
    if module is None:
        return fallback_message()
    if not hasattr(module, feature):
        return f"rules._native was built before {what}: {rebuild_advice()}"
    return None


def require_native(feature: str, what: str) -> ModuleType:
    """The compiled module, which must hold ``feature`` (what the native ``what`` needs);
    RuntimeError with ``missing_native``'s line otherwise."""
    reason = missing_native(feature, what)
    if reason is not None:
        raise RuntimeError(reason)
    return native_module()  # type: ignore[return-value]


def describe() -> str:
    """The engine battles run on here, for ``fray --version``: "native", "python (asked
    for by FRAY_ENGINE)" or "python (the native engine is not built: ...)"; never warns."""
    asked = os.environ.get(ENVIRONMENT_VARIABLE) or None
    if asked is not None and asked not in ENGINES:
        return f"none: {ENVIRONMENT_VARIABLE}={asked!r} is not 'native' or 'python'"
    if asked == "python":
        return "python (asked for)"
    if not native_available():
        reason = _missing_reason.get(NATIVE_MODULE, "it was not built")
        return f"python (the native engine is not available: {reason})"
    return "native"
