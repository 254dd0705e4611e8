"""Comparing tactics: running battles, tournaments, ladders, sweeps, headroom,
and the statistics, summaries, reports and plots they print."""
