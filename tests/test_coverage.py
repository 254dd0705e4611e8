"""The rules coverage table (rule ID -> implementing code -> tests) is complete and current."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments import coverage

ROOT = Path(__file__).resolve().parent.parent
ROWS = coverage.build_table(ROOT)


def test_reference_copy_lists_every_rule() -> None:
    ids = [r.rule for r in ROWS]
    assert ids == [f"S{i}" for i in range(1, 26)] + [f"H{i}" for i in range(1, 26)]


def test_reference_copy_matches_shared_rules_when_present() -> None:
    shared = ROOT.parent / "shared" / "RULES.md"
    if not shared.exists():
        pytest.skip("no shared/RULES.md beside this checkout")
    assert (ROOT / "docs" / "RULES.md").read_text() == shared.read_text()


@pytest.mark.parametrize("row", ROWS, ids=[r.rule for r in ROWS])
def test_every_rule_has_code_and_a_test(row: coverage.RuleRow) -> None:
    assert row.code, f"{row.rule} ({row.title}) is named by no code in rules/"
    assert row.tests, f"{row.rule} ({row.title}) is named by no test"


def test_generated_table_is_current() -> None:
    expected = coverage.render(ROWS)
    actual = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    assert actual == expected, "docs/coverage.md is stale: run `fray coverage`"


def test_the_rules_reference_is_self_contained() -> None:
    """docs/RULES.md names the original sheet by a path beside it; the file is there."""
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    assert "`seed/actions-rules.txt`" in text
    sheet = ROOT / "docs" / "seed" / "actions-rules.txt"
    assert "Free Attack" in sheet.read_text(encoding="utf-8")
