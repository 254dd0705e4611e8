"""Typed errors of the rules core."""

from __future__ import annotations


class FrayError(Exception):
    """Base class of every error fray raises on purpose."""


class ContentError(FrayError, ValueError):
    """A content or scenario file is malformed.

    The message always reads ``FILE: FIELD: expected EXPECTED, got FOUND`` so a user can
    go straight to the line at fault. The parts are kept as attributes too.
    """

    def __init__(self, file: str, field: str, expected: str, found: object) -> None:
        self.file = file
        self.field = field
        self.expected = expected
        self.found = found
        shown = found if isinstance(found, str) and found.startswith("<") else repr(found)
        super().__init__(f"{file}: {field}: expected {expected}, got {shown}")


class ScenarioError(ContentError):
    """A scenario (map, units, overrides) is malformed."""


class SaveError(ContentError):
    """A saved battle (``Battle.from_json``) is malformed or a state the rules could not
    have built (``rules.save_validation``); a long value is shown cut short."""

    def __init__(self, file: str, field: str, expected: str, found: object) -> None:
        shown = found if isinstance(found, str) and found.startswith("<") else repr(found)
        if len(shown) > 120:
            shown = f"<{shown[:100]}... ({len(shown)} characters)>"
        super().__init__(file, field, expected, shown if shown.startswith("<") else found)


class IllegalActionError(FrayError, ValueError):
    """``Battle.apply`` was given an action not in ``Battle.legal_actions()``.

    The battle is left exactly as it was.
    """


class ForcedDiceError(FrayError, ValueError):
    """A test hook misuse: a forced die face that does not fit its die, or faces forced
    and left unused at the end of their scope (``rules.roller``)."""


class InvariantViolation(Exception):
    """A run-time invariant of the rules failed (``experiments.fuzzing.invariants`` checks
    them in Python, ``rules/native/core/invariants.cpp`` inside the engine); ``name`` is the
    invariant, the message says how. Not a FrayError: it is a bug in the rules, never a
    caller's mistake."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.detail = message
