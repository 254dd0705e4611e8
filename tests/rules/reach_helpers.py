"""Helpers shared by the reach-graph tests (test_reach.py, test_reach_search.py)."""

from __future__ import annotations

from rules.grid import GridMap, parse_map


def grid(text: str) -> GridMap:
    return parse_map(text, source="test.toml")

