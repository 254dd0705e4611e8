"""Fuzzing: random and restricted play under invariants, generated scenarios,
shrinking failures to replays, exploit analysis."""
